-- a page of one origin reads its own range, however few entries of that
-- origin the team has among many.
CREATE INDEX suppressions_team_origin_id ON suppressions (team, origin, id);
