package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shushlist/shush/internal/hostedtest"
)

// Re-adding 200 addresses that are already on a hosted list of 253
// entries, at its 2 requests a second, reads the list (3 pages) rather
// than looking each address up: at most 10 requests, every address
// already_listed with the service's own ID. Checking them (a service
// without the bulk check) takes as few, and says each is listed.
func TestListedAddressesCostPagesNotLookups(t *testing.T) {
	t.Parallel()
	h := hostedtest.Start(t)
	h.SetOrder(hostedtest.Shuffled)
	var mine []string
	var body strings.Builder
	for i := range 200 {
		a := fmt.Sprintf("listed%03d@example.com", i)
		mine = append(mine, a)
		body.WriteString(a + "\n")
		if i%4 == 0 {
			h.Add(fmt.Sprintf("other%03d@example.com", i)) // another address between ours
		}
	}
	for i := 0; i < 200; i += 50 {
		h.Add(mine[i : i+50]...)
	}
	h.Add("newest1@example.com", "newest2@example.com", "newest3@example.com")
	if n := len(h.Truth()); n != 253 {
		t.Fatalf("the list holds %d entries, want 253", n)
	}
	h.SetRate(2)
	sb := newSandbox(t).with("SHUSH_BASE_URL="+h.URL, "SHUSH_API_KEY=re_test_key")
	in := writeFile(t, sb.home, "again.txt", body.String())

	before := h.Total()
	readdedAsListed(t, h, sb, in)
	n := h.Total() - before
	t.Logf("re-adding 200 listed addresses of a list of 253 at 2 requests/s: %d requests", n)
	if n > 10 || h.Refused.Load() > 0 {
		t.Errorf("re-adding 200 listed addresses took %d requests (%d refused for the rate); want at most 10", n, h.Refused.Load())
	}

	before = h.Total()
	checkedAsListed(t, h, sb, in)
	n = h.Total() - before
	t.Logf("checking them: %d requests", n)
	if n > 10 {
		t.Errorf("checking 200 listed addresses took %d requests; want at most 10", n)
	}
}

// readdedAsListed re-adds the file: every address already_listed, with
// the double's own ID.
func readdedAsListed(t *testing.T, h *hostedtest.Service, sb *sandbox, in string) {
	t.Helper()
	run := decode[struct {
		Data []struct{ Email, ID, Outcome string }
	}](t, sb.run(t, nil, "suppressions", "batch", "add", "--file", in, "--json").want(t, 0))
	truth := h.Truth()
	for _, x := range run.Data {
		if x.Outcome != "already_listed" || x.ID != truth[x.Email] {
			t.Fatalf("%+v; the service holds %s", x, truth[x.Email])
		}
	}
	if len(run.Data) != 200 {
		t.Fatalf("%d results", len(run.Data))
	}
}

// checkedAsListed checks the file: every address listed, with the
// double's own ID.
func checkedAsListed(t *testing.T, h *hostedtest.Service, sb *sandbox, in string) {
	t.Helper()
	checked := decode[struct {
		Data []struct {
			Email, ID string
			Listed    bool
		}
	}](t, sb.run(t, nil, "suppressions", "check", "--file", in, "--json").want(t, 0))
	truth := h.Truth()
	for _, x := range checked.Data {
		if !x.Listed || x.ID != truth[x.Email] {
			t.Fatalf("check: %+v", x)
		}
	}
	if len(checked.Data) != 200 {
		t.Fatalf("check: %d answers", len(checked.Data))
	}
}

// syncPair is a sandbox whose profile works on a shush serve (here) and
// whose config file names the hosted double as the profile "hosted"
// (there).
type syncPair struct {
	sb       *sandbox
	here     string // serve's URL
	db       string // its database
	key      string
	h        *hostedtest.Service
	hereList func(t *testing.T) map[string]listedEntry
}

type listedEntry struct {
	ID, Origin string
	Note       *string
	ExpiresAt  *string `json:"expires_at"`
	Evidence   json.RawMessage
}

