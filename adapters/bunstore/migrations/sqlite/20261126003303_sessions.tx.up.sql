-- Console sessions in the store (issue 33): they survive restarts and work across several
-- serve processes. id is the SHA-256 of the cookie's value; the cookie itself is not stored.
CREATE TABLE IF NOT EXISTS sessions (
  id TEXT PRIMARY KEY,
  organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  user_id TEXT NOT NULL DEFAULT '',
  key_id TEXT NOT NULL DEFAULT '',
  csrf TEXT NOT NULL,
  user_agent TEXT NOT NULL DEFAULT '',
  created_at TIMESTAMP NOT NULL,
  seen_at TIMESTAMP NOT NULL,
  expires_at TIMESTAMP NOT NULL,
  flash TEXT NOT NULL DEFAULT ''
);

--bun:split

CREATE INDEX IF NOT EXISTS sessions_organization ON sessions (organization_id, created_at);

--bun:split

CREATE INDEX IF NOT EXISTS sessions_expires ON sessions (expires_at);

--bun:split

-- Failed console sign-ins, per client address or account, for the sign-in limit.
CREATE TABLE IF NOT EXISTS sign_in_failures (
  key TEXT NOT NULL,
  at TIMESTAMP NOT NULL
);

--bun:split

CREATE INDEX IF NOT EXISTS sign_in_failures_key ON sign_in_failures (key, at);

--bun:split

CREATE INDEX IF NOT EXISTS sign_in_failures_at ON sign_in_failures (at);
