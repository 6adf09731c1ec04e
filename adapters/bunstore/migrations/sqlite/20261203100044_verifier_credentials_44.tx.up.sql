-- The verifier's credentials (issue 44, core/verifier): the hash of each token, the site and
-- project key it is for, and when it expires. The token itself is stored nowhere.
CREATE TABLE IF NOT EXISTS verifier_credentials (
  token_hash TEXT PRIMARY KEY,
  site_id TEXT NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
  project_key TEXT NOT NULL,
  expires_at TIMESTAMP NOT NULL
);
CREATE INDEX IF NOT EXISTS verifier_credentials_expires ON verifier_credentials (expires_at);
