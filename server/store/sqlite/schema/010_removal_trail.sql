-- a removal writes one audit row, not two: the row names the change that
-- listed the entry (change_id), and the entry's "added" entry is read
-- from the two, as a listed entry's is read from its row and change.
-- Removals written before this step keep their two rows.
--
-- A change's number is never used again (AUTOINCREMENT): a change took
-- the number of a pruned one once the prune emptied the table, and the
-- entries the pruned change had listed read as listed by the new one.
-- The sequence starts above every number an entry still names.
--
-- The reference index holds the rows that have a reference only: most
-- changes have none, and a look-up by reference never asks for NULL.
CREATE TABLE changes_new (
	id         INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
	team       TEXT    NOT NULL,
	created_at INTEGER NOT NULL,
	key_id     TEXT    NOT NULL,
	key_name   TEXT    NOT NULL,
	reference  TEXT,
	request_id TEXT    NOT NULL,
	first_id   TEXT    NOT NULL,
	last_id    TEXT    NOT NULL,
	agent_id   TEXT,
	agent_name TEXT
);
INSERT INTO changes_new (id, team, created_at, key_id, key_name, reference, request_id, first_id, last_id, agent_id, agent_name)
	SELECT id, team, created_at, key_id, key_name, reference, request_id, first_id, last_id, agent_id, agent_name FROM changes;
DROP TABLE changes;
ALTER TABLE changes_new RENAME TO changes;
CREATE INDEX changes_team_reference ON changes (team, reference) WHERE reference IS NOT NULL;
CREATE INDEX changes_created ON changes (created_at);
DELETE FROM sqlite_sequence WHERE name = 'changes';
INSERT INTO sqlite_sequence (name, seq) SELECT 'changes',
	max(coalesce((SELECT max(id) FROM changes), 0), coalesce((SELECT max(change_id) FROM suppressions), 0));
ALTER TABLE audit ADD COLUMN change_id INTEGER;
DROP INDEX audit_team_reference;
CREATE INDEX audit_team_reference ON audit (team, reference, id) WHERE reference IS NOT NULL;
