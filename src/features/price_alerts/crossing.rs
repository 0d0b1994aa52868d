//! The crossing state machine of one alert, as a pure function: given the alert's rule, its
//! state and one price sample, the new state and whether to fire.
//!
//! For level `T` and dead band `h = T × band_pct / 100`, a price `p` is *above* when
//! `p ≥ T + h`, *below* when `p ≤ T − h`, and inside the band it keeps the previous side, so a
//! price hovering at the level does not flap. An alert fires when the price moves from the
//! opposite side to its target side while armed; firing disarms it, and only reaching the
//! opposite side again re-arms it. An every-time alert also waits out its cooldown after a fire
//! (a cross inside the cooldown is consumed, not remembered). A stale sample (market closed, an
//! old provider timestamp) changes nothing.

pub use crate::store::{Direction, Frequency, Side};

impl Direction {
    /// The side the price must reach to fire.
    pub fn target(self) -> Side {
        match self {
            Direction::Up => Side::Above,
            Direction::Down => Side::Below,
        }
    }
}

impl Side {
    /// The side of `price` relative to `level` with no band: where an alert starts.
    pub fn initial(price: f64, level: f64) -> Self {
        if price >= level { Side::Above } else { Side::Below }
    }
}

/// What an alert watches for.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rule {
    /// Up or down.
    pub direction: Direction,
    /// The level.
    pub level: f64,
    /// The dead band, percent of the level.
    pub band_pct: f64,
    /// Once or every time.
    pub frequency: Frequency,
    /// Every-time alerts: the least time between two fires (ms).
    pub cooldown_ms: i64,
}

impl Rule {
    /// The side of `price`, or `None` inside the dead band.
    pub fn side_of(&self, price: f64) -> Option<Side> {
        let band = (self.level * self.band_pct / 100.0).abs();
        if price >= self.level + band {
            Some(Side::Above)
        } else if price <= self.level - band {
            Some(Side::Below)
        } else {
            None
        }
    }
}

/// The moving part of an alert.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct State {
    /// The side last seen (outside the band); `None` before the first sample.
    pub last_side: Option<Side>,
    /// Whether a cross would fire.
    pub armed: bool,
    /// When it last fired (Unix ms).
    pub last_fired_at: Option<i64>,
    /// No fire before this instant (Unix ms), after a 🔕 mute.
    pub muted_until: Option<i64>,
}

/// One price observation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sample {
    /// The price.
    pub price: f64,
    /// When it is evaluated (Unix ms).
    pub now_ms: i64,
    /// False for a stale quote (market closed, old provider timestamp): it never triggers.
    pub fresh: bool,
}

/// The result of one evaluation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Step {
    /// The new state (equal to the old one when nothing changed).
    pub state: State,
    /// Whether the alert fires now.
    pub fire: bool,
}

/// Evaluates one sample.
pub fn evaluate(rule: &Rule, state: &State, sample: &Sample) -> Step {
    let unchanged = Step { state: *state, fire: false };
    let spent = rule.frequency == Frequency::Once && state.last_fired_at.is_some();
    if spent || !sample.fresh || !sample.price.is_finite() {
        return unchanged;
    }
    let Some(last) = state.last_side else {
        // First sample: note the side silently; a fresh cross is needed.
        let side = rule.side_of(sample.price).unwrap_or(Side::initial(sample.price, rule.level));
        return Step { state: State { last_side: Some(side), ..*state }, fire: false };
    };
    let side = rule.side_of(sample.price).unwrap_or(last);
    let target = rule.direction.target();
    let mut next = State { last_side: Some(side), ..*state };
    if side != target {
        // On the opposite side: ready for the next cross.
        next.armed = true;
        return Step { state: next, fire: false };
    }
    let crossed = last != target;
    if !crossed || !state.armed {
        return Step { state: next, fire: false };
    }
    let cooled = match (rule.frequency, state.last_fired_at) {
        (Frequency::EveryTime, Some(at)) => sample.now_ms.saturating_sub(at) >= rule.cooldown_ms,
        _ => true,
    };
    let muted = state.muted_until.is_some_and(|until| sample.now_ms < until);
    // A cross is consumed either way: a cross inside the cooldown or a mute is not replayed.
    next.armed = false;
    if !cooled || muted {
        return Step { state: next, fire: false };
    }
    next.last_fired_at = Some(sample.now_ms);
    Step { state: next, fire: true }
}

#[cfg(test)]
#[path = "crossing_tests.rs"]
mod tests;
