-- nothing to change: PostgreSQL's changes of one team do not wait for
-- another team's (SQLite's fan-out table and due index are its own).
SELECT 1;
