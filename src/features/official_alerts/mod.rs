//! Taiwan's official alerts for the family's place: work and school suspensions (停班停課),
//! typhoon and heavy-rain warnings, earthquakes felt there — read from NCDR's CAP feed
//! ([`crate::sources::cap`]), told to the chats that follow them once each ([`ops::watcher`]), in the
//! morning digest, and behind 「明天要上班上課嗎？」 ([`day`]). What an alert says for a place
//! ([`reading`]), whether a chat is told ([`tell`]) and which documents are fetched and retried
//! ([`retry`]) are pure functions.

pub mod day;
pub mod ops;
pub mod reading;
pub mod render;
pub mod retry;
pub mod tell;
