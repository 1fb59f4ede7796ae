// Package outbox runs the service's background work on its database, as
// small services with a config, defaults and a lifecycle (Run until the
// context ends), started by the service's runtime (server.Service):
//
//   - the Deliverer drains the transactional outbox of webhook events that
//     changes fill: it claims due events under a lease, signs and sends
//     each attempt, and records its outcome with the next retry;
//   - the Pruner deletes, on a schedule, the trail's entries and the
//     settled webhook events (with their attempts) older than their
//     retention;
//   - the Sweeper takes entries whose expiry has passed off their lists,
//     as removals by the service itself, with their trail and events.
//
// Each declares the few store methods it uses (Outbox, Retention, Expiry) rather
// than the whole store, and none of it depends on the HTTP API.
package outbox
