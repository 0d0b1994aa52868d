-- The care menu (the rich menu of whoever a care plan asks): which of them LINE shows it to
-- (`rich_menu_id`, null once it was taken away), so a plan that stops takes it away and a new
-- install links the new one; and when each last tapped 📞 叫家人 (`call_asked_at`, Unix ms), so
-- the caregivers are told at most once per 10 minutes across replicas. A LINE user id and two
-- values: no chat's data.
CREATE TABLE care_menu_users (
    user_id       TEXT PRIMARY KEY,
    rich_menu_id  TEXT,
    call_asked_at BIGINT
);
