-- IAB TCF (issue 29): every Global Vendor List version consentd used (language '') and the
-- IAB's translations of its texts, as published (body, the JSON text byte for byte), so that a
-- consent record names the list it was decided under; and per resource what the IAB last
-- answered (validators, and until when the answer is fresh per its Cache-Control).
CREATE TABLE IF NOT EXISTS tcf_vendor_lists (
  version INTEGER NOT NULL,
  language TEXT NOT NULL,
  last_updated TIMESTAMP NOT NULL,
  fetched_at TIMESTAMP NOT NULL,
  body TEXT NOT NULL,
  PRIMARY KEY (version, language)
);

--bun:split

CREATE TABLE IF NOT EXISTS tcf_gvl_fetches (
  resource TEXT PRIMARY KEY,
  etag TEXT NOT NULL DEFAULT '',
  last_modified TEXT NOT NULL DEFAULT '',
  expires_at TIMESTAMP NOT NULL,
  checked_at TIMESTAMP NOT NULL
);
