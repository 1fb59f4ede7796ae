-- the trail of additions kept by the additions themselves: a change that
-- lists new addresses writes one row (who, why, and the span of the IDs
-- it made), and each new entry names it; the "added" audit entry of a
-- listed suppression is read from the two, and written to the audit table
-- only when the suppression is removed. Entries listed before this step
-- keep their audit rows and have no change.
CREATE TABLE changes (
	id         uuid PRIMARY KEY,
	team       text NOT NULL,
	created_at timestamptz NOT NULL,
	key_id     text NOT NULL,
	key_name   text NOT NULL,
	reference  text,
	request_id text NOT NULL,
	first_id   uuid NOT NULL,
	last_id    uuid NOT NULL
);
CREATE INDEX changes_team_reference ON changes (team, reference) WHERE reference IS NOT NULL;
CREATE INDEX changes_created ON changes (created_at);
ALTER TABLE suppressions ADD COLUMN change_id uuid;
