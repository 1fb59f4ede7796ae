-- the address index holds each address's ID, so that a prefix's page
-- sorts the IDs of its matches from the index alone (an index-only scan)
-- and reads only the rows it shows. The unique index keeps the name of the
-- constraint it takes over; ON CONFLICT (team, email) finds it the same.
CREATE UNIQUE INDEX suppressions_team_email_id ON suppressions (team, email) INCLUDE (id);
ALTER TABLE suppressions DROP CONSTRAINT suppressions_team_email;
ALTER INDEX suppressions_team_email_id RENAME TO suppressions_team_email;
