-- a note and an expiry on each entry (the trail keeps them with what it
-- records), and the indexes that find entries: a domain's entries in ID
-- order, so that its page is a range read like the list's own; the
-- entries due to expire, for the sweeper. A prefix is a range of the
-- address index (BINARY collation: byte order). The origin index keeps
-- what a page shows.
ALTER TABLE suppressions ADD COLUMN note TEXT;
ALTER TABLE suppressions ADD COLUMN expires_at INTEGER;
ALTER TABLE audit ADD COLUMN note TEXT;
ALTER TABLE audit ADD COLUMN expires_at INTEGER;
CREATE INDEX suppressions_team_domain ON suppressions (team, substr(email, instr(email, '@') + 1), id);
CREATE INDEX suppressions_expires ON suppressions (expires_at) WHERE expires_at IS NOT NULL;
DROP INDEX suppressions_team_origin_id;
CREATE INDEX suppressions_team_origin_id ON suppressions (team, origin, id, email, source_id, created_at, note, expires_at);
