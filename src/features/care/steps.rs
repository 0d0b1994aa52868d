//! A dose's life as a pure state machine. Time moves it: due → asked (the prompt) → caregivers
//! told → the group told. Taps move it by hand: ✅ 吃了 / 她吃了 settle it as taken, ⏰ 等一下 asks
//! again in 20 minutes, 我來打電話 settles it as in someone's hands (nobody else is told more).
//! The watcher and the buttons only carry out what these functions decide.

use jiff::SignedDuration;

/// How long ⏰ 等一下 waits before asking again.
pub const LATER: SignedDuration = SignedDuration::from_mins(20);
/// The most times ⏰ asks again; after that the dose waits for its escalation.
pub const MAX_PROMPTS: i64 = 4;

/// Where a dose is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum State {
    /// Due: to be asked.
    Due,
    /// Asked; the caregivers are told if nobody confirms.
    Asked,
    /// ⏰ tapped: to be asked again.
    Snoozed,
    /// The caregivers were told; the group is told next, if the plan says so.
    Told,
    /// The group was told: nothing more happens by itself.
    GroupTold,
    /// Confirmed taken.
    Taken,
    /// Someone took it in hand (我來打電話): nobody else is told more.
    Handled,
    /// It came due too long before hearth saw it to be asked.
    Missed,
}

impl State {
    /// The stored name.
    pub fn as_str(self) -> &'static str {
        match self {
            State::Due => "due",
            State::Asked => "asked",
            State::Snoozed => "snoozed",
            State::Told => "told",
            State::GroupTold => "group_told",
            State::Taken => "taken",
            State::Handled => "handled",
            State::Missed => "missed",
        }
    }

    /// The state a stored name means.
    pub fn parse(name: &str) -> Option<Self> {
        Some(match name {
            "due" => State::Due,
            "asked" => State::Asked,
            "snoozed" => State::Snoozed,
            "told" => State::Told,
            "group_told" => State::GroupTold,
            "taken" => State::Taken,
            "handled" => State::Handled,
            "missed" => State::Missed,
            _ => return None,
        })
    }

    /// True once someone outside the one asked was told the dose is not confirmed.
    pub fn escalated(self) -> bool {
        matches!(self, State::Told | State::GroupTold | State::Handled)
    }

    /// True when the dose counts as confirmed in the report.
    pub fn confirmed(self) -> bool {
        self == State::Taken
    }
}

/// Who a step tells.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Notice {
    /// The one who confirms: 「08:00 的血壓藥吃了嗎？」.
    Prompt,
    /// Each caregiver: 「阿嬤 08:00 的血壓藥還沒確認」.
    Caregivers,
    /// The whole group.
    Group,
}

/// The plan's timing of escalations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timing {
    /// After the prompt, before the caregivers are told.
    pub after: SignedDuration,
    /// After the caregivers, before the group is told; none: never.
    pub again: Option<SignedDuration>,
}

/// What a due step does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Step {
    /// Who is told (none: nothing to push).
    pub notice: Option<Notice>,
    /// The state after it.
    pub state: State,
    /// When the next step is due (Unix ms); none: nothing more by itself.
    pub step_at: Option<i64>,
    /// Prompts sent after it.
    pub prompts: i64,
}

fn at(now_ms: i64, wait: SignedDuration) -> i64 {
    now_ms.saturating_add(i64::try_from(wait.as_millis()).unwrap_or(i64::MAX))
}

/// The step of a dose in `state` (with `prompts` sent so far) whose time came at `now_ms`;
/// `in_group` says whether there is a group to tell.
pub fn step(state: State, prompts: i64, timing: Timing, in_group: bool, now_ms: i64) -> Step {
    match state {
        State::Due | State::Snoozed => Step {
            notice: Some(Notice::Prompt),
            state: State::Asked,
            step_at: Some(at(now_ms, timing.after)),
            prompts: prompts + 1,
        },
        State::Asked => {
            let again = timing.again.filter(|_| in_group);
            Step {
                notice: Some(Notice::Caregivers),
                state: State::Told,
                step_at: again.map(|wait| at(now_ms, wait)),
                prompts,
            }
        }
        State::Told if in_group && timing.again.is_some() => {
            Step { notice: Some(Notice::Group), state: State::GroupTold, step_at: None, prompts }
        }
        other => Step { notice: None, state: other, step_at: None, prompts },
    }
}

/// A tap on a dose's button.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tap {
    /// ✅ 吃了, or a caregiver's 她吃了.
    Taken,
    /// ⏰ 等一下.
    Later,
    /// 我來打電話.
    OnIt,
}

