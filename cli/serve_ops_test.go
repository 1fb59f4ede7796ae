package cli_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/shushlist/shush/cli"
	"github.com/shushlist/shush/server/store/postgres/pgtest"
)

// freeAddr is a loopback address nothing listens on.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// running is a serve command running in process.
type running struct {
	errOut *serveOutput
	done   chan int
	cancel context.CancelFunc
}

// startServe runs shush serve with args and waits until url answers
// /livez (client may be nil for plain HTTP).
func startServe(t *testing.T, base string, client *http.Client, args ...string) *running {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	r := &running{errOut: &serveOutput{}, done: make(chan int, 1), cancel: cancel}
	go func() {
		r.done <- cli.Main(ctx, append([]string{"serve"}, args...), cli.IO{In: strings.NewReader(""), Out: io.Discard, Err: r.errOut})
	}()
	t.Cleanup(func() { r.stop(t) })
	if client == nil {
		client = http.DefaultClient
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		select {
		case code := <-r.done:
			r.done <- code
			t.Fatalf("serve exited %d: %s", code, r.errOut.String())
		default:
		}
		resp, err := client.Get(base + "/livez")
		if err == nil {
			resp.Body.Close()
			return r
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve did not come up: %v; stderr %s", err, r.errOut.String())
		}
		time.Sleep(30 * time.Millisecond)
	}
}

// stop cancels serve and returns its exit status.
func (r *running) stop(t *testing.T) int {
	r.cancel()
	select {
	case code := <-r.done:
		r.done <- code
		return code
	case <-time.After(40 * time.Second):
		t.Fatal("serve did not stop")
		return -1
	}
}

// TestServeFlagsFromEnvironment: every serve flag also comes from
// SHUSH_<FLAG>; a flag on the command line beats its variable; a bad
// value names the variable.
func TestServeFlagsFromEnvironment(t *testing.T) {
	db := filepath.Join(t.TempDir(), "shush.db")
	_, key, _ := runShush(t, context.Background(), "keys", "create", "--team", "ops", "--db", db)
	key = strings.TrimSpace(key)
	addr := freeAddr(t)
	t.Setenv("SHUSH_ADDR", addr)
	t.Setenv("SHUSH_DB", db)
	t.Setenv("SHUSH_RATE", "7")
	t.Setenv("SHUSH_LOG_FORMAT", "json")
	t.Setenv("SHUSH_LOG_LEVEL", "debug")
	t.Setenv("SHUSH_TIMEOUT", "5s")
	t.Setenv("SHUSH_METRICS_ADDR", "")
	t.Setenv("SHUSH_AUDIT_RETENTION", "365d")
	r := startServe(t, "http://"+addr, nil)
	req, _ := http.NewRequest("GET", "http://"+addr+"/suppressions", nil)
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.Header.Get("Ratelimit-Limit") != "7" {
		t.Errorf("SHUSH_RATE=7: ratelimit-limit %q", resp.Header.Get("Ratelimit-Limit"))
	}
	if code := r.stop(t); code != 0 {
		t.Fatalf("serve exited %d", code)
	}
	logs := strings.TrimSpace(r.errOut.String())
	for _, line := range strings.Split(logs, "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil || rec["msg"] == nil || rec["level"] == nil {
			t.Errorf("SHUSH_LOG_FORMAT=json: a line that is not a slog record: %q", line)
		}
	}
	if !strings.Contains(logs, `"msg":"serving on http://`+addr) {
		t.Errorf("no startup record: %s", logs)
	}
	if !strings.Contains(logs, `"audit_retention":"8760h0m0s","webhook_event_retention":"off"`) {
		t.Errorf("SHUSH_AUDIT_RETENTION=365d: no record of the pruner's settings: %s", logs)
	}

	// The flag wins over the variable.
	addr2 := freeAddr(t)
	t.Setenv("SHUSH_ADDR", addr2)
	r = startServe(t, "http://"+addr2, nil, "--rate", "9", "--log-format", "text")
	req, _ = http.NewRequest("GET", "http://"+addr2+"/suppressions", nil)
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.Header.Get("Ratelimit-Limit") != "9" {
		t.Errorf("--rate 9 with SHUSH_RATE=7: ratelimit-limit %q", resp.Header.Get("Ratelimit-Limit"))
	}
	r.stop(t)
	if strings.Contains(r.errOut.String(), `"msg"`) {
		t.Error("--log-format text did not beat SHUSH_LOG_FORMAT=json")
	}

	for _, c := range []struct{ env, value, want string }{
		{"SHUSH_RATE", "lots", "SHUSH_RATE"},
		{"SHUSH_TIMEOUT", "soon", "SHUSH_TIMEOUT"},
		{"SHUSH_LOG_LEVEL", "loud", "--log-level"},
		{"SHUSH_MAX_BODY_BYTES", "12", "--max-body-bytes"},
		{"SHUSH_AUDIT_RETENTION", "1y", "SHUSH_AUDIT_RETENTION"},
		{"SHUSH_WEBHOOK_EVENT_RETENTION", "-3d", "SHUSH_WEBHOOK_EVENT_RETENTION"},
	} {
		t.Run(c.env, func(t *testing.T) {
			t.Setenv(c.env, c.value)
			code, _, errOut := runShush(t, context.Background(), "serve")
			if code != 2 || !strings.Contains(errOut, c.want) {
				t.Errorf("%s=%s: exit %d %q, want exit 2 naming %s", c.env, c.value, code, errOut, c.want)
			}
		})
	}
}

