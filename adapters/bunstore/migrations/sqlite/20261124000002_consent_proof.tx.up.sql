-- Proof of consent: see the Postgres migration of the same name.

ALTER TABLE sites ADD COLUMN consent_retention_days INTEGER;

--bun:split

ALTER TABLE consent_records ADD COLUMN page_url TEXT NOT NULL DEFAULT '';

--bun:split

ALTER TABLE consent_records ADD COLUMN user_agent TEXT NOT NULL DEFAULT '';

--bun:split

ALTER TABLE consent_records ADD COLUMN snapshot_hash TEXT NOT NULL DEFAULT '';

--bun:split

ALTER TABLE consent_records ADD COLUMN visitor_salt TEXT NOT NULL DEFAULT '';

--bun:split

ALTER TABLE consent_records ADD COLUMN visitor_hash TEXT NOT NULL DEFAULT '';

--bun:split

ALTER TABLE consent_records ADD COLUMN record_hash TEXT NOT NULL DEFAULT '';

--bun:split

-- NULL only for a row written around the store; 0 for records older than the chain.
ALTER TABLE consent_records ADD COLUMN batch_seq INTEGER;

--bun:split

ALTER TABLE consent_records ADD COLUMN batch_index INTEGER NOT NULL DEFAULT 0;

--bun:split

UPDATE consent_records SET batch_seq = 0 WHERE batch_seq IS NULL;

--bun:split

CREATE INDEX IF NOT EXISTS consent_records_visitor ON consent_records (site_id, visitor_id, created_at DESC, id DESC);

--bun:split

CREATE TABLE IF NOT EXISTS consent_batches (
  site_id TEXT NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
  seq INTEGER NOT NULL,
  hash TEXT NOT NULL,
  prev_hash TEXT NOT NULL,
  records INTEGER NOT NULL,
  newest_at TIMESTAMP NOT NULL,
  PRIMARY KEY (site_id, seq)
) WITHOUT ROWID;

--bun:split

CREATE TABLE IF NOT EXISTS consent_chains (
  site_id TEXT PRIMARY KEY REFERENCES sites(id) ON DELETE CASCADE,
  head_seq INTEGER NOT NULL,
  head_hash TEXT NOT NULL,
  anchor_seq INTEGER NOT NULL,
  anchor_hash TEXT NOT NULL
) WITHOUT ROWID;

--bun:split

CREATE TABLE IF NOT EXISTS consent_snapshots (
  site_id TEXT NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
  hash TEXT NOT NULL,
  content TEXT NOT NULL,
  created_at TIMESTAMP NOT NULL,
  PRIMARY KEY (site_id, hash)
) WITHOUT ROWID;

--bun:split

ALTER TABLE consent_counts ADD COLUMN decisions INTEGER NOT NULL DEFAULT 0;

--bun:split

ALTER TABLE consent_counts ADD COLUMN accept_all INTEGER NOT NULL DEFAULT 0;

--bun:split

ALTER TABLE consent_counts ADD COLUMN reject_all INTEGER NOT NULL DEFAULT 0;

--bun:split

ALTER TABLE consent_counts ADD COLUMN custom INTEGER NOT NULL DEFAULT 0;

--bun:split

ALTER TABLE consent_counts ADD COLUMN gpc INTEGER NOT NULL DEFAULT 0;

--bun:split

ALTER TABLE consent_counts ADD COLUMN gdpr INTEGER NOT NULL DEFAULT 0;

--bun:split

ALTER TABLE consent_counts ADD COLUMN ccpa INTEGER NOT NULL DEFAULT 0;

--bun:split

ALTER TABLE consent_counts ADD COLUMN jur_none INTEGER NOT NULL DEFAULT 0;

--bun:split

ALTER TABLE consent_counts ADD COLUMN gpc_signal INTEGER NOT NULL DEFAULT 0;

--bun:split

