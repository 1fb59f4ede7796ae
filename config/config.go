package config

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/shushlist/shush/internal/atomicfile"
	"github.com/shushlist/shush/internal/redact"
)

// DefaultKeepRunsDays is how many days finished runs are kept unless the
// config file's keep_runs_days says otherwise.
const DefaultKeepRunsDays = 90

// FileName is the name of the config file inside ConfigDir.
const FileName = "config.toml"

// DefaultProfile is the profile used when none is named anywhere.
const DefaultProfile = "default"

// File is the content of the config file:
//
//	profile = "work"          # used when neither --profile nor SHUSH_PROFILE names one
//	own = ["@ourcompany.test", "support@partner.example"]   # never sent in a batch
//	keep_runs_days = 90       # finished runs older than this are pruned
//
//	[profiles.work]
//	base_url = "https://suppressions.example.com"
//	api_key  = "…"
type File struct {
	Profile  string             `toml:"profile,omitempty"`
	Profiles map[string]Profile `toml:"profiles,omitempty"`
	// Own lists our own addresses ("x@y.z") and domains ("@y.z"): they
	// never enter a batch, whatever a ticket says.
	Own []string `toml:"own,omitempty"`
	// KeepRunsDays is how long finished runs (their journals, the
	// history) are kept; 0 means DefaultKeepRunsDays. A run with entries
	// left to send is kept whatever its age.
	KeepRunsDays int `toml:"keep_runs_days,omitempty"`

	// Path is where the file was read from; Found is false when no file
	// was there.
	Path  string `toml:"-"`
	Found bool   `toml:"-"`
}

// Profile is one named target: a service and the key to use on it.
type Profile struct {
	BaseURL string `toml:"base_url,omitempty"`
	APIKey  string `toml:"api_key,omitempty"`
	// Keychain says the key is in the OS keychain (see StoreInKeychain),
	// not in APIKey.
	Keychain bool `toml:"keychain,omitempty"`
}

// Path is the config file's location: config.toml in ConfigDir.
func Path() (string, error) {
	dir, err := ConfigDir()
	if err != nil {
		return "", fmt.Errorf("cannot find the user config directory: %w", err)
	}
	return filepath.Join(dir, FileName), nil
}

// Load reads the config file at path. A missing file is an empty File, not
// an error. A file that holds an API key and can be read by other users is
// refused, with the command that fixes it; so is a config directory that
// other users could replace (CheckDirChain).
func Load(path string) (*File, error) {
	f := &File{Path: path}
	if err := CheckDirChain(filepath.Dir(path), "the config directory"); err != nil {
		return nil, err
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return f, nil
	}
	if err != nil {
		return nil, fmt.Errorf("cannot read the config file: %w", err)
	}
	f.Found = true
	md, err := toml.Decode(string(b), f)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, fmt.Errorf("config file %s, line %d: %s", path, pe.Position.Line, pe.Message)
		}
		return nil, fmt.Errorf("config file %s: %v", path, err)
	}
	if und := md.Undecoded(); len(und) > 0 {
		return nil, fmt.Errorf("config file %s: unknown setting %q (known: profile, own, keep_runs_days, and base_url, api_key and keychain in [profiles.NAME])", path, und[0].String())
	}
	for i, o := range f.Own {
		if err := checkOwn(o); err != nil {
			return nil, fmt.Errorf("config file %s: own, entry %d (%q): %w", path, i+1, o, err)
		}
	}
	if f.KeepRunsDays < 0 {
		return nil, fmt.Errorf("config file %s: keep_runs_days must be a number of days, not %d", path, f.KeepRunsDays)
	}
	for name := range f.Profiles {
		if err := CheckProfileName(name); err != nil {
			return nil, fmt.Errorf("config file %s: %w", path, err)
		}
	}
	if f.holdsKey() {
		if err := checkPrivate(path); err != nil {
			return nil, err
		}
	}
	return f, nil
}

// checkOwn accepts an address ("x@y.z") or a domain ("@y.z" or "y.z").
func checkOwn(s string) error {
	s = strings.TrimSpace(s)
	domain := strings.TrimPrefix(s, "@")
	if at := strings.LastIndexByte(domain, '@'); at >= 0 {
		if at == 0 || at == len(domain)-1 {
			return errors.New("an address needs a name before and a domain after the @")
		}
		domain = domain[at+1:]
	}
	if domain == "" || !strings.Contains(domain, ".") || strings.ContainsAny(domain, " \t,;<>\"") {
		return errors.New("it is neither an address (x@y.z) nor a domain (@y.z)")
	}
	return nil
}

