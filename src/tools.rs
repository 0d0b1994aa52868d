//! THE list of tools. Adding a tool is one new file in `src/tools/` and one line here; the name
//! map, the definitions sent to the LLM and dispatch all derive from this list.

pub mod fx;
pub mod get_quote;
pub mod weather;

use crate::registry::{Registry, RegistryError};
use crate::sources::Sources;

/// Builds the production registry over the configured data sources.
pub fn registry(sources: &Sources) -> Result<Registry, RegistryError> {
    Registry::builder()
        .tool(weather::Weather::new(sources.weather.clone()))
        .tool(fx::Fx::new(sources.fx.clone()))
        .tool(get_quote::GetQuote::new(sources.quotes.clone()))
        .build()
}
