package server

import (
	"context"
	"net/http"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/server/store"
)

// This file holds how an address is found listed beyond its own entry:
// by a domain entry ("@d", "*.d") that covers it. Every path that answers
// whether an address is listed (check, bulk check, batch add's answer,
// one-click) goes through listings, so that they agree.

// listing is how one address is listed: by its own entry (By "") or by
// the domain entry By, whose entry Entry is.
type listing struct {
	Entry store.Entry
	By    string
}

// listings reads how each of these normalized addresses (or entries) is
// listed on the team's list, in one read of the store: its own entry, or
// else the nearest domain entry that covers it, unless the team's rules
// protect the address (a protected address is never listed by a domain
// entry; its own entry, made before it was protected, still counts).
// Addresses listed neither way are left out.
func (s *Server) listings(ctx context.Context, team string, emails []string) (map[string]listing, error) {
	keys := make([]string, 0, len(emails)+4)
	keys = append(keys, emails...)
	seen := make(map[string]bool, 8)
	for _, e := range emails {
		for _, k := range api.DomainKeys(e) {
			if !seen[k] {
				seen[k] = true
				keys = append(keys, k)
			}
		}
	}
	found, err := s.store.Check(ctx, team, keys)
	if err != nil {
		return nil, err
	}
	byKey := make(map[string]store.Entry, len(found))
	domains := 0
	for _, e := range found {
		byKey[e.Email] = e
		if seen[e.Email] {
			domains++
		}
	}
	out := make(map[string]listing, len(found))
	var protected api.Protected
	rulesRead := false
	for _, email := range emails {
		if e, ok := byKey[email]; ok {
			out[email] = listing{Entry: e}
			continue
		}
		if domains == 0 {
			continue
		}
		for _, k := range api.DomainKeys(email) {
			e, ok := byKey[k]
			if !ok {
				continue
			}
			if !rulesRead {
				t, err := s.store.TeamSettings(ctx, team)
				if err != nil {
					return nil, err
				}
				protected, rulesRead = api.NewProtected(t.Protected), true
			}
			if _, ok := protected.Match(email); !ok {
				out[email] = listing{Entry: e, By: k}
			}
			break
		}
	}
	return out, nil
}

// domainListed adds to an add's answer the domain entries that list its
// addresses too (api.Suppression.ListedBy); the addresses have their own
// entries all the same.
func (s *Server) domainListed(ctx context.Context, team string, entries []store.Entry, out api.BatchResponse) error {
	keys := make([]string, 0, 4)
	seen := make(map[string]bool, 4)
	for _, e := range entries {
		for _, k := range api.DomainKeys(e.Email) {
			if !seen[k] {
				seen[k] = true
				keys = append(keys, k)
			}
		}
	}
	if len(keys) == 0 {
		return nil
	}
	found, err := s.store.Check(ctx, team, keys)
	if err != nil || len(found) == 0 {
		return err
	}
	listed := make(map[string]bool, len(found))
	for _, e := range found {
		listed[e.Email] = true
	}
	for i, e := range entries {
		for _, k := range api.DomainKeys(e.Email) {
			if listed[k] {
				out.Data[i].ListedBy = k
				break
			}
		}
	}
	return nil
}

// domainPrefixes are where the domain entries lie in the address index:
// "@d" and "*.d" (no address starts with @; one that starts with *. has
// an @ and is left out).
var domainPrefixes = []string{"@", "*."}

// domainEntries answers GET /suppressions/domains: the team's domain
// entries (at most api.MaxBatch of each kind, newest first), for a screen
// of the blocks an incident put up. has_more says some were left out.
func (s *Server) domainEntries(r *http.Request, w http.ResponseWriter, team string) (int, any, error) {
	out := api.ListResponse{Object: api.ObjectList, Data: []api.Entry{}}
	for _, p := range domainPrefixes {
		pg, err := s.store.Page(r.Context(), team, store.ListQuery{Limit: api.MaxBatch, Search: api.Search{Kind: api.SearchPrefix, Value: p}})
		if err != nil {
			return 0, nil, err
		}
		out.HasMore = out.HasMore || pg.HasMore
		for _, e := range pg.Entries {
			if api.IsDomainEntry(e.Email) {
				out.Data = append(out.Data, e.Wire(""))
			}
		}
	}
	return http.StatusOK, out, nil
}