func (f *File) holdsKey() bool {
	for _, p := range f.Profiles {
		if p.APIKey != "" {
			return true
		}
	}
	return false
}

// checkPrivate refuses a file that group or others may read. shush does not
// change the mode itself: a key that others could read may already be
// known, and the user should decide whether to rotate it.
func checkPrivate(path string) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	st, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("cannot read the config file: %w", err)
	}
	if st.Mode().Perm()&0o077 != 0 {
		return fmt.Errorf("%s holds an API key and other users can read it (mode %04o): run chmod 600 %s", path, st.Mode().Perm(), path)
	}
	// Whoever may write to the directory may replace the file: another
	// key, another base_url that collects this one. A sticky directory
	// (/tmp) lets only the file's owner replace it.
	dir := filepath.Dir(path)
	if dst, err := os.Stat(dir); err == nil && dst.Mode().Perm()&0o022 != 0 && dst.Mode()&os.ModeSticky == 0 {
		return fmt.Errorf("%s holds an API key in a directory other users can write to, so they could replace it (mode %04o): run chmod go-w %s", path, dst.Mode().Perm(), dir)
	}
	return nil
}

// CheckPrivate refuses a file holding a secret (such as the local key) that
// group or others may read.
func CheckPrivate(path string) error { return checkPrivate(path) }

