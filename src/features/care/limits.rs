//! Readings and the plan's limits: what a reported reading may be (a blood pressure of 135/85,
//! a pulse of 72, a glucose of 110 mg/dL — values a meter can show, nothing else) and which of
//! its values are outside the plan's limits (systolic ≥ 160, ≤ 90 …), which the caregivers are
//! told at once. Pure functions.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A plan's limits, each a range `[low, high]` (either may be null): a value at or below the
/// low one, or at or above the high one, is told at once.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Limits {
    /// Systolic mmHg.
    #[schemars(description = "")]
    pub systolic: Option<Range>,
    /// Pulse, beats a minute.
    #[schemars(description = "")]
    pub pulse: Option<Range>,
    /// Glucose, mg/dL.
    #[schemars(description = "")]
    pub glucose: Option<Range>,
}

/// `[low, high]`, either null.
pub type Range = [Option<u16>; 2];

/// A reading as reported.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[schemars(description = "")]
pub struct Reading {
    /// Systolic mmHg (135 of 135/85).
    #[schemars(description = "")]
    pub systolic: Option<u16>,
    /// Diastolic mmHg.
    #[schemars(description = "")]
    pub diastolic: Option<u16>,
    /// Pulse, beats a minute.
    #[schemars(description = "")]
    pub pulse: Option<u16>,
    /// Glucose, mg/dL.
    #[schemars(description = "")]
    pub glucose: Option<u16>,
}

impl Reading {
    /// The values of a stored reading.
    pub fn of_row(row: &crate::store::ReadingRow) -> Self {
        let value = |v: Option<i64>| v.and_then(|v| u16::try_from(v).ok());
        Self {
            systolic: value(row.systolic),
            diastolic: value(row.diastolic),
            pulse: value(row.pulse),
            glucose: value(row.glucose),
        }
    }
}

/// Why a reading is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReadingError {
    /// No value at all.
    #[error("a reading needs a blood pressure, a pulse or a glucose value")]
    Empty,
    /// A value no meter shows.
    #[error("{0} is not a value a meter shows; ask the family to check it")]
    Implausible(&'static str),
    /// Half a blood pressure.
    #[error("a blood pressure needs both numbers, like 135/85")]
    HalfPressure,
}

/// What meters show: systolic 60–260, diastolic 30–160 (below systolic), pulse 30–220,
/// glucose 20–600 mg/dL.
pub fn check(r: &Reading) -> Result<(), ReadingError> {
    let within = |v: Option<u16>, lo: u16, hi: u16| v.is_none_or(|v| (lo..=hi).contains(&v));
    if r.systolic.is_none() && r.diastolic.is_none() && r.pulse.is_none() && r.glucose.is_none() {
        return Err(ReadingError::Empty);
    }
    if r.systolic.is_some() != r.diastolic.is_some() {
        return Err(ReadingError::HalfPressure);
    }
    if !within(r.systolic, 60, 260) {
        return Err(ReadingError::Implausible("systolic"));
    }
    if !within(r.diastolic, 30, 160)
        || matches!((r.systolic, r.diastolic), (Some(s), Some(d)) if d >= s)
    {
        return Err(ReadingError::Implausible("diastolic"));
    }
    if !within(r.pulse, 30, 220) {
        return Err(ReadingError::Implausible("pulse"));
    }
    if !within(r.glucose, 20, 600) {
        return Err(ReadingError::Implausible("glucose"));
    }
    Ok(())
}

/// Which values of `r` are outside `limits`, as short phrases in `zh` or English
/// (「收縮壓 172 ≥ 160」); empty when all are within.
pub fn outside(r: &Reading, limits: &Limits, zh: bool) -> Vec<String> {
    let mut out = Vec::new();
    let mut test = |value: Option<u16>, max: Option<u16>, min: Option<u16>, zh_name, en_name| {
        let Some(v) = value else { return };
        let name = if zh { zh_name } else { en_name };
        if let Some(max) = max.filter(|m| v >= *m) {
            out.push(format!("{name} {v} ≥ {max}"));
        } else if let Some(min) = min.filter(|m| v <= *m) {
            out.push(format!("{name} {v} ≤ {min}"));
        }
    };
    let [lo, hi] = limits.systolic.unwrap_or_default();
    test(r.systolic, hi, lo, "收縮壓", "systolic");
    let [lo, hi] = limits.pulse.unwrap_or_default();
    test(r.pulse, hi, lo, "心跳", "pulse");
    let [lo, hi] = limits.glucose.unwrap_or_default();
    test(r.glucose, hi, lo, "血糖", "glucose");
    out
}

/// The reading in a few words: 「血壓 135/85、心跳 72」.
pub fn describe(r: &Reading, zh: bool) -> String {
    let mut parts = Vec::new();
    if let (Some(s), Some(d)) = (r.systolic, r.diastolic) {
        parts.push(format!("{} {s}/{d}", if zh { "血壓" } else { "BP" }));
    }
    if let Some(p) = r.pulse {
        parts.push(format!("{} {p}", if zh { "心跳" } else { "pulse" }));
    }
    if let Some(g) = r.glucose {
        parts.push(format!("{} {g}", if zh { "血糖" } else { "glucose" }));
    }
    parts.join(if zh { "、" } else { ", " })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bp(s: u16, d: u16) -> Reading {
        Reading { systolic: Some(s), diastolic: Some(d), ..Reading::default() }
    }

    #[test]
    fn meter_values_pass_and_impossible_ones_are_refused() {
        assert_eq!(check(&bp(135, 85)), Ok(()));
        assert_eq!(check(&Reading { glucose: Some(110), ..Reading::default() }), Ok(()));
        assert_eq!(check(&Reading::default()), Err(ReadingError::Empty));
        assert_eq!(check(&bp(1350, 85)), Err(ReadingError::Implausible("systolic")));
        assert_eq!(check(&bp(85, 135)), Err(ReadingError::Implausible("diastolic")));
        assert_eq!(
            check(&Reading { systolic: Some(135), ..Reading::default() }),
            Err(ReadingError::HalfPressure)
        );
        assert_eq!(
            check(&Reading { pulse: Some(5), ..Reading::default() }),
            Err(ReadingError::Implausible("pulse"))
        );
    }

    #[test]
    fn values_at_or_beyond_a_limit_are_named_and_the_rest_are_not() {
        let limits = Limits { systolic: Some([Some(90), Some(160)]), ..Limits::default() };
        assert!(outside(&bp(135, 85), &limits, true).is_empty());
        assert_eq!(outside(&bp(160, 95), &limits, true), ["收縮壓 160 ≥ 160"]);
        assert_eq!(outside(&bp(88, 60), &limits, false), ["systolic 88 ≤ 90"]);
        assert!(outside(&bp(200, 100), &Limits::default(), true).is_empty(), "no limits");
    }

    #[test]
    fn a_reading_is_described_in_the_family_s_words() {
        let r = Reading { pulse: Some(72), ..bp(135, 85) };
        assert_eq!(describe(&r, true), "血壓 135/85、心跳 72");
        assert_eq!(describe(&r, false), "BP 135/85, pulse 72");
    }
}
