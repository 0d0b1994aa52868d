//! The care plans of an exported chat: each plan set there, with its doses and readings as
//! kept (within `HEARTH_CARE_RETENTION_DAYS`), in local time.

use serde::Serialize;

/// A care plan.
#[derive(Debug, Serialize)]
pub struct ExportedCarePlan {
    /// Its id.
    pub id: i64,
    /// Who is cared for.
    pub person: String,
    /// What she takes or measures.
    pub what: String,
    /// The dose times, `HH:MM`.
    pub times: Vec<String>,
    /// draft, active or paused.
    pub status: &'static str,
    /// Who confirms each dose.
    pub confirmed_by: Option<String>,
    /// Who is told when a dose is not confirmed.
    pub caregivers: Vec<String>,
    /// Its doses, oldest first.
    pub doses: Vec<ExportedDose>,
    /// Its readings, oldest first.
    pub readings: Vec<ExportedReading>,
}

/// A dose.
#[derive(Debug, Serialize)]
pub struct ExportedDose {
    /// When it was due.
    pub due: String,
    /// taken, missed, handled, told, group_told, asked, snoozed or due.
    pub state: String,
    /// Who confirmed it or took it in hand.
    pub by: Option<String>,
}

/// A reading.
#[derive(Debug, Serialize)]
pub struct ExportedReading {
    /// When it was reported.
    pub at: String,
    /// Systolic, mmHg.
    pub systolic: Option<i64>,
    /// Diastolic, mmHg.
    pub diastolic: Option<i64>,
    /// Pulse.
    pub pulse: Option<i64>,
    /// Glucose, mg/dL.
    pub glucose: Option<i64>,
    /// Who reported it.
    pub reported_by: Option<String>,
}
