package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/server"
	"github.com/shushlist/shush/server/store"
)

// sshService is shush serve with the terminal UI over SSH on a SQLite
// file, and a private tmux server whose panes run the real ssh client.
type sshService struct {
	t       *testing.T
	sb      *sandbox
	db      string
	apiURL  string
	sshPort string
	metrics string
	key     string // an API key of the team, for the trail
	log     *lockedBuffer
	socket  string
}

const sshTeam = "support"

// startSSHService starts serve with --ssh-addr (and args); it skips the
// test without tmux, ssh or ssh-keygen.
func startSSHService(t *testing.T, args ...string) *sshService {
	t.Helper()
	return startSSHServiceWith(t, false, args...)
}

// startSSHServiceWith is startSSHService, the SSH address given as
// SHUSH_SSH_ADDR when viaEnv.
func startSSHServiceWith(t *testing.T, viaEnv bool, args ...string) *sshService {
	t.Helper()
	return startSSHServiceOn(t, sshOptions{viaEnv: viaEnv}, args...)
}

// sshOptions are how startSSHServiceOn runs serve: the SSH address from
// the environment, prlimit's descriptors (0: the test's own), a database
// ("": a SQLite file in the sandbox).
type sshOptions struct {
	viaEnv bool
	nofile int
	db     string
}

// startSSHServiceOn is startSSHServiceWith with more options.
func startSSHServiceOn(t *testing.T, o sshOptions, args ...string) *sshService {
	t.Helper()
	for _, tool := range []string{"tmux", "ssh", "ssh-keygen"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed: skipping the test of the terminal UI over SSH", tool)
		}
	}
	sb := newSandbox(t)
	s := &sshService{t: t, sb: sb, db: cmp.Or(o.db, filepath.Join(sb.home, "shush.db")), log: &lockedBuffer{},
		socket: fmt.Sprintf("shush-ssh-%d-%s", os.Getpid(), strings.ReplaceAll(t.Name(), "/", "-"))}
	s.key = strings.TrimSpace(sb.run(t, nil, "keys", "create", "--team", sshTeam, "--db", s.db).want(t, 0).stdout)
	// freeAddr's ports are free when it returns; another test's listener
	// may take one before serve binds it, so a start that loses a port
	// is tried again on fresh ones.
	for try := 1; ; try++ {
		err := s.serve(o, args)
		if err == nil {
			break
		}
		if try == 3 || !strings.Contains(s.log.String(), "address already in use") {
			t.Fatalf("serve with --ssh-addr did not start: %v\nserve's log:\n%s", err, s.log.String())
		}
		s.log = &lockedBuffer{}
	}
	// A session that stays keeps the tmux server up while panes come
	// and go.
	s.tmux("-f", os.DevNull, "new-session", "-d", "-s", "keep", "sleep 3600")
	return s
}

