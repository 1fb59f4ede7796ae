package main

// The end-to-end transcripts in testdata/script/*.txtar: each runs the real
// shush command (this test binary, started as "shush" by testscript) in a
// home of its own, against the real service over real HTTP. The commands
// below start what a transcript talks to and check what only the test can
// see (the service's list, how many requests reached it); see
// testdata/script/README.md for the vocabulary.

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/itchyny/gojq"
	"github.com/rogpeppe/go-internal/testscript"
	gossh "golang.org/x/crypto/ssh"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/internal/hostedtest"
	"github.com/shushlist/shush/server"
	"github.com/shushlist/shush/server/store"
	"github.com/shushlist/shush/server/store/postgres/pgtest"
)

func TestScripts(t *testing.T) {
	t.Parallel()
	testscript.Run(t, testscript.Params{
		Dir:                 filepath.Join("testdata", "script"),
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		Setup:               scriptSetup,
		Condition:           scriptCondition,
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"service":   cmdService,
			"listed":    cmdListed,
			"requests":  cmdRequests,
			"key":       cmdKey,
			"hosted":    cmdHosted,
			"answer":    cmdAnswer,
			"keyed":     cmdKeyed,
			"exits":     cmdExits,
			"lines":     cmdLines,
			"perm":      cmdPerm,
			"jq":        cmdJQ,
			"date":      cmdDate,
			"failed":    cmdFailed,
			"expand":    cmdExpand,
			"load":      cmdLoad,
			"sticky":    cmdSticky,
			"down":      cmdDown,
			"sshkey":    cmdSSHKey,
			"seed":      cmdSeed,
			"catdir":    cmdCatDir,
			"freeport":  cmdFreePort,
			"waitserve": cmdWaitServe,
			"post":      cmdPost,
			"pgdsn":     cmdPGDSN,
		},
	})
}

// scriptKey is the Env.Values key of a script's state.
type scriptKey struct{}

// scriptState is what a script's commands started: its test (for
// cleanups) and its services by name.
type scriptState struct {
	tb       testing.TB
	mu       sync.Mutex
	services map[string]*scriptService
	hosted   map[string]*hostedtest.Service
	answers  map[string]*answerer
}

// scriptService is the real service with a count of the requests that
// reached it.
type scriptService struct {
	*service
	requests atomic.Int64
	down     atomic.Bool  // batch requests answer 502
	batches  atomic.Int64 // batch requests seen
	mu       sync.Mutex
	by       map[string]int // requests by "METHOD path" and reference
}

// scriptSetup gives a script a user's home of its own (HOME and the XDG
// directories under $WORK/home, as the Go tests' sandbox does) and none of
// the SHUSH_* variables of the test's environment (testscript starts from
// an empty one; pgdsn reads SHUSH_TEST_POSTGRES from the test's own).
func scriptSetup(env *testscript.Env) error {
	home := filepath.Join(env.WorkDir, "home")
	if err := os.MkdirAll(home, 0o700); err != nil {
		return err
	}
	env.Setenv("HOME", home)
	env.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "config"))
	env.Setenv("XDG_DATA_HOME", filepath.Join(home, "data"))
	env.Setenv("XDG_STATE_HOME", filepath.Join(home, "state"))
	if raceDetector {
		// Under -race the test binary, and so "shush" as testscript starts
		// it, runs about fivefold slower; the scripts run the binary
		// TestMain built without the detector instead, as the Go tests do
		// (the in-process services still run under it).
		env.Setenv("PATH", filepath.Dir(shushBin)+string(filepath.ListSeparator)+env.Getenv("PATH"))
	}
	// $BIN_SHUSH is the command's file, for a script that empties PATH.
	for _, dir := range filepath.SplitList(env.Getenv("PATH")) {
		if p, err := exec.LookPath(filepath.Join(dir, "shush")); err == nil {
			env.Setenv("BIN_SHUSH", p)
			break
		}
	}
	tb, ok := env.T().(testing.TB)
	if !ok {
		return errors.New("the scripts need a testing.TB")
	}
	env.Values[scriptKey{}] = &scriptState{
		tb:       tb,
		services: map[string]*scriptService{},
		hosted:   map[string]*hostedtest.Service{},
		answers:  map[string]*answerer{},
	}
	return nil
}

