// Command resend-go drives a shush service with the hosted service's
// official Go SDK (github.com/resend/resend-go/v3), to show that shush
// speaks its wire: every suppression call and every webhooks call of the
// SDK, and a real delivery to a receiver of its own checked with the SDK's
// Verify, against the base URL and key in RESEND_BASE_URL and
// RESEND_API_KEY. It exits 1 with the first mismatch.
package main

import (
	"fmt"
	"os"
	"slices"

	"github.com/resend/resend-go/v3"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "resend-go interop:", err)
		os.Exit(1)
	}
	if err := webhooks(); err != nil {
		fmt.Fprintln(os.Stderr, "resend-go interop: webhooks:", err)
		os.Exit(1)
	}
	fmt.Println("resend-go interop: every suppression and webhooks call answered as the SDK expects, and its Verify accepted the delivery")
}

func run() error {
	c := resend.NewClient(os.Getenv("RESEND_API_KEY"))
	s := c.Suppressions
	oneID, aID, err := addAndGet(s)
	if err != nil {
		return err
	}
	if err := listPages(s); err != nil {
		return err
	}
	return removeAll(s, oneID, aID)
}

// addAndGet adds one address and a batch of three (one of them again),
// and reads an entry back by address and by ID. It returns the IDs of the
// single address and of a@example.com.
func addAndGet(s *resend.SuppressionsSvcImpl) (oneID, aID string, err error) {
	one, err := s.Add(&resend.AddSuppressionRequest{Email: "Single@Example.com"})
	if err != nil || one.Id == "" || one.Object != "suppression" {
		return "", "", fmt.Errorf("add: %+v %v", one, err)
	}
	batch, err := s.Batch.Add(&resend.BatchAddSuppressionsRequest{Emails: []string{"a@example.com", "b@example.com", "single@example.com"}})
	if err != nil || len(batch.Data) != 3 {
		return "", "", fmt.Errorf("batch add: %+v %v", batch, err)
	}
	ids := []string{batch.Data[0].Id, batch.Data[1].Id, batch.Data[2].Id}
	if !slices.Contains(ids, one.Id) {
		return "", "", fmt.Errorf("batch add gave %v; the listed address keeps its ID %s", ids, one.Id)
	}
	got, err := s.Get("a@example.com")
	if err != nil || got.Email != "a@example.com" || got.Origin != "manual" || got.CreatedAt == "" || !slices.Contains(ids, got.Id) {
		return "", "", fmt.Errorf("get by address: %+v %v", got, err)
	}
	byID, err := s.Get(got.Id)
	if err != nil || byID.Email != "a@example.com" {
		return "", "", fmt.Errorf("get by ID: %+v %v", byID, err)
	}
	return one.Id, got.Id, nil
}

// listPages lists the three entries two at a time, and by origin.
func listPages(s *resend.SuppressionsSvcImpl) error {
	limit := 2
	page, err := s.List(&resend.ListSuppressionsOptions{Limit: &limit})
	if err != nil || page.Object != "list" || len(page.Data) != 2 || !page.HasMore {
		return fmt.Errorf("list: %+v %v", page, err)
	}
	after := page.Data[1].Id
	rest, err := s.List(&resend.ListSuppressionsOptions{Limit: &limit, After: &after})
	if err != nil || len(rest.Data) != 1 || rest.HasMore {
		return fmt.Errorf("list after %s: %+v %v", after, rest, err)
	}
	manual, err := s.List(&resend.ListSuppressionsOptions{Origin: "manual"})
	if err != nil || len(manual.Data) != 3 {
		return fmt.Errorf("list by origin: %+v %v", manual, err)
	}
	return nil
}

// removeAll removes the entries: by address in a batch (with one not
// listed), by ID in a batch, and one by one.
func removeAll(s *resend.SuppressionsSvcImpl, oneID, aID string) error {
	gone, err := s.Batch.Remove(&resend.BatchRemoveSuppressionsRequest{Emails: []string{"a@example.com", "never@example.com"}})
	if err != nil || len(gone.Data) != 1 || !gone.Data[0].Deleted || gone.Data[0].Id != aID {
		return fmt.Errorf("batch remove by address: %+v %v", gone, err)
	}
	gone, err = s.Batch.Remove(&resend.BatchRemoveSuppressionsRequest{Ids: []string{oneID}})
	if err != nil || len(gone.Data) != 1 || !gone.Data[0].Deleted {
		return fmt.Errorf("batch remove by ID: %+v %v", gone, err)
	}
	rm, err := s.Remove("b@example.com")
	if err != nil || !rm.Deleted || rm.Object != "suppression" {
		return fmt.Errorf("remove: %+v %v", rm, err)
	}
	if _, err := s.Get("b@example.com"); err == nil {
		return fmt.Errorf("get after remove: still listed")
	}
	return nil
}
