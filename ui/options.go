package ui

import (
	"io"

	"github.com/charmbracelet/lipgloss"

	"github.com/shushlist/shush/api/client"
	"github.com/shushlist/shush/batch"
)

// Target says where the UI works; it is shown in the header at all times.
type Target struct {
	// Profile is the config profile in use ("default" when none).
	Profile string
	// Label is the base URL, or "local list" for the embedded default.
	Label string
	// MaskedKey is the API key with all but its last characters hidden.
	MaskedKey string
	// Local marks the embedded default list, whose key shush keeps for
	// itself: the header names no key for it.
	Local bool
	// Agent and Team name the agent of a session served over SSH, who
	// works without a profile or a key: the header shows them instead.
	Agent, Team string
}

// Protected is a message with the team's protected addresses and domains
// (GET /team), for a program whose Options could not have them yet: the
// rows on the list and those to come are marked by them.
type Protected []string

// Options are what New needs.
type Options struct {
	// Service is the client of the suppression service. Its Get and List
	// may answer 404/405 on services that only have the batch endpoints;
	// the UI then hides lookups and browsing.
	Service *client.Client
	Target  Target
	// StateDir is where the history of runs is kept; empty disables it.
	StateDir string
	// Runs is the run service the UI sends, resumes, reads and undoes its
	// runs with, recorded where the CLI finds them too; nil sends runs
	// without recording them.
	Runs *batch.Runs
	// Own lists our own addresses ("x@y.z") and domains ("@y.z"), from the
	// config file: they never enter a batch.
	Own []string
	// Protected lists the team's protected addresses and domains (the
	// service's GET /team): an addition leaves them out, greyed with the
	// reason, as the service would refuse them.
	Protected []string
	// StartDir is where the file picker opens; empty means the working
	// directory.
	StartDir string
	// Clipboard receives the OSC 52 sequence that copies IDs; nil means the
	// program's terminal is not written to.
	Clipboard io.Writer
	// Notice is a line the UI shows at start, until the agent moves on:
	// for one, which service it works on and why, when the environment
	// chose it rather than the agent's settings.
	Notice string
	// Renderer builds the styles; nil means lipgloss's default renderer,
	// which follows the terminal's colour profile and NO_COLOR.
	Renderer *lipgloss.Renderer
	// SyncWith are the other profiles' lists History offers to sync this
	// one with (shush sync's plan as a review, and its apply); none
	// hides it.
	SyncWith []SyncPeer
	// Remote says the person is not at this machine (a session served
	// over SSH): its files are not theirs, so the UI opens and writes
	// none (no file picker, no exports); results are still copied.
	Remote bool
}
