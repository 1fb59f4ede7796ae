-- a removal writes one audit row, not two: the row names the change that
-- listed the entry (change_id), and the entry's "added" entry is read
-- from the two, as a listed entry's is read from its row and change.
-- Removals written before this step keep their two rows. (A change's
-- UUID is never used again; SQLite's numbers needed AUTOINCREMENT in
-- this step.)
--
-- The reference index holds the rows that have a reference only: most
-- changes have none, and a look-up by reference never asks for NULL.
ALTER TABLE audit ADD COLUMN change_id uuid;
DROP INDEX audit_team_reference;
CREATE INDEX audit_team_reference ON audit (team, reference, id) WHERE reference IS NOT NULL;
