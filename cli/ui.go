package cli

import (
	"errors"
	"fmt"
	"os"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/spf13/cobra"

	"github.com/shushlist/shush/config"
	"github.com/shushlist/shush/ui"
)

// runUI opens the terminal UI on the configured service, or on the local
// list when none is configured.
func (a *app) runUI(cmd *cobra.Command, _ []string) error {
	ctx := cmd.Context()
	if !isTerminal(a.io.In) || !isTerminal(a.io.Out) {
		return usagef("the terminal UI needs a terminal; in scripts use the shush suppressions commands (see shush --help)")
	}
	conn, err := a.connect(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	label := conn.Settings.BaseURL.Value
	if conn.Settings.Local() {
		label = "local list"
	}
	state, err := config.StateDir()
	if err != nil {
		// Without a state directory the UI works; it keeps no history.
		state = ""
	}
	m := ui.New(ui.Options{
		Service:    conn.Client,
		Target:     ui.Target{Profile: conn.Profile, Label: label, MaskedKey: conn.MaskedKey},
		StateDir:   state,
		JournalDir: conn.JournalDir,
		Clipboard:  os.Stderr,
	})
	p := tea.NewProgram(m, tea.WithAltScreen(), tea.WithContext(ctx), tea.WithInput(a.io.In), tea.WithOutput(a.io.Out))
	if _, err := p.Run(); err != nil && !errors.Is(err, tea.ErrProgramKilled) {
		return fmt.Errorf("the terminal UI stopped: %v", err)
	}
	return nil
}