// serve starts serve on fresh addresses and waits for its SSH listener:
// nil once it prints the host key, an error when it exits first or is
// not listening within 60 s (a loaded machine running every package's
// tests at once is slow to start a process under the race detector).
func (s *sshService) serve(o sshOptions, args []string) error {
	t := s.t
	api, sshAddr, metrics := freeAddr(t), freeAddr(t), freeAddr(t)
	s.apiURL, s.metrics = "http://"+api, "http://"+metrics+"/metrics"
	_, s.sshPort, _ = net.SplitHostPort(sshAddr)
	cmd := exec.Command(shushBin, append([]string{"serve", "--addr", api, "--ssh-addr", sshAddr, "--metrics-addr", metrics, "--db", s.db}, args...)...)
	cmd.Env = s.sb.env
	if o.viaEnv {
		cmd = exec.Command(shushBin, append([]string{"serve", "--addr", api, "--metrics-addr", metrics, "--db", s.db}, args...)...)
		cmd.Env = append(slices.Clone(s.sb.env), "SHUSH_SSH_ADDR="+sshAddr)
	}
	if o.nofile > 0 {
		limited := exec.Command("prlimit", append([]string{fmt.Sprintf("--nofile=%d:%d", o.nofile, o.nofile), cmd.Path}, cmd.Args[1:]...)...)
		limited.Env = cmd.Env
		cmd = limited
	}
	cmd.Stderr = s.log
	if err := cmd.Start(); err != nil {
		return err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	stop := func() {
		_ = cmd.Process.Kill()
		<-exited
	}
	deadline := time.After(60 * time.Second)
	for !strings.Contains(s.log.String(), "host key SHA256:") {
		select {
		case err := <-exited:
			return fmt.Errorf("serve exited before listening: %v", err)
		case <-deadline:
			stop()
			return fmt.Errorf("serve was not listening for SSH after 60 s")
		case <-time.After(20 * time.Millisecond):
		}
	}
	t.Cleanup(func() {
		exec.Command("tmux", "-L", s.socket, "kill-server").Run()
		stop()
	})
	return nil
}

// httpGet is the body of a GET.
func httpGet(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// keyPair makes an ed25519 key pair with ssh-keygen and returns the
// private key's path (the public key is beside it, .pub).
func (s *sshService) keyPair(name string) string {
	s.t.Helper()
	path := filepath.Join(s.sb.home, "keys", name)
	os.MkdirAll(filepath.Dir(path), 0o700)
	if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", name+"@laptop", "-f", path).CombinedOutput(); err != nil {
		s.t.Fatalf("ssh-keygen: %v\n%s", err, out)
	}
	return path
}

// agent adds an agent of the team with a new key pair; it returns the
// private key's path.
func (s *sshService) agent(name string, flags ...string) string {
	s.t.Helper()
	key := s.keyPair(name)
	s.sb.run(s.t, nil, append([]string{"agents", "add", name, "--team", sshTeam, "--ssh-key", key + ".pub", "--db", s.db}, flags...)...).want(s.t, 0)
	return key
}

// sshArgs is the ssh command line of a login with key: no known hosts,
// no agent, no other key, no config of the machine.
func (s *sshService) sshArgs(key string, more ...string) []string {
	return append([]string{"-F", os.DevNull, "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null", "-o", "LogLevel=ERROR",
		"-o", "IdentitiesOnly=yes", "-o", "IdentityAgent=none", "-i", key, "-p", s.sshPort}, append(more, "127.0.0.1")...)
}

func (s *sshService) tmux(args ...string) string {
	s.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-L", s.socket}, args...)...).CombinedOutput()
	if err != nil {
		s.t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// connect opens a pane that runs ssh with key, as an agent types it,
// and then says how ssh exited.
func (s *sshService) connect(pane, key string) {
	s.t.Helper()
	var line []string
	for _, a := range s.sshArgs(key) {
		line = append(line, shQuote(a))
	}
	env := "env -i TERM=xterm-256color " + shQuote("PATH="+os.Getenv("PATH")) + " " + shQuote("HOME="+s.sb.home)
	s.tmux("new-session", "-d", "-s", pane, "-x", "120", "-y", "32",
		env+" ssh "+strings.Join(line, " ")+"; echo ssh exit $?; sleep 600")
}

// drop ends the pane's ssh at once, as a closed laptop lid would.
func (s *sshService) drop(pane string) { s.tmux("kill-session", "-t", pane) }

func (s *sshService) screen(pane string) string { return s.tmux("capture-pane", "-p", "-t", pane) }

// wait polls the pane until it shows every string.
func (s *sshService) wait(pane string, want ...string) string {
	s.t.Helper()
	return s.waitWithin(30*time.Second, pane, want...)
}

// waitWithin is wait with a time of its own, for what takes long.
func (s *sshService) waitWithin(d time.Duration, pane string, want ...string) string {
	s.t.Helper()
	var scr string
	for deadline := time.Now().Add(d); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		scr = s.screen(pane)
		ok := true
		for _, w := range want {
			ok = ok && strings.Contains(scr, w)
		}
		if ok {
			return scr
		}
	}
	s.t.Fatalf("pane %s never showed %q; it shows:\n%s\nserve's log:\n%s", pane, want, scr, s.log.String())
	return ""
}

// waitGone polls the pane until it no longer shows text: the key that
// closes something has taken effect before the next key is sent.
func (s *sshService) waitGone(pane, text string) {
	s.t.Helper()
	var scr string
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if scr = s.screen(pane); !strings.Contains(scr, text) {
			return
		}
	}
	s.t.Fatalf("pane %s kept showing %q:\n%s", pane, text, scr)
}

// paste pastes text into the pane as a terminal does (bracketed, as the
// UI asks for).
func (s *sshService) paste(pane, text string) {
	s.t.Helper()
	path := writeFile(s.t, s.sb.home, "paste-"+pane+".txt", text)
	s.tmux("load-buffer", "-b", pane, path)
	s.tmux("paste-buffer", "-p", "-d", "-b", pane, "-t", pane)
}

// login runs ssh with key and a command line's options, without a
// terminal, and returns its exit status and stderr.
func (s *sshService) login(key string, more ...string) (int, string) {
	s.t.Helper()
	cmd := exec.Command("ssh", s.sshArgs(key, append([]string{"-o", "BatchMode=yes", "-T"}, more...)...)...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + s.sb.home}
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), string(out)
	}
	if err != nil {
		s.t.Fatal(err)
	}
	return 0, string(out)
}

