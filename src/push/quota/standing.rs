//! Where the month's quota stands between LINE's readings, whether an item due now is sent or
//! held, when a chat is warned that the month is running out, and whether what is scheduled
//! fits what is left.
//!
//! The "send now or hold" decision takes its reasons to hold as separate inputs
//! ([`decide`] over a list of `Option<HoldReason>`), so another reason (quiet hours) is one more
//! function and one more input, not a change here.

/// LINE's quota as last read, with what hearth had recorded as spent when it read it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reading {
    /// The month's limit (`None`: no limit, a paid plan).
    pub limit: Option<i64>,
    /// What LINE said was used (`totalUsage`).
    pub used: i64,
    /// What hearth had recorded as spent this month when LINE was read.
    pub recorded: i64,
    /// LINE refused a push this month for the monthly limit (a `429`).
    pub exhausted: bool,
}

/// Where the month stands now.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Standing {
    /// The month's limit (`None`: unknown or none).
    pub limit: Option<i64>,
    /// Messages used this month: LINE's last reading plus what hearth spent since.
    pub used: i64,
    /// LINE said the month is out.
    pub exhausted: bool,
}

impl Standing {
    /// The standing from the month's last reading (if any) and what hearth has recorded as
    /// spent this month by now: the reading plus the pushes recorded after it.
    pub fn from_reading(reading: Option<Reading>, recorded_now: i64) -> Self {
        match reading {
            None => Self { limit: None, used: recorded_now, exhausted: false },
            Some(r) => Self {
                limit: r.limit,
                used: r.used.saturating_add((recorded_now - r.recorded).max(0)),
                exhausted: r.exhausted,
            },
        }
    }

    /// Messages left this month (`None`: no known limit).
    pub fn left(&self) -> Option<i64> {
        if self.exhausted {
            return Some(0);
        }
        self.limit.map(|l| (l - self.used).max(0))
    }

    /// True when `cost` more fits in what is left (always, with no known limit).
    pub fn affords(&self, cost: i64) -> bool {
        self.left().is_none_or(|left| cost <= left)
    }
}

/// Why an item due now is not pushed now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HoldReason {
    /// The month's quota cannot pay for the push: the item waits for the chat's next reply
    /// (free), and pushing resumes with the next month.
    QuotaOut,
    /// The chat's quiet hours: the item waits until they end (Unix ms), then goes with
    /// everything else held for that chat.
    QuietUntil(i64),
    /// The month is nearly spent and what is left is kept for care plans' prompts and
    /// escalations: a digest or a price alert waits for the chat's next reply.
    KeptForCare,
}

/// What to do with an item due now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    /// Push it now.
    SendNow,
    /// Keep it for later.
    Hold(HoldReason),
}

/// Sends now unless some reason says hold; the first reason given wins.
pub fn decide(reasons: impl IntoIterator<Item = Option<HoldReason>>) -> Decision {
    reasons.into_iter().flatten().next().map_or(Decision::SendNow, Decision::Hold)
}

/// The quota's reason to hold a push costing `cost`: LINE said the month is out, or the month's
/// count says it cannot pay for it.
pub fn quota_hold(standing: &Standing, cost: i64) -> Option<HoldReason> {
    (!standing.affords(cost)).then_some(HoldReason::QuotaOut)
}

/// The reason to hold a push costing `cost` that can wait (a digest, a price alert firing
/// again) when the month is running out: it may not spend the `reserve` kept for care
/// messages. Pushes that cannot wait (care, reminders, urgent official alerts) are asked only
/// [`quota_hold`].
pub fn care_first_hold(standing: &Standing, cost: i64, reserve: i64) -> Option<HoldReason> {
    (running_out(standing) && !standing.affords(cost.saturating_add(reserve)))
        .then_some(HoldReason::KeptForCare)
}

/// The share of the month's limit at which chats are warned, in percent.
pub const WARN_AT_PERCENT: i64 = 80;

/// True when the month is running out: a limit is known and 80 % of it is used (or LINE said
/// it is out). Only then is a chat asked about ([`warning_due`]), so a turn far from the limit
/// reads nothing about its chat.
pub fn running_out(standing: &Standing) -> bool {
    let Some(limit) = standing.limit.filter(|l| *l > 0) else { return false };
    standing.exhausted || standing.used * 100 >= limit * WARN_AT_PERCENT
}

/// True when a chat should be told now that the month is running out: 80 % is used, the chat
/// has pushes scheduled, and it was not told yet this month.
pub fn warning_due(standing: &Standing, has_scheduled: bool, told_this_month: bool) -> bool {
    running_out(standing) && has_scheduled && !told_this_month
}

