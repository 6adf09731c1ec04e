-- Webhook endpoints and their delivery log (issue 27).
CREATE TABLE IF NOT EXISTS webhook_endpoints (
  id TEXT PRIMARY KEY,
  organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  url TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT '',
  events TEXT NOT NULL,
  enabled BOOLEAN NOT NULL,
  disabled_reason TEXT,
  failing_since TIMESTAMP,
  secret TEXT NOT NULL,
  consent_cursor TEXT NOT NULL,
  created_at TIMESTAMP NOT NULL,
  updated_at TIMESTAMP NOT NULL
);

--bun:split

CREATE INDEX IF NOT EXISTS webhook_endpoints_org ON webhook_endpoints (organization_id, created_at);

--bun:split

-- The payload is kept as text: every attempt sends, and signs, the very bytes first made.
CREATE TABLE IF NOT EXISTS webhook_deliveries (
  id TEXT PRIMARY KEY,
  endpoint_id TEXT NOT NULL REFERENCES webhook_endpoints(id) ON DELETE CASCADE,
  event_type TEXT NOT NULL,
  payload TEXT NOT NULL,
  status TEXT NOT NULL,
  attempts TEXT NOT NULL,
  created_at TIMESTAMP NOT NULL,
  updated_at TIMESTAMP NOT NULL
);

--bun:split

CREATE INDEX IF NOT EXISTS webhook_deliveries_endpoint ON webhook_deliveries (endpoint_id, id DESC);
