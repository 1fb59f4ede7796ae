-- agents: the named people of a team who work the list in the terminal UI
-- over SSH, each known by one public key (found by its fingerprint); a
-- removed agent stays, for the trail, and never logs in again. A change
-- an agent makes names it in the trail (agent_id, agent_name) and has no
-- key (key_id and key_name are ''). teams: each team's rules, protected
-- addresses and domains and the rule for removing complaints; a team
-- without a row has none protected and "confirm". Keys get the override
-- permission that rule may ask for.
CREATE TABLE agents (
	id          text PRIMARY KEY,
	team        text NOT NULL,
	name        text NOT NULL,
	public_key  text NOT NULL,
	fingerprint text NOT NULL,
	read_only   boolean NOT NULL,
	override    boolean NOT NULL,
	created_at  timestamptz NOT NULL,
	removed_at  timestamptz
);
CREATE UNIQUE INDEX agents_name ON agents (name) WHERE removed_at IS NULL;
CREATE UNIQUE INDEX agents_fingerprint ON agents (fingerprint) WHERE removed_at IS NULL;
CREATE TABLE teams (
	name              text PRIMARY KEY,
	protected         text[] NOT NULL,
	complaint_removal text NOT NULL CHECK (complaint_removal IN ('confirm', 'override'))
);
ALTER TABLE api_keys ADD COLUMN override boolean NOT NULL DEFAULT false;
ALTER TABLE audit ADD COLUMN agent_id text;
ALTER TABLE audit ADD COLUMN agent_name text;
ALTER TABLE changes ADD COLUMN agent_id text;
ALTER TABLE changes ADD COLUMN agent_name text;