// scriptCondition knows [pg]: SHUSH_TEST_POSTGRES is set.
func scriptCondition(cond string) (bool, error) {
	if cond == "pg" {
		return os.Getenv(pgtest.EnvVar) != "", nil
	}
	return false, fmt.Errorf("unknown condition %q", cond)
}

func state(ts *testscript.TestScript) *scriptState {
	return ts.Value(scriptKey{}).(*scriptState)
}

// varName is the variable a named thing's value goes in: URL for the
// default one, a_URL for the one named a.
func varName(name, v string) string {
	if name == "" {
		return v
	}
	return name + "_" + v
}

// service [-rate n] [-refuse address] [-batch-only] [-down] [-down-after n] [-plain] [-bare-ids] [-clock-ahead d] [name]
//
// starts the real service (server.New over a SQLite file, over HTTP on
// loopback) and sets $URL, $HOST (its host:port), $KEY (a read-write key
// of its team, "support"), $KEYTAIL (the key's last 12 characters) and
// $DB (its SQLite file), or $name_URL and so on. -refuse makes
// it answer 422 to any batch naming the address, as a service with
// stricter rules would; -batch-only makes every other route 404, as a
// service offering only the batch endpoints does; -down makes batch
// requests answer 502 bad_gateway "upstream is down" (after the first
// -down-after of them) until "down off"; -plain makes it take plain
// addresses only and keep no trail, as the hosted service (404 to
// /audit and to a body with "entries"); -bare-ids makes it answer
// batches with bare IDs (no address, no created) and offer nothing else,
// as a strict implementation of the spec would; -clock-ahead sets its
// clock (the Date header) ahead of ours.
func cmdService(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("unsupported: ! service")
	}
	fs := flag.NewFlagSet("service", flag.ContinueOnError)
	rate := fs.Float64("rate", 1000, "requests per second")
	refuse := fs.String("refuse", "", "an address whose batches get 422")
	batchOnly := fs.Bool("batch-only", false, "only the batch endpoints")
	down := fs.Bool("down", false, "batch requests answer 502")
	downAfter := fs.Int64("down-after", 0, "batch requests that pass before -down")
	plain := fs.Bool("plain", false, "plain addresses only, no trail")
	bare := fs.Bool("bare-ids", false, "batch answers of bare IDs, no lookups")
	ahead := fs.Duration("clock-ahead", 0, "how far its Date header is ahead")
	if err := fs.Parse(args); err != nil || fs.NArg() > 1 {
		ts.Fatalf("usage: service [-rate n] [-refuse address] [-batch-only] [-down] [-down-after n] [-plain] [-bare-ids] [-clock-ahead d] [name]")
	}
	name := fs.Arg(0)
	st := state(ts)
	s := &scriptService{by: map[string]int{}}
	s.down.Store(*down)
	wrap := func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			s.requests.Add(1)
			what := r.Method + " " + r.URL.Path
			if ref := r.Header.Get(api.ReferenceHeader); ref != "" {
				what += fmt.Sprintf(" (reference %q)", ref)
			}
			s.mu.Lock()
			s.by[what]++
			s.mu.Unlock()
			batch := strings.HasPrefix(r.URL.Path, "/suppressions/batch/")
			if (*batchOnly || *bare) && !batch {
				routeNotFound(w)
				return
			}
			if *ahead != 0 {
				w.Header().Set("Date", time.Now().Add(*ahead).UTC().Format(http.TimeFormat))
			}
			if *bare {
				rec := &bareIDs{ResponseWriter: w}
				defer rec.flush()
				w = rec
			}
			if batch && s.batches.Add(1) > *downAfter && s.down.Load() {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusBadGateway)
				fmt.Fprint(w, `{"statusCode":502,"name":"bad_gateway","message":"upstream is down"}`)
				return
			}
			if *plain {
				b, _ := readBody(r)
				if strings.HasPrefix(r.URL.Path, "/audit") || strings.Contains(string(b), `"entries"`) {
					routeNotFound(w)
					return
				}
			}
			if *refuse != "" && r.Method == http.MethodPost {
				b, _ := readBody(r)
				if strings.Contains(string(b), *refuse) {
					w.Header().Set("Content-Type", "application/json")
					w.WriteHeader(http.StatusUnprocessableEntity)
					fmt.Fprint(w, `{"statusCode":422,"name":"validation_error","message":"emails[0] is not allowed here"}`)
					return
				}
			}
			h.ServeHTTP(w, r)
		})
	}
	s.service = newService(st.tb, server.Options{Rate: *rate}, wrap)
	st.mu.Lock()
	st.services[name] = s
	st.mu.Unlock()
	ts.Setenv(varName(name, "URL"), s.url)
	ts.Setenv(varName(name, "HOST"), strings.TrimPrefix(s.url, "http://"))
	ts.Setenv(varName(name, "KEY"), s.key)
	ts.Setenv(varName(name, "KEYTAIL"), s.key[len(s.key)-12:])
	ts.Setenv(varName(name, "DB"), s.db)
}