/// Why a tap changes nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// It was confirmed already.
    AlreadyTaken,
    /// Someone has it in hand already.
    AlreadyHandled,
    /// ⏰ after the family was told, or too many times.
    TooLate,
}

/// The state and next step after `tap` on a dose in `state` with `prompts` sent, at `now_ms`.
pub fn tap(
    state: State,
    prompts: i64,
    tap: Tap,
    now_ms: i64,
) -> Result<(State, Option<i64>), Refusal> {
    match (tap, state) {
        (_, State::Taken) => Err(Refusal::AlreadyTaken),
        (Tap::Taken, _) => Ok((State::Taken, None)),
        (Tap::OnIt, State::Handled) => Err(Refusal::AlreadyHandled),
        (Tap::OnIt, _) => Ok((State::Handled, None)),
        (Tap::Later, State::Due | State::Asked | State::Snoozed) if prompts < MAX_PROMPTS => {
            Ok((State::Snoozed, Some(at(now_ms, LATER))))
        }
        (Tap::Later, _) => Err(Refusal::TooLate),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TIMING: Timing =
        Timing { after: SignedDuration::from_mins(30), again: Some(SignedDuration::from_mins(30)) };
    const MIN: i64 = 60_000;

    #[test]
    fn unconfirmed_a_dose_is_asked_then_the_caregivers_then_the_group_are_told_once() {
        let s1 = step(State::Due, 0, TIMING, true, 0);
        assert_eq!(
            s1,
            Step {
                notice: Some(Notice::Prompt),
                state: State::Asked,
                step_at: Some(30 * MIN),
                prompts: 1
            }
        );
        let s2 = step(s1.state, s1.prompts, TIMING, true, 30 * MIN);
        assert_eq!(
            (s2.notice, s2.state, s2.step_at),
            (Some(Notice::Caregivers), State::Told, Some(60 * MIN))
        );
        let s3 = step(s2.state, 1, TIMING, true, 60 * MIN);
        assert_eq!(
            (s3.notice, s3.state, s3.step_at),
            (Some(Notice::Group), State::GroupTold, None)
        );
        let s4 = step(s3.state, 1, TIMING, true, 90 * MIN);
        assert_eq!((s4.notice, s4.step_at), (None, None), "nothing more");
    }

    #[test]
    fn without_a_group_or_a_second_escalation_the_caregivers_are_the_last_told() {
        let no_again = Timing { again: None, ..TIMING };
        assert_eq!(step(State::Asked, 1, no_again, true, 0).step_at, None);
        assert_eq!(step(State::Asked, 1, TIMING, false, 0).step_at, None, "a 1:1 plan");
        assert_eq!(step(State::Told, 1, TIMING, false, 0).notice, None);
    }

    #[test]
    fn later_asks_again_in_twenty_minutes_and_the_escalation_waits_for_the_new_prompt() {
        let (state, at) = tap(State::Asked, 1, Tap::Later, 5 * MIN).expect("later");
        assert_eq!((state, at), (State::Snoozed, Some(25 * MIN)));
        let again = step(state, 1, TIMING, true, 25 * MIN);
        assert_eq!(
            (again.notice, again.step_at, again.prompts),
            (Some(Notice::Prompt), Some(55 * MIN), 2)
        );
        assert_eq!(tap(State::Asked, MAX_PROMPTS, Tap::Later, 0), Err(Refusal::TooLate));
        assert_eq!(tap(State::Told, 1, Tap::Later, 0), Err(Refusal::TooLate));
    }

    #[test]
    fn taken_settles_any_open_dose_once_and_on_it_stops_the_rest() {
        for s in [
            State::Due,
            State::Asked,
            State::Snoozed,
            State::Told,
            State::GroupTold,
            State::Handled,
            State::Missed,
        ] {
            assert_eq!(tap(s, 1, Tap::Taken, 0), Ok((State::Taken, None)), "{s:?}");
        }
        assert_eq!(tap(State::Taken, 1, Tap::Taken, 0), Err(Refusal::AlreadyTaken));
        assert_eq!(tap(State::Told, 1, Tap::OnIt, 0), Ok((State::Handled, None)));
        assert_eq!(tap(State::Handled, 1, Tap::OnIt, 0), Err(Refusal::AlreadyHandled));
        assert_eq!(tap(State::Taken, 1, Tap::OnIt, 0), Err(Refusal::AlreadyTaken));
    }

    #[test]
    fn every_state_reads_back_from_its_name() {
        for s in [
            State::Due,
            State::Asked,
            State::Snoozed,
            State::Told,
            State::GroupTold,
            State::Taken,
            State::Handled,
            State::Missed,
        ] {
            assert_eq!(State::parse(s.as_str()), Some(s));
        }
        assert_eq!(State::parse("other"), None);
    }
}
