-- Regional rules (issue 26): a banner's ordered regional rules, and on each consent record the
-- visitor's subdivision and the rule that applied (both inside the record's hash).
ALTER TABLE banners ADD COLUMN IF NOT EXISTS region_rules JSONB NOT NULL DEFAULT '[]';

--bun:split

ALTER TABLE consent_records ADD COLUMN IF NOT EXISTS region TEXT NOT NULL DEFAULT '';

--bun:split

ALTER TABLE consent_records ADD COLUMN IF NOT EXISTS region_rule TEXT NOT NULL DEFAULT '';
