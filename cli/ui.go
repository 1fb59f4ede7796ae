package cli

import (
	"errors"
	"fmt"
	"os"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/spf13/cobra"

	"github.com/shushlist/shush/api"
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
	s, err := a.settings()
	if err != nil {
		return err
	}
	var (
		client *api.Client
		key    string
		label  = s.BaseURL.Value
	)
	opts := []api.Option{api.WithUserAgent(Version)}
	if s.Local() {
		var closeFn func() error
		client, key, closeFn, err = openLocal(ctx, s, opts...)
		if err != nil {
			return err
		}
		defer closeFn()
		label = "local list"
	} else {
		key = s.APIKey.Value
		client = api.NewClient(s.BaseURL.Value, key, opts...)
	}
	state, err := config.StateDir()
	if err != nil {
		state = ""
	}
	profile := s.Profile.Value
	m := ui.New(ui.Options{
		Service:   client,
		Target:    ui.Target{Profile: profile, Label: label, MaskedKey: config.MaskKey(key)},
		StateDir:  state,
		Clipboard: os.Stderr,
	})
	p := tea.NewProgram(m, tea.WithAltScreen(), tea.WithContext(ctx), tea.WithInput(a.io.In), tea.WithOutput(a.io.Out))
	if _, err := p.Run(); err != nil && !errors.Is(err, tea.ErrProgramKilled) {
		return fmt.Errorf("the terminal UI stopped: %w", err)
	}
	return nil
}
