package cli

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

func TestRunErasureRotateThenShow(t *testing.T) {
	ctx := context.Background()
	ta := newTestApp(t, nil)
	db := filepath.Join(t.TempDir(), "shush.db")
	o := &erasureOptions{app: ta.app, Team: "support", DB: db}

	wantErr(t, runErasureShow(ctx, &erasureOptions{app: ta.app, DB: db}), ExitUsage, "shush team erasure-secret show needs --team T")
	wantErr(t, runErasureRotate(ctx, &erasureOptions{app: ta.app, Team: "two words", DB: db}), ExitUsage, "shush team erasure-secret rotate needs --team T")

	if err := runErasureRotate(ctx, o); err != nil {
		t.Fatal(err)
	}
	var rotated struct {
		Team    string
		Version int
	}
	ta.decode(t, &rotated)
	if rotated.Team != "support" || rotated.Version < 1 {
		t.Fatalf("rotate: %+v", rotated)
	}

	ta.human().reset()
	if err := runErasureShow(ctx, o); err != nil {
		t.Fatal(err)
	}
	lines := ta.lines()
	if len(lines) != rotated.Version || !strings.HasPrefix(lines[len(lines)-1], fmt.Sprintf("v%d  made ", rotated.Version)) ||
		!strings.HasSuffix(lines[len(lines)-1], "0 erased entries") {
		t.Errorf("show after rotating to v%d:\n%s", rotated.Version, ta.out.String())
	}
}
