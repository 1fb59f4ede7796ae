package sqlite

import (
	"context"
	"encoding/json"
	"time"

	"github.com/shushlist/shush/server/store"
	"github.com/shushlist/shush/server/store/sqlstore"
)

func (s *db) Agent(ctx context.Context, id string) (store.Agent, error) {
	return sqlstore.ScanAgent(s.read.QueryRowContext(ctx, "SELECT "+sqlstore.AgentColumns+" FROM agents WHERE id = ?", id))
}

func (s *db) AgentByFingerprint(ctx context.Context, fingerprint string) (store.Agent, error) {
	return sqlstore.ScanAgent(s.read.QueryRowContext(ctx,
		"SELECT "+sqlstore.AgentColumns+" FROM agents WHERE fingerprint = ? AND removed_at IS NULL", fingerprint))
}

func (s *db) Agents(ctx context.Context) ([]store.Agent, error) {
	rows, err := s.read.QueryContext(ctx, "SELECT "+sqlstore.AgentColumns+" FROM agents WHERE removed_at IS NULL ORDER BY created_at, id")
	if err != nil {
		return nil, err
	}
	return collect(rows, sqlstore.ScanAgent)
}

func (t tx) AgentTaken(ctx context.Context, name, fingerprint string) (bool, error) {
	var n int
	err := t.c.QueryRowContext(context.Background(),
		"SELECT count(*) FROM agents WHERE removed_at IS NULL AND (name = ? OR fingerprint = ?)", name, fingerprint).Scan(&n)
	return n > 0, err
}

func (t tx) InsertAgent(ctx context.Context, a store.Agent) error {
	_, err := t.exec("INSERT INTO agents ("+sqlstore.AgentColumns+") VALUES (?,?,?,?,?,?,?,?,NULL)",
		a.ID, a.Team, a.Name, a.PublicKey, a.Fingerprint, a.ReadOnly, a.Override, a.CreatedAt.UnixMilli())
	return err
}

func (t tx) RemoveAgent(ctx context.Context, id string, at time.Time) (store.Agent, error) {
	return sqlstore.ScanAgent(t.c.QueryRowContext(context.Background(),
		"UPDATE agents SET removed_at = ? WHERE id = ? AND removed_at IS NULL RETURNING "+sqlstore.AgentColumns, at.UnixMilli(), id))
}

func (s *db) Team(ctx context.Context, team string) (store.TeamSettings, error) {
	return sqlstore.ScanTeam(s.read.QueryRowContext(ctx, teamSQL, team))
}

// teamSQL reads a team's rules.
const teamSQL = "SELECT " + sqlstore.TeamColumns + " FROM teams WHERE name = ?"

func (t tx) TeamRules(ctx context.Context, team string) (store.TeamSettings, error) {
	st, err := t.s.stmt(teamSQL)
	if err != nil {
		return store.TeamSettings{}, err
	}
	return sqlstore.ScanTeam(st.QueryRowContext(context.Background(), team))
}

func (t tx) PutTeam(ctx context.Context, ts store.TeamSettings) error {
	protected, err := json.Marshal(ts.Protected)
	if err != nil {
		return err
	}
	threshold, window, expiry := sqlstore.Policy(ts.Intake)
	_, err = t.exec(`INSERT INTO teams (`+sqlstore.TeamColumns+`) VALUES (?,?,?,?,?,?,?)
		ON CONFLICT (name) DO UPDATE SET protected = excluded.protected, complaint_removal = excluded.complaint_removal,
			soft_threshold = excluded.soft_threshold, soft_window = excluded.soft_window, soft_expiry = excluded.soft_expiry,
			erasure_keeps_domain = excluded.erasure_keeps_domain`,
		ts.Team, string(protected), ts.ComplaintRemoval, threshold, window, expiry, ts.ErasureKeepsDomain)
	return err
}

func (s *db) OneClickKey(ctx context.Context, team string) ([]byte, error) {
	var k []byte
	err := s.read.QueryRowContext(ctx, "SELECT secret FROM oneclick_keys WHERE team = ?", team).Scan(&k)
	return k, err
}

func (t tx) PutOneClickKey(ctx context.Context, team string, key []byte, at time.Time) error {
	_, err := t.exec("INSERT INTO oneclick_keys (team, secret, created_at) VALUES (?,?,?) ON CONFLICT (team) DO NOTHING",
		team, key, at.UnixMilli())
	return err
}
