// Package api is the Suppression List Batch API in code: the wire types, the
// address and ID rules that client and service share, the error type, and the
// HTTP client.
//
// The rules here are the ones of the API spec and of the contract that fills
// its gaps; the service (package server) and every client face of shush
// (CLI, terminal UI) use this package so that what a user sees is what the
// service stores.
package api
