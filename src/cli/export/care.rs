//! The care plans of an exported chat: each plan set there, with its doses and readings as
//! kept (within `HEARTH_CARE_RETENTION_DAYS`), in local time.

use jiff::tz::TimeZone;
use serde::Serialize;

use super::local;
use crate::features::care::Plan;
use crate::store::{Store, StoreError};

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

/// The care plans set in `chat`.
pub async fn plans(
    store: &Store,
    chat: &str,
    tz: &TimeZone,
) -> Result<Vec<ExportedCarePlan>, StoreError> {
    let mut out = Vec::new();
    for row in
        store.care().plans_of_chat(chat).await?.into_iter().filter(|p| p.conversation_id == chat)
    {
        let Some(plan) = Plan::read(row) else { continue };
        let id = plan.row.id;
        let doses = store.care().doses_between(id, 0, i64::MAX).await?;
        let readings = store.care().readings_between(id, 0, i64::MAX).await?;
        out.push(ExportedCarePlan {
            id,
            times: plan.times.iter().map(|t| t.strftime("%H:%M").to_string()).collect(),
            caregivers: plan.caregivers.iter().map(|c| c.name.clone()).collect(),
            person: plan.row.person,
            what: plan.row.what,
            status: plan.row.status.as_str(),
            confirmed_by: plan.row.confirmer_name,
            doses: doses
                .into_iter()
                .map(|d| ExportedDose {
                    due: local(d.due_at, tz),
                    state: d.state,
                    by: d.settled_by,
                })
                .collect(),
            readings: readings
                .into_iter()
                .map(|r| ExportedReading {
                    at: local(r.taken_at, tz),
                    systolic: r.systolic,
                    diastolic: r.diastolic,
                    pulse: r.pulse,
                    glucose: r.glucose,
                    reported_by: r.reporter_name,
                })
                .collect(),
        });
    }
    Ok(out)
}
