package main

import (
	"bytes"
	"database/sql"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/shushlist/shush/server"

	_ "modernc.org/sqlite"
)

// holding names the files under dirs (and the files given) that hold s in
// any ASCII case.
func holding(t *testing.T, s string, paths ...string) []string {
	t.Helper()
	needle := bytes.ToLower([]byte(s))
	var out []string
	for _, root := range paths {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				if os.IsNotExist(err) {
					return nil
				}
				return err
			}
			if !d.Type().IsRegular() {
				return nil
			}
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			if bytes.Contains(bytes.ToLower(b), needle) {
				out = append(out, path)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// A person asks to be forgotten: `suppressions erase` erases the address
// on the service and in this computer's run journals; afterwards its bytes
// are in neither the service's SQLite files nor the state directory, and
// it is still blocked: check says "erased entry", a batch add answers
// already listed, the export shows the hash.
func TestEraseCommand(t *testing.T) {
	svc := newService(t, server.Options{}, nil)
	sb := newSandbox(t).at(svc)
	const addr = "jane.forgotten@customer.example"
	in := writeFile(t, sb.home, "list.txt", "Jane.Forgotten@customer.example\nstays@customer.example\n")
	sb.run(t, nil, "suppressions", "batch", "add", "--file", in, "--note", "asked on #77").want(t, 0)
	state := filepath.Join(sb.home, "state")
	if got := holding(t, addr, state); len(got) == 0 {
		t.Fatal("the run's journal does not name the address: the test would search nothing")
	}
	os.Remove(in)

	sb.run(t, nil, "suppressions", "erase", addr).want(t, 2) // no terminal to ask on, no --yes
	sb.run(t, nil, "suppressions", "erase", "not-an-address").want(t, 2)
	r := sb.run(t, nil, "suppressions", "erase", addr, "--yes", "--json", "--reference", "GDPR-9").want(t, 0)
	doc := decode[struct {
		Data []struct {
			Email  string `json:"email"`
			Erased string `json:"erased"`
			Listed bool   `json:"listed"`
		} `json:"data"`
		Local []string `json:"local_files_rewritten"`
	}](t, r)
	if len(doc.Data) != 1 || doc.Data[0].Email != addr || !regexp.MustCompile(`^erased:v1:[0-9a-f]{64}$`).MatchString(doc.Data[0].Erased) ||
		!doc.Data[0].Listed || len(doc.Local) == 0 {
		t.Fatalf("erase answered %s", r.stdout)
	}
	marker := doc.Data[0].Erased
	if got := holding(t, addr, state, svc.db, svc.db+"-wal", svc.db+"-shm"); len(got) > 0 {
		t.Errorf("after the erasure the address is in %v", got)
	}
	if got := holding(t, marker, state); len(got) == 0 {
		t.Error("the journals do not name the marker where they named the address")
	}
	// The rewritten journal still reads.
	sb.run(t, nil, "runs", "list", "--json").want(t, 0)

	// Still blocked, through every path.
	chk := writeFile(t, sb.home, "check.txt", addr+"\n")
	r = sb.run(t, nil, "suppressions", "check", "--file", chk, "--json").want(t, 0)
	if !strings.Contains(r.stdout, `"listed":true`) || !strings.Contains(r.stdout, `"erased":true`) {
		t.Errorf("check of the erased address: %s", r.stdout)
	}
	r = sb.run(t, nil, "suppressions", "check", "--file", chk, "--format", "table").want(t, 0)
	if !strings.Contains(r.stdout, "erased entry") {
		t.Errorf("check's table does not say erased entry: %s", r.stdout)
	}
	r = sb.run(t, nil, "suppressions", "batch", "add", "--file", chk, "--json").want(t, 0)
	if !strings.Contains(r.stdout, `"created": false`) && !strings.Contains(r.stdout, "already") {
		t.Errorf("a batch add of the erased address: %s; want already listed", r.stdout)
	}
	r = sb.run(t, nil, "suppressions", "export", "--format", "ndjson").want(t, 0)
	if !strings.Contains(r.stdout, marker) || strings.Contains(strings.ToLower(r.stdout), addr) {
		t.Errorf("the export: %s; want the marker, not the address", r.stdout)
	}
	os.Remove(chk)
	// The batch add just made named the address in a new journal; a
	// second erasure sweeps it too.
	r = sb.run(t, nil, "suppressions", "erase", addr, "--yes", "--json").want(t, 0)
	if !strings.Contains(r.stdout, `"already": true`) {
		t.Errorf("a second erasure: %s", r.stdout)
	}
	if got := holding(t, addr, state); len(got) > 0 {
		t.Errorf("after the second erasure the address is in %v", got)
	}
}

// TestEraseKeepsDomainCommand: shush team set --erasure-keeps-domain=true
// on the service's database, then an erasure keeps the domain: team show,
// suppressions get and check show it, the export carries it, and the
// local part is in no file; =false turns it off for later erasures.
func TestEraseKeepsDomainCommand(t *testing.T) {
	svc := newService(t, server.Options{}, nil)
	sb := newSandbox(t).at(svc)
	r := sb.run(t, nil, "team", "show", "--team", svc.team, "--db", svc.db).want(t, 0)
	if !strings.Contains(r.stdout, `"erasure_keeps_domain": false`) {
		t.Errorf("team show of a new team: %s; want the rule off", r.stdout)
	}
	sb.run(t, nil, "team", "set", "--team", svc.team, "--db", svc.db, "--erasure-keeps-domain=maybe").want(t, 2)
	r = sb.run(t, nil, "team", "set", "--team", svc.team, "--db", svc.db, "--erasure-keeps-domain=true").want(t, 0)
	if !strings.Contains(r.stdout, `"erasure_keeps_domain": true`) {
		t.Errorf("team set: %s; want the rule on", r.stdout)
	}
	r = sb.run(t, nil, "team", "show", "--team", svc.team, "--db", svc.db, "--json").want(t, 0)
	if !strings.Contains(r.stdout, `"erasure_keeps_domain": true`) {
		t.Errorf("team show --json: %s; want the rule on", r.stdout)
	}

	const addr = "hidden.person@kept-domain.example"
	sb.run(t, nil, "suppressions", "add", addr).want(t, 0)
	sb.run(t, nil, "suppressions", "erase", addr, "--yes").want(t, 0)
	r = sb.run(t, nil, "suppressions", "get", addr).want(t, 0)
	if !strings.Contains(r.stdout, `"erased_domain": "kept-domain.example"`) {
		t.Errorf("get of the erased address: %s; want the kept domain", r.stdout)
	}
	chk := writeFile(t, sb.home, "check.txt", addr+"\n")
	r = sb.run(t, nil, "suppressions", "check", "--file", chk, "--format", "table").want(t, 0)
	if !strings.Contains(r.stdout, "erased entry (domain kept-domain.example)") {
		t.Errorf("check's table: %s; want the kept domain", r.stdout)
	}
	r = sb.run(t, nil, "suppressions", "check", "--file", chk, "--json").want(t, 0)
	if !strings.Contains(r.stdout, `"erased_domain":"kept-domain.example"`) {
		t.Errorf("check --json: %s; want erased_domain", r.stdout)
	}
	os.Remove(chk)
	r = sb.run(t, nil, "suppressions", "export").want(t, 0)
	if !strings.Contains(r.stdout, ",kept-domain.example") || strings.Contains(r.stdout, "hidden.person") {
		t.Errorf("the export: %s; want the domain in its column, not the local part", r.stdout)
	}
	if got := holding(t, "hidden.person", filepath.Join(sb.home, "state"), svc.db, svc.db+"-wal", svc.db+"-shm"); len(got) > 0 {
		t.Errorf("after the erasure the local part is in %v", got)
	}

	sb.run(t, nil, "team", "set", "--team", svc.team, "--db", svc.db, "--erasure-keeps-domain=false").want(t, 0)
	sb.run(t, nil, "suppressions", "erase", "later@kept-domain.example", "--yes").want(t, 0)
	r = sb.run(t, nil, "suppressions", "get", "later@kept-domain.example").want(t, 0)
	if !strings.Contains(r.stdout, `"erased": true`) || strings.Contains(r.stdout, "erased_domain") {
		t.Errorf("get of an address erased with the rule off: %s; want no domain", r.stdout)
	}
}

// The team's erasure secret is rotated on the service's database: new
// erasures use the new version, the entries of the old one stay matched,
// and no output shows a secret.
func TestEraseSecretRotation(t *testing.T) {
	svc := newService(t, server.Options{}, nil)
	sb := newSandbox(t).at(svc)
	sb.run(t, nil, "suppressions", "erase", "old@customer.example", "--yes").want(t, 0)
	r := sb.run(t, nil, "team", "erasure-secret", "rotate", "--team", svc.team, "--db", svc.db, "--json").want(t, 0)
	if !strings.Contains(r.stdout, `"version": 2`) {
		t.Fatalf("rotate: %s", r.stdout)
	}
	r = sb.run(t, nil, "suppressions", "erase", "new@customer.example", "--yes", "--json").want(t, 0)
	if !strings.Contains(r.stdout, `"erased": "erased:v2:`) {
		t.Errorf("an erasure after the rotation: %s; want version 2", r.stdout)
	}
	show := sb.run(t, nil, "team", "erasure-secret", "show", "--team", svc.team, "--db", svc.db, "--json").want(t, 0)
	vs := decode[[]struct {
		Version int `json:"version"`
		Entries int `json:"entries"`
	}](t, show)
	if len(vs) != 2 || vs[0].Version != 1 || vs[0].Entries != 1 || vs[1].Version != 2 || vs[1].Entries != 1 {
		t.Errorf("show: %s; want both versions, one entry each", show.stdout)
	}
	chk := writeFile(t, sb.home, "check.txt", "old@customer.example\nnew@customer.example\n")
	r = sb.run(t, nil, "suppressions", "check", "--file", chk, "--json").want(t, 0)
	if strings.Count(r.stdout, `"erased":true`) != 2 {
		t.Errorf("check after the rotation: %s; want both erased entries", r.stdout)
	}
	secrets := readSecrets(t, svc.db)
	if len(secrets) != 2 {
		t.Fatalf("%d secrets in the database; want 2", len(secrets))
	}
	for _, s := range secrets {
		for _, out := range []string{show.stdout, show.stderr, r.stdout, r.stderr} {
			if strings.Contains(strings.ToUpper(out), s) {
				t.Errorf("an output shows a secret")
			}
		}
	}
}

// readSecrets reads the erasure secrets of a SQLite database, in
// uppercase hex, to search outputs for them.
func readSecrets(t *testing.T, db string) []string {
	t.Helper()
	c, err := sql.Open("sqlite", "file:"+db+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	rows, err := c.Query("SELECT hex(secret) FROM erasure_secrets")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var h string
		if err := rows.Scan(&h); err != nil {
			t.Fatal(err)
		}
		out = append(out, h)
	}
	return out
}
