//! The family: its time zone, its home, its working calendar and how it reads price colours.

use clap::{Args, ValueEnum};

/// Where and when the family lives.
#[derive(Debug, Clone, Args)]
pub struct FamilySettings {
    /// IANA time zone of the family: the prompt's date and time, reminders.
    #[arg(long, env = "HEARTH_TIMEZONE", default_value = "Asia/Taipei", global = true)]
    pub timezone: String,
    /// The family's home place (a city, e.g. 台北 or Kaohsiung): the weather when no place is
    /// named and none was asked about in the chat before. Default: the city of HEARTH_TIMEZONE
    /// where it names one (Asia/Taipei: 台北).
    #[arg(long, env = "HEARTH_HOME_LOCATION", global = true)]
    pub home_location: Option<String>,
    /// A newer Taiwan working calendar (JSON, the format of the built-in
    /// data/taiwan-calendar.json, made by scripts/taiwan_calendar.py): its years replace or
    /// extend the built-in ones (2024–2027). Workday reminders and the TWSE trading days follow
    /// it; past its last year every weekday counts as a workday.
    #[arg(long, env = "HEARTH_WORK_CALENDAR", global = true)]
    pub work_calendar: Option<std::path::PathBuf>,
    /// Colour convention for price changes on cards.
    #[arg(long, env = "HEARTH_PRICE_COLORS", value_enum, default_value_t = PriceColors::Tw, global = true)]
    pub price_colors: PriceColors,
}

impl FamilySettings {
    /// The family's home place: `HEARTH_HOME_LOCATION`, else the city `HEARTH_TIMEZONE` names.
    pub fn home(&self) -> Option<String> {
        match self.home_location.as_deref().map(str::trim) {
            Some(home) if !home.is_empty() => Some(home.to_string()),
            _ => zone_city(&self.timezone),
        }
    }
}

/// How price changes are coloured on cards.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum PriceColors {
    /// Taiwan and East Asia: up is red, down is green.
    #[default]
    Tw,
    /// US and Europe: up is green, down is red.
    Us,
}

/// The city an IANA zone is named after ("Asia/Taipei": 台北, "Europe/London": London), or
/// `None` for zones that name no city (UTC, Etc/GMT+8).
pub fn zone_city(zone: &str) -> Option<String> {
    let (area, city) = zone.trim().rsplit_once('/')?;
    if area.starts_with("Etc") || city.is_empty() || city.chars().any(|c| c.is_ascii_digit()) {
        return None;
    }
    let known = [("Taipei", "台北"), ("Hong_Kong", "香港"), ("Macau", "澳門")];
    match known.iter().find(|(name, _)| *name == city) {
        Some((_, local)) => Some((*local).to_string()),
        None => Some(city.replace('_', " ")),
    }
}

#[cfg(test)]
mod home_tests {
    use super::zone_city;

    #[test]
    fn the_home_defaults_to_the_city_the_time_zone_names() {
        assert_eq!(zone_city("Asia/Taipei").as_deref(), Some("台北"));
        assert_eq!(zone_city("America/New_York").as_deref(), Some("New York"));
        assert_eq!(zone_city("UTC"), None);
        assert_eq!(zone_city("Etc/GMT-8"), None);
    }
}
