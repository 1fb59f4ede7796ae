package batch

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/api/client"
)

// batchRequestID is the X-Request-Id of batch n (1-based, across the
// whole run) of the run key names: the same on every try and on a
// resume, different for every other run and batch, in the characters the
// service keeps.
func batchRequestID(key string, n int) string {
	sum := sha256.Sum256(fmt.Appendf(nil, "%s/%d", key, n))
	return "shush-" + hex.EncodeToString(sum[:12])
}

// tries notes, through the client's waits, whether a request was tried
// again after a try that failed without an answer or with a 5xx: the
// service may have applied that try.
func tries(ctx context.Context) (context.Context, *atomic.Bool) {
	var again atomic.Bool
	return client.WithWaits(ctx, func(w client.WaitInfo) {
		if w.Attempt >= 2 && w.Err != nil {
			again.Store(true)
		}
	}), &again
}

// ownChanges finds, among the addresses a batch answer calls already
// listed, those this batch listed itself on an earlier try whose answer
// was lost (the service crashed after its commit, or the run did): the
// trail's added entry of each carries the batch's request ID. They are
// Added, so that the run's undo takes them off again. Called only when an
// earlier try may have been applied: one look-up per address found listed.
func (r *runner) ownChanges(ctx context.Context, res []Result, requestID string) {
	for k := range res {
		if res[k].Outcome != AlreadyListed || res[k].ID == "" {
			continue
		}
		trail, err := r.client.SuppressionAudit(ctx, res[k].ID, client.AuditParams{Limit: 1, Type: api.AuditAdded})
		if err != nil {
			if client.IsUnsupported(err) || errors.Is(err, context.Canceled) {
				return
			}
			continue
		}
		if len(trail.Data) == 1 && trail.Data[0].RequestID == requestID && trail.Data[0].Suppression.ID == res[k].ID {
			res[k].Outcome = Added
			res[k].Message = "listed by an earlier try of this batch whose answer was lost"
		}
	}
}
