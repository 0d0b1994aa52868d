-- A yearly lunar reminder may come some days before its date (a lunar birthday, the day before).
ALTER TABLE reminders ADD COLUMN days_before INTEGER NOT NULL DEFAULT 0;