var profileName = regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`)

// CheckProfileName accepts the names a profile may have: 1 to 64 letters,
// digits, dots, underscores and hyphens.
func CheckProfileName(name string) error {
	if !profileName.MatchString(name) {
		return fmt.Errorf("profile name %q is not 1 to 64 letters, digits, '.', '_' or '-'", name)
	}
	return nil
}

// ProfileNames returns the file's profile names, sorted.
func (f *File) ProfileNames() []string {
	names := make([]string, 0, len(f.Profiles))
	for n := range f.Profiles {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Save writes the file to f.Path with mode 0600 (its directory 0700),
// replacing it atomically so that a crash leaves the old or the new file,
// never half of one.
func (f *File) Save() error {
	var buf bytes.Buffer
	buf.WriteString("# shush settings: see \"shush config --help\".\n")
	if err := toml.NewEncoder(&buf).Encode(f); err != nil {
		return fmt.Errorf("cannot write the config file: %w", err)
	}
	return WritePrivate(f.Path, buf.Bytes())
}

// WritePrivate writes a file only its owner can read (0600), creating its
// directory with 0700, and replaces any old file atomically and durably
// (internal/atomicfile).
func WritePrivate(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("cannot create %s: %w", dir, err)
	}
	return atomicfile.WriteFile(path, data, 0o600)
}

// Flags are the settings given on the command line; empty means not given.
type Flags struct {
	Profile string
	BaseURL string
	APIKey  string
}

// Setting is one effective value and where it came from, in words a user
// can follow ("--base-url flag", "SHUSH_BASE_URL", "profile \"work\" in
// /home/me/.config/shush/config.toml", "default").
type Setting struct {
	Value  string `json:"value"`
	Source string `json:"source"`
}

// Settings are the effective settings after precedence is applied.
type Settings struct {
	Profile Setting
	BaseURL Setting
	APIKey  Setting
	// DB is the database the embedded default opens (used only when Local).
	DB Setting
	// File is the config file that was consulted (it may not exist).
	File string
	// Own is the config file's own addresses and domains: never sent.
	Own []string
	// KeepRuns is how long finished runs are kept.
	KeepRuns time.Duration
	// OtherService names the profile whose key was left out because the
	// base URL (from a flag or the environment) names another service;
	// "" when none was.
	OtherService string
}

// Local reports whether no base URL is set, so the embedded default (the
// service in process, on DB) is the target.
func (s Settings) Local() bool { return s.BaseURL.Value == "" }

// Target names what the settings talk to: the base URL, or "the local list"
// with its database.
func (s Settings) Target() string {
	if s.Local() {
		return "the local list (" + redact.DSN(s.DB.Value) + ")"
	}
	return redact.URL(s.BaseURL.Value)
}

// Source names used in Setting.Source.
const (
	SourceDefault = "default"
	SourceLocal   = "embedded default"
)

// Resolve applies the precedence flags > environment > file > embedded
// default. env looks up an environment variable (os.Getenv in production).
// A profile named by a flag, the environment or the file's "profile" that
// the file does not define is an error; so is an API key without a base URL
// (it would silently go to the local list instead of the service it was
// meant for).
func Resolve(f *File, flags Flags, env func(string) string) (Settings, error) {
	s := Settings{File: f.Path, Own: f.Own, KeepRuns: DefaultKeepRunsDays * 24 * time.Hour}
	if f.KeepRunsDays > 0 {
		s.KeepRuns = time.Duration(f.KeepRunsDays) * 24 * time.Hour
	}
	var (
		p   Profile
		err error
	)
	if s.Profile, p, err = f.profileOf(flags, env); err != nil {
		return s, err
	}
	fromProfile := fmt.Sprintf("profile %q in %s", s.Profile.Value, f.Path)

	s.BaseURL = pick(flags.BaseURL, "--base-url flag", env(EnvBaseURL), EnvBaseURL, p.BaseURL, fromProfile, Setting{"", SourceLocal})
	var profileKey string
	var keychain bool
	profileKey, keychain, s.OtherService = p.keyFor(s.BaseURL, fromProfile, s.Profile.Value)
	s.APIKey = pick(flags.APIKey, "--api-key flag", env(EnvAPIKey), EnvAPIKey, profileKey, fromProfile, Setting{"", SourceDefault})
	if s.APIKey.Value == "" && keychain {
		// Only when no flag or variable gives a key: the keychain may ask
		// the person to unlock it.
		key, err := keychainKey(s.Profile.Value)
		if err != nil {
			return s, err
		}
		s.APIKey = Setting{key, keychainSource(s.Profile.Value)}
	}
	// The hosted service's own variables come last: a Resend user's
	// RESEND_API_KEY works with nothing else set, and only ever goes to
	// RESEND_BASE_URL or the hosted API, never to a service set for shush.
	if s.BaseURL.Value == "" && s.APIKey.Value == "" && env(EnvResendAPIKey) != "" {
		s.APIKey = Setting{env(EnvResendAPIKey), EnvResendAPIKey}
		s.BaseURL = Setting{ResendBaseURL, EnvResendAPIKey + " (the hosted API)"}
		if u := env(EnvResendBaseURL); u != "" {
			s.BaseURL = Setting{u, EnvResendBaseURL}
		}
	}
	if s.DB, err = dbOf(env); err != nil {
		return s, err
	}

	if s.BaseURL.Value != "" {
		u, err := CheckBaseURL(s.BaseURL.Value)
		if err != nil {
			return s, fmt.Errorf("%v (from %s)", err, s.BaseURL.Source)
		}
		s.BaseURL.Value = u
	} else if s.APIKey.Value != "" {
		return s, fmt.Errorf("an API key is set (from %s) but no base URL: set --base-url or %s to the service the key belongs to, or unset the key to use the local list", s.APIKey.Source, EnvBaseURL)
	}
	return s, s.keyLeftBehind(p)
}

// profileOf is the profile the flags, the environment or the file name
// (else the default), and what the file says of it. A profile named but
// not defined is an error.
func (f *File) profileOf(flags Flags, env func(string) string) (Setting, Profile, error) {
	var s Setting
	explicit := true
	switch {
	case flags.Profile != "":
		s = Setting{flags.Profile, "--profile flag"}
	case env(EnvProfile) != "":
		s = Setting{env(EnvProfile), EnvProfile}
	case f.Profile != "":
		s = Setting{f.Profile, "profile in " + f.Path}
	default:
		s = Setting{DefaultProfile, SourceDefault}
		explicit = false
	}
	if err := CheckProfileName(s.Value); err != nil {
		return s, Profile{}, fmt.Errorf("%v (from %s)", err, s.Source)
	}
	p, ok := f.Profiles[s.Value]
	if !ok && explicit {
		if !f.Found {
			return s, p, fmt.Errorf("profile %q (from %s) is not defined: there is no config file %s", s.Value, s.Source, f.Path)
		}
		known := "it defines none"
		if names := f.ProfileNames(); len(names) > 0 {
			known = "it defines " + strings.Join(names, ", ")
		}
		return s, p, fmt.Errorf("profile %q (from %s) is not defined in %s: %s", s.Value, s.Source, f.Path, known)
	}
	return s, p, nil
}

// dbOf is the local list's database: $SHUSH_DB, else shush.db in the
// user data directory.
func dbOf(env func(string) string) (Setting, error) {
	if db := env(EnvDB); db != "" {
		return Setting{db, EnvDB}, nil
	}
	dir, err := DataDir()
	if err != nil {
		return Setting{}, fmt.Errorf("cannot find the user data directory: %w", err)
	}
	return Setting{filepath.Join(dir, "shush.db"), SourceDefault}, nil
}

// keyFor is the profile's key (or its keychain) for base, and "" as the
// profile's name; or no key, and the profile's name, when its key must
// not go there: the profile's key belongs to the profile's service, and a
// base URL from a flag or the environment that names another needs its
// own.
func (p Profile) keyFor(base Setting, fromProfile, name string) (key string, keychain bool, leftFor string) {
	if base.Source == fromProfile || p.APIKey == "" && !p.Keychain || sameService(base.Value, p.BaseURL) {
		return p.APIKey, p.Keychain, ""
	}
	return "", false, name
}

// keyLeftBehind says why there is no key, when the profile's was left
// behind for another service.
func (s Settings) keyLeftBehind(p Profile) error {
	if s.OtherService == "" || s.APIKey.Value != "" || s.BaseURL.Value == "" {
		return nil
	}
	return fmt.Errorf("no API key for %s (from %s): the key of profile %q belongs to %s and is not sent elsewhere; give this service's key with --api-key or %s, or use a profile of its own (shush config set-profile)",
		redact.URL(s.BaseURL.Value), s.BaseURL.Source, s.OtherService, profileURL(p.BaseURL), EnvAPIKey)
}

// sameService reports whether two base URLs name the same service: the
// same after the checks of CheckBaseURL (a trailing slash aside), with
// scheme and host compared without regard to case.
func sameService(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	ua, erra := url.Parse(strings.TrimRight(a, "/"))
	ub, errb := url.Parse(strings.TrimRight(b, "/"))
	if erra != nil || errb != nil {
		return false
	}
	return strings.EqualFold(ua.Scheme, ub.Scheme) && strings.EqualFold(ua.Host, ub.Host) && ua.Path == ub.Path && ua.User.String() == ub.User.String()
}

// profileURL names the service a profile's key belongs to.
func profileURL(base string) string {
	if base == "" {
		return "no base URL (the profile names none)"
	}
	return redact.URL(base)
}

func pick(flag, flagSrc, env, envSrc, file, fileSrc string, def Setting) Setting {
	switch {
	case flag != "":
		return Setting{flag, flagSrc}
	case env != "":
		return Setting{env, envSrc}
	case file != "":
		return Setting{file, fileSrc}
	}
	return def
}

// CheckBaseURL accepts an http or https URL with a host and returns it
// without a trailing slash.
func CheckBaseURL(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("base URL %q is not an http:// or https:// URL with a host", redact.URL(raw))
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return "", fmt.Errorf("base URL %q has a query or fragment; give only scheme, host and path", redact.URL(raw))
	}
	return strings.TrimRight(raw, "/"), nil
}

// KeyPrint is a fingerprint of an API key that may be kept and shown: the
// first 12 hex digits of its SHA-256 ("" for no key). Keys are random, so
// it tells keys apart and gives nothing of the key away; a recorded run
// keeps it to know which key started it.
func KeyPrint(key string) string {
	if key == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:6])
}

// MaskKey shows enough of a key to tell keys apart, never the whole key:
// at most its first 8 and last 4 characters, less for short keys
// ("shush_ab…wxyz").
func MaskKey(key string) string {
	n := len(key)
	if n == 0 {
		return ""
	}
	head, tail := min(8, n/4), min(4, n/6)
	if n < 8 {
		head, tail = 0, 0
	}
	return key[:head] + "…" + key[n-tail:]
}
