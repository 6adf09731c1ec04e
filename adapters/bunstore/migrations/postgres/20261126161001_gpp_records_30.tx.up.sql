-- IAB GPP (issue 30): on each consent record the GPP string the runtime's __gpp gave (inside
-- the record's hash: consentd-record-v4).
ALTER TABLE consent_records ADD COLUMN IF NOT EXISTS gpp_string TEXT NOT NULL DEFAULT '';
