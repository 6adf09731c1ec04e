-- What changed since the previous completed scan of the same site and mode (issue 27), as JSON.
ALTER TABLE scans ADD COLUMN IF NOT EXISTS changes JSONB;
