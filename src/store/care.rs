//! What the store keeps for care plans: the plans (each within the conversation it was set in),
//! their doses — one row per plan and due time, moved step by step under a lease so that each
//! is asked and escalated once across restarts and replicas — and the readings reported for the
//! person cared for. Every statement a chat can reach is scoped to the plan's chats; the rows
//! carry the plan's `conversation_id`, so forgetting that chat deletes them.

use super::{CareStatus, Store, StoreError};
use crate::platform::i18n::Lang;

/// The most plans one chat may keep.
pub const MAX_CARE_PLANS: i64 = 10;

row! {
    /// A stored care plan.
    #[derive(Debug, Clone, PartialEq)]
    pub struct CarePlanRow {
        /// Its id.
        pub id: i64,
        /// The chat it was set in (the family group, or a 1:1 chat).
        pub conversation_id: String,
        /// Who is cared for, as the family calls her (「阿嬤」).
        pub person: String,
        /// Her LINE user id, when she is a member the family named.
        pub person_id: Option<String>,
        /// Who is asked to confirm each dose (her, or whoever is with her), if a member.
        pub confirmer_id: Option<String>,
        /// That member's display name.
        pub confirmer_name: Option<String>,
        /// What is taken or measured (「血壓藥」).
        pub what: String,
        /// The local times of the doses, `HH:MM` separated by commas.
        pub times: String,
        /// The days, bit 0 = Monday … bit 6 = Sunday; 0: every day.
        pub weekdays: i64,
        /// Only on Taiwan's workdays.
        pub workdays: bool,
        /// IANA zone.
        pub tz: String,
        /// The language of its cards.
        pub lang: Lang,
        /// Who is told when a dose is not confirmed: JSON `[{"id", "name"}]`.
        pub caregivers: String,
        /// Minutes after the prompt before the caregivers are told.
        pub after_mins: i64,
        /// Minutes after that before the whole group is told; none: never.
        pub again_mins: Option<i64>,
        /// Limits of the readings (JSON).
        pub limits: String,
        /// What one prompt costs of the month's quota.
        pub prompt_cost: i64,
        /// What telling everyone of one unconfirmed dose costs at most.
        pub miss_cost: i64,
        /// Where it is in its life.
        pub status: CareStatus,
        /// The next dose not yet recorded (Unix ms).
        pub next_due_at: Option<i64>,
        /// When the next weekly report is due (Unix ms).
        pub report_due_at: Option<i64>,
        /// Who set it.
        pub created_by: Option<String>,
        /// When (Unix ms).
        pub created_at: i64,
    }
}

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

/// A plan to keep (a draft until the family confirms it on its card), or a change to one.
#[derive(Debug, Clone)]
pub struct NewCarePlan<'a> {
    /// The chat it is set in.
    pub conversation_id: &'a str,
    /// Who is cared for.
    pub person: &'a str,
    /// Her user id, if a member.
    pub person_id: Option<&'a str>,
    /// Who confirms, if a member.
    pub confirmer_id: Option<&'a str>,
    /// Their display name.
    pub confirmer_name: Option<&'a str>,
    /// What.
    pub what: &'a str,
    /// `HH:MM,HH:MM`.
    pub times: &'a str,
    /// Weekday bits; 0: every day.
    pub weekdays: i64,
    /// Only on workdays.
    pub workdays: bool,
    /// IANA zone.
    pub tz: &'a str,
    /// Card language.
    pub lang: Lang,
    /// Caregivers (JSON).
    pub caregivers: &'a str,
    /// Minutes before the caregivers are told.
    pub after_mins: i64,
    /// Minutes before the group is told.
    pub again_mins: Option<i64>,
    /// Limits (JSON).
    pub limits: &'a str,
    /// One prompt's cost.
    pub prompt_cost: i64,
    /// One miss's cost at most.
    pub miss_cost: i64,
    /// Who set it.
    pub created_by: Option<&'a str>,
    /// Now (Unix ms).
    pub now_ms: i64,
}

