//! Care plans' doses and readings in the store: the care loop's claim → step cycle (a dose
//! moves from the state it was claimed in only, under a lease), the taps that settle a dose
//! (only from the state it was read in), the readings with who reported them and whether the
//! caregivers were told, the report's window, and the retention of both.

use super::{CareStore, StoreError};

row! {
    /// A dose as stored.
    #[derive(Debug, Clone, PartialEq, Eq)]
    pub struct DoseRow {
        /// Its id.
        pub id: i64,
        /// Its plan.
        pub plan_id: i64,
        /// The plan's chat.
        pub conversation_id: String,
        /// When it is due (Unix ms).
        pub due_at: i64,
        /// Where it is (see `features::care::steps::State`).
        pub state: String,
        /// When its next step is due (Unix ms); none when nothing more happens by itself.
        pub step_at: Option<i64>,
        /// Prompts sent so far (a ⏰ asks again).
        pub prompts: i64,
        /// When it was confirmed or taken in hand (Unix ms).
        pub settled_at: Option<i64>,
        /// Who confirmed it or took it in hand (a display name).
        pub settled_by: Option<String>,
    }
}

row! {
    /// A reading as stored.
    #[derive(Debug, Clone, PartialEq, Eq)]
    pub struct ReadingRow {
        /// Its id.
        pub id: i64,
        /// Its plan.
        pub plan_id: i64,
        /// The plan's chat.
        pub conversation_id: String,
        /// When it was reported (Unix ms).
        pub taken_at: i64,
        /// Systolic pressure, mmHg.
        pub systolic: Option<i64>,
        /// Diastolic pressure, mmHg.
        pub diastolic: Option<i64>,
        /// Pulse, beats a minute.
        pub pulse: Option<i64>,
        /// Blood glucose, mg/dL.
        pub glucose: Option<i64>,
        /// Who reported it (user id).
        pub reported_by: Option<String>,
        /// Their display name.
        pub reporter_name: Option<String>,
        /// What was outside the plan's limits, as told; none when all was within.
        pub outside: Option<String>,
        /// When the caregivers were told of it (Unix ms).
        pub told_at: Option<i64>,
    }
}

/// A reading to keep.
#[derive(Debug, Clone)]
pub struct NewReading<'a> {
    /// Its plan.
    pub plan_id: i64,
    /// The plan's chat.
    pub conversation_id: &'a str,
    /// Now (Unix ms).
    pub taken_at: i64,
    /// Systolic.
    pub systolic: Option<i64>,
    /// Diastolic.
    pub diastolic: Option<i64>,
    /// Pulse.
    pub pulse: Option<i64>,
    /// Glucose.
    pub glucose: Option<i64>,
    /// Who reported it.
    pub reported_by: Option<&'a str>,
    /// Their name.
    pub reporter_name: Option<&'a str>,
    /// What was outside the limits (the caregivers are told), if anything.
    pub outside: Option<&'a str>,
}

macro_rules! dose_columns {
    () => {
        "id, plan_id, conversation_id, due_at, state, step_at, prompts, settled_at, settled_by"
    };
}
macro_rules! reading_columns {
    () => {
        "id, plan_id, conversation_id, taken_at, systolic, diastolic, pulse, glucose, reported_by, reporter_name, outside, told_at"
    };
}

const CLAIM_DOSES: super::lease::ClaimSql = claim_sql!(
    table: "care_doses",
    key: "id",
    due: "step_at <= $3",
    order: "step_at",
    returning: dose_columns!(),
);
const STEP_DOSE: &str = "UPDATE care_doses SET state = $3, step_at = $4, prompts = $5, lease_owner = NULL, lease_until = 0 WHERE id = $1 AND lease_owner = $2 AND state = $6";
const RELEASE_DOSE: &str =
    "UPDATE care_doses SET lease_owner = NULL, lease_until = $3 WHERE id = $1 AND lease_owner = $2";
const DOSE: &str = concat!("SELECT ", dose_columns!(), " FROM care_doses WHERE id = $1");
const SETTLE_DOSE: &str = "UPDATE care_doses SET state = $2, step_at = $3, settled_at = $4, settled_by = $5 WHERE id = $1 AND state = $6";
const DOSES_BETWEEN: &str = concat!(
    "SELECT ",
    dose_columns!(),
    " FROM care_doses WHERE plan_id = $1 AND due_at >= $2 AND due_at < $3 ORDER BY due_at"
);
const ADD_READING: &str = "INSERT INTO care_readings (plan_id, conversation_id, taken_at, systolic, diastolic, pulse, glucose, reported_by, reporter_name, outside) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING id";
const READINGS_BETWEEN: &str = concat!(
    "SELECT ",
    reading_columns!(),
    " FROM care_readings WHERE plan_id = $1 AND taken_at >= $2 AND taken_at < $3 ORDER BY taken_at"
);
const READINGS_TO_TELL: &str = concat!(
    "SELECT ",
    reading_columns!(),
    " FROM care_readings WHERE outside IS NOT NULL AND told_at IS NULL ORDER BY taken_at LIMIT CAST($1 AS BIGINT)"
);
const READING_TOLD: &str = "UPDATE care_readings SET told_at = $2 WHERE id = $1";
const PRUNE_READINGS: &str = "DELETE FROM care_readings WHERE taken_at < $1";
const PRUNE_DOSES: &str = "DELETE FROM care_doses WHERE due_at < $1 AND step_at IS NULL";