// trail is the team's audit trail, read with shush audit over HTTP.
func (s *sshService) trail() api.AuditList {
	s.t.Helper()
	return decode[api.AuditList](s.t, s.sb.with("SHUSH_BASE_URL="+s.apiURL, "SHUSH_API_KEY="+s.key).run(s.t, nil, "audit", "--all", "--json").want(s.t, 0))
}

// An agent logs in with ssh and nothing else, sees themselves and their
// team in the header, pastes a ticket and sends it; the trail names the
// agent, not a key. The host key was made beside the database, 0600, and
// its fingerprint printed at start is the one ssh-keygen reads from it.
// An unknown key, a password and a removed agent are refused before any
// UI; the log of the refusals holds no key; a removal ends the session
// in progress.
func TestAgentWorksOverSSH(t *testing.T) {
	t.Parallel()
	s := startSSHService(t)
	hostKey := filepath.Join(s.sb.home, "ssh_host_ed25519_key")
	fi, err := os.Stat(hostKey)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the host key beside the database: %v %v", fi, err)
	}
	out, err := exec.Command("ssh-keygen", "-l", "-f", hostKey).Output()
	if err != nil {
		t.Fatal(err)
	}
	print := strings.Fields(string(out))[1]
	if !strings.Contains(s.log.String(), "host key "+print) {
		t.Errorf("serve's log does not print the host key's fingerprint %s:\n%s", print, s.log.String())
	}

	jane := s.agent("jane")
	s.connect("jane", jane)
	s.wait("jane", "agent jane · team support", "paste a ticket or type an address")
	if scr := s.screen("jane"); strings.Contains(scr, "ctrl+o") || strings.Contains(scr, "open a file") {
		t.Errorf("the UI over SSH offers to open the server's files:\n%s", scr)
	}
	// Colours, by the agent's TERM (xterm-256color), though serve's own
	// stderr is no terminal.
	if styled := s.tmux("capture-pane", "-p", "-e", "-t", "jane"); !strings.Contains(styled, "\x1b[38;5;") {
		t.Errorf("the session has no colours:\n%q", styled)
	}
	s.paste("jane", "Hello, please stop mailing Jane <Jane@Example.com>\nand bob@example.org — thanks! Ticket #4812")
	s.wait("jane", "jane@example.com", "bob@example.org", "2 valid")
	// The window narrows: ssh tells the service and the frame follows.
	s.tmux("resize-window", "-t", "jane", "-x", "90", "-y", "28")
	s.wait("jane", "└"+strings.Repeat("─", 88)+"┘")
	if scr := s.screen("jane"); strings.Contains(scr, strings.Repeat("─", 89)) {
		t.Errorf("the frame did not follow the window:\n%s", scr)
	}
	s.tmux("send-keys", "-t", "jane", "C-s")
	s.wait("jane", "Review · add", "2 new")
	s.tmux("send-keys", "-t", "jane", "C-s")
	s.wait("jane", "Results · add", "2 added")

	trail := s.trail()
	if len(trail.Data) != 2 {
		t.Fatalf("the trail has %d entries, want 2: %+v", len(trail.Data), trail.Data)
	}
	for _, e := range trail.Data {
		if e.Agent == nil || e.Agent.Name != "jane" || e.Key != nil {
			t.Errorf("a change over SSH is not signed by the agent: %+v", e)
		}
	}

	// An unknown key and a password attempt get no session.
	eve := s.keyPair("eve")
	for _, try := range [][]string{{eve}, {eve, "-o", "PubkeyAuthentication=no", "-o", "PreferredAuthentications=password,keyboard-interactive"}} {
		code, stderr := s.login(try[0], try[1:]...)
		if code != 255 || !strings.Contains(stderr, "Permission denied") || strings.Contains(stderr, "shush") {
			t.Errorf("ssh %v: exit %d, %s; want 255 and a refusal before any UI", try[1:], code, stderr)
		}
	}
	pub, _ := os.ReadFile(eve + ".pub")
	out, _ = exec.Command("ssh-keygen", "-l", "-f", eve+".pub").Output()
	log := s.log.String()
	if !strings.Contains(log, "refused an SSH login") || strings.Contains(log, strings.Fields(string(pub))[1]) || strings.Contains(log, strings.Fields(string(out))[1]) {
		t.Errorf("the refusals are not logged, or logged with the key:\n%s", log)
	}

	// Removed, jane's session ends, and she cannot come back.
	s.sb.run(t, nil, "agents", "remove", "jane", "--db", s.db).want(t, 0)
	s.wait("jane", "This agent was removed", "ssh exit 1")
	if code, stderr := s.login(jane); code != 255 || !strings.Contains(stderr, "Permission denied") {
		t.Errorf("a removed agent's login: exit %d, %s", code, stderr)
	}
	// A refusal is counted when the service closes the connection, which
	// may come after the client has exited: the metrics are read again
	// until they agree, for a while.
	wants := []*regexp.Regexp{regexp.MustCompile(`(?m)^shush_ssh_auth_failures_total [3-9]`), regexp.MustCompile(`(?m)^shush_ssh_sessions_open 0$`),
		regexp.MustCompile(`(?m)^shush_ssh_sessions_total 1$`)}
	var metrics string
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		metrics = httpGet(t, s.metrics)
		if !slices.ContainsFunc(wants, func(re *regexp.Regexp) bool { return !re.MatchString(metrics) }) || time.Now().After(deadline) {
			break
		}
	}
	for _, want := range wants {
		if !want.MatchString(metrics) {
			t.Errorf("the metrics do not match %s:\n%s", want, metrics)
		}
	}
}