func lookService(ts *testscript.TestScript, args []string, usage string) *scriptService {
	if len(args) > 1 {
		ts.Fatalf("usage: %s", usage)
	}
	name := ""
	if len(args) == 1 {
		name = args[0]
	}
	st := state(ts)
	st.mu.Lock()
	defer st.mu.Unlock()
	s := st.services[name]
	if s == nil {
		ts.Fatalf("no service %q: start it with service first", name)
	}
	return s
}

// listed [-n] [name]
//
// prints the team's whole list as the service's store holds it, one
// address a line, sorted; -n prints how many entries it holds.
func cmdListed(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("unsupported: ! listed")
	}
	count := len(args) > 0 && args[0] == "-n"
	if count {
		args = args[1:]
	}
	s := lookService(ts, args, "listed [-n] [name]")
	emails := s.emails(state(ts).tb)
	if count {
		fmt.Fprintln(ts.Stdout(), len(emails))
		return
	}
	for _, e := range emails {
		fmt.Fprintln(ts.Stdout(), e)
	}
	ts.Stdout() // an empty list prints nothing, and says so
}

// requests [-by] [-reset] [name]
//
// prints how many HTTP requests reached the service so far; -by prints
// them by method, path and reference instead, a line each, sorted
// ("POST /suppressions/batch/add (reference "#1") 3"); -reset forgets
// them.
func cmdRequests(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("unsupported: ! requests")
	}
	by, reset := false, false
	for len(args) > 0 && strings.HasPrefix(args[0], "-") {
		switch args[0] {
		case "-by":
			by = true
		case "-reset":
			reset = true
		default:
			ts.Fatalf("usage: requests [-by] [-reset] [name]")
		}
		args = args[1:]
	}
	s := lookService(ts, args, "requests [-by] [-reset] [name]")
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case reset:
		s.requests.Store(0)
		s.batches.Store(0)
		clear(s.by)
	case by:
		var lines []string
		for what, n := range s.by {
			lines = append(lines, fmt.Sprintf("%s %d\n", what, n))
		}
		slices.Sort(lines)
		fmt.Fprint(ts.Stdout(), strings.Join(lines, ""))
		ts.Stdout()
	default:
		fmt.Fprintln(ts.Stdout(), s.requests.Load())
	}
}

// down on|off [name]
//
// makes the service's batch requests answer 502 or be served again.
func cmdDown(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 || (args[0] != "on" && args[0] != "off") {
		ts.Fatalf("usage: down on|off [name]")
	}
	lookService(ts, args[1:], "down on|off [name]").down.Store(args[0] == "on")
}

// sshkey NAME
//
// writes NAME.pub, a new ed25519 public key as ssh-keygen writes it
// (comment NAME@laptop).
func cmdSSHKey(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: sshkey NAME")
	}
	pub, _, err := ed25519.GenerateKey(rand.Reader)
	ts.Check(err)
	pk, err := gossh.NewPublicKey(pub)
	ts.Check(err)
	text := strings.TrimSpace(string(gossh.MarshalAuthorizedKey(pk))) + " " + args[0] + "@laptop\n"
	ts.Check(os.WriteFile(ts.MkAbs(args[0]+".pub"), []byte(text), 0o600))
}

