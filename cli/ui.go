package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"

	"golang.org/x/term"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/shushlist/shush/batch"
	"github.com/shushlist/shush/config"
	"github.com/shushlist/shush/internal/redact"
	"github.com/shushlist/shush/ui"
)

// uiOptions are the terminal UI's, which the root command opens: the app
// alone (the UI takes only the flags every command takes).
type uiOptions struct{ *app }

// runUI opens the terminal UI on the configured service, or on the local
// list when none is configured.
func runUI(ctx context.Context, o *uiOptions) error {
	if !o.io.StdinTTY || !o.io.StdoutTTY {
		return usagef("the terminal UI needs a terminal; in scripts use the shush suppressions commands (see shush --help)")
	}
	conn, err := o.connect(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	label := redact.URL(conn.Settings.BaseURL.Value)
	if conn.Settings.Local() {
		label = "local list"
	}
	state, err := config.StateDir()
	if err != nil {
		// Without a state directory the UI works; it keeps no history.
		state = ""
	}
	m := ui.New(ui.Options{
		Service:  conn.Client,
		Target:   ui.Target{Profile: conn.Profile, Label: label, MaskedKey: conn.MaskedKey, Local: conn.Settings.Local()},
		StateDir: state,
		// One batch at a time: a person's list is small, and the Send
		// screen shows it batch by batch.
		Runs: &batch.Runs{Dir: conn.JournalDir, Client: conn.Client, Source: "ui", Profile: conn.Profile, KeyPrint: conn.KeyPrint,
			Concurrency: 1, StateDir: state},
		Own:       conn.Settings.Own,
		Clipboard: os.Stderr,
		Notice:    capitalize(fallbackNotice(conn.Settings)),
		SyncWith:  o.syncPeers(conn),
	})
	var input io.Reader = o.io.In
	var pastes *ui.Input
	if f, ok := o.io.In.(*os.File); ok && runtime.GOOS != "windows" {
		// Pastes are taken off the input before Bubble Tea's reader (see
		// ui.Input); the terminal is put in raw mode here, as Bubble Tea
		// does only for a file it reads itself.
		old, err := term.MakeRaw(int(f.Fd()))
		if err != nil {
			return fmt.Errorf("the terminal cannot be set up for the UI: %v", err)
		}
		defer term.Restore(int(f.Fd()), old)
		pastes = ui.NewInput(f)
		input = pastes
	}
	p := tea.NewProgram(m, tea.WithAltScreen(), tea.WithContext(ctx), tea.WithInput(input), tea.WithOutput(o.io.Out))
	if pastes != nil {
		pastes.Start(p.Send)
		defer pastes.Close()
	}
	// shush's own service has team rules; the UI greys the protected
	// addresses once it knows them (another service answers 404: none).
	go func() {
		if team, err := conn.Client.Team(ctx); err == nil && len(team.Protected) > 0 {
			p.Send(ui.Protected(team.Protected))
		}
	}()
	_, err = p.Run()
	// A program killed mid-send (a hang-up) leaves its run to be journaled.
	m.Close()
	if err != nil && !errors.Is(err, tea.ErrProgramKilled) {
		return fmt.Errorf("the terminal UI stopped: %v", err)
	}
	return nil
}
