package server

import (
	_ "embed"
	"net/http"
	"strconv"
)

// openAPI is the OpenAPI 3.1 document of the service, written by hand:
// one file, one entry under "paths" per path, so that a new endpoint adds
// its own entry. Tests validate the requests and answers of the endpoint
// tests against it.
//
//go:embed openapi.json
var openAPI []byte

// openapi answers GET /openapi.json.
func (s *Server) openapi(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Length", strconv.Itoa(len(openAPI)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(openAPI)
}
