package main

import (
	"context"
	crand "crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/shushlist/shush/server/store/postgres"
)

// settings are the command's flags.
type settings struct {
	store, dsn, order, shush, server, cpuprofile string
	n, rounds, concurrency, group, conns         int
	trail, shell                                 bool
	rate                                         float64
	analyze                                      time.Duration
}

func parse(args []string) (settings, error) {
	var s settings
	fs := flag.NewFlagSet("floor", flag.ContinueOnError)
	fs.StringVar(&s.store, "store", "sqlite", "database: sqlite or postgres")
	fs.StringVar(&s.dsn, "dsn", os.Getenv("SHUSH_TEST_POSTGRES"), "PostgreSQL server for -store postgres, as a postgres:// URL; each run works in a schema of its own (default $SHUSH_TEST_POSTGRES)")
	fs.IntVar(&s.n, "n", 100_000, "addresses to import")
	fs.StringVar(&s.order, "order", "sorted", "order of the addresses in the input: sorted or shuffled")
	fs.IntVar(&s.concurrency, "concurrency", 0, "give the CLI --concurrency N (0: leave the CLI's default)")
	fs.IntVar(&s.rounds, "rounds", 1, "how many times to run the floor and shush, alternately; the summary gives medians")
	fs.BoolVar(&s.trail, "trail", true, "also run the floor with the trail's rows (one row in changes per transaction, named by its entries)")
	fs.BoolVar(&s.shell, "shell", false, "on SQLite, also run the sqlite3 shell's floors: the same transactions with the trail's rows, as an SQL script, each batch committed on its own and -group batches to a commit (needs sqlite3 on PATH)")
	fs.IntVar(&s.group, "group", 16, "batches to a commit in the sqlite3 shell's grouped floor: as many as shush's store can commit together, the batches the CLI has in flight (16 against shush serve)")
	fs.IntVar(&s.conns, "conns", 16, "on PostgreSQL, also run the floor with the trail's rows over this many connections at once, one batch per transaction (0: not at all); the CLI keeps 16 batches in flight")
	fs.StringVar(&s.shush, "shush", "", "the shush binary (default: build it from this module)")
	fs.StringVar(&s.server, "server", "binary", "how the service runs: binary (`shush serve`) or inprocess")
	fs.StringVar(&s.cpuprofile, "cpuprofile", "", "write a CPU profile of the service during each shush import to this file (needs -server inprocess; round r > 1 adds .r)")
	fs.Float64Var(&s.rate, "rate", 1_000_000, "the service's rate limit per team (--rate), raised so that it does not pace the import")
	fs.DurationVar(&s.analyze, "analyze-every", 0, "on PostgreSQL, ANALYZE the suppressions table this often during the shush import, as autovacuum would on a server where it is on (0: never)")
	if err := fs.Parse(args); err != nil {
		return s, err
	}
	switch {
	case fs.NArg() > 0:
		return s, fmt.Errorf("unexpected argument %q; see -help", fs.Arg(0))
	case s.store != "sqlite" && s.store != "postgres":
		return s, fmt.Errorf("-store must be sqlite or postgres, not %q", s.store)
	case s.store == "postgres" && s.dsn == "":
		return s, errors.New("-store postgres needs -dsn (or SHUSH_TEST_POSTGRES) naming a PostgreSQL server")
	case s.order != "sorted" && s.order != "shuffled":
		return s, fmt.Errorf("-order must be sorted or shuffled, not %q", s.order)
	case s.n < 1:
		return s, fmt.Errorf("-n must be at least 1, not %d", s.n)
	case s.concurrency < 0:
		return s, fmt.Errorf("-concurrency must be 0 (the CLI's default) or more, not %d", s.concurrency)
	case s.group < 1:
		return s, fmt.Errorf("-group must be at least 1, not %d", s.group)
	case s.conns < 0:
		return s, fmt.Errorf("-conns must be 0 or more, not %d", s.conns)
	case s.rounds < 1:
		return s, fmt.Errorf("-rounds must be at least 1, not %d", s.rounds)
	case s.server != "binary" && s.server != "inprocess":
		return s, fmt.Errorf("-server must be binary or inprocess, not %q", s.server)
	case s.shell && s.store != "sqlite":
		return s, errors.New("-shell is the sqlite3 shell's floor: it needs -store sqlite")
	case s.cpuprofile != "" && s.server != "inprocess":
		return s, errors.New("-cpuprofile profiles the service in this process: add -server inprocess")
	}
	return s, nil
}

