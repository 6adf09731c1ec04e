-- Proof of consent (docs/consent-records.md): what was shown (content-addressed snapshots),
-- the chain of committed batches per site, statistics per hour, retention and erasure.

ALTER TABLE sites ADD COLUMN IF NOT EXISTS consent_retention_days INTEGER;

--bun:split

ALTER TABLE consent_records
  ADD COLUMN IF NOT EXISTS page_url TEXT NOT NULL DEFAULT '',
  ADD COLUMN IF NOT EXISTS user_agent TEXT NOT NULL DEFAULT '',
  ADD COLUMN IF NOT EXISTS snapshot_hash TEXT NOT NULL DEFAULT '',
  ADD COLUMN IF NOT EXISTS visitor_salt TEXT NOT NULL DEFAULT '',
  ADD COLUMN IF NOT EXISTS visitor_hash TEXT NOT NULL DEFAULT '',
  ADD COLUMN IF NOT EXISTS record_hash TEXT NOT NULL DEFAULT '',
  -- NULL only for a row written around the store; 0 for records older than the chain.
  ADD COLUMN IF NOT EXISTS batch_seq BIGINT,
  ADD COLUMN IF NOT EXISTS batch_index INTEGER NOT NULL DEFAULT 0;

--bun:split

UPDATE consent_records SET batch_seq = 0 WHERE batch_seq IS NULL;

--bun:split

CREATE INDEX IF NOT EXISTS consent_records_visitor ON consent_records (site_id, visitor_id, created_at DESC, id DESC);

--bun:split

-- One row per link of a site's chain: the records the site got in one commit.
CREATE TABLE IF NOT EXISTS consent_batches (
  site_id UUID NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
  seq BIGINT NOT NULL,
  hash TEXT NOT NULL,
  prev_hash TEXT NOT NULL,
  records INTEGER NOT NULL,
  newest_at TIMESTAMPTZ NOT NULL,
  PRIMARY KEY (site_id, seq)
);

--bun:split

-- The head of each site's chain (locked by every commit that extends it) and the anchor left
-- by retention.
CREATE TABLE IF NOT EXISTS consent_chains (
  site_id UUID PRIMARY KEY REFERENCES sites(id) ON DELETE CASCADE,
  head_seq BIGINT NOT NULL,
  head_hash TEXT NOT NULL,
  anchor_seq BIGINT NOT NULL,
  anchor_hash TEXT NOT NULL
);

--bun:split

CREATE TABLE IF NOT EXISTS consent_snapshots (
  site_id UUID NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
  hash TEXT NOT NULL,
  content TEXT NOT NULL,
  created_at TIMESTAMPTZ NOT NULL,
  PRIMARY KEY (site_id, hash)
);

--bun:split

