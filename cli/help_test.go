package cli

import (
	"context"
	"strings"
	"testing"
)

func TestRunExitCodes(t *testing.T) {
	ta := newTestApp(t, nil)
	if err := runExitCodes(context.Background(), &topicOptions{app: ta.app, Root: ta.rootCommand()}); err != nil {
		t.Fatal(err)
	}
	out := ta.out.String()
	for _, want := range []string{"  0    done", "  2    bad usage", "  4    the service refused the key", "  130  interrupted", `{"error": {"name"`} {
		if !strings.Contains(out, want) {
			t.Errorf("exit-codes lacks %q:\n%s", want, out)
		}
	}
	if !strings.HasSuffix(out, "one sentence.\n\n") {
		t.Errorf("exit-codes does not end as a help ends:\n%q", out[len(out)-40:])
	}
}

func TestRunEnvironment(t *testing.T) {
	ta := newTestApp(t, nil)
	if err := runEnvironment(context.Background(), &topicOptions{app: ta.app, Root: ta.rootCommand()}); err != nil {
		t.Fatal(err)
	}
	out := ta.out.String()
	// The client's variables, and serve's, made of its own flags.
	for _, want := range []string{"The UI and the CLI:\n  SHUSH_PROFILE\n", "  SHUSH_API_KEY\n", "shush serve (each flag; one on the command line wins):",
		"  SHUSH_ADDR\n      --addr: address to listen on", "  SHUSH_SSH_MAX_SESSIONS\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("environment lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "(env SHUSH_ADDR)") {
		t.Error("environment repeats a serve flag's variable in its text")
	}
}

// The topics are help, not commands: shush --help lists them apart, and
// their help is what their run prints.
func TestHelpTopicsPrintTheirText(t *testing.T) {
	ta := newTestApp(t, nil)
	root := ta.rootCommand()
	for _, name := range []string{"exit-codes", "environment"} {
		cmd, _, err := root.Find([]string{name})
		if err != nil || cmd.Name() != name {
			t.Fatalf("no topic %s: %v", name, err)
		}
		if cmd.Runnable() || !cmd.IsAdditionalHelpTopicCommand() {
			t.Errorf("%s is not a help topic", name)
		}
		ta.reset()
		cmd.HelpFunc()(cmd, nil)
		want := bareApp()
		run := runExitCodes
		if name == "environment" {
			run = runEnvironment
		}
		if err := run(context.Background(), &topicOptions{app: want.app, Root: root}); err != nil {
			t.Fatal(err)
		}
		if ta.out.String() != want.out.String() || ta.out.Len() == 0 {
			t.Errorf("help %s printed %q; its run prints %q", name, ta.out.String(), want.out.String())
		}
	}
}
