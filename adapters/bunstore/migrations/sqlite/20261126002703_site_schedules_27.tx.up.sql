-- Scan and verification schedules per site, and auto-configure (issue 27).
ALTER TABLE sites ADD COLUMN scan_schedule TEXT NOT NULL DEFAULT 'default';

--bun:split

ALTER TABLE sites ADD COLUMN verify_schedule TEXT NOT NULL DEFAULT 'off';

--bun:split

ALTER TABLE sites ADD COLUMN auto_configure BOOLEAN NOT NULL DEFAULT false;

--bun:split

-- The services auto-configure added after a scan, as a JSON list of slugs.
ALTER TABLE scans ADD COLUMN auto_configured TEXT;
