package server_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/shushlist/shush/server"
	"github.com/shushlist/shush/server/store"
	"github.com/shushlist/shush/server/store/sqlite"
)

// BenchmarkFramingGuard measures a keyed GET of one entry over loopback
// HTTP with and without GuardFraming's connection wrapper (which follows
// the framing of every byte read) and reports the guarded rate as a share
// of the plain one.
func BenchmarkFramingGuard(b *testing.B) {
	st, err := sqlite.Open(context.Background(), filepath.Join(b.TempDir(), "shush.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	_, key, err := server.CreateKey(context.Background(), st, "bench", false)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := st.Add(context.Background(), "bench", store.Change{}, store.Manual("one@example.com")); err != nil {
		b.Fatal(err)
	}
	var plain float64
	for _, guarded := range []bool{false, true} {
		name := "plain"
		if guarded {
			name = "guarded"
		}
		b.Run(name, func(b *testing.B) {
			ts := httptest.NewUnstartedServer(server.New(st, server.Options{Rate: 1e9}))
			if guarded {
				ts.Listener = server.GuardFraming(ts.Listener)
				ts.Config.ConnContext = server.ConnContext
			}
			ts.Start()
			defer ts.Close()
			client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: benchClients, MaxConnsPerHost: benchClients}}
			defer client.CloseIdleConnections()
			rate := runClients(b, func(ctx context.Context) error {
				req, _ := http.NewRequestWithContext(ctx, "GET", ts.URL+"/suppressions/one@example.com", nil)
				req.Header.Set("Authorization", "Bearer "+key)
				resp, err := client.Do(req)
				if err != nil {
					return err
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					return io.ErrUnexpectedEOF
				}
				return nil
			})
			if !guarded {
				plain = rate
			} else if plain > 0 {
				b.ReportMetric(100*rate/plain, "%_of_plain")
			}
		})
	}
}
