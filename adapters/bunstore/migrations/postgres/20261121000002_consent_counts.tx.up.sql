-- Exact totals of consent records without counting the records: one row per site, hour and
-- writer shard, maintained in the same transaction as the inserts it counts. A total is the
-- sum of a site's buckets; a date-filtered total adds the buckets wholly inside the range and
-- counts only the records of the (at most two) partial edge hours through the index.
CREATE TABLE IF NOT EXISTS consent_counts (
  site_id UUID NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
  bucket TIMESTAMPTZ NOT NULL,
  shard SMALLINT NOT NULL,
  n BIGINT NOT NULL,
  PRIMARY KEY (site_id, bucket, shard)
);

--bun:split

INSERT INTO consent_counts (site_id, bucket, shard, n)
SELECT site_id, date_trunc('hour', created_at, 'UTC'), 0, count(*)
FROM consent_records WHERE true GROUP BY 1, 2
ON CONFLICT DO NOTHING;
