package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/spf13/cobra"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/api/client"
	"github.com/shushlist/shush/config"
	"github.com/shushlist/shush/internal/redact"
)

// check is one line of doctor's report.
type check struct {
	Name   string `json:"name"`
	OK     bool   `json:"ok"`
	Detail string `json:"detail"`
}

// doctorReport is what doctor found.
type doctorReport struct {
	OK      bool    `json:"ok"`
	Checks  []check `json:"checks"`
	Version string  `json:"version"`
}

// maxSkew is the clock difference doctor calls a problem: the service's
// times (created_at, the trail) then read hours off on this machine.
const maxSkew = time.Minute

func (a *app) doctorCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "doctor",
		Short: "Check the settings, the service and the key, and say what is wrong",
		Long: `Check, in order, what shush needs to work and say what is wrong:

  config      the settings resolve (config file, profile, variables) and where
              they point
  service     the service answers
  key         it accepts the key (reading the list)
  access      the key may change the list, or is read-only (asked by removing
              nothing: an empty batch, which changes nothing)
  clock       this machine's clock against the service's Date header
  version     shush's version and build

Exit status: 0 everything works (a read-only key is fine); 1 something does
not (the service cannot be reached, the settings are wrong, the clocks are
more than a minute apart); 2 bad usage; 3 never; 4 the service refused the
key; 130 interrupted.`,
		Example: "  shush doctor\n  shush --profile work doctor --json",
		Args:    noArgs,
		RunE:    func(cmd *cobra.Command, _ []string) error { return runDoctor(cmd.Context(), &doctorOptions{app: a}) },
	}
}

type doctorOptions struct{ *app }

// runDoctor runs the checks, prints them and fails with the first failure.
func runDoctor(ctx context.Context, o *doctorOptions) error {
	rep, code := o.doctor(ctx)
	err := o.printOut(rep, func(w io.Writer) error {
		t := newTable(w)
		for _, c := range rep.Checks {
			mark := "ok"
			if !c.OK {
				mark = "FAIL"
			}
			t.row(mark, c.Name, c.Detail)
		}
		return t.flush()
	})
	if err != nil || code == ExitOK {
		return err
	}
	for _, c := range rep.Checks {
		if !c.OK {
			return exitErr{code, fmt.Errorf("doctor: %s: %s", c.Name, c.Detail)}
		}
	}
	return nil
}

// doctor runs the checks and returns the report with the exit status it
// calls for: 4 when the key was refused, 1 for any other failure.
func (a *app) doctor(ctx context.Context) (doctorReport, int) {
	b := readBuild()
	rep := doctorReport{OK: true, Version: b.Version}
	code := ExitOK
	add := func(name string, ok bool, format string, args ...any) {
		rep.Checks = append(rep.Checks, check{Name: name, OK: ok, Detail: fmt.Sprintf(format, args...)})
		if !ok {
			rep.OK = false
			if code == ExitOK {
				code = ExitFailed
			}
		}
	}
	version := func() {
		add("version", true, "shush %s (%s, %s)", b.Version, b.Go, b.Platform)
	}

	s, err := a.settings()
	if err != nil {
		add("config", false, "%v", err)
		version()
		return rep, code
	}
	if s.Local() {
		add("config", true, "profile %s (%s); no service configured: the local list %s (%s)", s.Profile.Value, s.Profile.Source,
			redact.DSN(s.DB.Value), s.DB.Source)
	} else {
		add("config", true, "profile %s (%s); base URL %s (%s); key %s (%s)", s.Profile.Value, s.Profile.Source,
			redact.URL(s.BaseURL.Value), s.BaseURL.Source, dash(config.MaskKey(s.APIKey.Value)), s.APIKey.Source)
	}

	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	// One try per question: doctor says what is, it does not wait it out.
	conn, err := a.connect(ctx, client.WithRetry(0, 0, 0), client.WithTimeout(10*time.Second))
	if err != nil {
		add("service", false, "%v", err)
		version()
		return rep, code
	}
	defer conn.Close()
	c := conn.Client

	_, err = c.List(ctx, client.ListParams{Limit: 1})
	var ae *api.Error
	var ne *client.NetworkError
	switch {
	case errors.As(err, &ne), client.IsRedirect(err):
		add("service", false, "%s does not answer: %v", conn.Target, err)
		version()
		return rep, code
	case err == nil:
		add("service", true, "%s answers", conn.Target)
		add("key", true, "%s is accepted (the list can be read)", conn.MaskedKey)
	case client.IsUnsupported(err):
		add("service", true, "%s answers, with only the batch endpoints (no list: browsing and look-ups are off)", conn.Target)
	case errors.As(err, &ae) && (ae.StatusCode == http.StatusUnauthorized || ae.StatusCode == http.StatusForbidden) && ae.Name != api.ErrRestrictedAPIKey:
		add("service", true, "%s answers", conn.Target)
		add("key", false, "%s is refused: %v", conn.MaskedKey, err)
		code = ExitRefused
		version()
		return rep, code
	case errors.As(err, &ae) && ae.Name == api.ErrRestrictedAPIKey:
		add("service", true, "%s answers", conn.Target)
		add("key", true, "%s is accepted, restricted: %s", conn.MaskedKey, ae.Message)
	default:
		add("service", false, "%s: %v", conn.Target, err)
		version()
		return rep, code
	}

	switch can, err := c.CanChange(ctx); {
	case err != nil:
		add("access", false, "cannot tell whether the key may change the list: %v", err)
	case can:
		add("access", true, "read-write: the key may add and remove entries")
	default:
		add("access", true, "read-only: the key may read the list but not change it")
	}

	switch skew, known := c.ClockSkew(); {
	case conn.Settings.Local():
		add("clock", true, "the local list keeps this machine's time")
	case !known:
		add("clock", true, "the service sent no Date header: its clock cannot be compared (its times are shown as it gives them)")
	case skew > maxSkew || skew < -maxSkew:
		// Date has whole seconds: the estimate is good to a second or two.
		add("clock", false, "the service's clock is about %s %s this machine's; times it shows and times shush shows disagree by that much",
			skew.Abs().Round(10*time.Second), aheadBehind(skew))
	case skew == 0:
		add("clock", true, "the service's clock agrees with this machine's (within two seconds)")
	default:
		add("clock", true, "the service's clock is %s %s this machine's", skew.Abs().Round(time.Second), aheadBehind(skew))
	}
	version()
	return rep, code
}

func aheadBehind(d time.Duration) string {
	if d > 0 {
		return "ahead of"
	}
	return "behind"
}
