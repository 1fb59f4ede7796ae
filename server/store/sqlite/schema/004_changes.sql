-- the trail of additions kept by the additions themselves: a change that
-- lists new addresses writes one row (who, why, and the span of the IDs
-- it made), and each new entry names it; the "added" audit entry of a
-- listed suppression is read from the two, and written to the audit table
-- only when the suppression is removed. Entries listed before this step
-- keep their audit rows and have no change.
CREATE TABLE changes (
	id         INTEGER NOT NULL PRIMARY KEY,
	team       TEXT    NOT NULL,
	created_at INTEGER NOT NULL,
	key_id     TEXT    NOT NULL,
	key_name   TEXT    NOT NULL,
	reference  TEXT,
	request_id TEXT    NOT NULL,
	first_id   TEXT    NOT NULL,
	last_id    TEXT    NOT NULL
);
CREATE INDEX changes_team_reference ON changes (team, reference) WHERE reference IS NOT NULL;
CREATE INDEX changes_created ON changes (created_at);
ALTER TABLE suppressions ADD COLUMN change_id INTEGER;
