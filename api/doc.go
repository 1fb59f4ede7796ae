// Package api is the contract of the Suppression List Batch API in code:
// the wire types, the address, ID, reference and webhook rules that client
// and service share (ValidEndpoint, ValidEventName and their bounds),
// webhook signing (SignWebhook, VerifyWebhook), and the error type.
//
// The rules here are the ones of the API spec and of the contract that fills
// its gaps; the service (package server) and every client face of shush
// (CLI, terminal UI) use this package so that what a user sees is what the
// service stores. It holds no HTTP client (that is package api/client), so
// the service and its store link none.
package api
