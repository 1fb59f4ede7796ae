-- nothing: a step of its own takes this number.
SELECT 1;
