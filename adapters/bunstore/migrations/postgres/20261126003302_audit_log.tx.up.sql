-- The audit log (issue 33): every state change with its actor and changed fields, chained
-- per organization (hash covers the entry and the previous entry's hash). audit_heads holds
-- each organization's last entry: appends lock its row, so they are serialized.
CREATE TABLE IF NOT EXISTS audit_log (
  id UUID PRIMARY KEY,
  organization_id UUID NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  seq BIGINT NOT NULL,
  site_id UUID,
  actor_kind TEXT NOT NULL,
  actor_id TEXT NOT NULL DEFAULT '',
  actor_name TEXT NOT NULL,
  action TEXT NOT NULL,
  target TEXT NOT NULL DEFAULT '',
  changes TEXT NOT NULL,
  created_at TIMESTAMPTZ NOT NULL,
  prev_hash TEXT NOT NULL,
  hash TEXT NOT NULL,
  UNIQUE (organization_id, seq)
);

--bun:split

CREATE INDEX IF NOT EXISTS audit_log_site ON audit_log (organization_id, site_id, seq);

--bun:split

CREATE TABLE IF NOT EXISTS audit_heads (
  organization_id UUID PRIMARY KEY REFERENCES organizations(id) ON DELETE CASCADE,
  seq BIGINT NOT NULL,
  hash TEXT NOT NULL
);
