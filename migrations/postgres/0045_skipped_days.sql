-- One time of a repeating event called off (「這週三鋼琴課停一次」): the local dates it does not
-- happen on, space-separated "YYYY-MM-DD", and the fire times (Unix ms, space-separated) its
-- ⏰ reminders pass over without a push.
ALTER TABLE calendar_events ADD COLUMN skipped TEXT NOT NULL DEFAULT '';
ALTER TABLE reminders ADD COLUMN skipped TEXT NOT NULL DEFAULT '';