/// True when what is already scheduled for the rest of the month plus `adding` would spend
/// more than is left.
pub fn over_quota(standing: &Standing, scheduled: i64, adding: i64) -> bool {
    standing.left().is_some_and(|left| scheduled.saturating_add(adding) > left)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reading(limit: i64, used: i64, recorded: i64) -> Option<Reading> {
        Some(Reading { limit: Some(limit), used, recorded, exhausted: false })
    }

    #[test]
    fn between_readings_the_used_count_grows_by_what_hearth_recorded() {
        let s = Standing::from_reading(reading(200, 120, 30), 45);
        assert_eq!((s.used, s.left()), (135, Some(65)));
        let unread = Standing::from_reading(None, 45);
        assert_eq!((unread.used, unread.left()), (45, None));
    }

    #[test]
    fn a_push_is_held_when_the_month_cannot_pay_for_it() {
        let s = Standing::from_reading(reading(200, 197, 0), 0);
        assert_eq!(quota_hold(&s, 3), None);
        assert_eq!(quota_hold(&s, 5), Some(HoldReason::QuotaOut));
        let out = Standing { exhausted: true, ..Standing::from_reading(reading(200, 10, 0), 0) };
        assert_eq!(quota_hold(&out, 1), Some(HoldReason::QuotaOut));
        let unlimited = Standing { limit: None, used: 10_000, exhausted: false };
        assert_eq!(quota_hold(&unlimited, 5), None);
    }

    #[test]
    fn the_first_reason_to_hold_wins_and_no_reason_sends() {
        assert_eq!(decide([None, None]), Decision::SendNow);
        assert_eq!(
            decide([None, Some(HoldReason::QuotaOut)]),
            Decision::Hold(HoldReason::QuotaOut)
        );
        assert_eq!(decide(std::iter::empty()), Decision::SendNow);
    }

    #[test]
    fn quiet_hours_and_the_quota_make_one_decision() {
        let out = Standing { limit: Some(200), used: 200, exhausted: false };
        let fine = Standing { limit: Some(200), used: 10, exhausted: false };
        let quiet = Some(HoldReason::QuietUntil(7));
        // Quiet hours come first: waiting until morning costs nothing; the quota is asked then.
        assert_eq!(decide([quiet, quota_hold(&out, 5)]), Decision::Hold(HoldReason::QuietUntil(7)));
        assert_eq!(decide([None, quota_hold(&out, 5)]), Decision::Hold(HoldReason::QuotaOut));
        assert_eq!(
            decide([quiet, quota_hold(&fine, 5)]),
            Decision::Hold(HoldReason::QuietUntil(7))
        );
        assert_eq!(decide([None, quota_hold(&fine, 5)]), Decision::SendNow);
    }

    #[test]
    fn near_the_end_of_the_month_a_digest_waits_so_the_care_reserve_stays() {
        let near = Standing { limit: Some(200), used: 180, exhausted: false };
        // 20 left, 15 kept for care: a digest costing 5 goes, one costing 6 waits.
        assert_eq!(care_first_hold(&near, 5, 15), None);
        assert_eq!(care_first_hold(&near, 6, 15), Some(HoldReason::KeptForCare));
        // The care message itself only needs what is left.
        assert_eq!(quota_hold(&near, 20), None);
        // Far from the limit nothing is kept back.
        let early = Standing { limit: Some(200), used: 100, exhausted: false };
        assert_eq!(care_first_hold(&early, 5, 500), None);
    }

    #[test]
    fn a_chat_with_pushes_scheduled_is_warned_once_from_80_percent() {
        let at_79 = Standing { limit: Some(200), used: 158, exhausted: false };
        let at_80 = Standing { limit: Some(200), used: 160, exhausted: false };
        assert!(!warning_due(&at_79, true, false));
        assert!(warning_due(&at_80, true, false));
        assert!(!warning_due(&at_80, true, true), "told already");
        assert!(!warning_due(&at_80, false, false), "nothing scheduled there");
        assert!(!warning_due(
            &Standing { limit: None, used: 1_000, exhausted: false },
            true,
            false
        ));
    }

    #[test]
    fn the_month_is_running_out_only_from_80_percent_of_a_known_limit() {
        let at = |limit, used, exhausted| running_out(&Standing { limit, used, exhausted });
        assert!(!at(Some(200), 159, false));
        assert!(at(Some(200), 160, false));
        assert!(at(Some(200), 0, true), "LINE said the month is out");
        assert!(!at(None, 1_000, false), "no limit, nothing runs out");
        assert!(!at(Some(0), 10, true), "a zero limit is no known limit");
    }

    #[test]
    fn what_is_scheduled_plus_the_new_item_must_fit_what_is_left() {
        let s = Standing { limit: Some(200), used: 80, exhausted: false };
        assert!(!over_quota(&s, 60, 60));
        assert!(over_quota(&s, 60, 61));
        assert!(!over_quota(&Standing::default(), 1_000, 1_000), "no known limit");
    }
}
