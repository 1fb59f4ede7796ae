package ui

import (
	"context"
	"io"

	"github.com/charmbracelet/lipgloss"

	"github.com/shushlist/shush/api"
)

// Service is what the UI needs from the suppression service. *api.Client
// provides it; Get and List may answer 404/405 on services that only have
// the batch endpoints, and the UI then hides lookups and browsing.
type Service interface {
	BatchAdd(ctx context.Context, emails []string) ([]api.Suppression, error)
	BatchRemoveEmails(ctx context.Context, emails []string) ([]api.Suppression, error)
	BatchRemoveIDs(ctx context.Context, ids []string) ([]api.Suppression, error)
	Get(ctx context.Context, idOrEmail string) (api.Entry, error)
	List(ctx context.Context, p api.ListParams) (api.ListResponse, error)
	// Supports reports whether the service offers lookups and the list.
	Supports(ctx context.Context) (bool, error)
}

// Target says where the UI works; it is shown in the header at all times.
type Target struct {
	// Profile is the config profile in use ("default" when none).
	Profile string
	// Label is the base URL, or "local list" for the embedded default.
	Label string
	// MaskedKey is the API key with all but its last characters hidden.
	MaskedKey string
}

// Options are what New needs.
type Options struct {
	Service Service
	Target  Target
	// StateDir is where the history of runs is kept; empty disables it.
	StateDir string
	// StartDir is where the file picker opens; empty means the working
	// directory.
	StartDir string
	// Clipboard receives the OSC 52 sequence that copies IDs; nil means the
	// program's terminal is not written to.
	Clipboard io.Writer
	// Renderer builds the styles; nil means lipgloss's default renderer,
	// which follows the terminal's colour profile and NO_COLOR.
	Renderer *lipgloss.Renderer
}
