//! THE list of tools. Adding a tool is one new file in `src/tools/` and one line here; the name
//! map, the definitions sent to the LLM and dispatch all derive from this list.

pub mod forget;
pub mod fx;
pub mod get_quote;
pub mod list_memories;
pub mod recap;
pub mod remember;
pub mod weather;

use crate::registry::{Registry, RegistryError};
use crate::sources::Sources;
use crate::store::Store;

/// Builds the production registry over the configured data sources and the store.
pub fn registry(sources: &Sources, store: &Store) -> Result<Registry, RegistryError> {
    Registry::builder()
        .tool(weather::Weather::new(sources.weather.clone()))
        .tool(fx::Fx::new(sources.fx.clone()))
        .tool(get_quote::GetQuote::new(sources.quotes.clone()))
        .tool(recap::Recap::new(store.clone()))
        .tool(remember::Remember::new(store.clone()))
        .tool(forget::Forget::new(store.clone()))
        .tool(list_memories::ListMemories::new(store.clone()))
        .build()
}
