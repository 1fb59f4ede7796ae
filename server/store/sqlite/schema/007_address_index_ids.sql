-- nothing to change: the address index of a table WITHOUT ROWID holds
-- each address's ID already (the table's key), which PostgreSQL's gets in
-- this step.
SELECT 1;
