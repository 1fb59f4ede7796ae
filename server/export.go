package server

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"net/http"
	"net/url"
	"time"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/safe"
	"github.com/shushlist/shush/server/store"
)

// exportTimeout bounds one export; a list of millions streams well within.
const exportTimeout = time.Hour

// streamer is a handler's answer that writes itself (an export), instead of
// a JSON body.
type streamer interface {
	stream(w http.ResponseWriter, r *http.Request)
}

// export answers GET /suppressions/export?format=csv|ndjson&origin=: every
// entry of the team, newest first, streamed from one snapshot (contract:
// the whole list at once). One request counts once against the rate limit.
func (s *Server) export(r *http.Request, w http.ResponseWriter, team string) (int, any, error) {
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return 0, nil, badRequest("The query string is malformed; escape its values.")
	}
	e := exportStream{s: s, team: team, format: "csv"}
	if v, ok := q["format"]; ok {
		if len(v) > 1 || v[0] != "csv" && v[0] != "ndjson" {
			return 0, nil, invalid("`format` (%s) must be csv or ndjson.", api.Quote(v[0]))
		}
		e.format = v[0]
	}
	if v, ok := q["origin"]; ok {
		o, err := api.ParseOrigin(v[0])
		if err != nil || len(v) > 1 {
			return 0, nil, invalid("`origin` (%s) must be one of bounce, complaint, manual.", api.Quote(v[0]))
		}
		e.origin = o
	}
	return http.StatusOK, e, nil
}

type exportStream struct {
	s      *Server
	team   string
	format string
	origin api.Origin
}

func (e exportStream) stream(w http.ResponseWriter, r *http.Request) {
	rc := http.NewResponseController(w)
	_ = rc.SetWriteDeadline(time.Now().Add(exportTimeout))
	h := w.Header()
	h.Set("X-Content-Type-Options", "nosniff")
	if e.format == "ndjson" {
		h.Set("Content-Type", "application/x-ndjson")
	} else {
		h.Set("Content-Type", "text/csv; charset=utf-8")
	}
	w.WriteHeader(http.StatusOK)
	bw := bufio.NewWriterSize(w, 64<<10)
	cw := csv.NewWriter(bw)
	if e.format == "csv" {
		_ = cw.Write([]string{"id", "email", "origin", "source_id", "created_at"})
	}
	n := 0
	err := e.s.store.Export(r.Context(), e.team, store.ListQuery{Origin: e.origin}, func(x store.Entry) error {
		if e.format == "ndjson" {
			b, err := json.Marshal(entry(x, ""))
			if err != nil {
				return err
			}
			bw.Write(safe.JSON(b))
			bw.WriteByte('\n')
		} else {
			src := ""
			if x.SourceID != nil {
				src = *x.SourceID
			}
			// A cell a spreadsheet would run as a formula is text.
			_ = cw.Write([]string{x.ID, safe.Cell(x.Email), string(x.Origin), safe.Cell(src), x.CreatedAt.UTC().Format(api.TimestampLayout)})
			cw.Flush()
		}
		if n++; n%10000 == 0 {
			_ = bw.Flush()
			_ = rc.Flush()
		}
		return cw.Error()
	})
	cw.Flush()
	_ = bw.Flush()
	if err != nil {
		// The status is sent: end the stream so the client sees it cut
		// short, rather than a list that looks whole.
		e.s.log.Error("export cut short", "team", e.team, "entries", n, "err", err)
		panic(http.ErrAbortHandler)
	}
}
