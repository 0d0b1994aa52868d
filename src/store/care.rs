//! What the store keeps for care plans: the plans, each within the conversation it was set in,
//! their status and next dose and report, and the recording of doses as they come due — in the
//! same transaction that moves the plan on, so each dose is recorded once whichever replica
//! sees it first. The doses and readings themselves are in [`super::care_doses`]. Every
//! statement a chat can reach is scoped to the plan's chats; the rows carry the plan's
//! `conversation_id`, so forgetting that chat deletes them.

use super::{CareStatus, CareStore, StoreError};
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

macro_rules! plan_columns {
    () => {
        "id, conversation_id, person, person_id, confirmer_id, confirmer_name, what, times, weekdays, workdays, tz, lang, caregivers, after_mins, again_mins, limits, prompt_cost, miss_cost, status, next_due_at, report_due_at, created_by, created_at"
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
const DELETE_PLAN: &str = "DELETE FROM care_plans WHERE id = $1 AND conversation_id = $2";
const DELETE_DOSES: &str = "DELETE FROM care_doses WHERE plan_id = $1 AND conversation_id = $2";
const DELETE_READINGS: &str =
    "DELETE FROM care_readings WHERE plan_id = $1 AND conversation_id = $2";

impl CareStore<'_> {
    /// Keeps a new plan as a draft (it starts when the family confirms its card); `None` when
    /// the chat already keeps [`MAX_CARE_PLANS`].
    pub async fn add_plan(self, p: &NewCarePlan<'_>) -> Result<Option<CarePlanRow>, StoreError> {
        Ok(db!(self.store, db => sqlx::query_as(INSERT_PLAN)
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
    pub async fn change_plan(
        self,
        id: i64,
        p: &NewCarePlan<'_>,
        next_due_at: Option<i64>,
    ) -> Result<Option<CarePlanRow>, StoreError> {
        Ok(db!(self.store, db => sqlx::query_as(CHANGE_PLAN)
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
    pub async fn plan(self, id: i64) -> Result<Option<CarePlanRow>, StoreError> {
        Ok(db!(self.store, db => sqlx::query_as(PLAN).bind(id).fetch_optional(db).await)?)
    }

    /// The plans chat `chat` may see: set there, or for which it is a member's own 1:1 chat.
    pub async fn plans_of_chat(self, chat: &str) -> Result<Vec<CarePlanRow>, StoreError> {
        let quoted = format!("%\"{}\"%", chat.replace(['%', '_', '"'], ""));
        Ok(db!(self.store, db => sqlx::query_as(PLANS_OF_CHAT)
            .bind(chat)
            .bind(&quoted)
            .fetch_all(db)
            .await)?)
    }

    /// Every active plan (the quota's reserve for care messages).
    pub async fn active_plans(self) -> Result<Vec<CarePlanRow>, StoreError> {
        Ok(db!(self.store, db => sqlx::query_as(ACTIVE_PLANS).fetch_all(db).await)?)
    }

    /// Moves plan `id` of `chat` from status `from` to `to`, with its next dose and report;
    /// false when it was not in `from` (another tap won).
    pub async fn set_status(
        self,
        id: i64,
        chat: &str,
        from: CareStatus,
        to: CareStatus,
        next_due_at: Option<i64>,
        report_due_at: Option<i64>,
    ) -> Result<bool, StoreError> {
        let n = db!(self.store, db => sqlx::query(SET_STATUS)
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
    pub async fn delete_plan(self, id: i64, chat: &str) -> Result<bool, StoreError> {
        let n = db!(self.store, db => {
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
    pub async fn due_plans(self, now_ms: i64, limit: i64) -> Result<Vec<CarePlanRow>, StoreError> {
        Ok(
            db!(self.store, db => sqlx::query_as(DUE_PLANS).bind(now_ms).bind(limit).fetch_all(db).await)?,
        )
    }

    /// Moves active plan `plan`'s next dose from the one read to `next` and records `doses`,
    /// in one transaction; false (and nothing recorded) when another process moved it first,
    /// or the plan was paused or stopped meanwhile.
    pub async fn record_doses(
        self,
        plan: &CarePlanRow,
        doses: &[NewDose],
        next: Option<i64>,
    ) -> Result<bool, StoreError> {
        Ok(db!(self.store, db => {
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
    pub async fn reports_due(
        self,
        now_ms: i64,
        limit: i64,
    ) -> Result<Vec<CarePlanRow>, StoreError> {
        Ok(
            db!(self.store, db => sqlx::query_as(REPORTS_DUE).bind(now_ms).bind(limit).fetch_all(db).await)?,
        )
    }

    /// Moves plan `id`'s next report from `from` to `next`; false when another process did.
    pub async fn advance_report(self, id: i64, from: i64, next: i64) -> Result<bool, StoreError> {
        let n = db!(self.store, db => sqlx::query(ADVANCE_REPORT)
            .bind(id)
            .bind(from)
            .bind(next)
            .execute(db)
            .await
            .map(|r| r.rows_affected()))?;
        Ok(n == 1)
    }
}
