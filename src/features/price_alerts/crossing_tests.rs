//! Price sequences through the crossing state machine, and properties over random sequences.

use proptest::prelude::*;

use super::*;

const MIN: i64 = 60_000;

fn rule(direction: Direction, frequency: Frequency) -> Rule {
    Rule { direction, level: 100.0, band_pct: 0.2, frequency, cooldown_ms: 60 * MIN }
}

fn start(side: Side) -> State {
    State { last_side: Some(side), armed: true, last_fired_at: None, muted_until: None }
}

/// Feeds prices one minute apart (all fresh); returns the indices that fired.
fn run(rule: &Rule, mut state: State, prices: &[f64]) -> Vec<usize> {
    let mut fired = Vec::new();
    for (i, p) in prices.iter().enumerate() {
        let now_ms = i64::try_from(i).unwrap_or(0) * MIN;
        let step = evaluate(rule, &state, &Sample { price: *p, now_ms, fresh: true });
        if step.fire {
            fired.push(i);
        }
        state = step.state;
    }
    fired
}

#[test]
fn up_alert_fires_when_the_price_rises_through_the_level() {
    let r = rule(Direction::Up, Frequency::Once);
    assert_eq!(run(&r, start(Side::Below), &[98.0, 99.5, 100.5, 101.0]), vec![2]);
}

#[test]
fn down_alert_fires_when_the_price_falls_through_the_level() {
    let r = rule(Direction::Down, Frequency::Once);
    assert_eq!(run(&r, start(Side::Above), &[102.0, 100.1, 99.7, 95.0]), vec![2]);
}

#[test]
fn a_price_inside_the_dead_band_does_not_fire() {
    let r = rule(Direction::Up, Frequency::EveryTime);
    // 100.1 is past the level but inside the 0.2 % band (100.2).
    assert!(run(&r, start(Side::Below), &[99.9, 100.1, 99.95, 100.15, 100.0]).is_empty());
}

#[test]
fn an_alert_created_past_its_level_waits_for_a_fresh_cross() {
    let r = rule(Direction::Up, Frequency::Once);
    // Already above when created: staying above never fires; falling back and rising does.
    assert!(run(&r, start(Side::Above), &[101.0, 103.0, 105.0]).is_empty());
    assert_eq!(run(&r, start(Side::Above), &[101.0, 99.0, 101.0]), vec![2]);
}

#[test]
fn the_first_sample_only_notes_the_side() {
    let r = rule(Direction::Up, Frequency::Once);
    let fresh = State { last_side: None, armed: true, last_fired_at: None, muted_until: None };
    assert!(run(&r, fresh, &[105.0, 106.0]).is_empty());
    assert_eq!(run(&r, fresh, &[95.0, 106.0]), vec![1]);
}

#[test]
fn every_time_re_arms_only_after_the_price_went_back_past_the_band() {
    let r = Rule { cooldown_ms: 0, ..rule(Direction::Up, Frequency::EveryTime) };
    // Up through, back into the band (not re-armed), up again: one fire.
    assert_eq!(run(&r, start(Side::Below), &[99.0, 101.0, 100.0, 101.0]), vec![1]);
    // Up through, back below the band, up again: two fires.
    assert_eq!(run(&r, start(Side::Below), &[99.0, 101.0, 99.0, 101.0]), vec![1, 3]);
}

#[test]
fn every_time_does_not_fire_within_the_cooldown() {
    let r = rule(Direction::Up, Frequency::EveryTime);
    // Crosses every two minutes: the re-crosses at 3 and 5 minutes are inside the hour.
    let mut prices = vec![99.0, 101.0, 99.0, 101.0, 99.0, 101.0];
    assert_eq!(run(&r, start(Side::Below), &prices), vec![1]);
    // An hour later a real re-cross fires again.
    prices.extend(std::iter::repeat_n(99.0, 60));
    prices.push(101.0);
    assert_eq!(run(&r, start(Side::Below), &prices), vec![1, prices.len() - 1]);
}

