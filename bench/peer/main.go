// Command peer is the least service that does what a batch add and a batch
// remove of shush serve do to SQLite, for the load tool to measure shush
// against: net/http, database/sql and the same driver and schema, one
// connection, one durable transaction per request (WAL, synchronous=FULL),
// and nothing else: no key, no trail, no rate limit, no group commit.
// With -db naming a PostgreSQL database (a postgres:// URL) it does the
// same to PostgreSQL over a pgx pool of -conns connections, each request
// its own transaction on whichever connection is free.
//
//	shush keys create --team bench --db peer.db >/dev/null
//	go run ./bench/peer -addr 127.0.0.1:18090 -db peer.db
//	go run ./bench/peer -addr 127.0.0.1:18090 -db 'postgres://…' -conns 16
//
// It answers any bearer key, for the team "bench", and only on loopback.
package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	_ "modernc.org/sqlite"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:18090", "loopback address to listen on")
	path := flag.String("db", "peer.db", "SQLite file, or PostgreSQL database (postgres:// URL), made by shush keys create")
	conns := flag.Int("conns", 16, "connections of the PostgreSQL pool")
	flag.Parse()
	if host, _, err := net.SplitHostPort(*addr); err != nil || !net.ParseIP(host).IsLoopback() {
		log.Fatalf("-addr %s: a loopback address and port, such as 127.0.0.1:18090", *addr)
	}
	if strings.HasPrefix(*path, "postgres://") || strings.HasPrefix(*path, "postgresql://") {
		servePostgres(*addr, *path, *conns)
		return
	}
	db, err := sql.Open("sqlite", "file:"+*path+"?_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)&_pragma=synchronous(FULL)&_txlock=immediate")
	if err != nil {
		log.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	http.HandleFunc("POST /suppressions/batch/add", func(w http.ResponseWriter, r *http.Request) {
		batch(w, r, db, http.StatusCreated, func(emails []string) (string, []any) {
			at, args := time.Now().UnixMilli(), make([]any, 0, 4*len(emails))
			for _, e := range emails {
				args = append(args, "bench", uuid.Must(uuid.NewV7()).String(), e, at)
			}
			return "INSERT INTO suppressions (team, id, email, origin, created_at) VALUES " +
				strings.TrimSuffix(strings.Repeat("(?,?,?,'manual',?),", len(emails)), ",") +
				" ON CONFLICT (team, email) DO NOTHING RETURNING id", args
		})
	})
	http.HandleFunc("POST /suppressions/batch/remove", func(w http.ResponseWriter, r *http.Request) {
		batch(w, r, db, http.StatusOK, func(emails []string) (string, []any) {
			args := []any{"bench"}
			for _, e := range emails {
				args = append(args, e)
			}
			return "DELETE FROM suppressions WHERE team = ? AND email IN (" +
				strings.TrimSuffix(strings.Repeat("?,", len(emails)), ",") + ") RETURNING id", args
		})
	})
	// The load tool's first request is a list page: the newest 100 IDs.
	http.HandleFunc("GET /suppressions", func(w http.ResponseWriter, r *http.Request) {
		rows, err := db.QueryContext(r.Context(), "SELECT id FROM suppressions WHERE team = 'bench' ORDER BY id DESC LIMIT 100")
		if err != nil {
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
			return
		}
		answer(w, rows, nil, http.StatusOK)
	})
	log.Fatal(http.ListenAndServe(*addr, nil))
}

// batch reads {"emails": [...]}, runs the statement stmt makes for them
// in one transaction, and answers the IDs it returned with status.
func batch(w http.ResponseWriter, r *http.Request, db *sql.DB, status int, stmt func([]string) (string, []any)) {
	var in struct{ Emails []string }
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil || len(in.Emails) == 0 || len(in.Emails) > 100 {
		http.Error(w, "a body of 1 to 100 emails", http.StatusUnprocessableEntity)
		return
	}
	for i, e := range in.Emails {
		in.Emails[i] = strings.ToLower(strings.TrimSpace(e))
	}
	q, args := stmt(in.Emails)
	tx, err := db.BeginTx(r.Context(), nil)
	if err != nil {
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
		return
	}
	defer tx.Rollback()
	rows, err := tx.Query(q, args...)
	if err != nil {
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
		return
	}
	answer(w, rows, tx, status)
}

