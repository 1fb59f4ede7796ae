package cli

import (
	"context"
	"runtime"
	"strings"
	"testing"
)

func TestRunVersion(t *testing.T) {
	ta := newTestApp(t, nil)
	if err := runVersion(context.Background(), &versionOptions{app: ta.app}); err != nil {
		t.Fatal(err)
	}
	var b buildInfo
	ta.decode(t, &b)
	if b.Version == "" || b.Version != version() || b.Go != runtime.Version() || b.Platform != runtime.GOOS+"/"+runtime.GOARCH {
		t.Errorf("version --json: %+v", b)
	}

	// A person reads the version first, the toolchain and platform last.
	ta.human().reset()
	if err := runVersion(context.Background(), &versionOptions{app: ta.app}); err != nil {
		t.Fatal(err)
	}
	lines := ta.lines()
	if len(lines) < 2 || lines[0] != "shush "+b.Version || lines[len(lines)-1] != runtime.Version()+", "+b.Platform {
		t.Errorf("version:\n%s", ta.out.String())
	}
	if strings.Contains(ta.out.String(), "{") {
		t.Errorf("version on a terminal printed JSON:\n%s", ta.out.String())
	}
}
