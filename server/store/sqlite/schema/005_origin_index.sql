-- a page of one origin reads its entries from the origin index alone:
-- with the columns a page shows in it, a rare origin's page is no longer
-- a primary-key look-up per entry.
DROP INDEX suppressions_team_origin_id;
CREATE INDEX suppressions_team_origin_id ON suppressions (team, origin, id, email, source_id, created_at);