// A read-only agent's review says, before anything is typed, that it
// cannot send. (The listener's address comes from SHUSH_SSH_ADDR.)
func TestReadOnlyAgentOverSSH(t *testing.T) {
	t.Parallel()
	s := startSSHServiceWith(t, true)
	bob := s.agent("bob", "--read-only")
	s.connect("bob", bob)
	s.wait("bob", "agent bob · team support")
	s.paste("bob", "please block carol@example.com")
	s.wait("bob", "carol@example.com", "1 valid")
	s.tmux("send-keys", "-t", "bob", "C-s")
	s.wait("bob", "Review · add", "This agent is read-only: it cannot send")
}

// Two agents at once: each one's unsent list is theirs, kept on the
// server when the connection drops, and offered back to them alone.
func TestAgentsKeepTheirOwnDrafts(t *testing.T) {
	t.Parallel()
	s := startSSHService(t)
	keys := map[string]string{"jane": s.agent("jane"), "bob": s.agent("bob")}
	mine := map[string]string{"jane": "jane.customer@example.com", "bob": "bob.customer@example.org"}
	for name, key := range keys {
		s.connect(name, key)
	}
	for name := range keys {
		s.wait(name, "agent "+name+" · team support")
		s.paste(name, "please stop mailing "+mine[name])
	}
	for name := range keys {
		s.wait(name, mine[name], "1 valid")
	}
	// The drafts are written as the lists change; then the lids close.
	waitFor(t, "both drafts on the server", func() bool {
		found, _ := filepath.Glob(filepath.Join(s.sb.home, "agents", "*", "drafts", "*.json"))
		return len(found) == 2
	})
	for name := range keys {
		s.drop(name)
	}
	for name, key := range keys {
		s.connect(name, key)
		s.wait(name, "Bring back the list not sent", "1 entry")
		s.tmux("send-keys", "-t", name, "y")
		other := mine["jane"]
		if name == "jane" {
			other = mine["bob"]
		}
		if scr := s.wait(name, mine[name], "1 valid"); strings.Contains(scr, other) {
			t.Errorf("%s sees another agent's draft:\n%s", name, scr)
		}
	}
	for _, dir := range mustGlob(t, filepath.Join(s.sb.home, "agents", "*")) {
		if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
			t.Errorf("an agent's directory %s: %v %v, want 0700", dir, fi.Mode(), err)
		}
	}
}