// key [-name n] [-read-only] VAR [service]
//
// creates another key of the service's team and puts it in $VAR.
func cmdKey(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("unsupported: ! key")
	}
	fs := flag.NewFlagSet("key", flag.ContinueOnError)
	name := fs.String("name", "", "the key's name")
	readOnly := fs.Bool("read-only", false, "a read-only key")
	if err := fs.Parse(args); err != nil || fs.NArg() < 1 || fs.NArg() > 2 {
		ts.Fatalf("usage: key [-name n] [-read-only] VAR [service]")
	}
	s := lookService(ts, fs.Args()[1:], "key [-name n] [-read-only] VAR [service]")
	_, key, err := server.CreateNamedKey(context.Background(), s.store, s.team, *name, *readOnly)
	ts.Check(err)
	ts.Setenv(fs.Arg(0), key)
}

// hosted [-shuffled] [-clock-offset d] [name]
// hosted [name] add ADDRESS...
// hosted [name] truth
//
// starts the double of the hosted service (internal/hostedtest) and sets
// $HOSTED_URL (or $name_HOSTED_URL): -shuffled answers batches in no
// order, -clock-offset sets its clock off ours. "add" lists addresses on
// it; "truth" prints what it holds, "address ID" a line, sorted.
func cmdHosted(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("unsupported: ! hosted")
	}
	fs := flag.NewFlagSet("hosted", flag.ContinueOnError)
	shuffled := fs.Bool("shuffled", false, "answer batches in no order")
	offset := fs.Duration("clock-offset", 0, "how far its clock is ahead of ours")
	if err := fs.Parse(args); err != nil {
		ts.Fatalf("usage: hosted [-shuffled] [-clock-offset d] [name] [add ADDRESS...|truth]")
	}
	args = fs.Args()
	name := ""
	if len(args) > 0 && args[0] != "add" && args[0] != "truth" {
		name, args = args[0], args[1:]
	}
	st := state(ts)
	st.mu.Lock()
	defer st.mu.Unlock()
	h := st.hosted[name]
	if len(args) > 0 {
		if h == nil {
			ts.Fatalf("no hosted service %q: start it first", name)
		}
		if args[0] == "add" {
			h.Add(args[1:]...)
			return
		}
		var lines []string
		for e, id := range h.Truth() {
			lines = append(lines, e+" "+id+"\n")
		}
		slices.Sort(lines)
		fmt.Fprint(ts.Stdout(), strings.Join(lines, ""))
		ts.Stdout()
		return
	}
	h = hostedtest.Start(st.tb)
	if *shuffled {
		h.SetOrder(hostedtest.Shuffled)
	}
	h.SetClockOffset(*offset)
	st.hosted[name] = h
	ts.Setenv(varName(name, "HOSTED_URL"), h.URL)
}

