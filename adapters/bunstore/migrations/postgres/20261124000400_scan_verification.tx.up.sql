-- Verification scans (issue 16): what the browser saw per consent state, as JSON.
ALTER TABLE scans ADD COLUMN IF NOT EXISTS verification JSONB;
