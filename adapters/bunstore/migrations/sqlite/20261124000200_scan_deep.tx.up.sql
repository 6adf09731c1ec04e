-- Deep scans (issue 18): the mode asked for and the one that ran, and what a browser saw.
-- Scans made before modes existed were static.
ALTER TABLE scans ADD COLUMN mode TEXT NOT NULL DEFAULT 'static';
ALTER TABLE scans ADD COLUMN mode_used TEXT;
ALTER TABLE scans ADD COLUMN unrecognized_cookies TEXT;
ALTER TABLE scans ADD COLUMN pre_consent TEXT;
UPDATE scans SET mode_used = 'static' WHERE status = 'completed';