func mustGlob(t *testing.T, pattern string) []string {
	t.Helper()
	found, err := filepath.Glob(pattern)
	if err != nil || len(found) == 0 {
		t.Fatalf("nothing matches %s (%v)", pattern, err)
	}
	return found
}

// A connection dropped in the middle of a send leaves the run recorded on
// the server: the agent, back, is offered to resume it, and the list ends
// with every address once, each change signed by the agent.
func TestDroppedSendResumesForTheAgent(t *testing.T) {
	t.Parallel()
	// 600 batches at 100 requests a second (after a burst of 100) make
	// the send last about five seconds, so the drop after its fifth batch
	// cuts it off however slowly the pane is read: a faster service can
	// answer all 600 in under a second.
	s := startSSHService(t, "--rate", "100")
	jane := s.agent("jane")
	s.connect("jane", jane)
	s.wait("jane", "agent jane · team support")
	const n = 60_000
	var ticket strings.Builder
	for i := range n {
		fmt.Fprintf(&ticket, "user%06d@example.com\n", i)
	}
	s.paste("jane", ticket.String())
	s.wait("jane", fmt.Sprintf("%d valid", n))
	s.tmux("send-keys", "-t", "jane", "C-s")
	s.wait("jane", "Review · add", fmt.Sprintf("%d addresses", n))
	s.tmux("send-keys", "-t", "jane", "C-s")
	s.wait("jane", "Sending · add", "Batch 5")
	s.drop("jane")

	s.connect("jane", jane)
	s.wait("jane", "A run did not finish: add", "Resume it now? [y/N]")
	s.tmux("send-keys", "-t", "jane", "y")
	// 600 batches: on a busy machine that is more than a screen's usual
	// wait.
	if scr := s.waitWithin(3*time.Minute, "jane", "Results · add", fmt.Sprintf("%d entries:", n)); strings.Contains(scr, "failed") || strings.Contains(scr, "unsent") {
		t.Fatalf("the resumed run did not finish:\n%s", scr)
	}
	trail := s.trail()
	seen := map[string]bool{}
	for _, e := range trail.Data {
		if e.Type != api.AuditAdded || e.Agent == nil || e.Agent.Name != "jane" {
			t.Fatalf("a change of the run is not jane's: %+v", e)
		}
		if seen[e.Suppression.Email] {
			t.Fatalf("%s was added twice", e.Suppression.Email)
		}
		seen[e.Suppression.Email] = true
	}
	if len(seen) != n {
		t.Fatalf("the trail has %d additions, want %d", len(seen), n)
	}
	// The dropped session's send stopped with it: no batch was sent by
	// it and by the resumed run both (a batch's request ID is the same in
	// either), so none was answered twice.
	answered := map[string]int{}
	for _, line := range strings.Split(s.log.String(), "\n") {
		if strings.Contains(line, `route="POST /suppressions/batch/add" status=201`) {
			if _, rest, ok := strings.Cut(line, "request_id="); ok {
				id, _, _ := strings.Cut(rest, " ")
				answered[id]++
			}
		}
	}
	twice := 0
	for _, k := range answered {
		if k > 1 {
			twice++
		}
	}
	if len(answered) != n/100 || twice > 0 {
		t.Errorf("%d batches were answered, %d of them more than once; want %d, each once", len(answered), twice, n/100)
	}
}

