//! The family calendar's own calendar server (CalDAV), which hearth can keep in step.

use clap::Args;

use super::Secret;

/// The family's calendar server.
#[derive(Debug, Clone, Args)]
pub struct CalendarSettings {
    /// The family's CalDAV server: the home under which hearth keeps one calendar per chat
    /// (Radicale: `https://host:5232/<user>/`; Nextcloud:
    /// `https://host/remote.php/dav/calendars/<user>/`). Empty: no calendar server.
    #[arg(long, env = "HEARTH_CALDAV_URL", default_value = "", global = true)]
    pub caldav_url: String,
    /// The user name hearth signs in with there (empty: none).
    #[arg(long, env = "HEARTH_CALDAV_USER", default_value = "", global = true)]
    pub caldav_user: String,
    /// Its password (an app password for Nextcloud or iCloud).
    #[arg(
        long,
        env = "HEARTH_CALDAV_PASSWORD",
        default_value = "",
        hide_default_value = true,
        hide_env_values = true,
        global = true
    )]
    pub caldav_password: Secret,
    /// Seconds between syncs with the calendar server (a chat's change waits at most this
    /// long to reach it, a phone's change to reach hearth); 0 turns the sync off.
    #[arg(long, env = "HEARTH_CALDAV_SYNC_SECS", default_value_t = 120, global = true)]
    pub caldav_sync_secs: u64,
}

impl CalendarSettings {
    /// The calendar server's home, when one is set.
    pub fn server(&self) -> Option<&str> {
        Some(self.caldav_url.trim()).filter(|u| !u.is_empty())
    }
}