impl CareStore<'_> {
    /// Claims for `owner` until `lease_until_ms` up to `limit` doses whose next step is due.
    pub async fn claim_doses(
        self,
        owner: &str,
        now_ms: i64,
        lease_until_ms: i64,
        limit: i64,
    ) -> Result<Vec<DoseRow>, StoreError> {
        let lease = super::Lease { owner, now_ms, until_ms: lease_until_ms };
        self.store.claim(&CLAIM_DOSES, lease, limit, &[]).await
    }

    /// Records the step a claimed dose took (from state `from`) and gives up the claim; false
    /// when the claim was lost or a tap moved the dose meanwhile.
    pub async fn step_dose(
        self,
        dose: &DoseRow,
        owner: &str,
        state: &str,
        step_at: Option<i64>,
        prompts: i64,
    ) -> Result<bool, StoreError> {
        let n = db!(self.store, db => sqlx::query(STEP_DOSE)
            .bind(dose.id)
            .bind(owner)
            .bind(state)
            .bind(step_at)
            .bind(prompts)
            .bind(&dose.state)
            .execute(db)
            .await
            .map(|r| r.rows_affected()))?;
        Ok(n == 1)
    }

    /// Gives up the claim on a dose whose step could not be taken; it is tried again from
    /// `retry_at_ms`.
    pub async fn release_dose(
        self,
        id: i64,
        owner: &str,
        retry_at_ms: i64,
    ) -> Result<(), StoreError> {
        db!(self.store, db => sqlx::query(RELEASE_DOSE)
            .bind(id)
            .bind(owner)
            .bind(retry_at_ms)
            .execute(db)
            .await
            .map(|_| ()))?;
        Ok(())
    }

    /// Dose `id`.
    pub async fn dose(self, id: i64) -> Result<Option<DoseRow>, StoreError> {
        Ok(db!(self.store, db => sqlx::query_as(DOSE).bind(id).fetch_optional(db).await)?)
    }

    /// Moves dose `dose` (as read) to `state` by a tap of `by`; false when it had moved since.
    pub async fn settle_dose(
        self,
        dose: &DoseRow,
        state: &str,
        step_at: Option<i64>,
        now_ms: i64,
        by: Option<&str>,
    ) -> Result<bool, StoreError> {
        let n = db!(self.store, db => sqlx::query(SETTLE_DOSE)
            .bind(dose.id)
            .bind(state)
            .bind(step_at)
            .bind(now_ms)
            .bind(by)
            .bind(&dose.state)
            .execute(db)
            .await
            .map(|r| r.rows_affected()))?;
        Ok(n == 1)
    }

    /// Plan `plan`'s doses due from `from_ms` until `to_ms`.
    pub async fn doses_between(
        self,
        plan: i64,
        from_ms: i64,
        to_ms: i64,
    ) -> Result<Vec<DoseRow>, StoreError> {
        Ok(db!(self.store, db => sqlx::query_as(DOSES_BETWEEN)
            .bind(plan)
            .bind(from_ms)
            .bind(to_ms)
            .fetch_all(db)
            .await)?)
    }

    /// Keeps a reading; its id.
    pub async fn add_reading(self, r: &NewReading<'_>) -> Result<i64, StoreError> {
        let (id,): (i64,) = db!(self.store, db => sqlx::query_as(ADD_READING)
            .bind(r.plan_id)
            .bind(r.conversation_id)
            .bind(r.taken_at)
            .bind(r.systolic)
            .bind(r.diastolic)
            .bind(r.pulse)
            .bind(r.glucose)
            .bind(r.reported_by)
            .bind(r.reporter_name)
            .bind(r.outside)
            .fetch_one(db)
            .await)?;
        Ok(id)
    }

    /// Plan `plan`'s readings from `from_ms` until `to_ms`, oldest first.
    pub async fn readings_between(
        self,
        plan: i64,
        from_ms: i64,
        to_ms: i64,
    ) -> Result<Vec<ReadingRow>, StoreError> {
        Ok(db!(self.store, db => sqlx::query_as(READINGS_BETWEEN)
            .bind(plan)
            .bind(from_ms)
            .bind(to_ms)
            .fetch_all(db)
            .await)?)
    }

    /// Readings outside their limits whose caregivers were not told yet.
    pub async fn readings_to_tell(self, limit: i64) -> Result<Vec<ReadingRow>, StoreError> {
        Ok(db!(self.store, db => sqlx::query_as(READINGS_TO_TELL).bind(limit).fetch_all(db).await)?)
    }

    /// Notes that reading `id`'s caregivers were told.
    pub async fn reading_told(self, id: i64, now_ms: i64) -> Result<(), StoreError> {
        db!(self.store, db => sqlx::query(READING_TOLD)
            .bind(id)
            .bind(now_ms)
            .execute(db)
            .await
            .map(|_| ()))?;
        Ok(())
    }

    /// Deletes readings taken, and settled doses due, before `before_ms` (the retention
    /// setting); how many rows went.
    pub async fn prune(self, before_ms: i64) -> Result<u64, StoreError> {
        Ok(db!(self.store, db => {
            let a = sqlx::query(PRUNE_READINGS).bind(before_ms).execute(db).await?;
            let b = sqlx::query(PRUNE_DOSES).bind(before_ms).execute(db).await?;
            Ok::<u64, sqlx::Error>(a.rows_affected() + b.rows_affected())
        })?)
    }
}
