// Package config owns where shush keeps its files and which service it
// talks to: profiles in a file in the user's config directory, SHUSH_*
// environment variables and flags, with the precedence
// flags > environment > file > embedded default.
package config

import (
	"os"
	"path/filepath"
	"runtime"
)

// Environment variables shush reads.
const (
	EnvProfile = "SHUSH_PROFILE"
	EnvBaseURL = "SHUSH_BASE_URL"
	EnvAPIKey  = "SHUSH_API_KEY"
	EnvDB      = "SHUSH_DB"
	// EnvConfigDir names the directory of the config file, on every OS.
	EnvConfigDir = "SHUSH_CONFIG_DIR"
	// The hosted service's own variables, read as fallbacks (see Resolve).
	EnvResendAPIKey  = "RESEND_API_KEY"
	EnvResendBaseURL = "RESEND_BASE_URL"
)

// ResendBaseURL is the hosted service's API, used when RESEND_API_KEY is
// the only setting.
const ResendBaseURL = "https://api.resend.com"

const appName = "shush"

// ConfigDir is where the config file lives: $SHUSH_CONFIG_DIR; else
// $XDG_CONFIG_HOME/shush on every OS (macOS and Windows included, for
// people who keep their dotfiles there); else the system's user config
// directory (~/.config, ~/Library/Application Support, %AppData%).
func ConfigDir() (string, error) {
	if d := os.Getenv(EnvConfigDir); d != "" {
		return filepath.Abs(d)
	}
	if d := os.Getenv("XDG_CONFIG_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, appName), nil
	}
	base, err := os.UserConfigDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(base, appName), nil
}

// DataDir is where the embedded default keeps its database:
// $XDG_DATA_HOME/shush, else ~/.local/share/shush (on macOS
// ~/Library/Application Support/shush, on Windows %LocalAppData%\shush).
func DataDir() (string, error) {
	return userDir("XDG_DATA_HOME", filepath.Join(".local", "share"))
}

// StateDir is where run journals and the UI's history are kept:
// $XDG_STATE_HOME/shush, else ~/.local/state/shush (the same as DataDir on
// macOS and Windows).
func StateDir() (string, error) {
	return userDir("XDG_STATE_HOME", filepath.Join(".local", "state"))
}

func userDir(env, unixDefault string) (string, error) {
	if d := os.Getenv(env); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, appName), nil
	}
	switch runtime.GOOS {
	case "darwin", "windows", "ios":
		base, err := os.UserCacheDir()
		if runtime.GOOS == "darwin" || runtime.GOOS == "ios" {
			var home string
			home, err = os.UserHomeDir()
			base = filepath.Join(home, "Library", "Application Support")
		} else if d := os.Getenv("LocalAppData"); d != "" {
			base = d
		}
		if err != nil {
			return "", err
		}
		return filepath.Join(base, appName), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(home, unixDefault, appName), nil
}

// DefaultDB is the database the service and the embedded default open when
// none is given: $SHUSH_DB, else shush.db in DataDir.
func DefaultDB() (string, error) {
	if db := os.Getenv(EnvDB); db != "" {
		return db, nil
	}
	dir, err := DataDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "shush.db"), nil
}
