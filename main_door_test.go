package main

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shushlist/shush/internal/latency"
	"github.com/shushlist/shush/server/store/postgres/pgtest"
)

// The SSH listener's door: a connection that does not log in is closed
// after the login timeout; few may be logging in at once, from one address
// and in all; an address whose logins keep failing is refused for a while;
// an agent's from= is honoured. Each test runs serve with --ssh-addr and
// talks to it over loopback, with raw TCP and the real ssh client.

// metric reads one sample of serve's metrics (0 when absent).
func (s *sshService) metric(name string) float64 {
	s.t.Helper()
	re := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(name) + ` ([0-9.e+]+)$`)
	m := re.FindStringSubmatch(httpGet(s.t, s.metrics))
	if m == nil {
		return 0
	}
	v, _ := strconv.ParseFloat(m[1], 64)
	return v
}

// waitMetric polls serve's metrics until name reaches want.
func (s *sshService) waitMetric(name string, want float64, within time.Duration) {
	s.t.Helper()
	var got float64
	for deadline := time.Now().Add(within); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if got = s.metric(name); got == want {
			return
		}
	}
	s.t.Fatalf("%s is %v after %v; want %v\nserve's log:\n%s", name, got, within, want, s.log.String())
}

// idleConn is a TCP connection to the SSH port that sends nothing, and
// when the service closed it.
type idleConn struct {
	net.Conn
	closed atomic.Int64 // unix nanoseconds; 0 while open
}

// openIdle opens n connections to addr that never send a byte; each is
// read (the service's version line, then nothing) until the service
// closes it.
func openIdle(t *testing.T, addr string, n int) []*idleConn {
	t.Helper()
	var out []*idleConn
	for range n {
		c, err := net.DialTimeout("tcp", addr, 2*time.Second)
		if err != nil {
			t.Fatalf("connection %d of %d: %v", len(out)+1, n, err)
		}
		ic := &idleConn{Conn: c}
		out = append(out, ic)
		go func() {
			_, _ = io.Copy(io.Discard, c)
			ic.closed.Store(time.Now().UnixNano())
		}()
	}
	t.Cleanup(func() {
		for _, c := range out {
			c.Close()
		}
	})
	return out
}

func countOpen(conns []*idleConn) int {
	n := 0
	for _, c := range conns {
		if c.closed.Load() == 0 {
			n++
		}
	}
	return n
}

// apiAnswers asks the API for the first page with a client that gives up
// after 2 seconds, and says what came back.
func apiAnswers(url, key string) error {
	req, _ := http.NewRequest(http.MethodGet, url+"/suppressions?limit=1", nil)
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := (&http.Client{Timeout: 2 * time.Second}).Do(req)
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET /suppressions: %d", resp.StatusCode)
	}
	return nil
}

// TestSSHDoorClosesIdleConnections (audit H-2): 300 TCP connections to
// the SSH port that never log in, against serve with 256 descriptors.
// Before, none was ever closed (0 of 50 after 152 s), and at 256
// descriptors they took every one: the API's requests timed out for every
// team. Now one address has at most 10 logging in (the other 290 are
// closed at once, counted), those 10 are closed at the login timeout, and
// the API answers throughout.
func TestSSHDoorClosesIdleConnections(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("prlimit"); err != nil {
		t.Skip("prlimit is not installed: skipping the test of the SSH door at 256 descriptors")
	}
	s := startSSHServiceOn(t, sshOptions{nofile: 256}, "--ssh-login-timeout", "3s")
	addr := "127.0.0.1:" + s.sshPort
	if err := apiAnswers(s.apiURL, s.key); err != nil {
		t.Fatalf("before the connections: %v", err)
	}
	start := time.Now()
	conns := openIdle(t, addr, 300)
	time.Sleep(time.Second)
	if n := countOpen(conns); n != 10 {
		t.Errorf("%d of 300 idle connections from one address open after a second; want 10 (the rest closed at once)", n)
	}
	for i := range 3 {
		if err := apiAnswers(s.apiURL, s.key); err != nil {
			t.Errorf("the API while 300 idle SSH connections were opened (try %d): %v", i+1, err)
		}
	}
	deadline := start.Add(3*time.Second + 3*time.Second)
	for countOpen(conns) > 0 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if n := countOpen(conns); n > 0 {
		t.Fatalf("%d idle connections still open %v after they were made; want none past the login timeout of 3s", n, time.Since(start).Round(time.Millisecond))
	}
	s.waitMetric(`shush_ssh_connections_refused_total{reason="per_source"}`, 290, 5*time.Second)
	s.waitMetric("shush_ssh_login_timeouts_total", 10, 5*time.Second)
	s.waitMetric("shush_ssh_logging_in", 0, 5*time.Second)
	if err := apiAnswers(s.apiURL, s.key); err != nil {
		t.Errorf("the API after: %v", err)
	}
}

