//! LINE's monthly message quota, as pure decisions: which month a push counts in, what a push
//! into a chat costs, where the quota stands between LINE's readings, whether an item is sent now
//! or held (and why), when a chat is warned, what is scheduled to spend the rest of the month,
//! which chat a personal reminder goes to, how the items due for one chat become one push, and
//! what a reply says about it.
//! No I/O here: [`crate::push::delivery`] reads LINE and the store and asks these functions.

pub mod batch;
pub mod month;
pub mod notice;
pub mod route;
pub mod standing;
pub mod tracking;

pub use month::Month;
pub use route::{Route, route};
pub use standing::{
    Decision, HoldReason, Reading, Standing, care_first_hold, decide, quota_hold, running_out,
    warning_due,
};
pub use tracking::QuotaTracker;

/// What one push into a chat costs: one message per person it reaches (a user's 1:1 chat is
/// one person; a group or room is its member count, at least one), however many message
/// objects the push carries.
pub fn messages_per_push(multi_person: bool, members: Option<i64>) -> i64 {
    if multi_person { members.unwrap_or(1).max(1) } else { 1 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_push_costs_one_per_person_it_reaches() {
        assert_eq!(messages_per_push(false, None), 1);
        assert_eq!(messages_per_push(false, Some(5)), 1);
        assert_eq!(messages_per_push(true, Some(5)), 5);
        assert_eq!(messages_per_push(true, Some(0)), 1);
        assert_eq!(messages_per_push(true, None), 1);
    }
}
