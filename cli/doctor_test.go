package cli

import (
	"context"
	"strings"
	"testing"

	"github.com/shushlist/shush/server"
)

// checks is the doctor's checks by name.
func (r doctorReport) byName() map[string]check {
	m := map[string]check{}
	for _, c := range r.Checks {
		m[c.Name] = c
	}
	return m
}

func TestDoctorOnAWorkingService(t *testing.T) {
	ctx := context.Background()
	svc := newTestService(t)
	ta := newTestApp(t, svc)
	if err := runDoctor(ctx, &doctorOptions{app: ta.app}); err != nil {
		t.Fatal(err)
	}
	var rep doctorReport
	ta.decode(t, &rep)
	c := rep.byName()
	for _, name := range []string{"config", "service", "key", "access", "clock", "version"} {
		if !c[name].OK {
			t.Errorf("check %s: %+v", name, c[name])
		}
	}
	if !rep.OK || !strings.Contains(c["access"].Detail, "change") && !strings.Contains(c["access"].Detail, "read-write") {
		t.Errorf("report %+v", rep)
	}

	// A read-only key is fine, and said.
	ro := newTestApp(t, svc).human()
	ro.globals.apiKey = svc.key(t, "support", server.KeyPermissions{ReadOnly: true})
	if err := runDoctor(ctx, &doctorOptions{app: ro.app}); err != nil {
		t.Fatal(err)
	}
	var access string
	for _, l := range ro.lines() {
		if f := fields(l); len(f) > 1 && f[1] == "access" {
			access = l
		}
	}
	if !strings.HasPrefix(access, "ok") || !strings.Contains(access, "read-only") {
		t.Errorf("access line %q in:\n%s", access, ro.out.String())
	}
}

func TestDoctorNamesWhatFails(t *testing.T) {
	ctx := context.Background()
	svc := newTestService(t)
	ta := newTestApp(t, svc)
	ta.globals.apiKey = "shush_0000000000000000_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	err := runDoctor(ctx, &doctorOptions{app: ta.app})
	wantErr(t, err, ExitRefused, "doctor: key:")
	var rep doctorReport
	ta.decode(t, &rep)
	if rep.OK || rep.byName()["key"].OK || !rep.byName()["service"].OK {
		t.Errorf("refused key: %+v", rep)
	}
	if strings.Contains(ta.out.String()+err.Error(), "aaaaaaaa") {
		t.Error("doctor shows the key")
	}

	// Nothing listens on the port: the service check fails, exit 1.
	down := newTestApp(t, svc)
	down.globals.baseURL = "http://127.0.0.1:1"
	err = runDoctor(ctx, &doctorOptions{app: down.app})
	wantErr(t, err, ExitFailed, "doctor: service:")
}
