-- each team's trail head: the last ID a change minted for the team's
-- trail and list. A change that mints IDs reads it and moves it, so the
-- team's IDs ascend in commit order whatever the clocks of the processes
-- that mint them; it starts at the highest ID the team has.
CREATE TABLE trail_heads (
	team    TEXT NOT NULL PRIMARY KEY,
	last_id TEXT
) WITHOUT ROWID;
INSERT INTO trail_heads (team, last_id)
	SELECT team, max(id) FROM (SELECT team, id FROM audit UNION ALL SELECT team, id FROM suppressions) GROUP BY team;
