-- one-click unsubscribe (RFC 8058): each team's key for the tokens its
-- senders mint offline (an HMAC key, 32 random bytes, made on first use).
-- It is a secret: never logged, answered only to a read-write key.
-- Domain entries ("@d", "*.d") need no schema: they are entries whose
-- email is the entry itself, found by the address index.
CREATE TABLE oneclick_keys (
	team       text        NOT NULL PRIMARY KEY,
	secret     bytea       NOT NULL,
	created_at timestamptz NOT NULL
);