/// A dose to record.
#[derive(Debug, Clone, Copy)]
pub struct NewDose {
    /// When it is due (Unix ms).
    pub due_at: i64,
    /// Its first state.
    pub state: &'static str,
    /// When its first step is due (Unix ms).
    pub step_at: Option<i64>,
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

macro_rules! plan_columns {
    () => {
        "id, conversation_id, person, person_id, confirmer_id, confirmer_name, what, times, weekdays, workdays, tz, lang, caregivers, after_mins, again_mins, limits, prompt_cost, miss_cost, status, next_due_at, report_due_at, created_by, created_at"
    };
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

const INSERT_PLAN: &str = concat!(
    "INSERT INTO care_plans (conversation_id, person, person_id, confirmer_id, confirmer_name, what, times, weekdays, workdays, tz, lang, caregivers, after_mins, again_mins, limits, prompt_cost, miss_cost, status, created_by, created_at) SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, 'draft', $18, $19 WHERE (SELECT COUNT(*) FROM care_plans WHERE conversation_id = $1) < $20 RETURNING ",
    plan_columns!()
);
const CHANGE_PLAN: &str = concat!(
    "UPDATE care_plans SET person = $3, person_id = $4, confirmer_id = $5, confirmer_name = $6, what = $7, times = $8, weekdays = $9, workdays = $10, caregivers = $11, after_mins = $12, again_mins = $13, limits = $14, prompt_cost = $15, miss_cost = $16, next_due_at = CASE WHEN status = 'active' THEN $17 ELSE next_due_at END WHERE id = $1 AND conversation_id = $2 RETURNING ",
    plan_columns!()
);
const PLAN: &str = concat!("SELECT ", plan_columns!(), " FROM care_plans WHERE id = $1");
/// The plans a chat may see: set there, or for which it is the confirmer's, the person's or a
/// caregiver's own 1:1 chat (a caregiver's id is quoted in the JSON list).
const PLANS_OF_CHAT: &str = concat!(
    "SELECT ",
    plan_columns!(),
    " FROM care_plans WHERE conversation_id = $1 OR confirmer_id = $1 OR person_id = $1 OR caregivers LIKE $2 ORDER BY id"
);
const ACTIVE_PLANS: &str =
    concat!("SELECT ", plan_columns!(), " FROM care_plans WHERE status = 'active' ORDER BY id");
const SET_STATUS: &str = "UPDATE care_plans SET status = $3, next_due_at = $4, report_due_at = $5 WHERE id = $1 AND conversation_id = $2 AND status = $6";
const DUE_PLANS: &str = concat!(
    "SELECT ",
    plan_columns!(),
    " FROM care_plans WHERE status = 'active' AND next_due_at <= $1 ORDER BY next_due_at LIMIT CAST($2 AS BIGINT)"
);
const ADD_DOSE: &str = "INSERT INTO care_doses (plan_id, conversation_id, due_at, state, step_at) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (plan_id, due_at) DO NOTHING";
const ADVANCE_PLAN: &str = "UPDATE care_plans SET next_due_at = $3 WHERE id = $1 AND next_due_at = $2 AND status = 'active'";
const REPORTS_DUE: &str = concat!(
    "SELECT ",
    plan_columns!(),
    " FROM care_plans WHERE status = 'active' AND report_due_at <= $1 ORDER BY report_due_at LIMIT CAST($2 AS BIGINT)"
);
const ADVANCE_REPORT: &str = "UPDATE care_plans SET report_due_at = $3 WHERE id = $1 AND report_due_at = $2 AND status = 'active'";
const CLAIM_DOSES: &str = concat!(
    "UPDATE care_doses SET lease_owner = $1, lease_until = $2 WHERE id IN (SELECT id FROM care_doses WHERE step_at <= $3 AND lease_until <= $3 ORDER BY step_at LIMIT CAST($4 AS BIGINT)) AND lease_until <= $3 RETURNING ",
    dose_columns!()
);
const CLAIM_DOSES_SKIP_LOCKED: &str = concat!(
    "UPDATE care_doses SET lease_owner = $1, lease_until = $2 WHERE id IN (SELECT id FROM care_doses WHERE step_at <= $3 AND lease_until <= $3 ORDER BY step_at LIMIT CAST($4 AS BIGINT) FOR UPDATE SKIP LOCKED) AND lease_until <= $3 RETURNING ",
    dose_columns!()
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
const DELETE_PLAN: &str = "DELETE FROM care_plans WHERE id = $1 AND conversation_id = $2";
const DELETE_DOSES: &str = "DELETE FROM care_doses WHERE plan_id = $1 AND conversation_id = $2";
const DELETE_READINGS: &str =
    "DELETE FROM care_readings WHERE plan_id = $1 AND conversation_id = $2";
const PRUNE_READINGS: &str = "DELETE FROM care_readings WHERE taken_at < $1";
const PRUNE_DOSES: &str = "DELETE FROM care_doses WHERE due_at < $1 AND step_at IS NULL";

impl Store {
    /// Keeps a new plan as a draft (it starts when the family confirms its card); `None` when
    /// the chat already keeps [`MAX_CARE_PLANS`].
    pub async fn add_care_plan(
        &self,
        p: &NewCarePlan<'_>,
    ) -> Result<Option<CarePlanRow>, StoreError> {
        Ok(db!(self, db => sqlx::query_as(INSERT_PLAN)
            .bind(p.conversation_id)
            .bind(p.person)
            .bind(p.person_id)
            .bind(p.confirmer_id)
            .bind(p.confirmer_name)
            .bind(p.what)
            .bind(p.times)
            .bind(p.weekdays)
            .bind(p.workdays)
            .bind(p.tz)
            .bind(p.lang)
            .bind(p.caregivers)
            .bind(p.after_mins)
            .bind(p.again_mins)
            .bind(p.limits)
            .bind(p.prompt_cost)
            .bind(p.miss_cost)
            .bind(p.created_by)
            .bind(p.now_ms)
            .bind(MAX_CARE_PLANS)
            .fetch_optional(db)
            .await)?)
    }

    /// Changes plan `id` of chat `p.conversation_id` to `p`; an active plan's next dose becomes
    /// `next_due_at`. `None` when the chat has no such plan.
    pub async fn change_care_plan(
        &self,
        id: i64,
        p: &NewCarePlan<'_>,
        next_due_at: Option<i64>,
    ) -> Result<Option<CarePlanRow>, StoreError> {
        Ok(db!(self, db => sqlx::query_as(CHANGE_PLAN)
            .bind(id)
            .bind(p.conversation_id)
            .bind(p.person)
            .bind(p.person_id)
            .bind(p.confirmer_id)
            .bind(p.confirmer_name)
            .bind(p.what)
            .bind(p.times)
            .bind(p.weekdays)
            .bind(p.workdays)
            .bind(p.caregivers)
            .bind(p.after_mins)
            .bind(p.again_mins)
            .bind(p.limits)
            .bind(p.prompt_cost)
            .bind(p.miss_cost)
            .bind(next_due_at)
            .fetch_optional(db)
            .await)?)
    }

    /// Plan `id`, whichever chat it is in (callers check the chat may see it).
    pub async fn care_plan(&self, id: i64) -> Result<Option<CarePlanRow>, StoreError> {
        Ok(db!(self, db => sqlx::query_as(PLAN).bind(id).fetch_optional(db).await)?)
    }

    /// The plans chat `chat` may see: set there, or for which it is a member's own 1:1 chat.
    pub async fn care_plans_of_chat(&self, chat: &str) -> Result<Vec<CarePlanRow>, StoreError> {
        let quoted = format!("%\"{}\"%", chat.replace(['%', '_', '"'], ""));
        Ok(db!(self, db => sqlx::query_as(PLANS_OF_CHAT)
            .bind(chat)
            .bind(&quoted)
            .fetch_all(db)
            .await)?)
    }

    /// Every active plan (the quota's reserve for care messages).
    pub async fn active_care_plans(&self) -> Result<Vec<CarePlanRow>, StoreError> {
        Ok(db!(self, db => sqlx::query_as(ACTIVE_PLANS).fetch_all(db).await)?)
    }

    /// Moves plan `id` of `chat` from status `from` to `to`, with its next dose and report;
    /// false when it was not in `from` (another tap won).
    pub async fn set_care_status(
        &self,
        id: i64,
        chat: &str,
        from: CareStatus,
        to: CareStatus,
        next_due_at: Option<i64>,
        report_due_at: Option<i64>,
    ) -> Result<bool, StoreError> {
        let n = db!(self, db => sqlx::query(SET_STATUS)
            .bind(id)
            .bind(chat)
            .bind(to)
            .bind(next_due_at)
            .bind(report_due_at)
            .bind(from)
            .execute(db)
            .await
            .map(|r| r.rows_affected()))?;
        Ok(n == 1)
    }

    /// Deletes plan `id` of `chat` with its doses and readings, in one transaction; false when
    /// the chat has no such plan.
    pub async fn delete_care_plan(&self, id: i64, chat: &str) -> Result<bool, StoreError> {
        let n = db!(self, db => {
            transaction!(db, tx);
            sqlx::query(DELETE_DOSES).bind(id).bind(chat).execute(&mut *tx).await?;
            sqlx::query(DELETE_READINGS).bind(id).bind(chat).execute(&mut *tx).await?;
            let n = sqlx::query(DELETE_PLAN).bind(id).bind(chat).execute(&mut *tx).await?;
            tx.commit().await?;
            Ok::<u64, sqlx::Error>(n.rows_affected())
        })?;
        Ok(n == 1)
    }

    /// Active plans whose next dose is due by `now_ms`.
    pub async fn due_care_plans(
        &self,
        now_ms: i64,
        limit: i64,
    ) -> Result<Vec<CarePlanRow>, StoreError> {
        Ok(db!(self, db => sqlx::query_as(DUE_PLANS).bind(now_ms).bind(limit).fetch_all(db).await)?)
    }

    /// Moves active plan `plan`'s next dose from the one read to `next` and records `doses`,
    /// in one transaction; false (and nothing recorded) when another process moved it first,
    /// or the plan was paused or stopped meanwhile.
    pub async fn record_care_doses(
        &self,
        plan: &CarePlanRow,
        doses: &[NewDose],
        next: Option<i64>,
    ) -> Result<bool, StoreError> {
        Ok(db!(self, db => {
            transaction!(db, tx);
            let moved = sqlx::query(ADVANCE_PLAN)
                .bind(plan.id)
                .bind(plan.next_due_at)
                .bind(next)
                .execute(&mut *tx)
                .await?
                .rows_affected()
                == 1;
            if moved {
                for dose in doses {
                    sqlx::query(ADD_DOSE)
                        .bind(plan.id)
                        .bind(&plan.conversation_id)
                        .bind(dose.due_at)
                        .bind(dose.state)
                        .bind(dose.step_at)
                        .execute(&mut *tx)
                        .await?;
                }
                tx.commit().await?;
            }
            Ok::<bool, sqlx::Error>(moved)
        })?)
    }

    /// Active plans whose weekly report is due by `now_ms`.
    pub async fn care_reports_due(
        &self,
        now_ms: i64,
        limit: i64,
    ) -> Result<Vec<CarePlanRow>, StoreError> {
        Ok(
            db!(self, db => sqlx::query_as(REPORTS_DUE).bind(now_ms).bind(limit).fetch_all(db).await)?,
        )
    }

    /// Moves plan `id`'s next report from `from` to `next`; false when another process did.
    pub async fn advance_care_report(
        &self,
        id: i64,
        from: i64,
        next: i64,
    ) -> Result<bool, StoreError> {
        let n = db!(self, db => sqlx::query(ADVANCE_REPORT)
            .bind(id)
            .bind(from)
            .bind(next)
            .execute(db)
            .await
            .map(|r| r.rows_affected()))?;
        Ok(n == 1)
    }

    /// Claims for `owner` until `lease_until_ms` up to `limit` doses whose next step is due.
    pub async fn claim_care_doses(
        &self,
        owner: &str,
        now_ms: i64,
        lease_until_ms: i64,
        limit: i64,
    ) -> Result<Vec<DoseRow>, StoreError> {
        let sql = match &*self.backend {
            super::Backend::Sqlite(_) => CLAIM_DOSES,
            super::Backend::Postgres(_) => CLAIM_DOSES_SKIP_LOCKED,
        };
        Ok(db!(self, db => sqlx::query_as(sql)
            .bind(owner)
            .bind(lease_until_ms)
            .bind(now_ms)
            .bind(limit)
            .fetch_all(db)
            .await)?)
    }

    /// Records the step a claimed dose took (from state `from`) and gives up the claim; false
    /// when the claim was lost or a tap moved the dose meanwhile.
    pub async fn step_care_dose(
        &self,
        dose: &DoseRow,
        owner: &str,
        state: &str,
        step_at: Option<i64>,
        prompts: i64,
    ) -> Result<bool, StoreError> {
        let n = db!(self, db => sqlx::query(STEP_DOSE)
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
    pub async fn release_care_dose(
        &self,
        id: i64,
        owner: &str,
        retry_at_ms: i64,
    ) -> Result<(), StoreError> {
        db!(self, db => sqlx::query(RELEASE_DOSE)
            .bind(id)
            .bind(owner)
            .bind(retry_at_ms)
            .execute(db)
            .await
            .map(|_| ()))?;
        Ok(())
    }

    /// Dose `id`.
    pub async fn care_dose(&self, id: i64) -> Result<Option<DoseRow>, StoreError> {
        Ok(db!(self, db => sqlx::query_as(DOSE).bind(id).fetch_optional(db).await)?)
    }

    /// Moves dose `dose` (as read) to `state` by a tap of `by`; false when it had moved since.
    pub async fn settle_care_dose(
        &self,
        dose: &DoseRow,
        state: &str,
        step_at: Option<i64>,
        now_ms: i64,
        by: Option<&str>,
    ) -> Result<bool, StoreError> {
        let n = db!(self, db => sqlx::query(SETTLE_DOSE)
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
    pub async fn care_doses_between(
        &self,
        plan: i64,
        from_ms: i64,
        to_ms: i64,
    ) -> Result<Vec<DoseRow>, StoreError> {
        Ok(db!(self, db => sqlx::query_as(DOSES_BETWEEN)
            .bind(plan)
            .bind(from_ms)
            .bind(to_ms)
            .fetch_all(db)
            .await)?)
    }

    /// Keeps a reading; its id.
    pub async fn add_care_reading(&self, r: &NewReading<'_>) -> Result<i64, StoreError> {
        let (id,): (i64,) = db!(self, db => sqlx::query_as(ADD_READING)
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
    pub async fn care_readings_between(
        &self,
        plan: i64,
        from_ms: i64,
        to_ms: i64,
    ) -> Result<Vec<ReadingRow>, StoreError> {
        Ok(db!(self, db => sqlx::query_as(READINGS_BETWEEN)
            .bind(plan)
            .bind(from_ms)
            .bind(to_ms)
            .fetch_all(db)
            .await)?)
    }

    /// Readings outside their limits whose caregivers were not told yet.
    pub async fn care_readings_to_tell(&self, limit: i64) -> Result<Vec<ReadingRow>, StoreError> {
        Ok(db!(self, db => sqlx::query_as(READINGS_TO_TELL).bind(limit).fetch_all(db).await)?)
    }

    /// Notes that reading `id`'s caregivers were told.
    pub async fn care_reading_told(&self, id: i64, now_ms: i64) -> Result<(), StoreError> {
        db!(self, db => sqlx::query(READING_TOLD)
            .bind(id)
            .bind(now_ms)
            .execute(db)
            .await
            .map(|_| ()))?;
        Ok(())
    }

    /// Deletes readings taken, and settled doses due, before `before_ms` (the retention
    /// setting); how many rows went.
    pub async fn prune_care(&self, before_ms: i64) -> Result<u64, StoreError> {
        Ok(db!(self, db => {
            let a = sqlx::query(PRUNE_READINGS).bind(before_ms).execute(db).await?;
            let b = sqlx::query(PRUNE_DOSES).bind(before_ms).execute(db).await?;
            Ok::<u64, sqlx::Error>(a.rows_affected() + b.rows_affected())
        })?)
    }
}
