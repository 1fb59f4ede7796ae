package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/shushlist/shush/internal/cputime"
	"github.com/shushlist/shush/server"
)

// importWithShush imports the input file into the fresh database db the
// way a user does: a key made with `shush keys create`, the service on a
// free loopback port, and `shush suppressions batch add --file` with its
// default settings. It returns the import's wall time (the CLI's run) and
// the CPU time of both sides.
func importWithShush(ctx context.Context, s settings, dir, db, input, profile string) (result, error) {
	home, err := os.MkdirTemp(dir, "home-")
	if err != nil {
		return result{}, err
	}
	env := cleanEnv(home)
	keyCmd := exec.CommandContext(ctx, s.shush, "keys", "create", "--team", team, "--db", db, "--json")
	keyCmd.Env = env
	var stderr bytes.Buffer
	keyCmd.Stderr = &stderr
	out, err := keyCmd.Output()
	if err != nil {
		return result{}, fmt.Errorf("shush keys create: %w: %s", err, strings.TrimSpace(stderr.String()))
	}
	var created struct {
		Key string `json:"key"`
	}
	if err := json.Unmarshal(out, &created); err != nil || created.Key == "" {
		return result{}, errors.New("shush keys create --json printed no key")
	}

	addr, err := freeAddr()
	if err != nil {
		return result{}, err
	}
	logFile, err := os.Create(filepath.Join(home, "serve.log"))
	if err != nil {
		return result{}, err
	}
	defer logFile.Close()
	var stop func() (time.Duration, error)
	if s.server == "binary" {
		stop, err = serveBinary(s, env, addr, db, logFile)
	} else {
		stop, err = serveInProcess(ctx, s, addr, db, logFile)
	}
	if err != nil {
		return result{}, err
	}
	stopped := false
	defer func() {
		if !stopped {
			_, _ = stop()
		}
	}()
	if err := waitReady(ctx, addr); err != nil {
		return result{}, err
	}

	if profile != "" {
		f, err := os.Create(profile)
		if err != nil {
			return result{}, err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return result{}, err
		}
	}
	if s.store == "postgres" && s.analyze > 0 {
		actx, cancel := context.WithCancel(ctx)
		defer cancel()
		go analyzeEvery(actx, db, s.analyze)
	}
	args := []string{"suppressions", "batch", "add", "--file", input}
	if s.concurrency > 0 {
		args = append(args, "--concurrency", strconv.Itoa(s.concurrency))
	}
	cli := exec.CommandContext(ctx, s.shush, args...)
	cli.Env = append(env, "SHUSH_BASE_URL=http://"+addr, "SHUSH_API_KEY="+created.Key)
	stderr.Reset()
	cli.Stderr = &stderr
	start := time.Now()
	err = cli.Run()
	wall := time.Since(start)
	if profile != "" {
		pprof.StopCPUProfile()
	}
	if err != nil {
		return result{}, fmt.Errorf("shush suppressions batch add: %w: %s", err, lastLines(stderr.String(), 5))
	}
	stopped = true
	serverCPU, err := stop()
	if err != nil {
		return result{}, err
	}
	return result{wall: wall, serverCPU: serverCPU, clientCPU: cli.ProcessState.UserTime() + cli.ProcessState.SystemTime()}, nil
}

// cleanEnv is this process's environment without shush's own variables,
// with a home and XDG directories of the run's own, so that no user
// configuration or earlier run's journal takes part.
func cleanEnv(home string) []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch {
		case strings.HasPrefix(name, "SHUSH_"), name == "HOME", strings.HasPrefix(name, "XDG_"):
			continue
		}
		env = append(env, kv)
	}
	return append(env, "HOME="+home,
		"XDG_CONFIG_HOME="+filepath.Join(home, "config"),
		"XDG_DATA_HOME="+filepath.Join(home, "data"),
		"XDG_STATE_HOME="+filepath.Join(home, "state"),
		"XDG_CACHE_HOME="+filepath.Join(home, "cache"))
}

// serveBinary starts `shush serve`; stop ends it with SIGTERM and returns
// the CPU time it used.
func serveBinary(s settings, env []string, addr, db string, log *os.File) (func() (time.Duration, error), error) {
	cmd := exec.Command(s.shush, "serve", "--addr", addr, "--db", db, "--rate", strconv.FormatFloat(s.rate, 'f', -1, 64))
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start shush serve: %w", err)
	}
	return func() (time.Duration, error) {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		err := cmd.Wait()
		if err != nil {
			return 0, fmt.Errorf("shush serve: %w (its log: %s)", err, log.Name())
		}
		return cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime(), nil
	}, nil
}

// serveInProcess runs the service in this process, set up as `shush
// serve` sets it up; stop shuts it down and returns the process's CPU time
// since the start (the service's, as nothing else runs meanwhile).
func serveInProcess(ctx context.Context, s settings, addr, db string, log *os.File) (func() (time.Duration, error), error) {
	st, err := server.OpenStore(ctx, db)
	if err != nil {
		return nil, err
	}
	logger := slog.New(slog.NewTextHandler(log, &slog.HandlerOptions{Level: slog.LevelInfo}))
	svc, err := server.Listen(st, server.Config{Addr: addr, API: server.Options{Rate: s.rate, Logger: logger}})
	if err != nil {
		st.Close()
		return nil, err
	}
	stop, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- svc.Serve(stop) }()
	cpu0 := cputime.Process()
	return func() (time.Duration, error) {
		cpu := cputime.Process() - cpu0
		cancel()
		return cpu, errors.Join(<-served, st.Close())
	}, nil
}

// freeAddr is a loopback address with a port nothing listens on now.
func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// waitReady waits until the service answers /healthz.
func waitReady(ctx context.Context, addr string) error {
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		req, _ := http.NewRequestWithContext(ctx, "GET", "http://"+addr+"/healthz", nil)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
	return fmt.Errorf("the service on %s did not answer /healthz within 30 s", addr)
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// analyzeEvery runs ANALYZE on the list's table every d until ctx ends,
// standing in for autovacuum's analyze on a server that has it off: the
// planner's statistics then follow the table as it grows.
func analyzeEvery(ctx context.Context, dsn string, d time.Duration) {
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		fmt.Fprintf(os.Stderr, "floor: -analyze-every: %v\n", err)
		return
	}
	defer conn.Close(context.Background())
	t := time.NewTicker(d)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if _, err := conn.Exec(ctx, "ANALYZE suppressions"); err != nil && ctx.Err() == nil {
				fmt.Fprintf(os.Stderr, "floor: ANALYZE: %v\n", err)
			}
		}
	}
}
