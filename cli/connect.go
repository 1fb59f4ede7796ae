package cli

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/shushlist/shush/api/client"
	"github.com/shushlist/shush/config"
	"github.com/shushlist/shush/internal/redact"
)

// connection is a client on the effective settings' target, with what a
// face of shush shows about it. The terminal UI uses it as the CLI does.
type connection struct {
	Client   *client.Client
	Settings config.Settings
	// Target names what the client talks to: the base URL, or "the local
	// list (PATH)".
	Target string
	// Profile is the profile's name; MaskedKey the key as it may be shown,
	// KeyPrint its fingerprint (config.KeyPrint).
	Profile   string
	MaskedKey string
	KeyPrint  string
	// JournalDir is where batch runs keep their journals (and so where an
	// interrupted run is found to resume it).
	JournalDir string
	// Close releases what the connection holds (the local database).
	Close func() error
}

// connect resolves the settings and builds the client: over the network to
// the base URL, or to the service in process on the local database when no
// base URL is set (the embedded default). opts are added to the client's.
func (a *app) connect(ctx context.Context, opts ...client.Option) (*connection, error) {
	s, err := a.settings()
	if err != nil {
		return nil, err
	}
	return a.connectWith(ctx, s, opts...)
}

// connectWith is connect on settings s: another profile's (sync).
func (a *app) connectWith(ctx context.Context, s config.Settings, opts ...client.Option) (*connection, error) {
	journals, err := journalDirOf()
	if err != nil {
		return nil, err
	}
	c := &connection{
		Settings:   s,
		Target:     s.Target(),
		Profile:    s.Profile.Value,
		JournalDir: journals,
		Close:      func() error { return nil },
	}
	opts = append([]client.Option{client.WithUserAgent(version())}, opts...)
	if a.trace != nil {
		opts = append(opts, client.WithTrace(a.trace))
	}
	if s.Local() {
		svc, key, closeFn, err := openLocal(ctx, s, opts...)
		if err != nil {
			return nil, err
		}
		c.Client, c.MaskedKey, c.KeyPrint, c.Close = svc, config.MaskKey(key), config.KeyPrint(key), closeFn
		return c, nil
	}
	if n := fallbackNotice(s); n != "" {
		fmt.Fprintln(a.io.ErrOut, "shush: "+n)
	}
	if s.APIKey.Value == "" {
		return nil, usagef("no API key for %s: pass --api-key, set %s, or add api_key to the profile %q (shush config set-profile)", redact.URL(s.BaseURL.Value), config.EnvAPIKey, s.Profile.Value)
	}
	if w := client.PlainHTTPWarning(s.BaseURL.Value); w != "" {
		fmt.Fprintln(a.io.ErrOut, "shush: "+w)
	}
	c.Client = client.New(s.BaseURL.Value, s.APIKey.Value, opts...)
	c.MaskedKey, c.KeyPrint = config.MaskKey(s.APIKey.Value), config.KeyPrint(s.APIKey.Value)
	return c, nil
}

// fallbackNotice says which service shush works on and why, when that is
// the hosted service's variables' doing rather than shush's own settings
// (RESEND_API_KEY exported, nothing configured): a person who expected
// the local list must hear it at once.
func fallbackNotice(s config.Settings) string {
	if s.APIKey.Source != config.EnvResendAPIKey {
		return ""
	}
	return fmt.Sprintf("working on %s, not the local list: %s is set and no service is configured for shush (unset it, or set %s or a profile)",
		redact.URL(s.BaseURL.Value), config.EnvResendAPIKey, config.EnvBaseURL)
}

// journalDirOf is where the runs are recorded: journal in the user state
// directory.
func journalDirOf() (string, error) {
	state, err := config.StateDir()
	if err != nil {
		return "", usagef("cannot find the user state directory: %v", err)
	}
	return filepath.Join(state, "journal"), nil
}
