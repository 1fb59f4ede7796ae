package cli

import "github.com/spf13/cobra"

func (a *app) runUI(cmd *cobra.Command, _ []string) error {
	return cmd.Help()
}