func newSyncPair(t *testing.T) *syncPair {
	t.Helper()
	sb := newSandbox(t)
	db := filepath.Join(sb.home, "here.db")
	key := strings.TrimSpace(sb.run(t, nil, "keys", "create", "--team", "ops", "--db", db).want(t, 0).stdout)
	here := startServe(t, sb, db)
	h := hostedtest.Start(t)
	h.SetOrder(hostedtest.Shuffled)
	h.SetClockOffset(-7 * time.Minute)
	cfg := "[profiles.hosted]\nbase_url = \"" + h.URL + "\"\napi_key = \"re_test_key\"\n"
	if err := os.MkdirAll(filepath.Dir(sb.configFile()), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(sb.configFile(), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	p := &syncPair{sb: sb.with("SHUSH_BASE_URL="+here, "SHUSH_API_KEY="+key), here: here, db: db, key: key, h: h}
	p.hereList = func(t *testing.T) map[string]listedEntry {
		t.Helper()
		var doc struct {
			Data []struct {
				Email string `json:"email"`
				listedEntry
			} `json:"data"`
		}
		r := p.sb.run(t, nil, "suppressions", "list", "--all", "--json").want(t, 0)
		if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
			t.Fatal(err)
		}
		out := map[string]listedEntry{}
		for _, e := range doc.Data {
			out[e.Email] = e.listedEntry
		}
		return out
	}
	return p
}

// post sends a request to here's service with its key.
func (p *syncPair) post(t *testing.T, path, body string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, p.here+path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+p.key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode >= 300 {
		t.Fatalf("%s: %s", path, resp.Status)
	}
}

func (p *syncPair) removeHere(t *testing.T, emails ...string) {
	b, _ := json.Marshal(map[string]any{"emails": emails})
	p.post(t, "/suppressions/batch/remove", string(b))
}

type syncDoc struct {
	Plan struct {
		First     bool
		Same      int
		NewHere   []struct{ Email string } `json:"new_here"`
		NewThere  []struct{ Email string } `json:"new_there"`
		GoneHere  []struct{ Email string } `json:"removed_here"`
		GoneThere []struct{ Email string } `json:"removed_there"`
		Protected []struct{ Email string } `json:"protected"`
	}
	Actions  map[string][]string
	Requests map[string]int
	Runs     []struct {
		ID, Action, State string
		Counts            map[string]int
	}
}

func (d syncDoc) todo() int {
	n := 0
	for _, l := range d.Actions {
		n += len(l)
	}
	return n
}

func (p *syncPair) sync(t *testing.T, code int, args ...string) syncDoc {
	t.Helper()
	r := p.sb.run(t, nil, append([]string{"sync", "--with", "hosted", "--json"}, args...)...).want(t, code)
	var d syncDoc
	if err := json.Unmarshal([]byte(r.stdout), &d); err != nil {
		t.Fatalf("%v: %s", err, r)
	}
	return d
}

// sameLists fails unless both lists hold the same addresses, here with
// the origin there has for each entry there added (the double lists
// everything as manual).
func (p *syncPair) sameLists(t *testing.T) map[string]listedEntry {
	t.Helper()
	here, there := p.hereList(t), p.h.Truth()
	for a := range there {
		if strings.HasSuffix(a, "own.test") {
			delete(there, a) // protected here: never pulled
		}
	}
	if len(here) != len(there) {
		t.Fatalf("here %d entries, there %d", len(here), len(there))
	}
	for a := range here {
		if _, ok := there[a]; !ok {
			t.Fatalf("%s is here and not there", a)
		}
	}
	return here
}

// A sync of shush serve (here) with the hosted double (there: shuffled
// answers, UUIDv4 IDs, a clock 7 minutes behind) shows a plan naming
// every address, carries new entries both ways (here's with their
// origin, note, expiry and evidence where the receiver keeps them; the
// double's IDs paired by the service's own answers) and, with --both,
// removals made on either side since the last sync. Changes made on both
// sides while an apply runs are not lost: once they settle, the lists
// agree and the next plan is empty.
func TestSyncWithTheHostedDouble(t *testing.T) {
	t.Parallel()
	p := newSyncPair(t)
	p.seedBoth(t)
	p.firstSync(t)
	p.changesDuringTheApply(t)
}

// seedBoth lists 300 entries here (with notes, expiries and evidence) and
// 252 there, 2 of them on both.
func (p *syncPair) seedBoth(t *testing.T) {
	t.Helper()
	var entries []string
	for i := range 300 {
		e := fmt.Sprintf(`{"email":"here%03d@example.com","origin":"bounce"`, i)
		switch i % 3 {
		case 0:
			e += `,"note":"asked on #` + fmt.Sprint(i) + `","expires_at":"2099-01-01T00:00:00.000Z"`
		case 1:
			e += `,"evidence":{"provider":"sendgrid","kind":"import","status":"5.1.1"}`
		}
		entries = append(entries, e+"}")
	}
	for lo := 0; lo < 300; lo += 100 {
		p.post(t, "/suppressions/batch/add", `{"entries":[`+strings.Join(entries[lo:lo+100], ",")+`]}`)
	}
	var theirs []string
	for i := range 250 {
		theirs = append(theirs, fmt.Sprintf("there%03d@example.com", i))
	}
	p.h.Add(append(theirs, "here000@example.com", "here001@example.com")...) // 2 on both
	// Here's team protects its own domain, subdomains too: what there
	// lists of it is never pulled.
	p.sb.run(t, nil, "team", "set", "--team", "ops", "--protect", "@own.test", "--db", p.db).want(t, 0)
	p.h.Add("help@own.test", "x@mail.own.test")
}

// firstSync plans (nothing on record: nothing removed), applies both
// ways, and checks the double's IDs of what went there.
func (p *syncPair) firstSync(t *testing.T) {
	t.Helper()
	plan := p.sync(t, 0)
	if !plan.Plan.First || len(plan.Plan.NewHere) != 298 || len(plan.Plan.NewThere) != 250 || plan.Plan.Same != 2 || plan.todo() != 0 ||
		len(plan.Plan.Protected) != 2 {
		t.Fatalf("the first plan: first %v, new here %d, new there %d, same %d, protected %d, todo %d",
			plan.Plan.First, len(plan.Plan.NewHere), len(plan.Plan.NewThere), plan.Plan.Same, len(plan.Plan.Protected), plan.todo())
	}
	if plan.Requests["here"] != 2 || plan.Requests["there"] != 4 {
		t.Errorf("read in %v requests; want 2 here (the export, the team's rules) and 4 there (3 pages of 100, and the export's 404)", plan.Requests)
	}
	done := p.sync(t, 0, "--both", "--apply")
	if len(done.Runs) != 2 {
		t.Fatalf("runs: %+v", done.Runs)
	}
	if e := p.sameLists(t)["there007@example.com"]; e.Origin != "manual" {
		t.Errorf("pulled entry: %+v", e)
	}
	p.checkPushedIDs(t, done)
	if again := p.sync(t, 0, "--both"); again.todo() != 0 || again.Plan.First {
		t.Fatalf("after the apply: %+v", again.Actions)
	}
}

// checkPushedIDs reads the runs that added there: each ID is the
// double's own for that address.
func (p *syncPair) checkPushedIDs(t *testing.T, done syncDoc) {
	t.Helper()
	truth := p.h.Truth()
	for _, run := range done.Runs {
		if run.Action != "add there" {
			continue
		}
		shown := decode[struct {
			Data []struct{ Email, ID, Outcome string }
		}](t, p.sb.run(t, nil, "runs", "show", run.ID, "--json").want(t, 0))
		for _, x := range shown.Data {
			if x.Outcome != "added" || x.ID != truth[x.Email] {
				t.Fatalf("pushed %+v; the double holds %s", x, truth[x.Email])
			}
		}
	}
}

// changesDuringTheApply changes both sides, then more while the apply
// runs; once they settle, nothing is lost and the plan is empty.
func (p *syncPair) changesDuringTheApply(t *testing.T) {
	t.Helper()
	p.removeHere(t, "here010@example.com", "here011@example.com", "there010@example.com")
	p.post(t, "/suppressions/batch/add", `{"emails":["newhere1@example.com","newhere2@example.com"]}`)
	p.h.Remove("here020@example.com", "there020@example.com", "there021@example.com")
	p.h.Add("newthere1@example.com")
	plan := p.sync(t, 0, "--both")
	if len(plan.Plan.GoneHere) != 3 || len(plan.Plan.GoneThere) != 3 || len(plan.Plan.NewHere) != 2 || len(plan.Plan.NewThere) != 1 {
		t.Fatalf("the plan after changes: %+v", plan.Plan)
	}
	p.h.OnNextAdd(func() {
		p.removeHere(t, "here030@example.com", "newhere1@example.com") // the last just pushed there
		p.post(t, "/suppressions/batch/add", `{"emails":["during.here@example.com"]}`)
		p.h.Remove("there030@example.com")
		p.h.Add("during.there@example.com")
	})
	p.sync(t, 0, "--both", "--apply", "--yes")
	p.settle(t)
	final := p.sameLists(t)
	for _, gone := range []string{"here010@example.com", "here011@example.com", "there010@example.com", "here020@example.com",
		"there020@example.com", "there021@example.com", "here030@example.com", "newhere1@example.com", "there030@example.com"} {
		if _, ok := final[gone]; ok {
			t.Errorf("%s was removed on one side and is listed again", gone)
		}
	}
	for _, kept := range []string{"newhere2@example.com", "newthere1@example.com", "during.here@example.com", "during.there@example.com"} {
		if _, ok := final[kept]; !ok {
			t.Errorf("%s was added on one side and is missing", kept)
		}
	}
	if d := p.sync(t, 0, "--both"); d.todo() != 0 {
		t.Fatalf("after the changes settled the plan still has: %+v", d.Actions)
	}
}

// settle syncs both ways until the plan is empty (twice at most).
func (p *syncPair) settle(t *testing.T) {
	t.Helper()
	for range 2 {
		if d := p.sync(t, 0, "--both"); d.todo() == 0 {
			return
		}
		p.sync(t, 0, "--both", "--apply", "--yes")
	}
}

// An apply killed (SIGKILL) in the middle of its runs is finished by the
// same command: nothing answered is sent again, and the lists agree.
func TestSyncKilledMidApplyFinishes(t *testing.T) {
	t.Parallel()
	p := newSyncPair(t)
	var all []string
	for i := range 2000 {
		all = append(all, fmt.Sprintf(`"k%04d@example.com"`, i))
	}
	for lo := 0; lo < len(all); lo += 100 {
		p.post(t, "/suppressions/batch/add", `{"emails":[`+strings.Join(all[lo:lo+100], ",")+`]}`)
	}
	p.h.SetRate(10) // one batch in flight at a time (batch.ConcurrencyFor)
	cmd := exec.Command(shushBin, "sync", "--with", "hosted", "--push", "--apply", "--json")
	cmd.Env = p.sb.env
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "a few batches to reach the double", func() bool { return requests(p.h, "POST /suppressions/batch/add") >= 5 })
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	sent := requests(p.h, "POST /suppressions/batch/add")
	if sent >= 20 {
		t.Fatalf("the run was not cut off: %d batches sent", sent)
	}
	r := p.sb.run(t, nil, "sync", "--with", "hosted", "--push", "--apply", "--json").want(t, 0)
	if !strings.Contains(r.stderr, "finishing the sync that was cut off (1 run)") {
		t.Errorf("no word of the cut-off sync: %s", r)
	}
	p.sameLists(t)
	// 20 batches in all; the one in flight at the kill may go twice.
	if n := requests(p.h, "POST /suppressions/batch/add"); n < 20 || n > 21 {
		t.Errorf("%d batch adds for 20 batches", n)
	}
	if d := p.sync(t, 0, "--both"); d.todo() != 0 {
		t.Fatalf("after the finished sync: %+v", d.Actions)
	}
}

// requests counts the double's requests of one kind.
func requests(h *hostedtest.Service, kind string) int64 {
	n, ok := h.Requests.Load(kind)
	if !ok {
		return 0
	}
	return n.(*atomic.Int64).Load()
}
