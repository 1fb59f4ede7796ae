// Command peer is the least service that does what a batch add and a batch
// remove of shush serve do to SQLite, for the load tool to measure shush
// against: net/http, database/sql and the same driver and schema, one
// connection, one durable transaction per request (WAL, synchronous=FULL),
// and nothing else: no key, no trail, no rate limit, no group commit.
//
//	shush keys create --team bench --db peer.db >/dev/null
//	go run ./bench/peer -addr 127.0.0.1:18090 -db peer.db
//
// It answers any bearer key, for the team "bench", and only on loopback.
package main

import (
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
	_ "modernc.org/sqlite"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:18090", "loopback address to listen on")
	path := flag.String("db", "peer.db", "SQLite file made by shush keys create")
	flag.Parse()
	if host, _, err := net.SplitHostPort(*addr); err != nil || !net.ParseIP(host).IsLoopback() {
		log.Fatalf("-addr %s: a loopback address and port, such as 127.0.0.1:18090", *addr)
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
