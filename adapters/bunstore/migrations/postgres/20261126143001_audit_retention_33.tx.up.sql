-- Audit retention (issue 33): entries the records' retention has expired are removed, the
-- last one removed is kept as the anchor the remaining chain starts from (0: none removed).
ALTER TABLE audit_heads ADD COLUMN anchor_seq BIGINT NOT NULL DEFAULT 0;

--bun:split

ALTER TABLE audit_heads ADD COLUMN anchor_hash TEXT NOT NULL DEFAULT '';