// TestServeHelpNamesEveryVariable: --help shows each flag's variable.
func TestServeHelpNamesEveryVariable(t *testing.T) {
	_, out, _ := runShush(t, context.Background(), "serve", "--help")
	for _, v := range []string{"SHUSH_ADDR", "SHUSH_DB", "SHUSH_RATE", "SHUSH_TIMEOUT", "SHUSH_LOG_FORMAT", "SHUSH_LOG_LEVEL",
		"SHUSH_METRICS_ADDR", "SHUSH_TLS_CERT", "SHUSH_TLS_KEY", "SHUSH_MAX_BODY_BYTES", "SHUSH_AUDIT_RETENTION", "SHUSH_WEBHOOK_EVENT_RETENTION"} {
		if !strings.Contains(out, v) {
			t.Errorf("serve --help does not name %s", v)
		}
	}
}

// TestServeNeverShowsTheDatabasePassword: a key=value DSN with a
// password works, and the password appears in no log line, no error and
// not in config --json.
func TestServeNeverShowsTheDatabasePassword(t *testing.T) {
	u, err := url.Parse(pgtest.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	// The test server trusts local connections, so the password is
	// carried but not checked.
	kv := "host=" + u.Hostname() + " port=" + u.Port() + " user=" + u.User.Username() +
		" password=hunter2secret dbname=" + strings.TrimPrefix(u.Path, "/") +
		" sslmode=disable search_path=" + u.Query().Get("search_path")
	code, out, errOut := runShush(t, context.Background(), "keys", "create", "--team", "ops", "--db", kv)
	if code != 0 {
		t.Fatalf("keys create on a key=value DSN: exit %d %s", code, errOut)
	}
	if strings.Contains(out+errOut, "hunter2secret") {
		t.Error("keys create showed the password")
	}
	addr := freeAddr(t)
	r := startServe(t, "http://"+addr, nil, "--addr", addr, "--db", kv, "--log-format", "json", "--log-level", "debug")
	r.stop(t)
	logs := r.errOut.String()
	if strings.Contains(logs, "hunter2secret") || !strings.Contains(logs, "password=xxxxx") {
		t.Errorf("serve logs show the password or do not name the database: %s", logs)
	}
	code, _, errOut = runShush(t, context.Background(), "serve", "--addr", addr, "--db", "host=127.0.0.1 port=notaport password=hunter2secret")
	if code == 0 || strings.Contains(errOut, "hunter2secret") {
		t.Errorf("a bad DSN: exit %d, stderr %q", code, errOut)
	}
	t.Setenv("SHUSH_DB", kv)
	t.Setenv("SHUSH_BASE_URL", "")
	t.Setenv("SHUSH_CONFIG_DIR", t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	code, out, _ = runShush(t, context.Background(), "config", "--json")
	if code != 0 || strings.Contains(out, "hunter2secret") || !strings.Contains(out, "host=") {
		t.Errorf("config --json: exit %d %s", code, out)
	}
	// The embedded default on a database that does not answer.
	t.Setenv("SHUSH_DB", "host=127.0.0.1 port=1 user=u password=hunter2secret dbname=x connect_timeout=2")
	code, out, errOut = runShush(t, context.Background(), "suppressions", "list")
	if code == 0 || strings.Contains(out+errOut, "hunter2secret") || !strings.Contains(errOut, "password=xxxxx") {
		t.Errorf("a local command on an unreachable key=value DSN: exit %d %q", code, errOut)
	}
}

// selfSigned writes a certificate for 127.0.0.1 and its key.
func selfSigned(t *testing.T) (certFile, keyFile string, pool *x509.CertPool) {
	t.Helper()
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "shush test"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		IPAddresses:  []net.IP{net.ParseIP("127.0.0.1")},
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &priv.PublicKey, priv)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool = x509.NewCertPool()
	pool.AddCert(cert)
	kb, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: kb}), 0o600); err != nil {
		t.Fatal(err)
	}
	return certFile, keyFile, pool
}