// The team's protected list: a batch through the API that names one is
// refused (422, naming the index, nothing applied), and in an agent's
// session the row is greyed with the reason and left out of the send.
func TestProtectedAddressesOverSSH(t *testing.T) {
	t.Parallel()
	s := startSSHService(t)
	s.sb.run(t, nil, "team", "set", "--team", sshTeam, "--protect", "support@acme.test,@own.test", "--db", s.db).want(t, 0)

	// The address the UI leaves out below, and an exact one: the API
	// refuses both by the same rule.
	for _, protected := range []string{"Support@Acme.test", "help@desk.own.test"} {
		req, _ := http.NewRequest(http.MethodPost, s.apiURL+"/suppressions/batch/add", strings.NewReader(`{"emails":["ok@example.com","`+protected+`"]}`))
		req.Header.Set("Authorization", "Bearer "+s.key)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(string(body), "emails[1]") {
			t.Fatalf("a batch naming the protected %s: %d %s", protected, resp.StatusCode, body)
		}
	}

	jane := s.agent("jane")
	s.connect("jane", jane)
	s.wait("jane", "agent jane · team support")
	s.paste("jane", "From: Pat <pat@example.com>\n\nPlease also block help@desk.own.test and pat@example.com, thanks")
	scr := s.wait("jane", "help@desk.own.test", "left out: protected by the team's rules")
	if strings.Contains(scr, "help@desk.own.test  ✓") {
		t.Fatalf("a protected address is taken in:\n%s", scr)
	}
	s.tmux("send-keys", "-t", "jane", "C-s")
	s.wait("jane", "Review · add", "1 address", "protected by the team's rules")
	s.tmux("send-keys", "-t", "jane", "C-s")
	s.wait("jane", "Results · add", "1 added")
	trail := s.trail()
	if len(trail.Data) != 1 || trail.Data[0].Suppression.Email != "pat@example.com" {
		t.Errorf("the trail after the send: %+v", trail.Data)
	}
}

