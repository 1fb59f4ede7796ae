-- each team's trail head: the last ID a change minted for the team's
-- trail and list. A change that mints IDs locks its row until it commits
-- and moves it, so the team's changes commit one at a time and its IDs
-- ascend in commit order (IDs taken before the commit, unlocked, did
-- not: a reader following by ID skipped entries that committed late); it
-- starts at the highest ID the team has.
CREATE TABLE trail_heads (
	team    text PRIMARY KEY,
	last_id uuid
);
INSERT INTO trail_heads (team, last_id)
	SELECT team, max(id::text)::uuid FROM (SELECT team, id FROM audit UNION ALL SELECT team, id FROM suppressions) ids GROUP BY team;
