-- The language LINE's profile gives a person in a 1:1 chat with hearth (a BCP 47 tag, `en`,
-- `zh-TW`), when hearth learned it (Unix ms), and the English everyday menu linked to them
-- (`english_menu_id`, null while they see the default menu or the care menu), so an English
-- speaker sees the menu in English and a new install links the new one. A LINE user id and
-- three values: no chat's data.
CREATE TABLE person_menus (
    user_id         TEXT PRIMARY KEY,
    language        TEXT NOT NULL,
    learned_at      BIGINT NOT NULL,
    english_menu_id TEXT
);
