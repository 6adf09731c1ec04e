-- Email digest recipients ([{email, token}]) and when the last digest went out (issue 27).
ALTER TABLE sites ADD COLUMN IF NOT EXISTS digest_recipients JSONB NOT NULL DEFAULT '[]';

--bun:split

ALTER TABLE sites ADD COLUMN IF NOT EXISTS digest_sent_at TIMESTAMPTZ;
