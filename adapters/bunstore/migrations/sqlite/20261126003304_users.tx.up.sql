-- People (issue 33): users sign in with an email and an argon2id password, or through an
-- OpenID provider (issuer, subject); memberships give them a role in organizations;
-- one-time tokens are invitations, password resets and the first owner's link (only their
-- SHA-256 is stored).
CREATE TABLE IF NOT EXISTS users (
  id TEXT PRIMARY KEY,
  email TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL DEFAULT '',
  password_hash TEXT NOT NULL DEFAULT '',
  issuer TEXT NOT NULL DEFAULT '',
  subject TEXT NOT NULL DEFAULT '',
  created_at TIMESTAMP NOT NULL
);

--bun:split

CREATE UNIQUE INDEX IF NOT EXISTS users_subject ON users (issuer, subject) WHERE subject <> '';

--bun:split

CREATE TABLE IF NOT EXISTS memberships (
  organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  role TEXT NOT NULL,
  created_at TIMESTAMP NOT NULL,
  PRIMARY KEY (organization_id, user_id)
);

--bun:split

CREATE INDEX IF NOT EXISTS memberships_user ON memberships (user_id);

--bun:split

CREATE TABLE IF NOT EXISTS one_time_tokens (
  id TEXT PRIMARY KEY,
  kind TEXT NOT NULL,
  organization_id TEXT REFERENCES organizations(id) ON DELETE CASCADE,
  email TEXT NOT NULL DEFAULT '',
  role TEXT NOT NULL DEFAULT '',
  created_by TEXT NOT NULL DEFAULT '',
  created_at TIMESTAMP NOT NULL,
  expires_at TIMESTAMP NOT NULL,
  used_at TIMESTAMP
);
