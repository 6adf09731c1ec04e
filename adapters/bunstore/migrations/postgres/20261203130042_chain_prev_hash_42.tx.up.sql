-- Several serve processes extending one site's chain (issue 42): a Postgres batch moves the
-- head in the database, computing the new hash there, so the head's lock is held only while
-- Postgres runs and commits the batch. The statement that moves the head keeps the head it
-- replaced here, for the batch row and the records' answers written in the same transaction.
ALTER TABLE consent_chains ADD COLUMN prev_hash TEXT NOT NULL DEFAULT '';
