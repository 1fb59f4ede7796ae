package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/shushlist/shush/config"
	"github.com/shushlist/shush/internal/redact"
)

// settings loads the config file and applies the precedence of flags >
// environment > file > embedded default. Every error here is the user's to
// fix (a bad flag, variable or file), so it exits with status 2.
//
// They are resolved once per command and kept: every part of the command
// works with the same settings.
func (a *app) settings() (config.Settings, error) {
	if a.resolved == nil {
		s, err := a.resolveSettings()
		a.resolved = &resolved{s, err}
	}
	return a.resolved.settings, a.resolved.err
}

// resolved is what settings found.
type resolved struct {
	settings config.Settings
	err      error
}

// loadConfigFile reads the config file; one that cannot be found or read
// is a usage error.
func loadConfigFile() (*config.File, error) {
	path, err := config.Path()
	if err != nil {
		return nil, usageErr{err}
	}
	f, err := config.Load(path)
	if err != nil {
		return nil, usageErr{err}
	}
	return f, nil
}

func (a *app) resolveSettings() (config.Settings, error) {
	f, err := loadConfigFile()
	if err != nil {
		return config.Settings{}, err
	}
	key, err := a.flagKey()
	if err != nil {
		return config.Settings{}, err
	}
	flags := config.Flags{Profile: a.globals.profile, BaseURL: a.globals.baseURL, APIKey: key}
	s, err := config.Resolve(f, flags, os.Getenv)
	if err != nil {
		return s, usageErr{err}
	}
	return s, nil
}

// flagKey is the key given on the command line: --api-key, or read from
// --api-key-file or --api-key-stdin (one of them at most). The file must be
// readable by its owner only, like the config file that holds a key.
func (a *app) flagKey() (string, error) {
	g := a.globals
	n := 0
	for _, given := range []bool{g.apiKey != "", g.apiKeyFile != "", g.apiKeyStdin} {
		if given {
			n++
		}
	}
	if n > 1 {
		return "", usagef("give the API key one way: --api-key, --api-key-file or --api-key-stdin")
	}
	var text string
	switch {
	case g.apiKeyFile != "":
		if err := config.CheckPrivate(g.apiKeyFile); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return "", usagef("--api-key-file: %s does not exist", g.apiKeyFile)
			}
			return "", usageErr{fmt.Errorf("--api-key-file: %w", err)}
		}
		b, err := os.ReadFile(g.apiKeyFile)
		if err != nil {
			return "", usagef("--api-key-file: cannot read %s: %v", g.apiKeyFile, errors.Unwrap(err))
		}
		text = string(b)
	case g.apiKeyStdin:
		if a.io.In == nil || a.io.StdinTTY {
			return "", usagef("--api-key-stdin reads the key from stdin, but nothing is piped to it")
		}
		// Byte by byte: the rest of stdin may be the input (--file -).
		var line []byte
		one := make([]byte, 1)
		for len(line) < 4096 {
			n, err := a.io.In.Read(one)
			if n == 1 {
				if one[0] == '\n' {
					break
				}
				line = append(line, one[0])
			}
			if err == io.EOF {
				break
			}
			if err != nil {
				return "", usagef("--api-key-stdin: cannot read stdin: %v", err)
			}
		}
		text = string(line)
	default:
		return g.apiKey, nil
	}
	key := strings.TrimSpace(text)
	if key == "" || strings.ContainsAny(key, " \t\r\n") {
		return "", usagef("the API key read from %s is empty or holds white space", map[bool]string{true: "stdin", false: g.apiKeyFile}[g.apiKeyStdin])
	}
	// Read once: later look-ups of the settings find it as if given.
	a.globals.apiKey, a.globals.apiKeyFile, a.globals.apiKeyStdin = key, "", false
	return key, nil
}

// localKeyPath is where the embedded default keeps the text of its key.
func localKeyPath() (string, error) {
	dir, err := config.DataDir()
	if err != nil {
		return "", fmt.Errorf("cannot find the user data directory: %w", err)
	}
	return filepath.Join(dir, "local.key"), nil
}

