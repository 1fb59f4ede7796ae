package client

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/internal/redact"
)

// ExportParams selects what GET /suppressions/export streams.
type ExportParams struct {
	Format string     // "csv" (default) or "ndjson"
	Origin api.Origin // "" for every origin
	// Search and the created range narrow it as they narrow a list
	// (ListParams).
	Search                      api.Search
	CreatedAfter, CreatedBefore time.Time
}

// Export streams the team's whole list, newest first, into w as the
// service writes it (CSV with a header row, or one JSON entry a line),
// without holding it in memory. It returns the bytes written. A stream the
// service cut short is an error: a partial export is never taken as whole.
// The key goes only to the client's service (no redirect is followed).
func (c *Client) Export(ctx context.Context, p ExportParams, w io.Writer) (int64, error) {
	q := selection(url.Values{}, p.Origin, p.Search, p.CreatedAfter, p.CreatedBefore)
	if p.Format != "" {
		q.Set("format", p.Format)
	}
	if err := c.pacer.acquire(waitContext(ctx), func(d time.Duration) {
		c.report(ctx, WaitInfo{Reason: WaitPacing, Delay: d, Attempt: 1})
	}); err != nil {
		return 0, err
	}
	resp, err := c.http.R().SetContext(ctx).SetDoNotParseResponse(true).SetQueryParamsFromValues(q).Get("/suppressions/export")
	var rl api.RateLimit
	if resp != nil {
		rl = parseRateLimit(resp.Header())
	}
	c.pacer.release(resp != nil, rl, resp != nil && resp.StatusCode() == http.StatusTooManyRequests, retryAfter(respHeader(resp)))
	if err != nil {
		if ctx.Err() != nil {
			return 0, ctx.Err()
		}
		return 0, &NetworkError{BaseURL: c.base, Method: http.MethodGet, Path: "/suppressions/export", Err: cause(err)}
	}
	body := resp.RawBody()
	defer body.Close()
	if code := resp.StatusCode(); code != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(body, 64<<10))
		e := &api.Error{}
		if err := json.Unmarshal(b, e); err != nil || e.Message == "" && e.Name == "" {
			e = &api.Error{Message: fmt.Sprintf("%s (not a JSON error body: %s)", http.StatusText(code), snippet(b))}
		}
		e.StatusCode, e.RateLimit, e.RetryAfter = code, rl, retryAfter(resp.Header())
		return 0, e
	}
	n, err := io.Copy(w, body)
	if err != nil {
		return n, fmt.Errorf("the export from %s was cut short after %d bytes: %w", redact.URL(c.base), n, err)
	}
	return n, nil
}
