package cli

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/shushlist/shush/config"
)

// clockAt is a service whose clock is off by skew: the Date header of its
// answers says so (none at all when drop is set).
func clockAt(t *testing.T, skew time.Duration, drop bool) *testService {
	t.Helper()
	return newServiceBehind(t, func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if drop {
				w.Header()["Date"] = nil
			} else {
				w.Header().Set("Date", time.Now().Add(skew).UTC().Format(http.TimeFormat))
			}
			next.ServeHTTP(w, r)
		})
	})
}

func doctorOf(t *testing.T, ta *testApp) (doctorReport, error) {
	t.Helper()
	ta.reset()
	ta.io.StdoutTTY = false
	err := runDoctor(context.Background(), &doctorOptions{app: ta.app})
	var rep doctorReport
	ta.decode(t, &rep)
	return rep, err
}

func TestDoctorComparesTheClocks(t *testing.T) {
	for _, c := range []struct {
		name string
		skew time.Duration
		drop bool
		ok   bool
		says string
	}{
		{"ahead", 5 * time.Minute, false, false, "the service's clock is about 5m0s ahead of this machine's; times it shows and times shush shows disagree by that much"},
		{"behind", -3 * time.Minute, false, false, "the service's clock is about 3m0s behind this machine's"},
		{"a little", 20 * time.Second, false, true, "s ahead of this machine's"},
		{"no date", 0, true, true, "the service sent no Date header: its clock cannot be compared"},
	} {
		t.Run(c.name, func(t *testing.T) {
			svc := clockAt(t, c.skew, c.drop)
			ta := newTestApp(t, svc)
			rep, err := doctorOf(t, ta)
			clock := rep.byName()["clock"]
			if clock.OK != c.ok || !strings.Contains(clock.Detail, c.says) {
				t.Errorf("clock check %+v; want ok %v saying %q", clock, c.ok, c.says)
			}
			if c.ok {
				if err != nil || !rep.OK {
					t.Errorf("doctor: %v, %+v", err, rep)
				}
				return
			}
			wantErr(t, err, ExitFailed, "doctor: clock: ")
			if rep.OK || !rep.byName()["key"].OK {
				t.Errorf("report %+v", rep)
			}
		})
	}
}

func TestDoctorOnTheLocalList(t *testing.T) {
	ta := newTestApp(t, nil).human()
	if err := runDoctor(context.Background(), &doctorOptions{app: ta.app}); err != nil {
		t.Fatal(err)
	}
	rows := map[string]string{}
	for _, l := range ta.lines() {
		f := fields(l)
		if f[0] != "ok" {
			t.Errorf("not ok: %q", l)
		}
		rows[f[1]] = strings.Join(f[2:], " ")
	}
	if !strings.Contains(rows["config"], "no service configured: the local list") ||
		rows["clock"] != "the local list keeps this machine's time" ||
		!strings.Contains(rows["access"], "read-write") ||
		!strings.HasPrefix(rows["version"], "shush ") {
		t.Errorf("doctor on the local list:\n%s", ta.out.String())
	}
}

func TestDoctorOfBadSettings(t *testing.T) {
	ta := newTestApp(t, nil)
	t.Setenv(config.EnvBaseURL, "ftp://suppressions.example")
	rep, err := doctorOf(t, ta)
	wantErr(t, err, ExitFailed, "doctor: config: ", "SHUSH_BASE_URL")
	c := rep.byName()
	if c["config"].OK || !c["version"].OK || len(rep.Checks) != 2 {
		t.Errorf("doctor of bad settings: %+v", rep)
	}

	// A base URL without a key: the settings resolve, the service check
	// says what is missing.
	t.Setenv(config.EnvBaseURL, "http://127.0.0.1:1")
	ta.resolved = nil
	rep, err = doctorOf(t, ta)
	wantErr(t, err, ExitFailed, "doctor: service: no API key for http://127.0.0.1:1")
	if !rep.byName()["config"].OK {
		t.Errorf("config %+v", rep.byName()["config"])
	}
}
