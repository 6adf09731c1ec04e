-- Deep scans (issue 18): the mode asked for and the one that ran, and what a browser saw.
-- Scans made before modes existed were static.
ALTER TABLE scans ADD COLUMN IF NOT EXISTS mode TEXT NOT NULL DEFAULT 'static';
ALTER TABLE scans ADD COLUMN IF NOT EXISTS mode_used TEXT;
ALTER TABLE scans ADD COLUMN IF NOT EXISTS unrecognized_cookies JSONB;
ALTER TABLE scans ADD COLUMN IF NOT EXISTS pre_consent JSONB;
UPDATE scans SET mode_used = 'static' WHERE status = 'completed';
