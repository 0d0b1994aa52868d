//! The commands besides `serve`: [`chat`] (the assistant in a terminal), [`doctor`] (the checks
//! of a deployment) and [`eval`] (the model's routing over family requests, scored).

pub mod chat;
pub mod doctor;
pub mod eval;
