package config

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

func TestExportDir(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("HOME is not the home directory on Windows")
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv(EnvExportDir, "")
	if got := ExportDir(); got != home {
		t.Errorf("no downloads or documents: %s; want the home %s", got, home)
	}
	docs := filepath.Join(home, "Documents")
	os.Mkdir(docs, 0o700)
	if got := ExportDir(); got != docs {
		t.Errorf("only Documents: %s; want %s", got, docs)
	}
	dl := filepath.Join(home, "Downloads")
	os.Mkdir(dl, 0o700)
	if got := ExportDir(); got != dl {
		t.Errorf("Downloads: %s; want %s", got, dl)
	}
	if runtime.GOOS != "darwin" {
		fr := filepath.Join(home, "Téléchargements")
		os.Mkdir(fr, 0o700)
		os.MkdirAll(filepath.Join(home, ".config"), 0o700)
		os.WriteFile(filepath.Join(home, ".config", "user-dirs.dirs"), []byte("# made by xdg-user-dirs-update\nXDG_DOWNLOAD_DIR=\"$HOME/Téléchargements\"\n"), 0o600)
		if got := ExportDir(); got != fr {
			t.Errorf("user-dirs.dirs: %s; want %s", got, fr)
		}
	}
	t.Setenv(EnvExportDir, "rel/dir")
	if got := ExportDir(); !filepath.IsAbs(got) || filepath.Base(got) != "dir" {
		t.Errorf("%s=rel/dir: %s; want it absolute", EnvExportDir, got)
	}
}

func TestExportNameNamesTheTicket(t *testing.T) {
	at := time.Date(2026, 11, 23, 15, 4, 0, 0, time.UTC)
	for _, tc := range []struct{ ticket, mode, want string }{
		{"TICKET-4711", "add", "shush-TICKET-4711-add-20261123-1504.csv"},
		{"", "remove by address", "shush-remove-by-address-20261123-1504.csv"},
		{"../../etc/passwd", "check", "shush-etc-passwd-check-20261123-1504.csv"},
		{"#4711 \x1b]52;c;x\x07", "add", "shush-4711-52-c-x-add-20261123-1504.csv"},
	} {
		if got := ExportName(tc.ticket, tc.mode, at, ".csv"); got != tc.want {
			t.Errorf("ExportName(%q, %q) = %q; want %q", tc.ticket, tc.mode, got, tc.want)
		}
	}
}
