// Package ui is the terminal UI of shush: a Bubble Tea program in which a
// support agent builds a list of addresses or IDs (pasted from a ticket,
// typed, or read from a file), reviews what will be sent, sends it in
// batches, and checks the results; it also browses the service's list and
// keeps a local history of runs.
//
// The package never talks HTTP itself: runs go through the run service (batch.Runs) and
// lookups through batch.Lookup or the client.Client given in Options, always
// inside a tea.Cmd, and their answers come back as typed messages.
package ui