// answer writes the IDs of rows as {"data": [{"id": …}]} with status,
// after tx (when not nil) commits.
func answer(w http.ResponseWriter, rows *sql.Rows, tx *sql.Tx, status int) {
	ids := []map[string]string{}
	for rows.Next() {
		var id string
		if rows.Scan(&id) == nil {
			ids = append(ids, map[string]string{"id": id})
		}
	}
	err := rows.Close()
	if err == nil && tx != nil {
		err = tx.Commit()
	}
	if err != nil {
		http.Error(w, fmt.Sprint("commit: ", err), http.StatusServiceUnavailable)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{"data": ids})
}

// servePostgres is the peer on PostgreSQL: the same routes, each request
// one transaction of one statement over a pool of conns connections.
func servePostgres(addr, dsn string, conns int) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		log.Fatal("-db: not a valid PostgreSQL URL")
	}
	cfg.MaxConns = int32(conns)
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		log.Fatal(err)
	}
	pgBatch := func(w http.ResponseWriter, r *http.Request, status int, query string, args func([]string) []any) {
		var in struct{ Emails []string }
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil || len(in.Emails) == 0 || len(in.Emails) > 100 {
			http.Error(w, "a body of 1 to 100 emails", http.StatusUnprocessableEntity)
			return
		}
		for i, e := range in.Emails {
			in.Emails[i] = strings.ToLower(strings.TrimSpace(e))
		}
		var ids []string
		err := pgx.BeginFunc(r.Context(), pool, func(tx pgx.Tx) error {
			rows, err := tx.Query(r.Context(), query, args(in.Emails)...)
			if err != nil {
				return err
			}
			ids, err = pgx.CollectRows(rows, pgx.RowTo[string])
			return err
		})
		pgAnswer(w, ids, err, status)
	}
	http.HandleFunc("POST /suppressions/batch/add", func(w http.ResponseWriter, r *http.Request) {
		pgBatch(w, r, http.StatusCreated, `INSERT INTO suppressions (id, team, email, origin, created_at)
			SELECT u.id, 'bench', u.email, 'manual', $3 FROM unnest($1::uuid[], $2::text[]) AS u(id, email)
			ON CONFLICT (team, email) DO NOTHING RETURNING id::text`, func(emails []string) []any {
			ids := make([]string, len(emails))
			for i := range ids {
				ids[i] = uuid.Must(uuid.NewV7()).String()
			}
			return []any{ids, emails, time.Now()}
		})
	})
	http.HandleFunc("POST /suppressions/batch/remove", func(w http.ResponseWriter, r *http.Request) {
		pgBatch(w, r, http.StatusOK, `DELETE FROM suppressions WHERE team = 'bench' AND email = ANY($1::text[]) RETURNING id::text`,
			func(emails []string) []any { return []any{emails} })
	})
	http.HandleFunc("GET /suppressions", func(w http.ResponseWriter, r *http.Request) {
		rows, err := pool.Query(r.Context(), "SELECT id::text FROM suppressions WHERE team = 'bench' ORDER BY team, id DESC LIMIT 100")
		var ids []string
		if err == nil {
			ids, err = pgx.CollectRows(rows, pgx.RowTo[string])
		}
		pgAnswer(w, ids, err, http.StatusOK)
	})
	log.Fatal(http.ListenAndServe(addr, nil))
}

// pgAnswer writes the IDs as {"data": [{"id": …}]} with status, or the
// error.
func pgAnswer(w http.ResponseWriter, ids []string, err error, status int) {
	if err != nil {
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
		return
	}
	out := make([]map[string]string, len(ids))
	for i, id := range ids {
		out[i] = map[string]string{"id": id}
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{"data": out})
}
