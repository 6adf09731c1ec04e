-- A/B tests of the banner (issue 46, core/experiment): one row per experiment, its variants
-- (key, name, weight, banner patch) and regions as JSON; at most one runs per site (the use
-- case checks it in the transaction that starts one).
CREATE TABLE IF NOT EXISTS experiments (
  id UUID PRIMARY KEY,
  site_id UUID NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  status TEXT NOT NULL,
  metric TEXT NOT NULL,
  regions JSONB NOT NULL,
  variants JSONB NOT NULL,
  winner TEXT,
  started_at TIMESTAMPTZ,
  stopped_at TIMESTAMPTZ,
  created_at TIMESTAMPTZ NOT NULL,
  updated_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX IF NOT EXISTS experiments_site ON experiments (site_id, created_at);
-- Every consent record keeps the variant it was made under ("" outside an experiment), sealed
-- in the chain from consentd-record-v5.
ALTER TABLE consent_records ADD COLUMN IF NOT EXISTS variant TEXT NOT NULL DEFAULT '';
