-- freq gains: lunar_monthly | lunar_yearly | workdays.
-- Reminders on the lunar calendar: the lunar days (bit 0 = 初一 … bit 29 = 三十) for
-- freq = 'lunar_monthly' and 'lunar_yearly', and for 'lunar_yearly' the lunar month (1-12) and
-- whether it is the leap month (閏). freq = 'workdays' follows Taiwan's working calendar and
-- needs no column of its own.
ALTER TABLE reminders ADD COLUMN lunar_days INTEGER NOT NULL DEFAULT 0;
ALTER TABLE reminders ADD COLUMN lunar_month INTEGER;
ALTER TABLE reminders ADD COLUMN lunar_leap INTEGER NOT NULL DEFAULT 0;
