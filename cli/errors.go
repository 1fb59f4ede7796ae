package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/itchyny/gojq"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/api/client"
)

// errorJSON is how an error is written under --json or when stdout is
// not a terminal: {"error":{"name","message","status"}}. name is the
// service's error name when the service refused (validation_error,
// not_found, invalid_api_key, rate_limit_exceeded, …), else one of
// usage_error, network_error, redirect_refused, interrupted, error;
// status is the service's HTTP status, or null when no answer came.
type errorJSON struct {
	Error struct {
		Name    string `json:"name"`
		Message string `json:"message"`
		Status  *int   `json:"status"`
	} `json:"error"`
}

func errorDoc(err error) errorJSON {
	var doc errorJSON
	doc.Error.Message = err.Error()
	if exitCode(err) == ExitInterrupted {
		doc.Error.Name = "interrupted"
		return doc
	}
	var ae *api.Error
	var ue usageErr
	switch {
	case errors.As(err, &ae):
		doc.Error.Name = ae.Name
		if doc.Error.Name == "" {
			doc.Error.Name = "application_error"
		}
		status := ae.StatusCode
		doc.Error.Status = &status
	case errors.As(err, &ue):
		doc.Error.Name = "usage_error"
	case client.IsRedirect(err):
		doc.Error.Name = "redirect_refused"
	default:
		var ne *client.NetworkError
		if errors.As(err, &ne) {
			doc.Error.Name = "network_error"
		} else {
			doc.Error.Name = "error"
		}
	}
	return doc
}

// wantsJSON reports whether the arguments ask for JSON (--json, -q or
// --jq), so that even an error in the flags themselves is JSON.
func wantsJSON(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		switch {
		case a == "--json", a == "--json=true", a == "-q", a == "--quiet", a == "--quiet=true", a == "--jq", strings.HasPrefix(a, "--jq="):
			return true
		}
	}
	return false
}

// jqArg returns the --jq expression of the arguments, if any (the flag is
// parsed by cobra too; this only tells Main to gather the output first).
func jqArg(args []string) string {
	for i, a := range args {
		if a == "--" {
			return ""
		}
		if a == "--jq" && i+1 < len(args) {
			return args[i+1]
		}
		if v, ok := strings.CutPrefix(a, "--jq="); ok {
			return v
		}
	}
	return ""
}

// runJQ filters the JSON a command printed with expr and prints each
// result: strings raw (as jq -r does, like gh: @tsv gives real tabs), the
// rest as indented JSON.
func runJQ(expr string, out []byte, w io.Writer) error {
	q, err := gojq.Parse(expr)
	if err != nil {
		return usagef("--jq: %v", err)
	}
	code, err := gojq.Compile(q)
	if err != nil {
		return usagef("--jq: %v", err)
	}
	var v any
	dec := json.NewDecoder(strings.NewReader(string(out)))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return fmt.Errorf("--jq: the command's output is not JSON: %v", err)
	}
	v = normalizeNumbers(v)
	iter := code.Run(v)
	for {
		r, ok := iter.Next()
		if !ok {
			return nil
		}
		if err, isErr := r.(error); isErr {
			return fmt.Errorf("--jq: %v", err)
		}
		if s, isStr := r.(string); isStr {
			fmt.Fprintln(w, rawString(s, isTerminal(w)))
			continue
		}
		if err := writeJSON(w, r); err != nil {
			return err
		}
	}
}

// rawString is a --jq string result as printed: exactly as it is for a
// pipe or a file (a script gets the data); on a terminal tabs and line
// feeds still pass, but other control and format characters (an escape
// sequence in a service's message) show as escapes (safe.Text).
func rawString(s string, terminal bool) string {
	if !terminal {
		return s
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		cells := strings.Split(l, "\t")
		for j, c := range cells {
			cells[j] = safeText(c)
		}
		lines[i] = strings.Join(cells, "\t")
	}
	return strings.Join(lines, "\n")
}

// normalizeNumbers turns json.Number into the int or float64 gojq takes.
func normalizeNumbers(v any) any {
	switch x := v.(type) {
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return int(i)
		}
		f, _ := x.Float64()
		return f
	case []any:
		for i := range x {
			x[i] = normalizeNumbers(x[i])
		}
	case map[string]any:
		for k := range x {
			x[k] = normalizeNumbers(x[k])
		}
	}
	return v
}

// exitErr is an error with its own exit status.
type exitErr struct {
	code int
	err  error
}

func (e exitErr) Error() string { return e.err.Error() }

func (e exitErr) Unwrap() error { return e.err }

func (e exitErr) ExitCode() int { return e.code }
