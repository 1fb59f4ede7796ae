-- the end of the lease of an event whose attempt is under way (unix ms),
-- NULL otherwise: a replay of it then keeps the lease instead of making it
-- due at once beside the attempt, so that one event is never sent twice
-- at the same time.
ALTER TABLE webhook_events ADD COLUMN leased_until INTEGER;
