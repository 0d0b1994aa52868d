//! The richmenu operations: the verbs and the loop that reach the store.

pub mod care_links;
pub mod care_plans;

pub mod english;
