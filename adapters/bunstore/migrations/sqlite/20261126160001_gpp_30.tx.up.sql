-- IAB GPP (issue 30): a banner's GPP settings (core.GPPSettings), one JSON object.
ALTER TABLE banners ADD COLUMN gpp TEXT NOT NULL DEFAULT '{"enabled":false,"mspaCoveredTransaction":false,"mspaMode":"opt-out"}';
