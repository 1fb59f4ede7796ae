package main

import (
	"crypto/ed25519"
	"crypto/rand"
	"strings"
	"testing"

	gossh "golang.org/x/crypto/ssh"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/server"
)

// publicKeyFile writes a new SSH public key, as ssh-keygen would, and
// returns its path and its text.
func publicKeyFile(t *testing.T, dir, name string) (string, string) {
	t.Helper()
	pub, _, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	pk, err := gossh.NewPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.TrimSpace(string(gossh.MarshalAuthorizedKey(pk))) + " " + name + "@laptop"
	return writeFile(t, dir, name+".pub", text+"\n"), text
}

// An admin adds, lists and removes agents on the service's database; a
// private key, a second agent of one name, a name with an escape are
// refused in a sentence that carries no key.
func TestAgentsCommands(t *testing.T) {
	t.Parallel()
	svc := newService(t, server.Options{}, nil)
	sb := newSandbox(t)
	janePub, _ := publicKeyFile(t, sb.home, "jane")
	r := sb.run(t, nil, "agents", "add", "Jane Doe", "--team", svc.team, "--ssh-key", janePub, "--db", svc.db, "--json").want(t, 0)
	jane := decode[api.Agent](t, r)
	if jane.Name != "Jane Doe" || jane.Team != svc.team || !strings.HasPrefix(jane.Fingerprint, "SHA256:") || jane.ReadOnly {
		t.Fatalf("agents add --json: %s", r)
	}
	private := writeFile(t, sb.home, "id_ed25519", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmU=\n-----END OPENSSH PRIVATE KEY-----\n")
	r = sb.run(t, nil, "agents", "add", "bob", "--team", svc.team, "--ssh-key", private, "--db", svc.db).want(t, 2)
	if !strings.Contains(r.stderr, "is a private key") || strings.Contains(r.stderr, "b3Blbn") {
		t.Errorf("a private key file: %s", r)
	}
	sb.run(t, nil, "agents", "add", "Jane Doe", "--team", svc.team, "--ssh-key", janePub, "--db", svc.db).want(t, 2)
	bobPub, _ := publicKeyFile(t, sb.home, "bob")
	r = sb.run(t, nil, "agents", "add", "bob\x1b]0;owned\x07", "--team", svc.team, "--ssh-key", bobPub, "--db", svc.db).want(t, 2)
	if strings.ContainsAny(r.stderr, "\x1b\x07") || !strings.Contains(r.stderr, "not printable") {
		t.Errorf("a name with an escape: %q", r.stderr)
	}
	sb.run(t, nil, "agents", "add", "bob", "--team", svc.team, "--ssh-key", bobPub, "--read-only", "--db", svc.db).want(t, 0)

	list := decode[[]api.Agent](t, sb.run(t, nil, "agents", "list", "--db", svc.db).want(t, 0))
	if len(list) != 2 || list[0].Fingerprint != jane.Fingerprint || list[1].Name != "bob" || !list[1].ReadOnly {
		t.Errorf("agents list: %+v", list)
	}
	gone := decode[api.DeletedAgent](t, sb.run(t, nil, "agents", "remove", "Jane Doe", "--db", svc.db).want(t, 0))
	if gone.ID != jane.ID || !gone.Deleted {
		t.Errorf("agents remove: %+v", gone)
	}
	sb.run(t, nil, "agents", "remove", "Jane Doe", "--db", svc.db).want(t, 1)
	list = decode[[]api.Agent](t, sb.run(t, nil, "agents", "list", "--json", "--db", svc.db).want(t, 0))
	if len(list) != 1 || list[0].Name != "bob" || !list[0].ReadOnly {
		t.Errorf("agents after the removal: %+v", list)
	}
}

// The team's protected list, set on the database, refuses a batch through
// the service, naming the index, and adds nothing of it.
func TestTeamProtectedRefusesABatch(t *testing.T) {
	t.Parallel()
	svc := newService(t, server.Options{}, nil)
	sb := newSandbox(t)
	sb.run(t, nil, "team", "set", "--team", svc.team, "--protect", "Support@Acme.test,@own.test", "--db", svc.db).want(t, 0)
	sb.run(t, nil, "team", "set", "--team", svc.team, "--protect", "not an address", "--db", svc.db).want(t, 2)
	team := decode[api.Team](t, sb.run(t, nil, "team", "show", "--team", svc.team, "--json", "--db", svc.db).want(t, 0))
	if strings.Join(team.Protected, " ") != "support@acme.test @own.test" || team.ComplaintRemoval != "confirm" {
		t.Errorf("team show: %+v", team)
	}
	in := writeFile(t, sb.home, "ticket.txt", "ok@example.com\nsupport@acme.test\n")
	r := sb.at(svc).run(t, nil, "suppressions", "batch", "add", "--file", in).want(t, 1)
	if !strings.Contains(r.stderr, `emails[1] (\"support@acme.test\") is protected by the team`) {
		t.Errorf("a batch naming a protected address: %s", r)
	}
	if got := svc.emails(t); len(got) != 0 {
		t.Errorf("the list after the refused batch: %v", got)
	}
	sb.run(t, nil, "team", "set", "--team", svc.team, "--unprotect", "support@acme.test", "--complaint-removal", "override", "--db", svc.db).want(t, 0)
	team = decode[api.Team](t, sb.run(t, nil, "team", "show", "--team", svc.team, "--db", svc.db).want(t, 0))
	if strings.Join(team.Protected, " ") != "@own.test" || team.ComplaintRemoval != "override" {
		t.Errorf("team show after set: %+v", team)
	}
}
