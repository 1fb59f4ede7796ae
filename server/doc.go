// Package server is the Suppression List Batch API service. It owns:
//
//   - the API as an http.Handler (Server): routing; request decoding with
//     the contract's error answers; a chain of layers, one concern each
//     (request ID and log, metrics, framing, deadline, API-key
//     authentication, the rate limit per team, the budget of request
//     bodies held at once); the suppression, audit trail, export and
//     webhooks endpoints; probes and the OpenAPI document;
//   - the runtime a process runs (Service): the listeners, TLS, the
//     http.Server timeouts, the connection-level framing guard, the
//     metrics listener, the webhook deliverer and retention pruner of
//     package outbox, and graceful shutdown;
//   - the Prometheus metrics, the cache of verified keys, and key
//     administration for the CLI (CreateKey, ValidateTeam);
//   - opening a store from a DSN (OpenStore, ClassifyDSN; its passwords
//     are hidden with internal/redact); the Store interface and its SQLite and PostgreSQL implementations live
//     in package store and below.
package server
