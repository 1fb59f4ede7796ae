-- a note and an expiry on each entry (the trail keeps them with what it
-- records), and the indexes that find entries: addresses in byte order
-- (COLLATE "C": every address is ASCII), so that the address index holds
-- the addresses that start with a prefix as one range, whatever the
-- database's collation; a domain's entries in ID order, so that its page
-- is a range read like the list's own; the entries due to expire, for the
-- sweeper.
ALTER TABLE suppressions ALTER COLUMN email TYPE text COLLATE "C";
ALTER TABLE suppressions ADD COLUMN note text;
ALTER TABLE suppressions ADD COLUMN expires_at timestamptz;
ALTER TABLE audit ADD COLUMN note text;
ALTER TABLE audit ADD COLUMN expires_at timestamptz;
CREATE INDEX suppressions_team_domain ON suppressions (team, split_part(email, '@', 2), id);
CREATE INDEX suppressions_expires ON suppressions (expires_at) WHERE expires_at IS NOT NULL;