// configView is what "shush config --json" prints. The key is masked.
type configView struct {
	Profile    config.Setting  `json:"profile"`
	BaseURL    config.Setting  `json:"base_url"`
	APIKey     config.Setting  `json:"api_key"`
	DB         *config.Setting `json:"db,omitempty"`
	Target     string          `json:"target"`
	File       string          `json:"config_file"`
	FileFound  bool            `json:"config_file_found"`
	JournalDir string          `json:"journal_dir"`
}

func (a *app) configCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "config",
		Short: "Show the effective settings and where each came from",
		Long: `Show the effective settings (profile, base URL, API key masked, database) and
where each came from. Precedence: flags > environment (SHUSH_PROFILE,
SHUSH_BASE_URL, SHUSH_API_KEY, SHUSH_DB) > config file > embedded default.

With no base URL anywhere, shush works on the embedded default: the service
in process on a SQLite file in the user data directory, with a local key made
on first use.

The config file is config.toml in the user config directory:

  profile = "work"            # used when neither --profile nor SHUSH_PROFILE is set

  [profiles.work]
  base_url = "https://suppressions.example.com"
  api_key  = "shush_…"

It must not be readable by other users when it holds a key (chmod 600).`,
		Example: `  shush config
  shush --profile work config --json
  shush config set-profile work --base-url https://suppressions.example.com --api-key-stdin --use`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return a.showConfig() },
	}
	cmd.AddCommand(a.setProfileCommand())
	return cmd
}

func (a *app) showConfig() error {
	s, err := a.settings()
	if err != nil {
		return err
	}
	// Nothing of a credential is shown: the key masked, and a base URL's
	// user information (a password or token) too.
	v := configView{
		Profile: s.Profile,
		BaseURL: config.Setting{Value: redact.URL(s.BaseURL.Value), Source: s.BaseURL.Source},
		APIKey:  config.Setting{Value: config.MaskKey(s.APIKey.Value), Source: s.APIKey.Source},
		Target:  s.Target(),
		File:    s.File,
	}
	if _, err := os.Stat(s.File); err == nil {
		v.FileFound = true
	}
	if dir, err := config.StateDir(); err == nil {
		v.JournalDir = filepath.Join(dir, "journal")
	}
	if s.Local() {
		db := s.DB
		db.Value = redact.DSN(db.Value)
		v.DB = &db
		keyPath, err := localKeyPath()
		if err != nil {
			return err
		}
		v.APIKey.Source = "local key in " + keyPath
		if key, err := os.ReadFile(keyPath); err == nil {
			v.APIKey.Value = config.MaskKey(strings.TrimSpace(string(key)))
		} else if errors.Is(err, fs.ErrNotExist) {
			v.APIKey.Source = "made on first use in " + keyPath
		}
	}
	if a.output().json {
		return writeJSON(a.io.Out, v)
	}
	return a.printConfig(v)
}

// printConfig shows the settings as a table for a person.
func (a *app) printConfig(v configView) error {
	t := newTable(a.io.Out)
	t.row("SETTING", "VALUE", "FROM")
	t.row("profile", v.Profile.Value, v.Profile.Source)
	baseURL := v.BaseURL.Value
	if baseURL == "" {
		baseURL = "(none: the local list)"
	}
	t.row("base URL", baseURL, v.BaseURL.Source)
	key := v.APIKey.Value
	if key == "" {
		key = "(none)"
	}
	t.row("API key", key, v.APIKey.Source)
	if v.DB != nil {
		t.row("database", v.DB.Value, v.DB.Source)
	}
	found := "(not found)"
	if v.FileFound {
		found = "(found)"
	}
	t.row("config file", v.File, found)
	t.row("journals", v.JournalDir, "")
	return t.flush()
}

// setProfileOptions are those of config set-profile; the base URL and
// the key come from the global flags.
type setProfileOptions struct {
	*app
	Name                    string
	Use, KeyStdin, Keychain bool
}

// key is the key given: --api-key, or the first line of stdin.
func (o *setProfileOptions) key() (string, error) {
	key := o.globals.apiKey
	if !o.KeyStdin {
		return key, nil
	}
	if key != "" {
		return "", usagef("give the key with --api-key or --api-key-stdin, not both")
	}
	key, err := o.stdinLine()
	if err != nil {
		return "", usagef("cannot read the key from stdin: %v", err)
	}
	if key == "" {
		return "", usagef("no key on stdin")
	}
	return key, nil
}

