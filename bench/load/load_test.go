package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/shushlist/shush/server"
	"github.com/shushlist/shush/server/servicetest"
)

func noEnv(string) string { return "" }

func TestRefusesNonLoopbackHosts(t *testing.T) {
	for _, u := range []string{
		"http://10.0.0.1:8080",
		"http://example.com",
		"https://api.resend.com",
		"http://0.0.0.0:8080",
		"http://[2001:db8::1]:80",
		"http://127.0.0.1:8080,http://192.168.1.2:8080",
	} {
		var out, errOut bytes.Buffer
		err := run(context.Background(), []string{"-url", u, "-key", "k", "-duration", "1s"}, &out, &errOut, noEnv)
		if err == nil || exitCode(err) != 2 || !strings.Contains(err.Error(), "refusing to load") {
			t.Errorf("-url %s: %v, want a refusal with exit status 2", u, err)
		}
		if out.Len() > 0 {
			t.Errorf("-url %s printed %q", u, out.String())
		}
	}
}

func TestNeedsAKey(t *testing.T) {
	err := run(context.Background(), []string{"-duration", "1s"}, new(bytes.Buffer), new(bytes.Buffer), noEnv)
	if err == nil || !strings.Contains(err.Error(), "SHUSH_API_KEY") {
		t.Errorf("no key: %v", err)
	}
}

// A short run against the real service: it reports what it did, and the
// list holds what its adds left there.
func TestShortRunAgainstTheService(t *testing.T) {
	svc := servicetest.Start(t, server.Options{Rate: 100000})
	key := svc.Key

	var out, errOut bytes.Buffer
	env := func(k string) string {
		if k == "SHUSH_API_KEY" {
			return key
		}
		return ""
	}
	args := []string{"-url", svc.URL, "-clients", "3", "-duration", "800ms", "-batch", "10", "-fill", "250", "-json"}
	if err := run(t.Context(), args, &out, &errOut, env); err != nil {
		t.Fatalf("run: %v\n%s", err, errOut.String())
	}
	if strings.Contains(out.String()+errOut.String(), key) {
		t.Fatal("the output shows the API key")
	}
	var res result
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatalf("output %q: %v", out.String(), err)
	}
	if res.Filled != 250 || len(res.Errors) != 0 {
		t.Fatalf("filled %d, errors %v", res.Filled, res.Errors)
	}
	byOp := map[string]opResult{}
	for _, o := range res.Ops {
		byOp[o.Op] = o
	}
	if byOp["add"].Requests == 0 || byOp["list"].Requests == 0 || byOp["remove"].Requests == 0 {
		t.Fatalf("not every operation ran: %+v", res.Ops)
	}
	if byOp["all"].Requests != res.Requests || res.Requests != byOp["add"].Requests+byOp["remove"].Requests+byOp["list"].Requests {
		t.Errorf("totals do not add up: %+v", res)
	}
	// Every add put 10 new addresses on the list; every remove took back
	// at most 10; a request the run's end cut off may or may not have been
	// applied. So the list holds at least the fill plus 10*(adds-removes)
	// entries less 10 for each unfinished remove, and at most the fill plus
	// 10*adds and 10 for each unfinished add.
	n := 0
	after := ""
	for {
		req, _ := http.NewRequest("GET", svc.URL+"/suppressions?limit=100"+after, nil)
		req.Header.Set("Authorization", "Bearer "+key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var page struct {
			HasMore bool `json:"has_more"`
			Data    []struct {
				ID string `json:"id"`
			} `json:"data"`
		}
		err = json.NewDecoder(resp.Body).Decode(&page)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		n += len(page.Data)
		if !page.HasMore {
			break
		}
		after = "&after=" + page.Data[len(page.Data)-1].ID
	}
	adds, removes := byOp["add"].Requests, byOp["remove"].Requests
	cutAdds, cutRemoves := byOp["add"].Unfinished, byOp["remove"].Unfinished
	if cutAdds+cutRemoves+byOp["list"].Unfinished > 3 {
		t.Errorf("%d requests unfinished at the end, more than the 3 clients had in flight", cutAdds+cutRemoves+byOp["list"].Unfinished)
	}
	if lo, hi := 250+10*(adds-removes-cutRemoves), 250+10*(adds+cutAdds); n < lo || n > hi {
		t.Errorf("the list holds %d entries, want %d-%d after %d adds and %d removes (%d and %d cut off by the end)", n, lo, hi, adds, removes, cutAdds, cutRemoves)
	}
}

func TestTableOutput(t *testing.T) {
	var b bytes.Buffer
	printTable(&b, result{URLs: []string{"http://127.0.0.1:1"}, Clients: 2, Seconds: 1, Mix: "add=1", Batch: 5,
		Ops:    []opResult{{Op: "add", Requests: 3, PerSecond: 3, ItemsPS: 15, P50ms: 1, P95ms: 2, P99ms: 3, Unfinished: 1}},
		Errors: map[string]int{"429": 2, "503": 1}})
	for _, want := range []string{"add", "req/s", "p99 ms", "errors by status: 429: 2, 503: 1", "in flight at the end, outcome unknown: add 1"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, b.String())
		}
	}
}
