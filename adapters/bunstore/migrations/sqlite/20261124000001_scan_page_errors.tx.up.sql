ALTER TABLE scans ADD COLUMN page_errors TEXT;