// result is one timed import.
type result struct {
	wall time.Duration
	// server and client CPU (user + system) of a shush run; the
	// in-process server's is the whole process's during the import. A
	// floor's CPU is its own process's (on PostgreSQL, without the
	// server's backend) in serverCPU.
	serverCPU, clientCPU time.Duration
}

func run(ctx context.Context, args []string) error {
	s, err := parse(args)
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "shush-floor-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if s.shush == "" {
		if s.shush, err = build(ctx, dir); err != nil {
			return err
		}
	}
	emails := addresses(s.n, s.order)
	input := filepath.Join(dir, "addresses.txt")
	if err := os.WriteFile(input, []byte(strings.Join(emails, "\n")+"\n"), 0o600); err != nil {
		return err
	}
	cli := "the CLI's default concurrency"
	if s.concurrency > 0 {
		cli = fmt.Sprintf("--concurrency %d", s.concurrency)
	}
	fmt.Printf("%s, %d addresses, %s, %s, GOMAXPROCS %d, load average %s\n", s.store, s.n, s.order, cli, runtime.GOMAXPROCS(0), loadavg())

	var t tally
	for r := 1; r <= s.rounds; r++ {
		if err := t.round(ctx, s, dir, r, emails, input); err != nil {
			return err
		}
	}
	t.print(s)
	return nil
}

// tally holds every round's results, and shush's ratios to each floor.
type tally struct {
	floors, trails, shells, grouped, pooled, shushes              []result
	ratios, trailRatios, shellRatios, groupedRatios, pooledRatios []float64
}

// pooled says whether the floor over several PostgreSQL connections runs.
func (s settings) pooled() bool { return s.store == "postgres" && s.conns > 0 }

// round measures round r: the floor, the floor with the trail, the sqlite3
// shell's floors and the floor over several connections where asked, then
// shush; each on a fresh database.
func (t *tally) round(ctx context.Context, s settings, dir string, r int, emails []string, input string) error {
	f, err := fresh(ctx, s, dir, fmt.Sprintf("floor%d", r), "the floor", func(db string) (result, error) {
		return floor(ctx, s.store, db, emails, false)
	})
	if err != nil {
		return err
	}
	t.floors = append(t.floors, f)
	fmt.Printf("round %d  floor              %7.2f s  (CPU %.1f s)\n", r, f.wall.Seconds(), f.serverCPU.Seconds())
	if err := t.floorsBeside(ctx, s, dir, r, emails); err != nil {
		return err
	}
	profile := s.cpuprofile
	if profile != "" && r > 1 {
		profile = fmt.Sprintf("%s.%d", profile, r)
	}
	sh, err := fresh(ctx, s, dir, fmt.Sprintf("shush%d", r), "the shush import", func(db string) (result, error) {
		sh, err := importWithShush(ctx, s, dir, db, input, profile)
		if err == nil {
			err = checkCount(ctx, s.store, db, s.n)
		}
		return sh, err
	})
	if err != nil {
		return err
	}
	t.shushes = append(t.shushes, sh)
	fmt.Println(t.ratioLine(s, r, sh))
	return nil
}