// placeKey puts the key given (or, with --keychain, the file's) where
// the flags say: the OS keychain or the file.
func (o *setProfileOptions) placeKey(p *config.Profile, key string) error {
	switch {
	case o.Keychain:
		k := key
		if k == "" {
			k = p.APIKey // the file's key moves to the keychain
		}
		if k == "" && !p.Keychain {
			return usagef("--keychain needs the key: give it with --api-key-stdin")
		}
		if k != "" {
			if err := config.StoreInKeychain(o.Name, k); err != nil {
				return err
			}
		}
		p.APIKey, p.Keychain = "", true
	case key != "":
		if p.Keychain {
			if err := config.ForgetInKeychain(o.Name); err != nil {
				fmt.Fprintf(o.io.ErrOut, "shush: %v\n", err)
			}
		}
		p.APIKey, p.Keychain = key, false
	}
	return nil
}

// runSetProfile creates or changes a profile of the config file.
func runSetProfile(o *setProfileOptions) error {
	name := o.Name
	if err := config.CheckProfileName(name); err != nil {
		return usageErr{err}
	}
	key, err := o.key()
	if err != nil {
		return err
	}
	baseURL := o.globals.baseURL
	if baseURL != "" {
		if baseURL, err = config.CheckBaseURL(baseURL); err != nil {
			return usageErr{err}
		}
	}
	f, err := loadConfigFile()
	if err != nil {
		return err
	}
	if f.Profiles == nil {
		f.Profiles = map[string]config.Profile{}
	}
	p, existed := f.Profiles[name]
	if !existed && baseURL == "" {
		return usagef("a new profile needs --base-url")
	}
	if baseURL != "" {
		p.BaseURL = baseURL
	}
	if err := o.placeKey(&p, key); err != nil {
		return err
	}
	f.Profiles[name] = p
	if o.Use {
		f.Profile = name
	}
	if err := f.Save(); err != nil {
		return err
	}
	verb := "changed"
	if !existed {
		verb = "created"
	}
	where := ""
	if p.Keychain {
		where = fmt.Sprintf("; its key is in the OS keychain (service %q, account %q)", config.KeychainService, name)
	}
	fmt.Fprintf(o.io.ErrOut, "Profile %q %s in %s%s.\n", name, verb, f.Path, where)
	return nil
}

func (a *app) setProfileCommand() *cobra.Command {
	o := &setProfileOptions{app: a}
	cmd := &cobra.Command{
		Use:   "set-profile NAME",
		Short: "Create or change a profile in the config file",
		Long: `Create or change a profile in the config file, with the global --base-url and
--api-key flags (only the ones given are changed). --api-key-stdin reads the
key from the first line of stdin instead, so that it stays out of the shell
history. --use makes the profile the one used when none is named.

The file is written with mode 0600 in a directory with mode 0700. Comments in
the file are not kept; to delete a profile, edit the file.

--keychain keeps the key in the OS keychain (macOS Keychain, the Secret
Service of GNOME or KDE, Windows Credential Manager) under the service
"shush" and the profile's name, and none in the file; the key given, or the
one the file held, moves there. Giving a key again without --keychain puts
it back in the file. Where no keychain runs (servers, containers, CI) the
file is the way: --keychain then fails and changes nothing.`,
		Example: `  echo "$KEY" | shush config set-profile work --base-url https://suppressions.example.com --api-key-stdin --use
  shush config set-profile staging --base-url http://127.0.0.1:8080 --api-key shush_…
  echo "$KEY" | shush config set-profile work --api-key-stdin --keychain`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Name = args[0]
			return runSetProfile(o)
		},
	}
	cmd.Flags().BoolVar(&o.Use, "use", false, "use this profile when none is named")
	cmd.Flags().BoolVar(&o.KeyStdin, "api-key-stdin", false, "read the API key from stdin")
	cmd.Flags().BoolVar(&o.Keychain, "keychain", false, "keep the key in the OS keychain, not in the file")
	return cmd
}
