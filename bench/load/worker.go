package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"time"
)

// sample is what one client measured.
type sample struct {
	latency [numOps][]time.Duration
	ok      [numOps]int
	items   [numOps]int
	// unfinished counts requests the run's end cut off in flight: the
	// service may or may not have applied them.
	unfinished [numOps]int
	byStatus   map[string]int
}

func newSample() *sample { return &sample{byStatus: map[string]int{}} }

// client is one simulated user: one request in flight at a time.
type client struct {
	cfg  *config
	http *http.Client
	base *url.URL
	rng  *rand.Rand
	n    int
	// mine holds addresses this client added and has not removed yet, for
	// removes when addresses are not drawn from a shared pool.
	mine []string
	// lastID is an ID seen in a list page, used as the next page's cursor.
	lastID string
}

func (c *client) address() string {
	if c.cfg.pool > 0 {
		return fmt.Sprintf("%s-%d@load.example.com", c.cfg.prefix, c.rng.IntN(c.cfg.pool))
	}
	c.n++
	return fmt.Sprintf("%s-%d-%d@load.example.com", c.cfg.prefix, c.rng.Uint32(), c.n)
}

// maxMine bounds what a client remembers for later removes.
const maxMine = 100_000

func (c *client) batchFor(o op) (path string, body []byte, emails []string) {
	switch {
	case o == opRemove && c.cfg.pool == 0:
		k := min(c.cfg.batch, len(c.mine))
		if k == 0 {
			// Nothing of ours to remove yet: remove addresses that
			// were never added, which exercises the same path.
			for range c.cfg.batch {
				emails = append(emails, c.address())
			}
			break
		}
		emails = slices.Clone(c.mine[len(c.mine)-k:])
		c.mine = c.mine[:len(c.mine)-k]
	default:
		seen := map[string]bool{}
		for len(emails) < c.cfg.batch {
			e := c.address()
			if !seen[e] {
				seen[e] = true
				emails = append(emails, e)
			}
		}
	}
	b, _ := json.Marshal(map[string][]string{"emails": emails})
	if o == opAdd {
		return "/suppressions/batch/add", b, emails
	}
	return "/suppressions/batch/remove", b, emails
}

// do sends one request of kind o and records it.
func (c *client) do(ctx context.Context, o op, s *sample) {
	var req *http.Request
	var err error
	items := 0
	var emails []string
	switch o {
	case opList:
		u := c.base.JoinPath("/suppressions")
		q := url.Values{"limit": {"100"}}
		if c.lastID != "" && c.rng.IntN(2) == 0 {
			q.Set("after", c.lastID)
		}
		u.RawQuery = q.Encode()
		req, err = http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	default:
		var path string
		var body []byte
		path, body, emails = c.batchFor(o)
		items = c.cfg.batch
		req, err = http.NewRequestWithContext(ctx, http.MethodPost, c.base.JoinPath(path).String(), bytes.NewReader(body))
		if req != nil {
			req.Header.Set("Content-Type", "application/json")
		}
	}
	if err != nil {
		s.byStatus["request: "+err.Error()]++
		return
	}
	req.Header.Set("Authorization", "Bearer "+c.cfg.key)
	start := time.Now()
	resp, err := c.http.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			s.unfinished[o]++ // the run ended with this request in flight
			return
		}
		s.byStatus["network"]++
		return
	}
	var body []byte
	if o == opList {
		body, err = io.ReadAll(resp.Body)
	} else {
		_, err = io.Copy(io.Discard, resp.Body)
	}
	resp.Body.Close()
	elapsed := time.Since(start)
	if err != nil {
		if ctx.Err() != nil {
			s.unfinished[o]++
			return
		}
		s.byStatus["network"]++
		return
	}
	if resp.StatusCode/100 != 2 {
		s.byStatus[strconv.Itoa(resp.StatusCode)]++
		return
	}
	if o == opAdd && c.cfg.pool == 0 && len(c.mine) < maxMine {
		// Only addresses the service took are there to remove later.
		c.mine = append(c.mine, emails...)
	}
	s.latency[o] = append(s.latency[o], elapsed)
	s.ok[o]++
	s.items[o] += items
	if o == opList {
		var page struct {
			Data []struct {
				ID string `json:"id"`
			} `json:"data"`
			HasMore bool `json:"has_more"`
		}
		if json.Unmarshal(body, &page) == nil && len(page.Data) > 0 && page.HasMore {
			c.lastID = page.Data[len(page.Data)-1].ID
		} else {
			c.lastID = ""
		}
	}
}

func (c *client) pick() op {
	total := 0
	for _, w := range c.cfg.mix {
		total += w
	}
	r := c.rng.IntN(total)
	for o, w := range c.cfg.mix {
		if r < w {
			return op(o)
		}
		r -= w
	}
	return opList
}