// floorsBeside measures round r's other floors: with the trail, the
// sqlite3 shell per batch and grouped, and over several connections.
func (t *tally) floorsBeside(ctx context.Context, s settings, dir string, r int, emails []string) error {
	if s.trail {
		tr, err := fresh(ctx, s, dir, fmt.Sprintf("trail%d", r), "the floor with the trail", func(db string) (result, error) {
			return floor(ctx, s.store, db, emails, true)
		})
		if err != nil {
			return err
		}
		t.trails = append(t.trails, tr)
		fmt.Printf("round %d  floor + trail rows %7.2f s  (CPU %.1f s)\n", r, tr.wall.Seconds(), tr.serverCPU.Seconds())
	}
	if s.shell {
		shell := func(group int) func(db string) (result, error) {
			return func(db string) (result, error) {
				sh, err := floorShell(ctx, db, emails, group)
				if err == nil {
					err = checkCount(ctx, s.store, db, s.n)
				}
				return sh, err
			}
		}
		sh, err := fresh(ctx, s, dir, fmt.Sprintf("shell%d", r), "the sqlite3 shell's floor", shell(1))
		if err != nil {
			return err
		}
		t.shells = append(t.shells, sh)
		fmt.Printf("round %d  sqlite3 shell      %7.2f s  (CPU %.1f s; each batch its own commit)\n", r, sh.wall.Seconds(), sh.serverCPU.Seconds())
		g, err := fresh(ctx, s, dir, fmt.Sprintf("grouped%d", r), "the sqlite3 shell's grouped floor", shell(s.group))
		if err != nil {
			return err
		}
		t.grouped = append(t.grouped, g)
		fmt.Printf("round %d  sqlite3 shell, grouped %7.2f s  (CPU %.1f s; %d batches to a commit)\n", r, g.wall.Seconds(), g.serverCPU.Seconds(), s.group)
	}
	if s.pooled() {
		p, err := fresh(ctx, s, dir, fmt.Sprintf("pool%d", r), fmt.Sprintf("the floor over %d connections", s.conns), func(db string) (result, error) {
			st, err := postgres.Open(ctx, db)
			if err == nil {
				err = st.Close()
			}
			var p result
			if err == nil {
				p, err = floorPostgresConns(ctx, db, emails, s.conns)
			}
			if err == nil {
				err = checkCount(ctx, s.store, db, s.n)
			}
			return p, err
		})
		if err != nil {
			return err
		}
		t.pooled = append(t.pooled, p)
		fmt.Printf("round %d  floor + trail, %d connections %7.2f s  (CPU %.1f s)\n", r, s.conns, p.wall.Seconds(), p.serverCPU.Seconds())
	}
	return nil
}

// ratioLine records shush's round r against each floor and says it.
func (t *tally) ratioLine(s settings, r int, sh result) string {
	t.ratios = append(t.ratios, sh.wall.Seconds()/t.floors[r-1].wall.Seconds())
	line := fmt.Sprintf("round %d  shush              %7.2f s  (server CPU %.1f s, client CPU %.1f s)  ratio %.2fx the floor",
		r, sh.wall.Seconds(), sh.serverCPU.Seconds(), sh.clientCPU.Seconds(), t.ratios[r-1])
	if s.trail {
		t.trailRatios = append(t.trailRatios, sh.wall.Seconds()/t.trails[r-1].wall.Seconds())
		line += fmt.Sprintf(", %.2fx the floor with the trail", t.trailRatios[r-1])
	}
	if s.shell {
		t.shellRatios = append(t.shellRatios, sh.wall.Seconds()/t.shells[r-1].wall.Seconds())
		t.groupedRatios = append(t.groupedRatios, sh.wall.Seconds()/t.grouped[r-1].wall.Seconds())
		line += fmt.Sprintf(", %.2fx the sqlite3 shell (per batch), %.2fx the sqlite3 shell (grouped)", t.shellRatios[r-1], t.groupedRatios[r-1])
	}
	if s.pooled() {
		t.pooledRatios = append(t.pooledRatios, sh.wall.Seconds()/t.pooled[r-1].wall.Seconds())
		line += fmt.Sprintf(", %.2fx the floor over %d connections", t.pooledRatios[r-1], s.conns)
	}
	return line
}

