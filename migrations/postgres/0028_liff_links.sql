-- The family page's links remember the door they were minted for: a link made for the LIFF app
-- opens only through LINE's ID-token sign-in, never through the plain `/family/open`.
ALTER TABLE web_links ADD COLUMN liff BOOLEAN NOT NULL DEFAULT FALSE;
