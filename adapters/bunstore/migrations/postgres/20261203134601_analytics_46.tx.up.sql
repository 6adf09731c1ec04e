-- Analytics (issue 46): counters per site, UTC hour, country, regional rule, device class,
-- language, banner version and experiment variant, added to by every process's flush
-- (ON CONFLICT DO UPDATE SET n = n + excluded.n); never a row per event.
CREATE TABLE IF NOT EXISTS analytics_counts (
  site_id UUID NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
  hour TIMESTAMPTZ NOT NULL,
  country TEXT NOT NULL,
  region_rule TEXT NOT NULL,
  device TEXT NOT NULL,
  language TEXT NOT NULL,
  banner_version INTEGER NOT NULL,
  variant TEXT NOT NULL,
  shown BIGINT NOT NULL DEFAULT 0,
  preferences_opened BIGINT NOT NULL DEFAULT 0,
  left_undecided BIGINT NOT NULL DEFAULT 0,
  first_accept_all BIGINT NOT NULL DEFAULT 0,
  first_reject_all BIGINT NOT NULL DEFAULT 0,
  first_custom BIGINT NOT NULL DEFAULT 0,
  first_do_not_sell BIGINT NOT NULL DEFAULT 0,
  first_gpc BIGINT NOT NULL DEFAULT 0,
  decision_ms BIGINT NOT NULL DEFAULT 0,
  timed BIGINT NOT NULL DEFAULT 0,
  decided BIGINT NOT NULL DEFAULT 0,
  accept_all BIGINT NOT NULL DEFAULT 0,
  reject_all BIGINT NOT NULL DEFAULT 0,
  custom BIGINT NOT NULL DEFAULT 0,
  gpc BIGINT NOT NULL DEFAULT 0,
  gdpr BIGINT NOT NULL DEFAULT 0,
  ccpa BIGINT NOT NULL DEFAULT 0,
  jur_none BIGINT NOT NULL DEFAULT 0,
  gpc_signal BIGINT NOT NULL DEFAULT 0,
  do_not_sell BIGINT NOT NULL DEFAULT 0,
  PRIMARY KEY (site_id, hour, country, region_rule, device, language, banner_version, variant)
);

--bun:split

CREATE TABLE IF NOT EXISTS analytics_category_counts (
  site_id UUID NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
  hour TIMESTAMPTZ NOT NULL,
  country TEXT NOT NULL,
  region_rule TEXT NOT NULL,
  device TEXT NOT NULL,
  language TEXT NOT NULL,
  banner_version INTEGER NOT NULL,
  variant TEXT NOT NULL,
  category TEXT NOT NULL,
  decisions BIGINT NOT NULL DEFAULT 0,
  granted BIGINT NOT NULL DEFAULT 0,
  PRIMARY KEY (site_id, hour, country, region_rule, device, language, banner_version, variant, category)
);

--bun:split

-- The statistics' history moves over: the decisions counted so far, one key per hour with
-- the dimensions unknown (the hour counters never had them). From now on core/analytics counts
-- the decisions after their commit; consent_counts keeps only n, the listing's totals.
INSERT INTO analytics_counts (site_id, hour, country, region_rule, device, language, banner_version, variant,
  decided, accept_all, reject_all, custom, gpc, gdpr, ccpa, jur_none, gpc_signal)
SELECT site_id, bucket, '', '', '', '', 0, '', sum(decisions), sum(accept_all), sum(reject_all), sum(custom), sum(gpc),
  sum(gdpr), sum(ccpa), sum(jur_none), sum(gpc_signal)
FROM consent_counts GROUP BY site_id, bucket HAVING sum(decisions) > 0;

--bun:split

INSERT INTO analytics_category_counts (site_id, hour, country, region_rule, device, language, banner_version, variant,
  category, decisions, granted)
SELECT site_id, bucket, '', '', '', '', 0, '', category, sum(decisions), sum(granted)
FROM consent_category_counts GROUP BY site_id, bucket, category;
