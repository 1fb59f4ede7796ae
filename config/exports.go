package config

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"time"
)

// EnvExportDir names the directory exports go to, before any default.
const EnvExportDir = "SHUSH_EXPORT_DIR"

// ExportDir is where an export goes when the user names no directory:
// $SHUSH_EXPORT_DIR; else the user's downloads directory (on Linux and the
// BSDs XDG_DOWNLOAD_DIR from ~/.config/user-dirs.dirs, elsewhere
// ~/Downloads) when it exists; else ~/Documents when it exists; else the
// home directory. It is an absolute path, so the UI can show it whole.
func ExportDir() string {
	if d := os.Getenv(EnvExportDir); d != "" {
		if abs, err := filepath.Abs(d); err == nil {
			return abs
		}
	}
	home, err := os.UserHomeDir()
	if err != nil {
		if wd, err := os.Getwd(); err == nil {
			return wd
		}
		return "."
	}
	var candidates []string
	if runtime.GOOS != "darwin" && runtime.GOOS != "windows" {
		if d := xdgUserDir(home, "XDG_DOWNLOAD_DIR"); d != "" {
			candidates = append(candidates, d)
		}
		if d := xdgUserDir(home, "XDG_DOCUMENTS_DIR"); d != "" {
			candidates = append(candidates, d)
		}
	}
	candidates = append(candidates, filepath.Join(home, "Downloads"), filepath.Join(home, "Documents"))
	for _, d := range candidates {
		if st, err := os.Stat(d); err == nil && st.IsDir() && d != home {
			return d
		}
	}
	return home
}

// xdgUserDir reads one directory of the freedesktop user-dirs file
// (XDG_DOWNLOAD_DIR="$HOME/Downloads").
func xdgUserDir(home, key string) string {
	cfg := os.Getenv("XDG_CONFIG_HOME")
	if cfg == "" || !filepath.IsAbs(cfg) {
		cfg = filepath.Join(home, ".config")
	}
	f, err := os.Open(filepath.Join(cfg, "user-dirs.dirs"))
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(strings.TrimSpace(sc.Text()), "=")
		if !ok || k != key {
			continue
		}
		v = strings.Trim(v, `"`)
		v = strings.Replace(v, "$HOME", home, 1)
		if filepath.IsAbs(v) {
			return filepath.Clean(v)
		}
	}
	return ""
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// ExportName is the file name of an export that an agent can attach to a
// ticket: shush-<ticket>-<mode>-<time>.<ext>, e.g.
// shush-TICKET-4711-add-20261123-1504.csv. The ticket is reduced to
// letters, digits, '.', '_' and '-' (a ticket reference is outside text and
// must not make a path); without one the name has no ticket part.
func ExportName(ticket, mode string, at time.Time, ext string) string {
	parts := []string{"shush"}
	if t := strings.Trim(unsafeName.ReplaceAllString(ticket, "-"), "-."); t != "" {
		if len(t) > 60 {
			t = t[:60]
		}
		parts = append(parts, t)
	}
	if m := strings.Trim(unsafeName.ReplaceAllString(mode, "-"), "-."); m != "" {
		parts = append(parts, m)
	}
	parts = append(parts, at.Format("20060102-1504"))
	return strings.Join(parts, "-") + "." + strings.TrimPrefix(ext, ".")
}
