//! The commands besides `serve`: [`chat`] (the assistant in a terminal), [`doctor`] (the checks
//! of a deployment), [`eval`] (the model's routing over family requests, scored),
//! [`backup`] (a copy of the SQLite database, and putting one back), [`export`] (everything
//! kept for one chat, as one JSON document), [`richmenu`] (hearth's rich menus at LINE), [`setup`] (the LINE console's chores
//! through the API) and [`usage`] (each chat's LLM tokens and cost in a month).

pub mod access;
pub mod backup;
pub mod chat;
pub mod doctor;
pub mod eval;
pub mod export;
pub mod richmenu;
pub mod setup;
pub mod usage;
