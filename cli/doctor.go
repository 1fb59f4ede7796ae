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
	cmd := command(&doctorOptions{app: a}, "doctor", "Check the settings, the service and the key, and say what is wrong",
		noArgs, runDoctor)
	cmd.Long = `Check, in order, what shush needs to work and say what is wrong:

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
key; 130 interrupted.`
	cmd.Example = "  shush doctor\n  shush --profile work doctor --json"
	return cmd
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
	d := &doctorRun{rep: doctorReport{OK: true, Version: b.Version}, code: ExitOK}
	a.doctorChecks(ctx, d)
	d.add("version", true, "shush %s (%s, %s)", b.Version, b.Go, b.Platform)
	return d.rep, d.code
}

// doctorRun gathers doctor's checks and the exit status they call for.
type doctorRun struct {
	rep  doctorReport
	code int
}

// add records a check; a failure makes the exit status 1 unless it is
// set already.
func (d *doctorRun) add(name string, ok bool, format string, args ...any) {
	d.rep.Checks = append(d.rep.Checks, check{Name: name, OK: ok, Detail: fmt.Sprintf(format, args...)})
	if !ok {
		d.rep.OK = false
		if d.code == ExitOK {
			d.code = ExitFailed
		}
	}
}

// doctorChecks runs the checks in their order: config, service, key,
// access, clock. It stops where a failure leaves the next checks nothing
// to ask (no settings, no service, a refused key).
func (a *app) doctorChecks(ctx context.Context, d *doctorRun) {
	s, err := a.settings()
	if err != nil {
		d.add("config", false, "%v", err)
		return
	}
	d.checkConfig(s)

	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	// One try per question: doctor says what is, it does not wait it out.
	conn, err := a.connect(ctx, client.WithRetry(0, 0, 0), client.WithTimeout(10*time.Second))
	if err != nil {
		d.add("service", false, "%v", err)
		return
	}
	defer conn.Close()
	if !d.checkService(ctx, conn) {
		return
	}
	d.checkAccess(ctx, conn.Client)
	d.checkClock(conn)
}

// checkConfig says where the settings point.
func (d *doctorRun) checkConfig(s config.Settings) {
	if s.Local() {
		d.add("config", true, "profile %s (%s); no service configured: the local list %s (%s)", s.Profile.Value, s.Profile.Source,
			redact.DSN(s.DB.Value), s.DB.Source)
		return
	}
	d.add("config", true, "profile %s (%s); base URL %s (%s); key %s (%s)", s.Profile.Value, s.Profile.Source,
		redact.URL(s.BaseURL.Value), s.BaseURL.Source, dash(config.MaskKey(s.APIKey.Value)), s.APIKey.Source)
}

// checkService asks the service for one entry of the list: whether it
// answers, and whether it takes the key. It reports whether the checks
// that follow may go on.
func (d *doctorRun) checkService(ctx context.Context, conn *connection) bool {
	_, err := conn.Client.List(ctx, client.ListParams{Limit: 1})
	var ae *api.Error
	var ne *client.NetworkError
	switch {
	case errors.As(err, &ne), client.IsRedirect(err):
		d.add("service", false, "%s does not answer: %v", conn.Target, err)
		return false
	case err == nil:
		d.add("service", true, "%s answers", conn.Target)
		d.add("key", true, "%s is accepted (the list can be read)", conn.MaskedKey)
	case client.IsUnsupported(err):
		d.add("service", true, "%s answers, with only the batch endpoints (no list: browsing and look-ups are off)", conn.Target)
	case errors.As(err, &ae) && (ae.StatusCode == http.StatusUnauthorized || ae.StatusCode == http.StatusForbidden) && ae.Name != api.ErrRestrictedAPIKey:
		d.add("service", true, "%s answers", conn.Target)
		d.add("key", false, "%s is refused: %v", conn.MaskedKey, err)
		d.code = ExitRefused
		return false
	case errors.As(err, &ae) && ae.Name == api.ErrRestrictedAPIKey:
		d.add("service", true, "%s answers", conn.Target)
		d.add("key", true, "%s is accepted, restricted: %s", conn.MaskedKey, ae.Message)
	default:
		d.add("service", false, "%s: %v", conn.Target, err)
		return false
	}
	return true
}

// checkAccess says whether the key may change the list.
func (d *doctorRun) checkAccess(ctx context.Context, c *client.Client) {
	switch can, err := c.CanChange(ctx); {
	case err != nil:
		d.add("access", false, "cannot tell whether the key may change the list: %v", err)
	case can:
		d.add("access", true, "read-write: the key may add and remove entries")
	default:
		d.add("access", true, "read-only: the key may read the list but not change it")
	}
}

// checkClock compares this machine's clock with the service's.
func (d *doctorRun) checkClock(conn *connection) {
	switch skew, known := conn.Client.ClockSkew(); {
	case conn.Settings.Local():
		d.add("clock", true, "the local list keeps this machine's time")
	case !known:
		d.add("clock", true, "the service sent no Date header: its clock cannot be compared (its times are shown as it gives them)")
	case skew > maxSkew || skew < -maxSkew:
		// Date has whole seconds: the estimate is good to a second or two.
		d.add("clock", false, "the service's clock is about %s %s this machine's; times it shows and times shush shows disagree by that much",
			skew.Abs().Round(10*time.Second), aheadBehind(skew))
	case skew == 0:
		d.add("clock", true, "the service's clock agrees with this machine's (within two seconds)")
	default:
		d.add("clock", true, "the service's clock is %s %s this machine's", skew.Abs().Round(time.Second), aheadBehind(skew))
	}
}

func aheadBehind(d time.Duration) string {
	if d > 0 {
		return "ahead of"
	}
	return "behind"
}
