package postgres

import (
	"context"
	"database/sql"
	"errors"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/shushlist/shush/server/store"
	"github.com/shushlist/shush/server/store/sqlstore"
)

func (s *db) Agent(ctx context.Context, id string) (store.Agent, error) {
	return sqlstore.ScanAgent(row{s.pool.QueryRow(ctx, `SELECT `+sqlstore.AgentColumns+` FROM agents WHERE id = $1`, id)})
}

func (s *db) AgentByFingerprint(ctx context.Context, fingerprint string) (store.Agent, error) {
	return sqlstore.ScanAgent(row{s.pool.QueryRow(ctx,
		`SELECT `+sqlstore.AgentColumns+` FROM agents WHERE fingerprint = $1 AND removed_at IS NULL`, fingerprint)})
}

func (s *db) Agents(ctx context.Context) ([]store.Agent, error) {
	return query1(ctx, s, `SELECT `+sqlstore.AgentColumns+` FROM agents WHERE removed_at IS NULL ORDER BY created_at, id`, nil, sqlstore.ScanAgent)
}

func (t tx) AgentTaken(ctx context.Context, name, fingerprint string) (bool, error) {
	var taken bool
	err := t.tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM agents WHERE removed_at IS NULL AND (name = $1 OR fingerprint = $2))`,
		name, fingerprint).Scan(&taken)
	return taken, err
}

func (t tx) InsertAgent(ctx context.Context, a store.Agent) error {
	_, err := t.tx.Exec(ctx, `INSERT INTO agents (`+sqlstore.AgentColumns+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, NULL)`,
		a.ID, a.Team, a.Name, a.PublicKey, a.Fingerprint, a.ReadOnly, a.Override, a.CreatedAt)
	return err
}

func (t tx) RemoveAgent(ctx context.Context, id string, at time.Time) (store.Agent, error) {
	return sqlstore.ScanAgent(row{t.tx.QueryRow(ctx,
		`UPDATE agents SET removed_at = $2 WHERE id = $1 AND removed_at IS NULL RETURNING `+sqlstore.AgentColumns, id, at)})
}

func (s *db) Team(ctx context.Context, team string) (store.TeamSettings, error) {
	return sqlstore.ScanTeam(row{s.pool.QueryRow(ctx, `SELECT `+sqlstore.TeamColumns+` FROM teams WHERE name = $1`, team)})
}

func (t tx) TeamRules(ctx context.Context, team string) (store.TeamSettings, error) {
	r := t.group(team)
	if r == nil {
		return t.readRules(ctx, team)
	}
	if !r.rulesRead {
		if err := t.readTeam(ctx, r); err != nil {
			return store.TeamSettings{}, err
		}
	}
	ts := r.rules
	ts.Protected = slices.Clone(ts.Protected)
	return ts, r.rulesErr
}

// rulesSQL reads a team's rules.
const rulesSQL = `SELECT ` + sqlstore.TeamColumns + ` FROM teams WHERE name = $1`

func (t tx) readRules(ctx context.Context, team string) (store.TeamSettings, error) {
	return sqlstore.ScanTeam(row{t.tx.QueryRow(ctx, rulesSQL, team)})
}

func (t tx) PutTeam(ctx context.Context, ts store.TeamSettings) error {
	threshold, window, expiry := sqlstore.Policy(ts.Intake)
	_, err := t.tx.Exec(ctx, `INSERT INTO teams (`+sqlstore.TeamColumns+`) VALUES ($1, $2, $3, $4, $5, $6, $7)
		ON CONFLICT (name) DO UPDATE SET protected = excluded.protected, complaint_removal = excluded.complaint_removal,
			soft_threshold = excluded.soft_threshold, soft_window = excluded.soft_window, soft_expiry = excluded.soft_expiry,
			erasure_keeps_domain = excluded.erasure_keeps_domain`,
		ts.Team, ts.Protected, ts.ComplaintRemoval, threshold, window, expiry, ts.ErasureKeepsDomain)
	return err
}

func (s *db) OneClickKey(ctx context.Context, team string) ([]byte, error) {
	var k []byte
	err := s.pool.QueryRow(ctx, `SELECT secret FROM oneclick_keys WHERE team = $1`, team).Scan(&k)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, sql.ErrNoRows
	}
	return k, err
}

func (t tx) PutOneClickKey(ctx context.Context, team string, key []byte, at time.Time) error {
	_, err := t.tx.Exec(ctx, `INSERT INTO oneclick_keys (team, secret, created_at) VALUES ($1, $2, $3) ON CONFLICT (team) DO NOTHING`,
		team, key, at)
	return err
}