CREATE TABLE IF NOT EXISTS consent_category_counts (
  site_id TEXT NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
  bucket TIMESTAMP NOT NULL,
  shard INTEGER NOT NULL,
  category TEXT NOT NULL,
  decisions INTEGER NOT NULL,
  granted INTEGER NOT NULL,
  PRIMARY KEY (site_id, bucket, shard, category)
) WITHOUT ROWID;

--bun:split

INSERT INTO consent_counts (site_id, bucket, shard, n, decisions, accept_all, reject_all, custom, gpc, gdpr, ccpa, jur_none, gpc_signal)
SELECT site_id, strftime('%Y-%m-%d %H:00:00', created_at) || '+00:00', 0, 0, count(*),
  sum(action = 'accept_all'), sum(action = 'reject_all'), sum(action = 'custom'), sum(action = 'gpc'),
  sum(jurisdiction = 'gdpr'), sum(jurisdiction = 'ccpa'), sum(jurisdiction = 'none'), sum(gpc_signal <> 0)
FROM consent_records WHERE true GROUP BY 1, 2
ON CONFLICT (site_id, bucket, shard) DO UPDATE SET decisions = excluded.decisions, accept_all = excluded.accept_all,
  reject_all = excluded.reject_all, custom = excluded.custom, gpc = excluded.gpc, gdpr = excluded.gdpr,
  ccpa = excluded.ccpa, jur_none = excluded.jur_none, gpc_signal = excluded.gpc_signal;

--bun:split

INSERT INTO consent_category_counts (site_id, bucket, shard, category, decisions, granted)
SELECT r.site_id, strftime('%Y-%m-%d %H:00:00', r.created_at) || '+00:00', 0, c.key, count(*), sum(c.value = 1)
FROM consent_records r, json_each(r.categories_consented) c WHERE true GROUP BY 1, 2, 4
ON CONFLICT DO NOTHING;

--bun:split

-- Day rollups of the hour counters (see the Postgres migration); bucket is the day's start.
CREATE TABLE IF NOT EXISTS consent_daily_counts (
  site_id TEXT NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
  bucket TIMESTAMP NOT NULL,
  shard INTEGER NOT NULL,
  n INTEGER NOT NULL,
  decisions INTEGER NOT NULL DEFAULT 0,
  accept_all INTEGER NOT NULL DEFAULT 0,
  reject_all INTEGER NOT NULL DEFAULT 0,
  custom INTEGER NOT NULL DEFAULT 0,
  gpc INTEGER NOT NULL DEFAULT 0,
  gdpr INTEGER NOT NULL DEFAULT 0,
  ccpa INTEGER NOT NULL DEFAULT 0,
  jur_none INTEGER NOT NULL DEFAULT 0,
  gpc_signal INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (site_id, bucket, shard)
) WITHOUT ROWID;

--bun:split

CREATE TABLE IF NOT EXISTS consent_daily_category_counts (
  site_id TEXT NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
  bucket TIMESTAMP NOT NULL,
  shard INTEGER NOT NULL,
  category TEXT NOT NULL,
  decisions INTEGER NOT NULL,
  granted INTEGER NOT NULL,
  PRIMARY KEY (site_id, bucket, shard, category)
) WITHOUT ROWID;

--bun:split

INSERT INTO consent_daily_counts (site_id, bucket, shard, n, decisions, accept_all, reject_all, custom, gpc, gdpr, ccpa, jur_none, gpc_signal)
SELECT site_id, substr(bucket, 1, 10) || ' 00:00:00+00:00', shard, sum(n), sum(decisions), sum(accept_all), sum(reject_all),
  sum(custom), sum(gpc), sum(gdpr), sum(ccpa), sum(jur_none), sum(gpc_signal)
FROM consent_counts WHERE true GROUP BY 1, 2, 3;

--bun:split

INSERT INTO consent_daily_category_counts (site_id, bucket, shard, category, decisions, granted)
SELECT site_id, substr(bucket, 1, 10) || ' 00:00:00+00:00', shard, category, sum(decisions), sum(granted)
FROM consent_category_counts WHERE true GROUP BY 1, 2, 3, 4;