// print prints the medians of the rounds.
func (t *tally) print(s settings) {
	fmt.Printf("median of %d  floor %.2f s", s.rounds, medianWall(t.floors))
	if s.trail {
		fmt.Printf(", floor + trail rows %.2f s", medianWall(t.trails))
	}
	fmt.Printf(", shush %.2f s; shush / floor %.2fx", medianWall(t.shushes), median(t.ratios))
	if s.trail {
		fmt.Printf(", shush / floor with the trail %.2fx", median(t.trailRatios))
	}
	if s.shell {
		fmt.Printf(", shush / sqlite3 shell per batch %.2fx (%.2f s), shush / sqlite3 shell grouped %.2fx (%.2f s)",
			median(t.shellRatios), medianWall(t.shells), median(t.groupedRatios), medianWall(t.grouped))
	}
	if s.pooled() {
		fmt.Printf(", shush / floor over %d connections %.2fx (%.2f s)", s.conns, median(t.pooledRatios), medianWall(t.pooled))
	}
	fmt.Printf(" (load average now %s)\n", loadavg())
}

// fresh measures on a fresh database called name, dropped after; the
// measure's error begins with what.
func fresh(ctx context.Context, s settings, dir, name, what string, measure func(db string) (result, error)) (result, error) {
	db, drop, err := freshDB(ctx, s, dir, name)
	if err != nil {
		return result{}, err
	}
	res, err := measure(db)
	drop()
	if err != nil {
		return res, fmt.Errorf("%s: %w", what, err)
	}
	return res, nil
}

// build compiles the shush binary of this module into dir.
func build(ctx context.Context, dir string) (string, error) {
	out, err := exec.CommandContext(ctx, "go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("find the module: %w", err)
	}
	mod := strings.TrimSpace(string(out))
	if mod == "" || mod == os.DevNull {
		return "", errors.New("run this inside the shush module, or give -shush")
	}
	bin := filepath.Join(dir, "shush")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, ".")
	cmd.Dir = filepath.Dir(mod)
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("build shush: %w", err)
	}
	return bin, nil
}

// addresses are n distinct addresses, in order of their text or shuffled
// (always the same shuffle, so that runs compare).
func addresses(n int, order string) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("user%08d@example.com", i)
	}
	if order == "shuffled" {
		r := rand.New(rand.NewPCG(14, 14))
		r.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	}
	return out
}

// freshDB names a new, empty database: a file in dir, or a new schema on
// the PostgreSQL server. drop removes it.
func freshDB(ctx context.Context, s settings, dir, name string) (db string, drop func(), err error) {
	if s.store == "sqlite" {
		sub := filepath.Join(dir, name)
		if err := os.Mkdir(sub, 0o700); err != nil {
			return "", nil, err
		}
		return filepath.Join(sub, "shush.db"), func() { os.RemoveAll(sub) }, nil
	}
	var b [6]byte
	if _, err := crand.Read(b[:]); err != nil {
		return "", nil, err
	}
	schema := "shush_floor_" + hex.EncodeToString(b[:])
	conn, err := pgx.Connect(ctx, s.dsn)
	if err != nil {
		return "", nil, fmt.Errorf("connect to the PostgreSQL server of -dsn: %w", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		return "", nil, fmt.Errorf("create the schema %s: %w", schema, err)
	}
	u, err := url.Parse(s.dsn)
	if err != nil || u.Scheme == "" {
		return "", nil, errors.New("-dsn must be a postgres:// URL")
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	drop = func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		conn, err := pgx.Connect(ctx, s.dsn)
		if err != nil {
			fmt.Fprintf(os.Stderr, "floor: drop the schema %s: %v\n", schema, err)
			return
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, "DROP SCHEMA "+schema+" CASCADE"); err != nil {
			fmt.Fprintf(os.Stderr, "floor: drop the schema %s: %v\n", schema, err)
		}
	}
	return u.String(), drop, nil
}

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

func medianWall(rs []result) float64 {
	v := make([]float64, len(rs))
	for i, r := range rs {
		v[i] = r.wall.Seconds()
	}
	return median(v)
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	v = slices.Clone(v)
	slices.Sort(v)
	if len(v)%2 == 1 {
		return v[len(v)/2]
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2
}
