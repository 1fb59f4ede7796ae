package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"sync"
	"time"
)

func run(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	cfg, err := parseFlags(args, stderr, getenv)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	transport := &http.Transport{
		Proxy:               nil, // loopback only: never through a proxy
		MaxIdleConnsPerHost: cfg.clients,
		IdleConnTimeout:     30 * time.Second,
	}
	defer transport.CloseIdleConnections()
	hc := &http.Client{Transport: transport, Timeout: cfg.timeout}
	if err := checkService(ctx, hc, &cfg); err != nil {
		return err
	}
	clients := make([]*client, cfg.clients)
	for i := range clients {
		clients[i] = &client{
			cfg:  &cfg,
			http: hc,
			base: cfg.urls[i%len(cfg.urls)],
			rng:  rand.New(rand.NewPCG(cfg.seed, uint64(i))),
		}
	}
	res := result{Clients: cfg.clients, Mix: mixString(cfg.mix), Batch: cfg.batch, Errors: map[string]int{}}
	for _, u := range cfg.urls {
		res.URLs = append(res.URLs, u.String())
	}
	if cfg.fill > 0 {
		start := time.Now()
		n, err := fill(ctx, &cfg, clients, stderr)
		res.Filled, res.FillSecs = n, time.Since(start).Seconds()
		if err != nil {
			return err
		}
	}

	runCtx, cancel := context.WithTimeout(ctx, cfg.duration)
	defer cancel()
	var budget sync.Mutex
	left := cfg.maxRequests
	take := func() bool {
		budget.Lock()
		defer budget.Unlock()
		if left == 0 {
			return false
		}
		left--
		return true
	}
	samples := make([]*sample, len(clients))
	start := time.Now()
	var wg sync.WaitGroup
	for i, c := range clients {
		samples[i] = newSample()
		wg.Go(func() {
			for runCtx.Err() == nil && take() {
				c.do(runCtx, c.pick(), samples[i])
			}
		})
	}
	wg.Wait()
	res.Seconds = time.Since(start).Seconds()
	summarize(&res, samples)
	if cfg.jsonOut {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(res); err != nil {
			return err
		}
	} else {
		printTable(stdout, res)
	}
	if ctx.Err() != nil {
		return errors.New("interrupted; the figures above cover the time until then")
	}
	failed := 0
	for status, n := range res.Errors {
		if status != "429" {
			failed += n
		}
	}
	if failed > 0 {
		return failedError{fmt.Errorf("%d requests failed for a reason other than the rate limit", failed)}
	}
	return nil
}

// checkService makes sure every URL answers and accepts the key before
// the clock starts, so that a typo does not become a page of errors.
func checkService(ctx context.Context, hc *http.Client, cfg *config) error {
	for _, u := range cfg.urls {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.JoinPath("/suppressions").String()+"?limit=1", nil)
		if err != nil {
			return err
		}
		req.Header.Set("Authorization", "Bearer "+cfg.key)
		resp, err := hc.Do(req)
		if err != nil {
			return fmt.Errorf("the service at %s does not answer: %w", u, err)
		}
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			var e struct {
				Message string `json:"message"`
			}
			_ = json.Unmarshal(body, &e)
			return fmt.Errorf("the service at %s answered %d to a list request: %s", u, resp.StatusCode, e.Message)
		}
	}
	return nil
}

// fill adds cfg.fill distinct addresses with all clients, retrying 429s,
// and reports progress on stderr.
func fill(ctx context.Context, cfg *config, clients []*client, stderr io.Writer) (int, error) {
	var mu sync.Mutex
	next, done := 0, 0
	var firstErr error
	claim := func() (lo, hi int, ok bool) {
		mu.Lock()
		defer mu.Unlock()
		if next >= cfg.fill || firstErr != nil {
			return 0, 0, false
		}
		lo, hi = next, min(next+100, cfg.fill)
		next = hi
		return lo, hi, true
	}
	lastReport := time.Now()
	var wg sync.WaitGroup
	for _, c := range clients {
		wg.Go(func() {
			for {
				lo, hi, ok := claim()
				if !ok || ctx.Err() != nil {
					return
				}
				emails := make([]string, 0, hi-lo)
				for i := lo; i < hi; i++ {
					emails = append(emails, fmt.Sprintf("%s-fill-%d@load.example.com", cfg.prefix, i))
				}
				b, _ := json.Marshal(map[string][]string{"emails": emails})
				if added, err := addFill(ctx, cfg, c, b); !added {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
					return
				}
				mu.Lock()
				done += hi - lo
				if time.Since(lastReport) > 5*time.Second {
					lastReport = time.Now()
					fmt.Fprintf(stderr, "fill: %d of %d addresses\n", done, cfg.fill)
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if firstErr == nil && ctx.Err() != nil {
		firstErr = errors.New("fill interrupted")
	}
	return done, firstErr
}

// addFill sends one batch add of the fill (body b), again after a 429, a
// 5xx or no answer, up to 20 times. It reports whether the batch was
// added; when not, err says why (nil when ctx ended).
func addFill(ctx context.Context, cfg *config, c *client, b []byte) (added bool, err error) {
	for attempt := 0; ; attempt++ {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, c.base.JoinPath("/suppressions/batch/add").String(), bytes.NewReader(b))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+cfg.key)
		resp, err := c.http.Do(req)
		status := 0
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			status = resp.StatusCode
		}
		if status == http.StatusCreated {
			return true, nil
		}
		if ctx.Err() != nil {
			return false, nil
		}
		if (status == http.StatusTooManyRequests || status >= 500 || err != nil) && attempt < 20 {
			time.Sleep(time.Duration(50+c.rng.IntN(200)) * time.Millisecond)
			continue
		}
		if err != nil {
			return false, fmt.Errorf("fill: %w", err)
		}
		return false, fmt.Errorf("fill: the service answered %d", status)
	}
}
