-- Exact totals of consent records without counting the records: one row per site, hour and
-- writer shard, maintained in the same transaction as the inserts it counts (see the Postgres
-- migration). bucket is text in bun's time format ('2006-01-02 15:04:05+00:00'), so that it
-- compares with bound times as created_at does.
CREATE TABLE IF NOT EXISTS consent_counts (
  site_id TEXT NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
  bucket TIMESTAMP NOT NULL,
  shard INTEGER NOT NULL,
  n INTEGER NOT NULL,
  PRIMARY KEY (site_id, bucket, shard)
) WITHOUT ROWID;

--bun:split

INSERT INTO consent_counts (site_id, bucket, shard, n)
SELECT site_id, strftime('%Y-%m-%d %H:00:00', created_at) || '+00:00', 0, count(*)
FROM consent_records WHERE true GROUP BY 1, 2
ON CONFLICT DO NOTHING;
