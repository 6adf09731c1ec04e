-- IAB TCF (issue 29): on each consent record the TC string and the Additional Consent string
-- the TCF module produced, and the Global Vendor List version it was decided under (all three
-- inside the record's hash: consentd-record-v3).
ALTER TABLE consent_records ADD COLUMN tc_string TEXT NOT NULL DEFAULT '';

--bun:split

ALTER TABLE consent_records ADD COLUMN ac_string TEXT NOT NULL DEFAULT '';

--bun:split

ALTER TABLE consent_records ADD COLUMN gvl_version INTEGER NOT NULL DEFAULT 0;