// TestSSHLoginTimeoutWithRealClient: a person whose ssh waits at the
// passphrase of their key holds the connection only for the login
// timeout; when they type it at last, ssh says the connection is gone.
func TestSSHLoginTimeoutWithRealClient(t *testing.T) {
	t.Parallel()
	s := startSSHService(t, "--ssh-login-timeout", "2s")
	key := filepath.Join(s.sb.home, "keys", "locked")
	os.MkdirAll(filepath.Dir(key), 0o700)
	if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "a passphrase", "-C", "jane@laptop", "-f", key).CombinedOutput(); err != nil {
		t.Fatalf("ssh-keygen: %v\n%s", err, out)
	}
	s.sb.run(t, nil, "agents", "add", "jane", "--team", sshTeam, "--ssh-key", key+".pub", "--db", s.db).want(t, 0)
	// ssh asks this program for the passphrase: it answers once the test
	// lets it, as a person would type it late.
	release := filepath.Join(s.sb.home, "release")
	askpass := writeFile(t, s.sb.home, "askpass.sh", "#!/bin/sh\nwhile [ ! -e "+shQuote(release)+" ]; do sleep 0.05; done\necho 'a passphrase'\n")
	os.Chmod(askpass, 0o700)
	cmd := exec.Command("ssh", s.sshArgs(key, "-T", "-o", "BatchMode=no", "-o", "NumberOfPasswordPrompts=1")...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + s.sb.home, "SSH_ASKPASS=" + askpass, "SSH_ASKPASS_REQUIRE=force", "DISPLAY=none"}
	var out lockedBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() { cmd.Process.Kill() })
	s.waitMetric("shush_ssh_logging_in", 1, 10*time.Second)
	s.waitMetric("shush_ssh_login_timeouts_total", 1, 5*time.Second)
	if took := time.Since(start); took > 4*time.Second {
		t.Errorf("the connection at the passphrase prompt was closed after %v; want about the login timeout, 2s", took.Round(time.Millisecond))
	}
	s.waitMetric("shush_ssh_logging_in", 0, 2*time.Second)
	os.WriteFile(release, nil, 0o600)
	select {
	case err := <-done:
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 255 {
			t.Errorf("ssh after the late passphrase: %v; want exit 255\n%s", err, out.String())
		}
		if strings.Contains(out.String(), "needs a terminal") {
			t.Errorf("the login went on after the timeout:\n%s", out.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("ssh never ended after the passphrase:\n%s", out.String())
	}
}

// TestSSHFailedLoginsLimitedPerSource (audit L-6): an address that keeps
// failing logins (an unknown key, again and again) gets 10 tries at once,
// then its connections are closed before any byte until it has earned one
// back; every failure and refusal is counted in the metrics. An agent at
// another address logs in meanwhile. Before, 1,006 unknown-key logins in
// 18 s were all processed.
func TestSSHFailedLoginsLimitedPerSource(t *testing.T) {
	t.Parallel()
	s := startSSHService(t)
	jane := s.agent("jane")
	eve := s.keyPair("eve")
	denied, refused := 0, 0
	for range 13 {
		code, out := s.login(eve)
		switch {
		case code == 255 && strings.Contains(out, "Permission denied"):
			denied++
			// The failure counts once the service has closed the
			// connection, which may be after ssh exited.
			s.waitMetric("shush_ssh_failed_logins_total", float64(denied), 5*time.Second)
		case code == 255:
			refused++
		default:
			t.Fatalf("an unknown key's login: exit %d, %s", code, out)
		}
	}
	if denied != 10 || refused != 3 {
		t.Errorf("13 logins with an unknown key: %d denied, %d closed at once; want 10 and 3", denied, refused)
	}
	s.waitMetric("shush_ssh_failed_logins_total", 10, 5*time.Second)
	s.waitMetric(`shush_ssh_connections_refused_total{reason="failed_logins"}`, 3, 5*time.Second)
	// Jane, from another address of this machine, is not held back.
	if code, out := s.login(jane, "-b", "127.0.0.2"); code != 1 || !strings.Contains(out, "shush needs a terminal") {
		t.Errorf("an agent's login from another address during the refusals: exit %d, %s; want admitted (and told to use a terminal)", code, out)
	}
	// From the refused address, even a good key waits.
	if code, out := s.login(jane); code != 255 || strings.Contains(out, "shush") {
		t.Errorf("a login from the refused address: exit %d, %s; want closed before any session", code, out)
	}
}

// TestSSHAgentKeyFromOption (audit L-4): a key's from= option is
// honoured: the agent logs in from the addresses it names, and from no
// other; an option shush would not apply is refused when the agent is
// added, by name, and so is a from= of host names, which are not looked
// up. Before, from="10.9.9.9",command="/bin/sh" was accepted and the
// agent logged in from 127.0.0.1.
func TestSSHAgentKeyFromOption(t *testing.T) {
	t.Parallel()
	s := startSSHService(t)
	key := s.keyPair("jane")
	pub, err := os.ReadFile(key + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	add := func(name, options string) result {
		path := writeFile(t, s.sb.home, name+".pub", options+" "+string(pub))
		return s.sb.run(t, nil, "agents", "add", name, "--team", sshTeam, "--ssh-key", path, "--db", s.db)
	}
	for options, want := range map[string]string{
		`from="10.9.9.9",command="/bin/sh"`: `the key has the option "command"`,
		`no-pty`:                            `the key has the option "no-pty"`,
		`from="desk.example.com"`:           `"desk.example.com" is not an address, a CIDR range or an address pattern`,
		`from="!127.0.0.1"`:                 "it lets no address in",
	} {
		// The error comes as JSON (stderr is not a terminal).
		if r := add("refused", options); r.code != 2 || !strings.Contains(strings.ReplaceAll(r.stderr, `\"`, `"`), want) {
			t.Errorf("an agent key with %s: exit %d, %s; want 2 and %q", options, r.code, r.stderr, want)
		}
	}
	add("jane", `from="127.0.0.2,10.0.0.0/8,!10.1.*",no-agent-forwarding`).want(t, 0)
	if code, out := s.login(key); code != 255 || !strings.Contains(out, "Permission denied") {
		t.Errorf("a login from 127.0.0.1 with a key from=\"127.0.0.2,…\": exit %d, %s; want refused", code, out)
	}
	if code, out := s.login(key, "-b", "127.0.0.2"); code != 1 || !strings.Contains(out, "shush needs a terminal") {
		t.Errorf("a login from 127.0.0.2: exit %d, %s; want admitted", code, out)
	}
	if !strings.Contains(s.log.String(), "the agent's key allows other addresses (from=)") {
		t.Errorf("the refusal by from= is not in serve's log:\n%s", s.log.String())
	}
}

// isolationGoal is what another team's latency must stay within during an
// attack, as ratios to its own baseline in the same run: the goal of the
// service is ×2 at the 99th percentile (docs/benchmarks.md measures it);
// a test on two shared cores allows more before it calls it a regression,
// and measures again before it does.
var isolationGoal = latency.Goal{P50: 3, P99: 4}

// TestSSHAttacksLeaveTheAPIToOthers (audit H-2, L-6): another team's
// everyday requests keep their latency, in paired rounds against their own
// baseline, while someone holds as many idle SSH connections as they can
// (reopening each one the service closes) and while an address floods the
// door with unknown-key logins.
func TestSSHAttacksLeaveTheAPIToOthers(t *testing.T) {
	if raceDetector {
		t.Skip("latency under attack is measured without the race detector (go test ./... runs it)")
	}
	t.Run("sqlite", func(t *testing.T) {
		t.Parallel()
		sshAttacks(t, startSSHService(t, "--ssh-login-timeout", "3s", "--rate", "10000"))
	})
	t.Run("postgres", func(t *testing.T) {
		t.Parallel()
		sshAttacks(t, startSSHServiceOn(t, sshOptions{db: pgtest.DSN(t)}, "--ssh-login-timeout", "3s", "--rate", "10000"))
	})
}

// sshAttacks measures another team's requests under each attack on the
// SSH door of s.
func sshAttacks(t *testing.T, s *sshService) {
	addr := "127.0.0.1:" + s.sshPort
	victim := func(i int) error {
		if i%2 == 0 {
			return apiAnswers(s.apiURL, s.key)
		}
		return sshVictimAdd(s, i)
	}
	plan := latency.Plan{Rounds: 3, Samples: 60, Pace: 20 * time.Millisecond, Warmup: 300 * time.Millisecond, Floor: 5 * time.Millisecond, Deadline: time.Minute}
	ref := latency.Baseline(plan, victim)
	for _, a := range []struct {
		name   string
		attack latency.Attack
	}{
		{"300 idle SSH connections", func() func() { return holdIdle(addr, 300) }},
		{"a flood of unknown-key logins", func() func() { return floodLogins(s, 2) }},
	} {
		r, ok := latency.Try(3, isolationGoal, t.Logf, func() latency.Result { return latency.Measure(plan, ref, victim, a.attack) })
		if !ok {
			t.Errorf("%s: another team's requests %s; want p50 within ×%.0f and p99 within ×%.0f, all answered", a.name, r, isolationGoal.P50, isolationGoal.P99)
		}
	}
}

// sshVictimAdd adds one address over the API, as another team does all
// day.
func sshVictimAdd(s *sshService, i int) error {
	req, _ := http.NewRequest(http.MethodPost, s.apiURL+"/suppressions/batch/add", strings.NewReader(fmt.Sprintf(`{"emails":["victim-%d@example.com"]}`, i)))
	req.Header.Set("Authorization", "Bearer "+s.key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := (&http.Client{Timeout: 5 * time.Second}).Do(req)
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		return fmt.Errorf("batch add: %d", resp.StatusCode)
	}
	return nil
}

// holdIdle opens n idle connections to addr, as the audit did, and
// holds them (those the service closes stay closed) until stopped.
func holdIdle(addr string, n int) (stop func()) {
	var conns []net.Conn
	for range n {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err != nil {
			continue
		}
		go func() { _, _ = io.Copy(io.Discard, c) }()
		conns = append(conns, c)
	}
	return func() {
		for _, c := range conns {
			c.Close()
		}
	}
}

// floodLogins runs clients that log in with an unknown key over and over
// (the ssh client, as an attacker's script would), each starting a login
// every 40 ms at most (the audit's flood was 56 a second), until stopped.
func floodLogins(s *sshService, clients int) (stop func()) {
	eve := s.keyPair(fmt.Sprintf("eve-%d", time.Now().UnixNano()))
	quit := make(chan struct{})
	var wg sync.WaitGroup
	for range clients {
		wg.Go(func() {
			tick := time.NewTicker(40 * time.Millisecond)
			defer tick.Stop()
			for {
				select {
				case <-quit:
					return
				case <-tick.C:
				}
				cmd := exec.Command("ssh", s.sshArgs(eve, "-o", "BatchMode=yes", "-T")...)
				cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + s.sb.home}
				_ = cmd.Run()
			}
		})
	}
	return func() { close(quit); wg.Wait() }
}
