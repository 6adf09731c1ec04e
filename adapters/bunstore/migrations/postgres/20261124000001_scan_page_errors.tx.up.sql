ALTER TABLE scans ADD COLUMN page_errors JSONB;