#[test]
fn stale_quotes_never_trigger_nor_move_the_state() {
    let r = rule(Direction::Up, Frequency::Once);
    let s = start(Side::Below);
    let step = evaluate(&r, &s, &Sample { price: 150.0, now_ms: 0, fresh: false });
    assert_eq!(step, Step { state: s, fire: false });
    let step = evaluate(&r, &s, &Sample { price: f64::NAN, now_ms: 0, fresh: true });
    assert!(!step.fire);
}

#[test]
fn a_muted_alert_consumes_the_cross_silently() {
    let r = Rule { cooldown_ms: 0, ..rule(Direction::Up, Frequency::EveryTime) };
    let muted = State { muted_until: Some(3 * MIN), ..start(Side::Below) };
    // Cross at minute 1 (muted), back and again at minute 4 (mute over).
    assert_eq!(run(&r, muted, &[99.0, 101.0, 99.0, 99.0, 101.0]), vec![4]);
}

fn direction() -> impl Strategy<Value = Direction> {
    prop_oneof![Just(Direction::Up), Just(Direction::Down)]
}

fn frequency() -> impl Strategy<Value = Frequency> {
    prop_oneof![Just(Frequency::Once), Just(Frequency::EveryTime)]
}

proptest! {
    #[test]
    fn a_price_oscillating_inside_the_band_fires_at_most_once(
        d in direction(),
        f in frequency(),
        from_below in any::<bool>(),
        wiggle in prop::collection::vec(-0.19f64..0.19, 1..200),
    ) {
        let r = Rule { cooldown_ms: 0, ..rule(d, f) };
        // Enter the band from one side, then hover inside it.
        let entry = if from_below { 99.0 } else { 101.0 };
        let mut prices = vec![entry];
        prices.extend(wiggle.iter().map(|w| 100.0 + w));
        let side = if from_below { Side::Below } else { Side::Above };
        prop_assert!(run(&r, start(side), &prices).len() <= 1);
        // Starting inside the band, hovering never fires at all.
        prop_assert!(run(&r, start(side), &prices[1..]).is_empty());
    }

    #[test]
    fn a_monotonic_move_through_the_level_fires_exactly_once(
        f in frequency(),
        steps in prop::collection::vec(0.01f64..3.0, 1..100),
        from in 80.0f64..99.0,
    ) {
        let mut prices = vec![from];
        for s in &steps {
            let last = prices.last().copied().unwrap_or(from);
            prices.push(last + s);
        }
        prices.push(prices.last().copied().unwrap_or(from).max(101.0));
        let up = rule(Direction::Up, f);
        prop_assert_eq!(run(&up, start(Side::Below), &prices).len(), 1);
        let down_prices: Vec<f64> = prices.iter().map(|p| 200.0 - p).collect();
        let down = rule(Direction::Down, f);
        prop_assert_eq!(run(&down, start(Side::Above), &down_prices).len(), 1);
    }

    #[test]
    fn every_time_never_fires_twice_within_the_cooldown(
        d in direction(),
        prices in prop::collection::vec(95.0f64..105.0, 1..300),
        cooldown_min in 1i64..90,
    ) {
        let r = Rule { cooldown_ms: cooldown_min * MIN, ..rule(d, Frequency::EveryTime) };
        let fired = run(&r, start(Side::Below), &prices);
        for pair in fired.windows(2) {
            let gap = i64::try_from(pair[1] - pair[0]).unwrap_or(0) * MIN;
            prop_assert!(gap >= r.cooldown_ms, "fired {:?} with cooldown {}", fired, cooldown_min);
        }
    }

    #[test]
    fn once_alerts_fire_at_most_once_whatever_the_prices(
        d in direction(),
        prices in prop::collection::vec(90.0f64..110.0, 1..300),
    ) {
        let r = rule(d, Frequency::Once);
        prop_assert!(run(&r, start(Side::Below), &prices).len() <= 1);
        prop_assert!(run(&r, start(Side::Above), &prices).len() <= 1);
    }
}
