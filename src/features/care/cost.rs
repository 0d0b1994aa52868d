//! What a care plan costs of LINE's monthly message quota, and what the quota keeps for care
//! messages when the month is nearly spent. A prompt costs one message in the confirmer's 1:1
//! chat, or the group's size when asked in the group; a dose nobody confirms costs at most the
//! caregivers' messages plus the group's. When the month runs out, digests and price alerts are
//! held before a care message: the quota keeps back what the active plans will still ask this
//! month plus [`RESERVED_MISSES`] unconfirmed doses of each. Pure functions.

use jiff::Timestamp;

use crate::features::care::Plan;
use crate::features::care::schedule;

/// Unconfirmed doses a plan's reserve allows for, each told to everyone it names.
pub const RESERVED_MISSES: i64 = 3;

/// The doses of `plan` after `from`, until `to` included.
pub fn doses_between(plan: &Plan, from: Timestamp, to: Timestamp) -> i64 {
    let mut n = 0i64;
    let mut at = from;
    while let Some(next) = schedule::next_dose(plan, at, None).filter(|t| *t <= to) {
        n += 1;
        at = next;
        if n > 1_000 {
            break;
        }
    }
    n
}

/// What `plan` costs in a month of 30 days: its prompts, and at most per unconfirmed dose.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MonthlyCost {
    /// Messages the prompts cost.
    pub prompts: i64,
    /// Messages one unconfirmed dose costs at most.
    pub per_miss: i64,
}

/// The monthly cost of `plan` from `now`.
pub fn monthly(plan: &Plan, now: Timestamp) -> MonthlyCost {
    let month_later = now.saturating_add(jiff::SignedDuration::from_hours(24 * 30)).unwrap_or(now);
    MonthlyCost {
        prompts: doses_between(plan, now, month_later).saturating_mul(plan.row.prompt_cost),
        per_miss: plan.row.miss_cost,
    }
}

/// What the quota keeps back for `plans` from `now` until `month_end`: the prompts still due
/// and [`RESERVED_MISSES`] unconfirmed doses of each.
pub fn reserve(plans: &[Plan], now: Timestamp, month_end: Timestamp) -> i64 {
    plans
        .iter()
        .map(|p| {
            doses_between(p, now, month_end)
                .saturating_mul(p.row.prompt_cost)
                .saturating_add(RESERVED_MISSES.saturating_mul(p.row.miss_cost))
        })
        .fold(0i64, i64::saturating_add)
}

/// What one unconfirmed dose costs at most: a message to each caregiver who has hearth as a
/// friend; for those who do not, pushes into the plan's chat (`group_cost` each), each of them
/// @mentioned with the card (two messages) and the outbox packing five messages a request; and
/// the group push of the second escalation.
pub fn miss_cost(friends: &[bool], group_cost: i64, tells_group: bool) -> i64 {
    let direct = friends.iter().filter(|f| **f).count() as i64;
    let mentioned = friends.iter().filter(|f| !**f).count() as i64;
    let requests = (mentioned * 2 + 4) / 5;
    direct + requests * group_cost + if tells_group { group_cost } else { 0 }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::CarePlanRow;

    pub(crate) fn plan(times: &str, prompt_cost: i64, miss_cost: i64) -> Plan {
        Plan::read(CarePlanRow {
            id: 1,
            conversation_id: "C0123456789abcdef0123456789abcdef".into(),
            person: "阿嬤".into(),
            person_id: None,
            confirmer_id: None,
            confirmer_name: None,
            what: "血壓藥".into(),
            times: times.into(),
            weekdays: 0,
            workdays: false,
            tz: "Asia/Taipei".into(),
            lang: crate::platform::i18n::Lang::ZhTw,
            caregivers: "[]".into(),
            after_mins: 30,
            again_mins: Some(30),
            limits: "{}".into(),
            prompt_cost,
            miss_cost,
            status: crate::store::CareStatus::Active,
            next_due_at: None,
            report_due_at: None,
            created_by: None,
            created_at: 0,
        })
        .expect("plan")
    }

    fn ts(s: &str) -> Timestamp {
        s.parse().expect("instant")
    }

    #[test]
    fn twice_a_day_asked_in_her_own_chat_costs_sixty_messages_a_month() {
        let p = plan("08:00,20:00", 1, 7);
        assert_eq!(
            monthly(&p, ts("2026-12-01T01:00:00Z")),
            MonthlyCost { prompts: 60, per_miss: 7 }
        );
    }

    #[test]
    fn the_reserve_is_the_rest_of_the_month_s_prompts_and_three_misses() {
        let p = plan("08:00,20:00", 1, 7);
        // 2026-12-30 09:00 Taipei until 2027-01-01 00:00 Taipei: 20:00, 08:00, 20:00.
        let r = reserve(&[p], ts("2026-12-30T01:00:00Z"), ts("2026-12-31T16:00:00Z"));
        assert_eq!(r, 3 + 3 * 7);
    }

    #[test]
    fn a_miss_costs_the_friends_one_each_and_the_group_per_request_for_the_rest() {
        assert_eq!(miss_cost(&[true, true], 5, false), 2);
        assert_eq!(miss_cost(&[true, false, false], 5, false), 6, "two mentions, one request");
        assert_eq!(miss_cost(&[false, false, false], 5, false), 10, "three mentions, two requests");
        assert_eq!(miss_cost(&[true, true], 5, true), 7);
    }
}