// TestServeTLS: with --tls-cert and --tls-key the service speaks HTTPS
// only; plain HTTP on its port gets no answer from the API.
func TestServeTLS(t *testing.T) {
	db := filepath.Join(t.TempDir(), "shush.db")
	certFile, keyFile, pool := selfSigned(t)
	addr := freeAddr(t)
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	r := startServe(t, "https://"+addr, client, "--addr", addr, "--db", db, "--tls-cert", certFile, "--tls-key", keyFile)
	resp, err := client.Get("https://" + addr + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.TLS == nil {
		t.Errorf("GET /readyz over TLS: %d", resp.StatusCode)
	}
	if resp, err := http.Get("http://" + addr + "/readyz"); err == nil {
		resp.Body.Close()
		if resp.StatusCode == 200 {
			t.Error("plain HTTP got an answer from the API on the TLS port")
		}
	}
	r.stop(t)
	if !strings.Contains(r.errOut.String(), "serving on https://") || strings.Contains(r.errOut.String(), "plain HTTP") ||
		strings.Contains(r.errOut.String(), "readable by other users") {
		t.Errorf("TLS startup record: %s", r.errOut.String())
	}
	// A key file others can read is named at start.
	if err := os.Chmod(keyFile, 0o644); err != nil {
		t.Fatal(err)
	}
	addr = freeAddr(t)
	r = startServe(t, "https://"+addr, client, "--addr", addr, "--db", db, "--tls-cert", certFile, "--tls-key", keyFile)
	r.stop(t)
	if n := strings.Count(r.errOut.String(), "is readable by other users"); n != 1 {
		t.Errorf("a 0644 TLS key: %d warnings, want 1: %s", n, r.errOut.String())
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--tls-cert", certFile}, "go together"},
		{[]string{"--tls-key", keyFile}, "go together"},
		{[]string{"--tls-cert", keyFile, "--tls-key", certFile}, "cannot load"},
		{[]string{"--tls-cert", filepath.Join(t.TempDir(), "missing.pem"), "--tls-key", keyFile}, "cannot load"},
	} {
		code, _, errOut := runShush(t, context.Background(), append([]string{"serve", "--db", db, "--addr", freeAddr(t)}, c.args...)...)
		if code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("serve %v: exit %d %q, want exit 2 saying %q", c.args, code, errOut, c.want)
		}
	}
}

