//! Calendars beyond the Gregorian one: the Chinese lunar calendar ([`lunar`]) and Taiwan's
//! working calendar ([`workdays`]: holidays, make-up workdays, the stock exchange's closed days).

pub mod lunar;
pub mod workdays;

pub use workdays::{CalendarError, WorkCalendar};
