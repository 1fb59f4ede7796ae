package cli

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"
)

func TestRunUINeedsATerminal(t *testing.T) {
	ta := newTestApp(t, nil)
	err := runUI(context.Background(), &uiOptions{app: ta.app})
	wantErr(t, err, ExitUsage, "the terminal UI needs a terminal", "shush suppressions")
	if ta.out.Len() != 0 {
		t.Errorf("the UI drew without a terminal: %q", ta.out.String())
	}
}

func TestRunUIOpensOnTheServiceAndQuits(t *testing.T) {
	svc := newTestService(t)
	ta := newTestApp(t, svc).human().stdin("\x03") // Ctrl-C
	ta.io.StdinTTY = true
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := runUI(ctx, &uiOptions{app: ta.app}); err != nil {
		t.Fatal(err)
	}
	if ctx.Err() != nil {
		t.Fatal("the UI did not quit on Ctrl-C")
	}
	u, _ := url.Parse(svc.URL)
	if !strings.Contains(ta.out.String(), u.Host) {
		t.Errorf("the UI does not name the service it works on (%s):\n%q", u.Host, ta.out.String())
	}
}
