-- agents: the named people of a team who work the list in the terminal UI
-- over SSH, each known by one public key (found by its fingerprint); a
-- removed agent stays, for the trail, and never logs in again. A change
-- an agent makes names it in the trail (agent_id, agent_name) and has no
-- key (key_id and key_name are ''). teams: each team's rules, protected
-- addresses and domains and the rule for removing complaints; a team
-- without a row has none protected and "confirm". Keys get the override
-- permission that rule may ask for.
CREATE TABLE agents (
	id          TEXT    NOT NULL PRIMARY KEY,
	team        TEXT    NOT NULL,
	name        TEXT    NOT NULL,
	public_key  TEXT    NOT NULL,
	fingerprint TEXT    NOT NULL,
	read_only   INTEGER NOT NULL,
	override    INTEGER NOT NULL,
	created_at  INTEGER NOT NULL,
	removed_at  INTEGER
);
CREATE UNIQUE INDEX agents_name ON agents (name) WHERE removed_at IS NULL;
CREATE UNIQUE INDEX agents_fingerprint ON agents (fingerprint) WHERE removed_at IS NULL;
CREATE TABLE teams (
	name              TEXT NOT NULL PRIMARY KEY,
	protected         TEXT NOT NULL,
	complaint_removal TEXT NOT NULL CHECK (complaint_removal IN ('confirm', 'override'))
);
ALTER TABLE api_keys ADD COLUMN override INTEGER NOT NULL DEFAULT 0;
ALTER TABLE audit ADD COLUMN agent_id TEXT;
ALTER TABLE audit ADD COLUMN agent_name TEXT;
ALTER TABLE changes ADD COLUMN agent_id TEXT;
ALTER TABLE changes ADD COLUMN agent_name TEXT;