-- Statistics: the hour counters gain the decisions (never decremented by retention, unlike
-- n, which the listing's totals use) and their breakdowns.
ALTER TABLE consent_counts
  ADD COLUMN IF NOT EXISTS decisions BIGINT NOT NULL DEFAULT 0,
  ADD COLUMN IF NOT EXISTS accept_all BIGINT NOT NULL DEFAULT 0,
  ADD COLUMN IF NOT EXISTS reject_all BIGINT NOT NULL DEFAULT 0,
  ADD COLUMN IF NOT EXISTS custom BIGINT NOT NULL DEFAULT 0,
  ADD COLUMN IF NOT EXISTS gpc BIGINT NOT NULL DEFAULT 0,
  ADD COLUMN IF NOT EXISTS gdpr BIGINT NOT NULL DEFAULT 0,
  ADD COLUMN IF NOT EXISTS ccpa BIGINT NOT NULL DEFAULT 0,
  ADD COLUMN IF NOT EXISTS jur_none BIGINT NOT NULL DEFAULT 0,
  ADD COLUMN IF NOT EXISTS gpc_signal BIGINT NOT NULL DEFAULT 0;

--bun:split

CREATE TABLE IF NOT EXISTS consent_category_counts (
  site_id UUID NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
  bucket TIMESTAMPTZ NOT NULL,
  shard SMALLINT NOT NULL,
  category TEXT NOT NULL,
  decisions BIGINT NOT NULL,
  granted BIGINT NOT NULL,
  PRIMARY KEY (site_id, bucket, shard, category)
);

--bun:split

INSERT INTO consent_counts (site_id, bucket, shard, n, decisions, accept_all, reject_all, custom, gpc, gdpr, ccpa, jur_none, gpc_signal)
SELECT site_id, date_trunc('hour', created_at, 'UTC'), 0, 0, count(*),
  count(*) FILTER (WHERE action = 'accept_all'), count(*) FILTER (WHERE action = 'reject_all'),
  count(*) FILTER (WHERE action = 'custom'), count(*) FILTER (WHERE action = 'gpc'),
  count(*) FILTER (WHERE jurisdiction = 'gdpr'), count(*) FILTER (WHERE jurisdiction = 'ccpa'),
  count(*) FILTER (WHERE jurisdiction = 'none'), count(*) FILTER (WHERE gpc_signal)
FROM consent_records WHERE true GROUP BY 1, 2
ON CONFLICT (site_id, bucket, shard) DO UPDATE SET decisions = EXCLUDED.decisions, accept_all = EXCLUDED.accept_all,
  reject_all = EXCLUDED.reject_all, custom = EXCLUDED.custom, gpc = EXCLUDED.gpc, gdpr = EXCLUDED.gdpr,
  ccpa = EXCLUDED.ccpa, jur_none = EXCLUDED.jur_none, gpc_signal = EXCLUDED.gpc_signal;

--bun:split

INSERT INTO consent_category_counts (site_id, bucket, shard, category, decisions, granted)
SELECT r.site_id, date_trunc('hour', r.created_at, 'UTC'), 0, c.key, count(*), count(*) FILTER (WHERE c.value = 'true'::jsonb)
FROM consent_records r, jsonb_each(r.categories_consented) c GROUP BY 1, 2, 4
ON CONFLICT DO NOTHING;

--bun:split

-- Day rollups of the hour counters, kept in the same transactions: statistics by day or week
-- read one row per day instead of 24.
CREATE TABLE IF NOT EXISTS consent_daily_counts (LIKE consent_counts INCLUDING DEFAULTS);

--bun:split

ALTER TABLE consent_daily_counts ADD PRIMARY KEY (site_id, bucket, shard),
  ADD FOREIGN KEY (site_id) REFERENCES sites(id) ON DELETE CASCADE;

--bun:split

CREATE TABLE IF NOT EXISTS consent_daily_category_counts (LIKE consent_category_counts INCLUDING DEFAULTS);

--bun:split

ALTER TABLE consent_daily_category_counts ADD PRIMARY KEY (site_id, bucket, shard, category),
  ADD FOREIGN KEY (site_id) REFERENCES sites(id) ON DELETE CASCADE;

--bun:split

INSERT INTO consent_daily_counts (site_id, bucket, shard, n, decisions, accept_all, reject_all, custom, gpc, gdpr, ccpa, jur_none, gpc_signal)
SELECT site_id, date_trunc('day', bucket, 'UTC'), shard, sum(n), sum(decisions), sum(accept_all), sum(reject_all), sum(custom),
  sum(gpc), sum(gdpr), sum(ccpa), sum(jur_none), sum(gpc_signal)
FROM consent_counts WHERE true GROUP BY 1, 2, 3;

--bun:split

INSERT INTO consent_daily_category_counts (site_id, bucket, shard, category, decisions, granted)
SELECT site_id, date_trunc('day', bucket, 'UTC'), shard, category, sum(decisions), sum(granted)
FROM consent_category_counts WHERE true GROUP BY 1, 2, 3, 4;
