-- Readiness means able to write (issue 42): /readyz writes this one row (Store.Ping), so that
-- a read-only file, a full disk or a read-only server makes the process not ready.
CREATE TABLE IF NOT EXISTS store_probe (
	id INTEGER PRIMARY KEY,
	at TIMESTAMP NOT NULL
);