// TestServeWarnsAboutPlainHTTPOffLoopback: one warning line when the
// address is reachable from other machines without TLS; none on loopback
// or with TLS.
func TestServeWarnsAboutPlainHTTPOffLoopback(t *testing.T) {
	db := filepath.Join(t.TempDir(), "shush.db")
	_, port, _ := net.SplitHostPort(freeAddr(t))
	r := startServe(t, "http://127.0.0.1:"+port, nil, "--addr", "0.0.0.0:"+port, "--db", db)
	r.stop(t)
	if n := strings.Count(r.errOut.String(), "plain HTTP"); n != 1 {
		t.Errorf("plain HTTP on 0.0.0.0: %d warnings, want 1: %s", n, r.errOut.String())
	}
	addr := freeAddr(t)
	r = startServe(t, "http://"+addr, nil, "--addr", addr, "--db", db)
	r.stop(t)
	if strings.Contains(r.errOut.String(), "plain HTTP") {
		t.Errorf("a warning on loopback: %s", r.errOut.String())
	}
	certFile, keyFile, pool := selfSigned(t)
	_, port, _ = net.SplitHostPort(freeAddr(t))
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	r = startServe(t, "https://127.0.0.1:"+port, client, "--addr", "0.0.0.0:"+port, "--db", db, "--tls-cert", certFile, "--tls-key", keyFile)
	r.stop(t)
	if strings.Contains(r.errOut.String(), "plain HTTP") {
		t.Errorf("a warning with TLS: %s", r.errOut.String())
	}
}

// TestServeMetricsListener: --metrics-addr serves Prometheus metrics on
// its own listener; the API's port does not.
func TestServeMetricsListener(t *testing.T) {
	db := filepath.Join(t.TempDir(), "shush.db")
	addr, maddr := freeAddr(t), freeAddr(t)
	startServe(t, "http://"+addr, nil, "--addr", addr, "--db", db, "--metrics-addr", maddr)
	if resp, err := http.Get("http://" + addr + "/readyz"); err == nil {
		resp.Body.Close()
	}
	resp, err := http.Get("http://" + maddr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(b), `shush_http_requests_total{route="GET /readyz",status="200"}`) ||
		!strings.Contains(string(b), "go_goroutines") {
		t.Errorf("metrics: %d\n%.2000s", resp.StatusCode, b)
	}
	resp, err = http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode == 200 {
		t.Error("the API's port serves /metrics")
	}
}

// TestServeStartupFailureIsARecord: under --log-format json even a failure
// to start is one JSON record, and the exit status says it failed.
func TestServeStartupFailureIsARecord(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	db := filepath.Join(t.TempDir(), "shush.db")
	code, _, errOut := runShush(t, context.Background(), "serve", "--addr", ln.Addr().String(), "--db", db, "--log-format", "json")
	if code != 1 {
		t.Errorf("serve on a taken port: exit %d", code)
	}
	var failed bool
	for _, line := range strings.Split(strings.TrimSpace(errOut), "\n") {
		var rec struct{ Level, Msg string }
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Errorf("not a JSON record: %q", line)
			continue
		}
		if rec.Level == "ERROR" && strings.Contains(rec.Msg, "cannot listen on "+ln.Addr().String()) {
			failed = true
		}
	}
	if !failed {
		t.Errorf("no error record naming the address: %s", errOut)
	}
}

// TestDeployFilesUseRealSettings: every SHUSH_ variable the Dockerfile,
// compose.yaml and the systemd unit set is one serve reads, so a renamed
// flag cannot leave them silently ignored.
func TestDeployFilesUseRealSettings(t *testing.T) {
	_, help, _ := runShush(t, context.Background(), "serve", "--help")
	re := regexp.MustCompile(`SHUSH_[A-Z_]+`)
	for _, f := range []string{"../Dockerfile", "../compose.yaml", "../docs/shush.service"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		vars := re.FindAllString(string(b), -1)
		if len(vars) == 0 {
			t.Errorf("%s sets no SHUSH_ variable", f)
		}
		for _, v := range vars {
			if !strings.Contains(help, v) {
				t.Errorf("%s sets %s, which serve does not read", f, v)
			}
		}
	}
}
