package cli

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/crypto/ssh"

	"github.com/shushlist/shush/api"
)

// publicKey is a fresh ed25519 public key in the authorized_keys form of
// a .pub file.
func publicKey(t *testing.T) string {
	t.Helper()
	pub, _, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	k, err := ssh.NewPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	return string(ssh.MarshalAuthorizedKey(k))
}

func TestAgentsAddListRemove(t *testing.T) {
	ctx := context.Background()
	ta := newTestApp(t, nil).human()
	db := filepath.Join(t.TempDir(), "agents.db")
	pub := writeFile(t, "jane.pub", publicKey(t))

	if err := runAgentsAdd(ctx, &agentsAddOptions{app: ta.app, Arg: "Jane Roe", Team: "support", KeyFile: pub, DB: db, Override: true}); err != nil {
		t.Fatal(err)
	}
	if out := ta.out.String(); !strings.HasPrefix(out, "Added agent Jane Roe to team support (read-write+override), key SHA256:") {
		t.Errorf("add said %q", out)
	}

	// The same key twice, or the same name, is refused.
	ta.reset()
	wantErr(t, runAgentsAdd(ctx, &agentsAddOptions{app: ta.app, Arg: "Other", Team: "support", KeyFile: pub, DB: db}), ExitUsage, "this public key is another agent's already")
	wantErr(t, runAgentsAdd(ctx, &agentsAddOptions{app: ta.app, Arg: "Jane Roe", Team: "support", KeyFile: writeFile(t, "b.pub", publicKey(t)), DB: db}), ExitUsage,
		`an agent named "Jane Roe" exists already`)

}

func TestAgentsFromStdinListAndRemove(t *testing.T) {
	ctx := context.Background()
	ta := newTestApp(t, nil)
	db := filepath.Join(t.TempDir(), "agents.db")
	if err := runAgentsAdd(ctx, &agentsAddOptions{app: ta.app, Arg: "Jane Roe", Team: "support", KeyFile: writeFile(t, "j.pub", publicKey(t)), DB: db, Override: true}); err != nil {
		t.Fatal(err)
	}

	// From stdin, read-only, as JSON.
	ta.reset()
	ta.io.StdoutTTY = false
	ta.stdin(publicKey(t))
	if err := runAgentsAdd(ctx, &agentsAddOptions{app: ta.app, Arg: "bob", Team: "audit", KeyFile: "-", DB: db, ReadOnly: true}); err != nil {
		t.Fatal(err)
	}
	ta.reset()
	ta.globals.json = true
	// Under --json add prints the agent.
	ta.stdin(publicKey(t))
	if err := runAgentsAdd(ctx, &agentsAddOptions{app: ta.app, Arg: "carol", Team: "support", KeyFile: "-", DB: db}); err != nil {
		t.Fatal(err)
	}
	var carol api.Agent
	ta.decode(t, &carol)
	if carol.Name != "carol" || carol.Team != "support" || carol.ReadOnly || !strings.HasPrefix(carol.Fingerprint, "SHA256:") {
		t.Errorf("add --json %+v", carol)
	}

	ta.reset()
	if err := runAgentsList(ctx, &agentsListOptions{app: ta.app, DB: db}); err != nil {
		t.Fatal(err)
	}
	var agents []api.Agent
	ta.decode(t, &agents)
	if len(agents) != 3 || agents[0].Name != "Jane Roe" || !agents[0].Override || agents[1].Name != "bob" || !agents[1].ReadOnly {
		t.Errorf("list %+v", agents)
	}

	ta.reset()
	ta.globals.json = false
	ta.human()
	if err := runAgentsList(ctx, &agentsListOptions{app: ta.app, DB: db}); err != nil {
		t.Fatal(err)
	}
	lines := ta.lines()
	if len(lines) != 4 || !strings.HasPrefix(lines[0], "NAME") || !strings.Contains(lines[2], "bob") || !strings.Contains(lines[2], "read-only") {
		t.Errorf("list for a person:\n%s", ta.out.String())
	}

	ta.reset()
	if err := runAgentsRemove(ctx, &agentsRemoveOptions{app: ta.app, Arg: "bob", DB: db}); err != nil {
		t.Fatal(err)
	}
	if want := "Removed agent bob; a running shush serve ends their sessions within a few seconds.\n"; ta.out.String() != want {
		t.Errorf("remove said %q", ta.out.String())
	}
	wantErr(t, runAgentsRemove(ctx, &agentsRemoveOptions{app: ta.app, Arg: "bob", DB: db}), ExitFailed, `no agent is named "bob"`)
}

func TestAgentsAddRefusesBadInput(t *testing.T) {
	ctx := context.Background()
	ta := newTestApp(t, nil)
	db := filepath.Join(t.TempDir(), "agents.db")
	pub := writeFile(t, "k.pub", publicKey(t))
	priv := writeFile(t, "id_ed25519", "-----BEGIN OPENSSH PRIVATE KEY-----\nsecretbytes\n-----END OPENSSH PRIVATE KEY-----\n")
	for _, c := range []struct {
		o    agentsAddOptions
		want string
	}{
		{agentsAddOptions{Arg: "a", KeyFile: pub}, "agents add needs --team T and --ssh-key FILE"},
		{agentsAddOptions{Arg: "a", Team: "support"}, "agents add needs --team T and --ssh-key FILE"},
		{agentsAddOptions{Arg: "a", Team: "support", KeyFile: pub, ReadOnly: true, Override: true}, "--read-only and --override do not go together"},
		{agentsAddOptions{Arg: "a", Team: "support", KeyFile: filepath.Join(t.TempDir(), "none.pub")}, "cannot read the SSH key file"},
		{agentsAddOptions{Arg: "a", Team: "support", KeyFile: priv}, "is a private key; give the agent's public key"},
		{agentsAddOptions{Arg: "a", Team: "support", KeyFile: writeFile(t, "junk.pub", "not a key\n")}, ""},
	} {
		o := c.o
		o.app, o.DB = ta.app, db
		err := runAgentsAdd(ctx, &o)
		wantErr(t, err, ExitUsage, c.want)
		if err != nil && strings.Contains(err.Error(), "secretbytes") {
			t.Errorf("the error shows the private key: %v", err)
		}
	}
	ta.globals.json = true
	if err := runAgentsList(ctx, &agentsListOptions{app: ta.app, DB: db}); err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(ta.out.String()) != "[]" {
		t.Errorf("refused adds made agents: %s", ta.out.String())
	}
}

func TestAgentsListEmptySaysHowToStart(t *testing.T) {
	ta := newTestApp(t, nil).human()
	if err := runAgentsList(context.Background(), &agentsListOptions{app: ta.app, DB: filepath.Join(t.TempDir(), "a.db")}); err != nil {
		t.Fatal(err)
	}
	if ta.out.Len() != 0 || !strings.Contains(ta.err.String(), "shush agents add NAME --team T --ssh-key FILE") {
		t.Errorf("stdout %q, stderr %q", ta.out.String(), ta.err.String())
	}
}
