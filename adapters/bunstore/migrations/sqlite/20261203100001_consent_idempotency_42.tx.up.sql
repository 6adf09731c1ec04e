-- Idempotent consent posts (issue 42): the key the banner runtime chose for a decision, kept
-- with its record so that the decision posted again (after an answer that never arrived) is
-- answered with its original receipt and stored once. NULL for records posted without one.
-- Outside the record's hash: it names a post, not a fact of the decision.
ALTER TABLE consent_records ADD COLUMN idempotency_key TEXT;
CREATE UNIQUE INDEX consent_records_idempotency ON consent_records (site_id, idempotency_key);
