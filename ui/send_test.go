package ui

import (
	"context"
	"fmt"
	"testing"

	"github.com/shushlist/shush/batch"
)

// The Runner's events never wait for the UI: a run of many batches ends
// while nobody reads its progress, the progress read afterwards is the
// latest (every batch counted), and the end of the run is never lost.
func TestFeedNeverBlocksTheRunner(t *testing.T) {
	svc := service(t, nil)
	plan := batch.Plan{Mode: batch.Add}
	for i := range 1050 {
		plan.Values = append(plan.Values, fmt.Sprintf("feed%d@example.com", i))
	}
	outcomes := make([]batch.Outcome, len(plan.Values))
	for i := range outcomes {
		outcomes[i] = batch.Unsent
	}
	f := newFeed(7, progressState{counts: map[batch.Outcome]int{batch.Unsent: len(outcomes)}}, outcomes)
	runner := &batch.Runner{Client: svc, OnEvent: f.event}
	rep, err := runner.Run(context.Background(), plan)
	if err != nil || !rep.Complete() {
		t.Fatalf("run: %v, complete %v", err, rep.Complete())
	}

	p, ok := f.listen().(progressMsg)
	if !ok {
		t.Fatal("the first read after the run is not its progress")
	}
	if p.seq != 7 || p.state.done != 1050 || p.state.batch != 11 || p.state.batches != 11 ||
		p.state.counts[batch.Added] != 1050 || p.state.counts[batch.Unsent] != 0 {
		t.Fatalf("progress after the run: %+v", p.state)
	}

	f.finish(sentMsg{seq: 7, run: runOf(batch.RunInfo{}, rep.Results)})
	end, ok := f.listen().(sentMsg)
	if !ok || len(end.run.Results) != 1050 {
		t.Fatalf("the end of the run was lost: %#v", end)
	}
}
