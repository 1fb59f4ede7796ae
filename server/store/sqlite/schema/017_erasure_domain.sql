-- The team's erasure policy (docs/erasure.md, "The domain"): with
-- erasure_keeps_domain set, an erased entry keeps its address's domain in
-- clear in erased_domain, beside its hash, so that reports can count
-- erased entries by domain. Off (0) by default; erased_domain is NULL on
-- every other entry.
ALTER TABLE teams ADD COLUMN erasure_keeps_domain INTEGER NOT NULL DEFAULT 0;
ALTER TABLE suppressions ADD COLUMN erased_domain TEXT;
