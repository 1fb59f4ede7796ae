package cli

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
)

// Version is the version shush reports, when a release build sets it with
// -ldflags "-X github.com/shushlist/shush/cli.Version=v1.2.3". Left empty,
// the version comes from the build itself (see version).
var Version = ""

// buildInfo is what the binary knows of how it was built.
type buildInfo struct {
	Version  string `json:"version"`
	Revision string `json:"revision,omitempty"`
	Time     string `json:"time,omitempty"`
	Modified bool   `json:"modified,omitempty"`
	Go       string `json:"go"`
	Platform string `json:"platform"`
}

// readBuild reads the version: the one stamped by a release build; else
// the module version `go install …@v1.2.3` records; else the VCS revision
// and time `go build` records in a checkout (with +dirty for uncommitted
// changes); else "dev".
func readBuild() buildInfo {
	b := buildInfo{Version: Version, Go: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	bi, ok := debug.ReadBuildInfo()
	if ok {
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				b.Revision = s.Value
			case "vcs.time":
				b.Time = s.Value
			case "vcs.modified":
				b.Modified = s.Value == "true"
			}
		}
	}
	switch {
	case b.Version != "":
	case ok && bi.Main.Version != "" && bi.Main.Version != "(devel)":
		b.Version = bi.Main.Version
	case b.Revision != "":
		rev := b.Revision
		if len(rev) > 12 {
			rev = rev[:12]
		}
		b.Version = "0.0.0-" + strings.NewReplacer("-", "", ":", "", "T", "", "Z", "").Replace(b.Time)
		if len(b.Version) > len("0.0.0-")+14 {
			b.Version = b.Version[:len("0.0.0-")+14]
		}
		b.Version += "-" + rev
		if b.Modified {
			b.Version += "+dirty"
		}
	default:
		b.Version = "dev"
	}
	return b
}

// version is the version text of --version, `shush version` and the
// User-Agent.
func version() string { return readBuild().Version }

type versionOptions struct{ *app }

// runVersion prints the version and how shush was built.
func runVersion(_ context.Context, o *versionOptions) error {
	b := readBuild()
	return o.printOut(b, func(w io.Writer) error {
		fmt.Fprintf(w, "shush %s\n", b.Version)
		if b.Revision != "" {
			mod := ""
			if b.Modified {
				mod = " (with uncommitted changes)"
			}
			fmt.Fprintf(w, "revision %s%s, %s\n", b.Revision, mod, b.Time)
		}
		fmt.Fprintf(w, "%s, %s\n", b.Go, b.Platform)
		return nil
	})
}

func (a *app) versionCommand() *cobra.Command {
	o := &versionOptions{app: a}
	return command(o, "version", "Print shush's version and how it was built", noArgs, runVersion)
}
