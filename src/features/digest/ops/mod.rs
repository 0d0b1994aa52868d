//! The digest operations: the verbs and the loop that reach the store.

pub mod setting;

pub mod sender;