// answer [-list] NAME STATUS BODY
//
// starts a foreign service that answers every request with STATUS and
// BODY (JSON) and sets $NAME to its URL; -list makes it answer GET
// /suppressions with an empty list. keyed NAME prints how many requests
// carried an Authorization header; keyed -show NAME prints the headers it
// saw, each once, sorted ("(no Authorization header)" for requests
// without one).
func cmdAnswer(ts *testscript.TestScript, neg bool, args []string) {
	list := len(args) > 0 && args[0] == "-list"
	if list {
		args = args[1:]
	}
	if neg || len(args) != 3 {
		ts.Fatalf("usage: answer [-list] NAME STATUS BODY")
	}
	status, err := strconv.Atoi(args[1])
	ts.Check(err)
	body := args[2]
	a := &answerer{seen: map[string]int{}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth := r.Header.Get("Authorization")
		if auth == "" {
			auth = noAuthorization
		}
		a.mu.Lock()
		a.seen[auth]++
		a.mu.Unlock()
		if list && r.Method == http.MethodGet && r.URL.Path == "/suppressions" {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"object":"list","has_more":false,"data":[]}`)
			return
		}
		if body != "" {
			w.Header().Set("Content-Type", "application/json")
		}
		w.WriteHeader(status)
		io.WriteString(w, body)
	}))
	st := state(ts)
	st.tb.Cleanup(srv.Close)
	st.mu.Lock()
	st.answers[args[0]] = a
	st.mu.Unlock()
	ts.Setenv(args[0], srv.URL)
}

// noAuthorization stands for a request without the header in keyed -show.
const noAuthorization = "(no Authorization header)"

// answerer is what a foreign service saw.
type answerer struct {
	mu   sync.Mutex
	seen map[string]int // requests by Authorization header
}

func cmdKeyed(ts *testscript.TestScript, neg bool, args []string) {
	show := len(args) > 0 && args[0] == "-show"
	if show {
		args = args[1:]
	}
	if neg || len(args) != 1 {
		ts.Fatalf("usage: keyed [-show] NAME")
	}
	st := state(ts)
	st.mu.Lock()
	a := st.answers[args[0]]
	st.mu.Unlock()
	if a == nil {
		ts.Fatalf("no answer %q", args[0])
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if show {
		keys := make([]string, 0, len(a.seen))
		for k := range a.seen {
			keys = append(keys, k+"\n")
		}
		slices.Sort(keys)
		fmt.Fprint(ts.Stdout(), strings.Join(keys, ""))
		ts.Stdout()
		return
	}
	n := 0
	for k, c := range a.seen {
		if k != noAuthorization {
			n += c
		}
	}
	fmt.Fprintln(ts.Stdout(), n)
}

// exits CODE PROGRAM [ARGS...]
//
// runs the program as exec does (stdin from the stdin command) and fails
// unless it exits with CODE.
func cmdExits(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exits CODE PROGRAM [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	ts.Check(err)
	err = ts.Exec(args[1], args[2:]...)
	got := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		got = ee.ExitCode()
	case err != nil:
		ts.Fatalf("running %s: %v", args[1], err)
	}
	if got != want {
		ts.Fatalf("exit status %d, want %d", got, want)
	}
}

// lines [-a] FILE FORMAT [N]
//
// writes N lines (default 1) to FILE (mode 0600), line i being
// fmt.Sprintf(FORMAT, i) for i from 0 (FORMAT as it is when it has no
// verb); -a appends them instead.
func cmdLines(ts *testscript.TestScript, neg bool, args []string) {
	flags := os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	if len(args) > 0 && args[0] == "-a" {
		flags = os.O_WRONLY | os.O_CREATE | os.O_APPEND
		args = args[1:]
	}
	if neg || len(args) < 2 || len(args) > 3 {
		ts.Fatalf("usage: lines [-a] FILE FORMAT [N]")
	}
	n := 1
	if len(args) == 3 {
		var err error
		n, err = strconv.Atoi(args[2])
		ts.Check(err)
	}
	var b strings.Builder
	for i := range n {
		if strings.Contains(args[1], "%") {
			fmt.Fprintf(&b, args[1], i)
		} else {
			b.WriteString(args[1])
		}
		b.WriteByte('\n')
	}
	f, err := os.OpenFile(ts.MkAbs(args[0]), flags, 0o600)
	ts.Check(err)
	_, err = f.WriteString(b.String())
	ts.Check(errors.Join(err, f.Close()))
}

// expand SRC DST
//
// writes SRC with its $VARIABLES expanded to DST, mode 0600 (a config
// naming a service's URL and key).
func cmdExpand(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: expand SRC DST")
	}
	dst := ts.MkAbs(args[1])
	ts.Check(os.MkdirAll(filepath.Dir(dst), 0o700))
	ts.Check(os.WriteFile(dst, []byte(os.Expand(ts.ReadFile(args[0]), ts.Getenv)), 0o600))
}

// failed NAME STATUS TEXT
//
// checks the last command's stderr is the JSON error form a script sees:
// {"error": {"name": NAME, "status": STATUS (a number, or null), "message":
// one line holding TEXT}}, and that it shows neither $KEY nor
// $SHUSH_API_KEY.
func cmdFailed(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: failed NAME STATUS TEXT")
	}
	stderr := ts.ReadFile("stderr")
	var doc struct {
		Error struct {
			Name    string
			Message string
			Status  *int
		}
	}
	if err := json.Unmarshal([]byte(stderr), &doc); err != nil {
		ts.Fatalf("stderr is not the JSON error form: %v", err)
	}
	e := doc.Error
	if e.Name != args[0] {
		ts.Fatalf("error name %q, want %q", e.Name, args[0])
	}
	status := "null"
	if e.Status != nil {
		status = strconv.Itoa(*e.Status)
	}
	if status != args[1] {
		ts.Fatalf("error status %s, want %s", status, args[1])
	}
	if !strings.Contains(e.Message, args[2]) || strings.Contains(e.Message, "\n") {
		ts.Fatalf("error message %q; want one line saying %q", e.Message, args[2])
	}
	for _, v := range []string{"KEY", "SHUSH_API_KEY"} {
		if k := ts.Getenv(v); len(k) > 8 && strings.Contains(stderr, k) {
			ts.Fatalf("stderr shows $%s", v)
		}
	}
}

// perm MODE FILE...
//
// checks each file's permission bits (octal, as 0600).
func cmdPerm(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 2 {
		ts.Fatalf("usage: perm MODE FILE...")
	}
	want, err := strconv.ParseUint(args[0], 8, 32)
	ts.Check(err)
	for _, f := range args[1:] {
		st, err := os.Stat(ts.MkAbs(f))
		ts.Check(err)
		if got := uint64(st.Mode().Perm()); (got == want) == neg {
			ts.Fatalf("%s has mode %04o; want %s%04o", f, got, map[bool]string{true: "not ", false: ""}[neg], want)
		}
	}
}

// jq [-s] [-set VAR] [-arg NAME VALUE]... FILTER [FILE]
//
// runs a jq filter over each JSON value in FILE (stdout or stderr: the
// last command's; default stdout; -s: over the array of them all, as
// NDJSON slurped) and prints each result on a line, strings
// raw, other values as compact JSON (keys sorted); -set puts the output,
// without its last newline, in $VAR instead; -arg gives the filter $NAME
// (a string). It fails on a file that is not JSON.
func cmdJQ(ts *testscript.TestScript, neg bool, args []string) {
	setVar, slurp := "", false
	var names []string
	var values []any
	for len(args) > 1 && strings.HasPrefix(args[0], "-") {
		switch {
		case args[0] == "-s":
			slurp, args = true, args[1:]
		case args[0] == "-set":
			setVar, args = args[1], args[2:]
		case args[0] == "-arg" && len(args) > 2:
			names, values = append(names, "$"+args[1]), append(values, args[2])
			args = args[3:]
		default:
			ts.Fatalf("usage: jq [-s] [-set VAR] [-arg NAME VALUE]... FILTER [FILE]")
		}
	}
	if neg || len(args) < 1 || len(args) > 2 {
		ts.Fatalf("usage: jq [-s] [-set VAR] [-arg NAME VALUE]... FILTER [FILE]")
	}
	file := "stdout"
	if len(args) == 2 {
		file = args[1]
	}
	q, err := gojq.Parse(args[0])
	ts.Check(err)
	code, err := gojq.Compile(q, gojq.WithVariables(names))
	ts.Check(err)
	var inputs []any
	dec := json.NewDecoder(strings.NewReader(ts.ReadFile(file)))
	for {
		var v any
		if err := dec.Decode(&v); err == io.EOF {
			break
		} else if err != nil {
			ts.Fatalf("%s is not JSON: %v", file, err)
		}
		inputs = append(inputs, v)
	}
	if len(inputs) == 0 {
		ts.Fatalf("%s holds no JSON", file)
	}
	if slurp {
		inputs = []any{inputs}
	}
	var out strings.Builder
	for _, v := range inputs {
		iter := code.Run(v, values...)
		for {
			x, ok := iter.Next()
			if !ok {
				break
			}
			if err, ok := x.(error); ok {
				ts.Fatalf("jq %s: %v", args[0], err)
			}
			if s, ok := x.(string); ok {
				fmt.Fprintln(&out, s)
				continue
			}
			b, err := gojq.Marshal(x)
			ts.Check(err)
			fmt.Fprintln(&out, string(b))
		}
	}
	if setVar != "" {
		ts.Setenv(setVar, strings.TrimSuffix(out.String(), "\n"))
		return
	}
	fmt.Fprint(ts.Stdout(), out.String())
}

// date VAR DURATION
//
// sets $VAR to the UTC date (2006-01-02) DURATION from now.
func cmdDate(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: date VAR DURATION")
	}
	d, err := time.ParseDuration(args[1])
	ts.Check(err)
	ts.Setenv(args[0], time.Now().Add(d).UTC().Format("2006-01-02"))
}

// load VAR FILE
//
// puts FILE's content, without its last newline, in $VAR.
func cmdLoad(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: load VAR FILE")
	}
	ts.Setenv(args[0], strings.TrimSuffix(ts.ReadFile(args[1]), "\n"))
}

// sticky DIR
//
// makes DIR writable by anyone and sticky, as /tmp is (chmod 1777).
func cmdSticky(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: sticky DIR")
	}
	ts.Check(os.Chmod(ts.MkAbs(args[0]), os.ModeSticky|0o777))
}

// seed [-origin o] [-request id] [-service name] ADDRESS...
//
// lists addresses on the service's store directly, as another client's
// change would (origin manual unless told; -request is the change's
// request ID, as the service's trail keeps it).
func cmdSeed(ts *testscript.TestScript, neg bool, args []string) {
	fs := flag.NewFlagSet("seed", flag.ContinueOnError)
	origin := fs.String("origin", "manual", "the entries' origin")
	request := fs.String("request", "", "the change's request ID")
	name := fs.String("service", "", "the service")
	if err := fs.Parse(args); neg || err != nil || fs.NArg() == 0 {
		ts.Fatalf("usage: seed [-origin o] [-request id] [-service name] ADDRESS...")
	}
	var svc []string
	if *name != "" {
		svc = []string{*name}
	}
	s := lookService(ts, svc, "seed")
	_, err := s.store.Add(context.Background(), s.team, store.Change{RequestID: *request}, store.Listed(api.Origin(*origin), nil, fs.Args()...))
	ts.Check(err)
}

// catdir DIR
//
// prints every file under DIR (a journal directory), each after a line
// "== path"; it fails when DIR holds no file.
func cmdCatDir(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: catdir DIR")
	}
	found := 0
	err := filepath.WalkDir(ts.MkAbs(args[0]), func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		found++
		fmt.Fprintf(ts.Stdout(), "== %s\n%s\n", path, b)
		return nil
	})
	ts.Check(err)
	if found == 0 {
		ts.Fatalf("%s holds no file", args[0])
	}
}

// freeport VAR
//
// puts a free loopback address (127.0.0.1:port) in $VAR, for serve --addr.
func cmdFreePort(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: freeport VAR")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	ts.Check(err)
	addr := ln.Addr().String()
	ts.Check(ln.Close())
	ts.Setenv(args[0], addr)
}

// waitserve URL
//
// waits (at most 30 s) until the service at URL answers GET /livez.
func cmdWaitServe(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: waitserve URL")
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get(args[0] + "/livez")
		if err == nil {
			resp.Body.Close()
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("%s did not answer within 30 s: %v", args[0], err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// post URL KEY FILE
//
// POSTs FILE's JSON to URL with the key as a bearer token, as another
// client would, and prints the answer's status and body.
func cmdPost(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: post URL KEY FILE")
	}
	req, err := http.NewRequest(http.MethodPost, args[0], strings.NewReader(ts.ReadFile(args[2])))
	ts.Check(err)
	req.Header.Set("Authorization", "Bearer "+args[1])
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	ts.Check(err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	ts.Check(err)
	fmt.Fprintf(ts.Stdout(), "%d\n%s\n", resp.StatusCode, b)
}

// bareIDs strips the names of a batch answer's items, as the hosted
// service answers.
type bareIDs struct {
	http.ResponseWriter
	status int
	body   []byte
}

func (b *bareIDs) WriteHeader(code int)        { b.status = code }
func (b *bareIDs) Write(p []byte) (int, error) { b.body = append(b.body, p...); return len(p), nil }
func (b *bareIDs) flush() {
	var doc struct {
		Data []map[string]any `json:"data"`
	}
	if json.Unmarshal(b.body, &doc) == nil && doc.Data != nil {
		for _, it := range doc.Data {
			delete(it, "email")
			delete(it, "created")
		}
		b.body, _ = json.Marshal(doc)
	}
	b.ResponseWriter.Header().Del("Content-Length")
	if b.status != 0 {
		b.ResponseWriter.WriteHeader(b.status)
	}
	b.ResponseWriter.Write(b.body)
}

// pgdsn VAR
//
// puts in $VAR a PostgreSQL URL whose search_path is a new, empty schema
// on the server SHUSH_TEST_POSTGRES names, dropped when the script ends
// (pgtest.DSN). Use it under [pg].
func cmdPGDSN(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: pgdsn VAR")
	}
	ts.Setenv(args[0], pgtest.DSN(state(ts).tb))
}
