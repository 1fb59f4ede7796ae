package cli

import "github.com/spf13/cobra"

func (a *app) suppressionsCommand() *cobra.Command {
	return &cobra.Command{Use: "suppressions", Short: "Read and change the suppression list"}
}

func (a *app) configCommand() *cobra.Command {
	return &cobra.Command{Use: "config", Short: "Show the effective settings"}
}
