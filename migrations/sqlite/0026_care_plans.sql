-- Care plans for an elder: what she takes or measures and when, who is asked to confirm, who is
-- told when nobody does and after how long. Each dose is a row of its own (unique per plan and
-- time), moved step by step (asked, snoozed, caregivers told, group told) under a lease, so it
-- is asked and escalated once across restarts and replicas. Readings (blood pressure, pulse,
-- glucose) are kept with who reported them. Every table carries the plan's conversation_id, so
-- forgetting the chat deletes them all.
CREATE TABLE care_plans (
    id               INTEGER PRIMARY KEY AUTOINCREMENT,
    conversation_id  TEXT NOT NULL,
    person           TEXT NOT NULL,
    person_id        TEXT,
    confirmer_id     TEXT,
    confirmer_name   TEXT,
    what             TEXT NOT NULL,
    times            TEXT NOT NULL,
    weekdays         BIGINT NOT NULL DEFAULT 0,
    workdays         INTEGER NOT NULL DEFAULT 0,
    tz               TEXT NOT NULL,
    lang             TEXT NOT NULL,
    caregivers       TEXT NOT NULL,
    after_mins       BIGINT NOT NULL,
    again_mins       BIGINT,
    limits           TEXT NOT NULL,
    prompt_cost      BIGINT NOT NULL DEFAULT 1,
    miss_cost        BIGINT NOT NULL DEFAULT 1,
    status           TEXT NOT NULL,
    next_due_at      BIGINT,
    report_due_at    BIGINT,
    created_by       TEXT,
    created_at       BIGINT NOT NULL
);
CREATE INDEX care_plans_chat ON care_plans (conversation_id);
CREATE INDEX care_plans_due ON care_plans (next_due_at) WHERE status = 'active';

CREATE TABLE care_doses (
    id               INTEGER PRIMARY KEY AUTOINCREMENT,
    plan_id          BIGINT NOT NULL,
    conversation_id  TEXT NOT NULL,
    due_at           BIGINT NOT NULL,
    state            TEXT NOT NULL,
    step_at          BIGINT,
    prompts          BIGINT NOT NULL DEFAULT 0,
    settled_at       BIGINT,
    settled_by       TEXT,
    lease_owner      TEXT,
    lease_until      BIGINT NOT NULL DEFAULT 0,
    UNIQUE (plan_id, due_at)
);
CREATE INDEX care_doses_step ON care_doses (step_at) WHERE step_at IS NOT NULL;

CREATE TABLE care_readings (
    id               INTEGER PRIMARY KEY AUTOINCREMENT,
    plan_id          BIGINT NOT NULL,
    conversation_id  TEXT NOT NULL,
    taken_at         BIGINT NOT NULL,
    systolic         BIGINT,
    diastolic        BIGINT,
    pulse            BIGINT,
    glucose          BIGINT,
    reported_by      TEXT,
    reporter_name    TEXT,
    outside          TEXT,
    told_at          BIGINT
);
CREATE INDEX care_readings_plan ON care_readings (plan_id, taken_at);
CREATE INDEX care_readings_to_tell ON care_readings (taken_at) WHERE outside IS NOT NULL AND told_at IS NULL;
