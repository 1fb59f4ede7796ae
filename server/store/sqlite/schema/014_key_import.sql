-- the import permission of a key: an addition by such a key may keep its
-- entries' own IDs and creation times (a list moved whole from another
-- service keeps what refers to its entries).
ALTER TABLE api_keys ADD COLUMN can_import INTEGER NOT NULL DEFAULT 0;
