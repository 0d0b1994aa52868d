//! The LINE channel: its credentials, the key that signs buttons, the API addresses.

use clap::Args;

use super::Secret;

/// The LINE channel hearth speaks through.
#[derive(Debug, Clone, Args)]
pub struct LineSettings {
    /// LINE channel secret (Messaging API tab of the LINE Developers console); verifies webhooks.
    #[arg(
        long,
        env = "LINE_CHANNEL_SECRET",
        default_value = "",
        hide_default_value = true,
        hide_env_values = true,
        global = true
    )]
    pub line_channel_secret: Secret,
    /// LINE channel access token (long-lived); authorises replies and pushes.
    #[arg(
        long,
        env = "LINE_CHANNEL_ACCESS_TOKEN",
        default_value = "",
        hide_default_value = true,
        hide_env_values = true,
        global = true
    )]
    pub line_channel_access_token: Secret,
    /// Key that signs the data of buttons that change state (cancel, done…); derived from the
    /// channel secret when not set. Changing it invalidates the buttons of earlier cards.
    #[arg(
        long,
        env = "HEARTH_POSTBACK_KEY",
        default_value = "",
        hide_default_value = true,
        hide_env_values = true,
        global = true
    )]
    pub postback_key: Secret,
    /// Base URL of the LINE Messaging API.
    #[arg(long, env = "LINE_API_BASE", default_value = "https://api.line.me", global = true)]
    pub line_api_base: String,
    /// Base URL of LINE's content API (photos, voice messages and files sent to hearth).
    #[arg(
        long,
        env = "LINE_DATA_API_BASE",
        default_value = "https://api-data.line.me",
        global = true
    )]
    pub line_data_api_base: String,
}
