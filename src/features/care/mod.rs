//! Care plans for an elder: 「阿嬤每天早上八點跟晚上八點要吃血壓藥，沒確認的話通知我跟哥哥」.
//!
//! A plan says what she takes or measures and when ([`schedule`]), who is asked to confirm each
//! dose and who is told when nobody does, after how long. Each dose moves through a small
//! state machine ([`steps`]: asked → caregivers told → the group told; ✅ 吃了, ⏰ 等一下,
//! 我來打電話, 她吃了 move it by hand), recorded per dose so it is asked and escalated once across
//! restarts and replicas ([`ops::watcher`]). Readings (blood pressure, pulse, glucose) are checked
//! against the plan's limits ([`limits`]); a weekly report with a chart goes to the caregivers
//! ([`report`]). What a plan costs of LINE's monthly quota, and what the quota keeps for care
//! messages when the month is nearly spent, is [`cost`]. Cards are [`render`], buttons
//! [`actions`]; the rich menu of whoever a plan asks and its buttons, [`menu`], linked at
//! each change of a plan at once ([`crate::features::richmenu::ops::care_plans`]).
//!
//! Health data stays within the plan's chats: a chat sees a plan only when it was set there or
//! is the 1:1 chat of someone in it whom the door still lets into the plan's chat ([`ops::CareOps::plans_seen`]:
//! not after they left the group, nor once that chat is revoked), and no reading or medicine is
//! ever logged.

pub mod actions;
pub mod cost;
pub mod limits;
pub mod menu;
pub mod ops;
pub mod render;
pub mod report;
pub mod schedule;
pub mod steps;
pub mod taps;
pub mod words;

use jiff::civil::Time;
use jiff::tz::TimeZone;
use serde::{Deserialize, Serialize};

use crate::door::Door;
use crate::platform::conversation::Conversation;
use crate::store::StoreError;
pub use crate::store::{CarePlanRow, CareStatus, MAX_CARE_PLANS, NewCarePlan};
pub use limits::Limits;

/// A member of the family named in a plan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Member {
    /// Their LINE user id.
    pub id: String,
    /// Their display name.
    pub name: String,
}

/// A stored plan, read: its times, caregivers, limits and zone.
#[derive(Debug, Clone)]
pub struct Plan {
    /// The row.
    pub row: CarePlanRow,
    /// The dose times, in order.
    pub times: Vec<Time>,
    /// Who is told when a dose is not confirmed.
    pub caregivers: Vec<Member>,
    /// The readings' limits.
    pub limits: Limits,
    /// Its zone.
    pub tz: TimeZone,
}

impl Plan {
    /// The plan of `row`; `None` when its times or zone are unreadable.
    pub fn read(row: CarePlanRow) -> Option<Self> {
        let times = parse_times(&row.times)?;
        let caregivers = serde_json::from_str(&row.caregivers).ok()?;
        let limits = serde_json::from_str(&row.limits).unwrap_or_default();
        let tz = TimeZone::get(&row.tz).ok()?;
        Some(Self { row, times, caregivers, limits, tz })
    }

    /// True when chat `chat` may see this plan and act on it: it was set there, or it is the
    /// 1:1 chat of the person, the one who confirms, or a caregiver.
    pub fn visible_in(&self, chat: &str) -> bool {
        self.row.conversation_id == chat
            || self.row.person_id.as_deref() == Some(chat)
            || self.row.confirmer_id.as_deref() == Some(chat)
            || self.caregivers.iter().any(|c| c.id == chat)
    }

    /// The member asked to confirm each dose: the confirmer, else the person, if a member.
    pub fn asked(&self) -> Option<&str> {
        self.row.confirmer_id.as_deref().or(self.row.person_id.as_deref())
    }

    /// True when the plan was set in a group or room (there is a group to tell).
    pub fn in_group(&self) -> bool {
        Conversation::from_id(&self.row.conversation_id).is_multi_person()
    }

