//! The morning digest: one push a day per conversation at the time the family chose, with the
//! weather for their place, the reminders still to come today (birthdays apart), the open items
//! of their lists, watched prices that moved, and today's lunar date with its festival or the
//! official holiday. When it is due ([`schedule`]), what it says ([`content`]), the card
//! ([`render`]) and its delivery, once a day even with several processes ([`ops::sender`]); setting,
//! changing or stopping it, from the chat or the family page ([`ops::setting`]).

pub mod content;
pub mod ops;
pub mod render;
pub mod schedule;