// Removing an entry of origin complaint takes a second confirmation that
// names it; no is nothing removed.
func TestComplaintRemovalAsksAgainOverSSH(t *testing.T) {
	t.Parallel()
	s := startSSHService(t)
	req, _ := http.NewRequest(http.MethodPost, s.apiURL+"/suppressions/batch/add",
		strings.NewReader(`{"entries":[{"email":"angry@example.com","origin":"complaint"},{"email":"calm@example.com"}]}`))
	req.Header.Set("Authorization", "Bearer "+s.key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated && resp.StatusCode != http.StatusOK {
		t.Fatalf("the complaint's addition: %d", resp.StatusCode)
	}
	jane := s.agent("jane")
	s.connect("jane", jane)
	s.wait("jane", "agent jane · team support")
	s.paste("jane", "angry@example.com\ncalm@example.com\n")
	s.wait("jane", "2 valid")
	s.tmux("send-keys", "-t", "jane", "Tab")
	s.tmux("send-keys", "-t", "jane", "m")
	s.wait("jane", "Read the 2 rows again as remove by address?")
	s.tmux("send-keys", "-t", "jane", "y")
	s.wait("jane", "mode: remove")
	s.tmux("send-keys", "-t", "jane", "C-s")
	s.wait("jane", "Review · remove", "Type \"remove\"")
	s.tmux("send-keys", "-t", "jane", "-l", "remove")
	s.tmux("send-keys", "-t", "jane", "Enter")
	s.wait("jane", "angry@example.com is on the list from a complaint", "Remove it anyway? [y/N]")
	s.tmux("send-keys", "-t", "jane", "n")
	s.waitGone("jane", "Remove it anyway?")
	if got := len(s.trail().Data); got != 2 {
		t.Fatalf("a removal went ahead without the second confirmation: %d trail entries", got)
	}
	s.tmux("send-keys", "-t", "jane", "Enter")
	s.wait("jane", "Remove it anyway? [y/N]")
	s.tmux("send-keys", "-t", "jane", "y")
	s.wait("jane", "Results · remove", "2 removed")
}

// An agent's name with escape sequences (written to the database behind
// the validation's back) is drawn escaped: the terminal's title and
// screen stay the agent's. A client claiming a window of 100,000 by
// 100,000 gets frames of at most 500 columns, and the service goes on.
func TestHostileAgentNameAndWindowOverSSH(t *testing.T) {
	t.Parallel()
	s := startSSHService(t)
	key := s.keyPair("mallory")
	pub, err := os.ReadFile(key + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	pk, _, _, _, err := gossh.ParseAuthorizedKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	st, err := server.OpenStore(context.Background(), s.db)
	if err != nil {
		t.Fatal(err)
	}
	name := "mallory\x1b]2;owned\x07\x1b[2J\x1b[31m"
	err = st.CreateAgent(context.Background(), store.Agent{ID: "0190a5c4-0000-7000-8000-000000000001", Team: sshTeam, Name: name,
		PublicKey: strings.TrimSpace(string(gossh.MarshalAuthorizedKey(pk))), Fingerprint: gossh.FingerprintSHA256(pk), CreatedAt: time.Now()})
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	s.connect("mallory", key)
	s.wait("mallory", `agent mallory\x1b]2;owned\x07`)
	if title := s.tmux("display-message", "-p", "-t", "mallory", "#{pane_title}"); strings.Contains(title, "owned") {
		t.Errorf("the agent's name set the terminal's title: %q", title)
	}
	if strings.Contains(s.log.String(), "\x1b") {
		t.Errorf("serve's log holds a raw escape")
	}

	// A client of our own, to claim any window size.
	signer, err := gossh.ParsePrivateKey(mustRead(t, key))
	if err != nil {
		t.Fatal(err)
	}
	conn, err := gossh.Dial("tcp", "127.0.0.1:"+s.sshPort, &gossh.ClientConfig{User: "x", Auth: []gossh.AuthMethod{gossh.PublicKeys(signer)},
		HostKeyCallback: gossh.InsecureIgnoreHostKey(), Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	sess, err := conn.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	out, err := sess.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := sess.RequestPty("xterm", 100_000, 100_000, nil); err != nil {
		t.Fatal(err)
	}
	if err := sess.Shell(); err != nil {
		t.Fatal(err)
	}
	var screen []byte
	buf := make([]byte, 64<<10)
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline) && !strings.Contains(string(screen), "paste a ticket"); {
		n, err := out.Read(buf)
		screen = append(screen, buf[:n]...)
		if err != nil {
			break
		}
	}
	if !strings.Contains(string(screen), "paste a ticket") {
		t.Fatalf("no frame for a huge window:\n%q", screen)
	}
	if n := regexp.MustCompile(`─{501,}`).FindString(string(screen)); n != "" {
		t.Errorf("a frame wider than 500 columns: %d", len([]rune(n)))
	}
	if _, err := sess.SendRequest("window-change", false, gossh.Marshal(struct{ W, H, PW, PH uint32 }{1 << 31, 1 << 31, 0, 0})); err != nil {
		t.Fatal(err)
	}
	sess.Close()
	httpGet(t, s.apiURL+"/livez")
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// An agent may have --ssh-max-sessions open at once: one more is told why
// and ends. A session nobody types in ends after --ssh-idle-timeout,
// saying so, and its unsent list is offered back at the next login.
func TestSessionCapAndIdleTimeoutOverSSH(t *testing.T) {
	t.Parallel()
	s := startSSHService(t, "--ssh-max-sessions", "1", "--ssh-idle-timeout", "6s")
	jane := s.agent("jane")
	s.connect("jane", jane)
	s.wait("jane", "agent jane · team support")
	s.paste("jane", "keep@example.com")
	s.wait("jane", "1 valid")
	s.connect("again", jane)
	s.wait("again", "This agent already has 1 sessions open, the most allowed; close one first.", "ssh exit 1")
	s.wait("jane", "The session was idle too long.", "ssh exit 1")
	s.drop("jane")
	s.connect("jane", jane)
	s.wait("jane", "Bring back the list not sent", "1 entry")
}
