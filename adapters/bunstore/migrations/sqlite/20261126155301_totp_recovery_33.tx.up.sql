-- TOTP recovery codes (issue 33): single-use codes shown once when a user turns two-step
-- sign-in on. Only each code's argon2id hash is kept, with its first characters (prefix) so
-- that a sign-in checks one hash; used_at marks a used one.
CREATE TABLE IF NOT EXISTS totp_recovery_codes (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  prefix TEXT NOT NULL,
  hash TEXT NOT NULL,
  created_at TIMESTAMP NOT NULL,
  used_at TIMESTAMP
);

--bun:split

CREATE INDEX IF NOT EXISTS totp_recovery_codes_user ON totp_recovery_codes (user_id);
