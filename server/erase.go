package server

import (
	"net/http"
	"time"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/server/store"
)

// erase answers POST /suppressions/erase (docs/erasure.md): each address
// (1 to api.MaxBatch, as a batch) is kept from now on only as its keyed
// hash, on the list and in every row of the team that named it, in one
// change, and stays blocked. Read-write keys and agents only.
func (s *Server) erase(r *http.Request, w http.ResponseWriter, team string) (int, any, error) {
	f, err := readObject(w, r, "emails")
	if err != nil {
		return 0, nil, err
	}
	raw, ok := f["emails"]
	if !ok {
		return 0, nil, missing("Missing `emails` field; send {\"emails\": [...]} with 1 to %d addresses to erase.", api.MaxBatch)
	}
	emails, err := stringList(raw, "emails", "a valid email address", api.NormalizeEmail)
	if err != nil {
		return 0, nil, err
	}
	er, ok := s.store.(store.Eraser)
	if !ok {
		return 0, nil, newProblem(http.StatusNotImplemented, api.ErrApplication, "This service's database cannot erase addresses.")
	}
	s.metrics.batchItems.WithLabelValues("erase").Observe(float64(len(emails)))
	start := time.Now()
	got, err := er.Erase(r.Context(), team, authorOf(r), emails)
	if err == nil {
		s.metrics.storeWrite.WithLabelValues("erase").Observe(time.Since(start).Seconds())
	}
	if err != nil {
		return 0, nil, err
	}
	out := api.EraseResponse{Object: api.ObjectList, Data: make([]api.ErasedItem, len(got))}
	for i, e := range got {
		out.Data[i] = api.ErasedItem{Object: api.ObjectSuppression, ID: e.Entry.ID, Email: e.Email, Erased: e.Marker,
			Listed: e.Listed, Already: e.Already}
	}
	return http.StatusOK, out, nil
}
