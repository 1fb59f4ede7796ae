package cli

import "github.com/spf13/cobra"

func (a *app) serveCommand() *cobra.Command {
	return &cobra.Command{Use: "serve", Short: "Run the suppression list service"}
}

func (a *app) keysCommand() *cobra.Command {
	return &cobra.Command{Use: "keys", Short: "Manage the service's API keys"}
}
