-- Email digest recipients ([{email, token}]) and when the last digest went out (issue 27).
ALTER TABLE sites ADD COLUMN digest_recipients TEXT NOT NULL DEFAULT '[]';

--bun:split

ALTER TABLE sites ADD COLUMN digest_sent_at TIMESTAMP;