    /// The local times as `08:00、20:00`.
    pub fn times_text(&self) -> String {
        self.times.iter().map(|t| t.strftime("%H:%M").to_string()).collect::<Vec<_>>().join("、")
    }
}

/// May the chat `chat` see `plan` and act on it now: it is one of the plan's chats
/// ([`Plan::visible_in`]) and, seen from a member's own 1:1 chat, the door lets that member
/// into the plan's chat (served, and they have not left the group). The chat a turn or tap
/// comes from has passed the door already.
pub async fn may_see(door: &Door, chat: &str, plan: &Plan) -> Result<bool, StoreError> {
    if !plan.visible_in(chat) {
        return Ok(false);
    }
    let home = plan.row.conversation_id.as_str();
    Ok(home == chat || door.member(home, chat).await?.is_ok())
}

/// The caregivers of `plan` the door lets into its chat now: a caregiver who left the plan's
/// group (or whose way in is closed) is asked nothing and told nothing of it until they are back
/// — the door's member-presence rule, applied to what is pushed on the plan's behalf.
pub async fn reached(door: &Door, plan: &Plan) -> Result<Vec<Member>, StoreError> {
    let home = plan.row.conversation_id.as_str();
    let mut reached = Vec::new();
    for c in &plan.caregivers {
        if c.id == home || door.member(home, &c.id).await?.is_ok() {
            reached.push(c.clone());
        }
    }
    Ok(reached)
}

/// `08:00,20:00` as times, sorted and without repeats; `None` when one is unreadable or there
/// are none.
pub fn parse_times(text: &str) -> Option<Vec<Time>> {
    let mut times = text
        .split(',')
        .map(|t| crate::platform::clock::parse_local_time(t).ok())
        .collect::<Option<Vec<Time>>>()?;
    times.sort();
    times.dedup();
    (!times.is_empty()).then_some(times)
}

/// Where a message for a member goes: their own 1:1 chat when they have hearth as a friend,
/// else the plan's chat, @mentioning them there when it is a group.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Route {
    /// The chat pushed to.
    pub to: String,
    /// Who is @mentioned there.
    pub mention: Option<String>,
}

/// The route of a message for `member` (none: nobody in particular) of a plan set in
/// `plan_chat`; `is_friend` says whether the member has hearth as a friend.
pub fn route(member: Option<&str>, is_friend: bool, plan_chat: &str) -> Route {
    match member {
        Some(id) if is_friend && id != plan_chat => Route { to: id.to_string(), mention: None },
        Some(id) if Conversation::from_id(plan_chat).is_multi_person() => {
            Route { to: plan_chat.to_string(), mention: Some(id.to_string()) }
        }
        _ => Route { to: plan_chat.to_string(), mention: None },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GROUP: &str = "C0123456789abcdef0123456789abcdef";
    const GRANDMA: &str = "U00000000000000000000000000000001";

    #[test]
    fn times_are_read_sorted_and_once_each() {
        let t = parse_times("20:00,08:00,08:00").expect("times");
        assert_eq!(t.len(), 2);
        assert_eq!(t[0].hour(), 8);
        assert!(parse_times("8點").is_none());
        assert!(parse_times("").is_none());
    }

    #[test]
    fn a_friend_is_asked_in_her_own_chat_else_in_the_group_with_a_mention() {
        assert_eq!(route(Some(GRANDMA), true, GROUP), Route { to: GRANDMA.into(), mention: None });
        assert_eq!(
            route(Some(GRANDMA), false, GROUP),
            Route { to: GROUP.into(), mention: Some(GRANDMA.into()) }
        );
        assert_eq!(route(None, false, GROUP), Route { to: GROUP.into(), mention: None });
        assert_eq!(
            route(Some(GRANDMA), false, GRANDMA),
            Route { to: GRANDMA.into(), mention: None }
        );
    }
}
