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
	sel, err := selection(q)
	if err != nil {
		return 0, nil, err
	}
	e := exportStream{s: s, team: team, format: "csv", sel: sel}
	if v, ok := q["format"]; ok {
		if len(v) > 1 || v[0] != "csv" && v[0] != "ndjson" {
			return 0, nil, invalid("`format` (%s) must be csv or ndjson.", api.Quote(v[0]))
		}
		e.format = v[0]
	}
	release, p := s.exportSlot(team)
	if p != nil {
		return 0, nil, p
	}
	e.release = release
	return http.StatusOK, e, nil
}

// ExportColumns are the columns of a CSV export, in order: the entry,
// then its evidence's fields (empty for an entry made by hand), then the
// domain an erased entry keeps when its team's policy keeps it.
var ExportColumns = []string{"id", "email", "origin", "source_id", "created_at", "note", "expires_at",
	"evidence_provider", "evidence_kind", "evidence_event_id", "evidence_message_id", "evidence_status",
	"evidence_diagnostic", "evidence_reporting_mta", "evidence_reported_at", "erased_domain"}

type exportStream struct {
	s      *Server
	team   string
	format string
	// sel is what the export narrows the list by (origin, q, created).
	sel store.ListQuery
	// release gives back the export's slot.
	release func()
}

func (e exportStream) stream(w http.ResponseWriter, r *http.Request) {
	defer e.release()
	e.s.metrics.exportsRunning.Inc()
	defer e.s.metrics.exportsRunning.Dec()
	// Every write has its own deadline: a client that stops reading is cut
	// off once it has taken nothing for the stall timeout, and its slot
	// and the store's connection are freed.
	sw := &stallWriter{w: w, rc: http.NewResponseController(w), stall: e.s.opts.ExportStallTimeout,
		end: time.Now().Add(e.s.opts.ExportTimeout), meter: meterOf(r.Context())}
	h := w.Header()
	h.Set("X-Content-Type-Options", "nosniff")
	if e.format == "ndjson" {
		h.Set("Content-Type", "application/x-ndjson")
	} else {
		h.Set("Content-Type", "text/csv; charset=utf-8")
	}
	w.WriteHeader(http.StatusOK)
	bw := bufio.NewWriterSize(sw, 64<<10)
	if e.format == "csv" {
		_ = csv.NewWriter(bw).WriteAll([][]string{ExportColumns})
	}
	// row is one record's bytes, reused: a row costs the store's read and
	// its encoding, nothing more.
	var row []byte
	n := 0
	err := e.s.store.Export(r.Context(), e.team, e.sel, func(x store.Entry) error {
		if e.format == "ndjson" {
			b, err := json.Marshal(x.Wire(""))
			if err != nil {
				return err
			}
			row = append(append(row[:0], safe.JSON(b)...), '\n')
		} else {
			row = appendCSV(row[:0], x)
		}
		if _, err := bw.Write(row); err != nil {
			return err
		}
		if n++; n%10000 == 0 {
			if err := bw.Flush(); err != nil {
				return err
			}
			if err := sw.Flush(); err != nil {
				return err
			}
		}
		return nil
	})
	if err == nil {
		err = bw.Flush()
	}
	if sw.cut {
		e.s.metrics.exportsCut.Inc()
	}
	if err != nil {
		// The status is sent: end the stream so the client sees it cut
		// short, rather than a list that looks whole.
		e.s.log.Error("export cut short", "team", e.team, "entries", n, "err", err)
		panic(http.ErrAbortHandler)
	}
}
