//! `hearth chats`, `approve`, `revoke` and `pair`: the operator's side of the one door, each a
//! call of [`crate::door::Door`] over the configured store.

use std::sync::Arc;

use crate::door::Door;
use crate::platform::clock::{Clock, SystemClock};
use crate::platform::config::Config;
use crate::store::Store;
use crate::turn::limits::access;

/// The door over the configured store, on the system clock.
pub async fn door(config: &Config) -> anyhow::Result<Door> {
    let store = Store::connect(&config.store.database_url).await?;
    let clock: Arc<dyn Clock> = Arc::new(SystemClock);
    Ok(Door::from_settings(store, clock, &config.access))
}

/// Every chat hearth has heard from, as a table.
pub async fn chats(door: &Door) -> anyhow::Result<String> {
    Ok(access::render_chats(&door.chats().await?))
}

/// Approves the chat `typed` names; what to tell the operator.
pub async fn approve(door: &Door, typed: &str) -> anyhow::Result<String> {
    let id = access::chat_id(typed)?;
    door.approve(&id, "cli", jiff::Timestamp::now().as_millisecond()).await?;
    Ok(format!("{id} is approved: hearth serves it from now on"))
}

/// Revokes the chat `typed` names; what to tell the operator.
pub async fn revoke(door: &Door, typed: &str) -> anyhow::Result<String> {
    let id = access::chat_id(typed)?;
    let ended = door.revoke(&id, jiff::Timestamp::now().as_millisecond()).await?;
    Ok(format!(
        "{id} is revoked: hearth stops serving it within half a minute ({ended} family-page sessions ended; its reminders, alerts and plans are kept, not pushed, until `hearth approve`)"
    ))
}

/// A new pairing code, kept (hashed) for [`access::PAIRING_VALID`].
pub async fn pair(door: &Door) -> anyhow::Result<String> {
    let code = access::new_pairing_code();
    let normalised = access::pairing_code_in(&code).unwrap_or_default();
    let now = jiff::Timestamp::now().as_millisecond();
    let expires = now + i64::try_from(access::PAIRING_VALID.as_millis()).unwrap_or(i64::MAX);
    door.add_pairing_code(&access::code_hash(&normalised), now, expires).await?;
    Ok(code)
}
