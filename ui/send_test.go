package ui

import (
	"context"
	"fmt"
	"testing"

	"github.com/shushlist/shush/batch"
)

// A run's events never wait for the UI: a run of many batches ends
// while nobody reads its progress, the progress read afterwards is the
// latest (every batch counted), and the end of the run is never lost.
func TestFeedNeverBlocksTheRunner(t *testing.T) {
	svc := service(t, nil)
	var items []batch.Item
	for i := range 1050 {
		items = append(items, batch.NewItem(batch.Add, i+1, fmt.Sprintf("feed%d@example.com", i)))
	}
	plan := batch.NewInput(batch.Add, items)
	f := newFeed(7, plan.Len(), nil)
	var segs segments
	ri, err := (&batch.Runs{Client: svc}).Start(context.Background(), plan, batch.RunMeta{}, batch.Observer{Event: f.event,
		Segment: func(rep batch.Report) { _ = segs.add(rep) }})
	if err != nil || ri.State != batch.Finished {
		t.Fatalf("run: %v, %s", err, ri.State)
	}

	p, ok := f.listen().(progressMsg)
	if !ok {
		t.Fatal("the first read after the run is not its progress")
	}
	if p.seq != 7 || p.state.done != 1050 || p.state.batch != 11 || p.state.batches != 11 ||
		p.state.counts[batch.Added] != 1050 || p.state.counts[batch.Unsent] != 0 {
		t.Fatalf("progress after the run: %+v", p.state)
	}

	f.finish(sentMsg{seq: 7, run: runOf(ri, segs)})
	end, ok := f.listen().(sentMsg)
	if !ok || len(end.run.Results) != 1050 {
		t.Fatalf("the end of the run was lost: %#v", end)
	}
}
