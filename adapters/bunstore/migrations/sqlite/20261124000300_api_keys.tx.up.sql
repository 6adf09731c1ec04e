-- API keys can be listed, rotated and revoked (issue 15): each shows the first characters of
-- the key, when it was last used (to the minute) and, once rotated, when it stops working.
ALTER TABLE api_keys ADD COLUMN prefix TEXT NOT NULL DEFAULT '';

--bun:split

ALTER TABLE api_keys ADD COLUMN last_used_at TIMESTAMP;

--bun:split

ALTER TABLE api_keys ADD COLUMN expires_at TIMESTAMP;

--bun:split

CREATE INDEX IF NOT EXISTS api_keys_organization_id ON api_keys (organization_id, created_at);
