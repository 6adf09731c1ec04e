-- TOTP second factor (issue 33): a user's authenticator secret ('' when none) and the last
-- time step whose code was used, so that a code cannot be used twice.
ALTER TABLE users ADD COLUMN IF NOT EXISTS totp_secret TEXT NOT NULL DEFAULT '';

--bun:split

ALTER TABLE users ADD COLUMN IF NOT EXISTS totp_step BIGINT NOT NULL DEFAULT 0;
