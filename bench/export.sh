#!/usr/bin/env bash
# Times the export of a list of N entries from `shush serve` against the
# database's own CSV dump of the same rows in the same order (newest
# first), paired in each round, and prints each round and the median of
# the rounds' ratios:
#   floor: `sqlite3 -csv` (SQLite) or psql's `\copy (…) TO STDOUT CSV`
#          (PostgreSQL), the timestamps written as the export writes them;
#   shush: `curl` of GET /suppressions/export?format=csv (the service alone;
#          the CLI only copies the body to its file).
# The list is seeded in SQL into the schema `shush keys create --db` made
# (1 % bounces with a source, the rest manual), so that only the export is
# timed. The order of the pair alternates from round to round.
#
# Needs: curl, python3 (a free port), sqlite3 (SQLite) or psql
# (PostgreSQL, with SHUSH_TEST_POSTGRES naming the server; each run works
# in a schema of its own, dropped at the end).
#
#   go build -o /tmp/shush . && bash bench/export.sh /tmp/shush sqlite 1000000 5
#   SHUSH_TEST_POSTGRES=postgres://postgres@127.0.0.1:5432/test?sslmode=disable \
#     bash bench/export.sh /tmp/shush postgres 1000000 5
set -euo pipefail
bin=$1 kind=$2 n=$3 rounds=${4:-5}
for tool in curl python3; do
  command -v "$tool" >/dev/null || { echo "bench/export.sh needs $tool" >&2; exit 1; }
done
dir=$(mktemp -d)
serve= schema=
cleanup() {
  if [[ -n $serve ]]; then kill "$serve" 2>/dev/null || true; wait "$serve" 2>/dev/null || true; fi
  if [[ -n $schema ]]; then psql -q "$SHUSH_TEST_POSTGRES" -c "SET client_min_messages = warning; DROP SCHEMA $schema CASCADE" >/dev/null; fi
  rm -rf "$dir"
}
trap cleanup EXIT
export HOME=$dir XDG_STATE_HOME=$dir/state XDG_DATA_HOME=$dir/data XDG_CONFIG_HOME=$dir/config

case $kind in
sqlite)
  command -v sqlite3 >/dev/null || { echo "bench/export.sh needs sqlite3 (Debian: apt-get install sqlite3)" >&2; exit 1; }
  db=$dir/service.db
  key=$("$bin" keys create --team bench --db "$db" --json --jq .key | tr -d '"')
  sqlite3 "$db" "WITH RECURSIVE g(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM g WHERE i + 1 < $n)
    INSERT INTO suppressions (team, id, email, origin, source_id, created_at)
    SELECT 'bench', printf('01900000-0000-7000-8000-%012x', i), printf('user%07d@example.com', i),
      CASE WHEN i % 100 = 0 THEN 'bounce' ELSE 'manual' END, CASE WHEN i % 100 = 0 THEN 'evt-' || i END,
      1795000000000 + i FROM g"
  floor() {
    sqlite3 -csv "$db" "SELECT id, email, origin, source_id, strftime('%Y-%m-%dT%H:%M:%fZ', created_at / 1000.0, 'unixepoch'), note,
      strftime('%Y-%m-%dT%H:%M:%fZ', expires_at / 1000.0, 'unixepoch') FROM suppressions WHERE team = 'bench' ORDER BY id DESC" >"$dir/floor.csv"
  }
  ;;
postgres)
  command -v psql >/dev/null || { echo "bench/export.sh needs psql (Debian: apt-get install postgresql-client)" >&2; exit 1; }
  [[ -n ${SHUSH_TEST_POSTGRES:-} ]] || { echo "bench/export.sh postgres needs SHUSH_TEST_POSTGRES" >&2; exit 1; }
  schema=shush_export_$$
  psql -q "$SHUSH_TEST_POSTGRES" -c "CREATE SCHEMA $schema" >/dev/null
  sep='?'; [[ $SHUSH_TEST_POSTGRES == *\?* ]] && sep='&'
  db="$SHUSH_TEST_POSTGRES${sep}search_path=$schema"
  key=$("$bin" keys create --team bench --db "$db" --json --jq .key | tr -d '"')
  pg() { PGOPTIONS="-c search_path=$schema" psql -q "$SHUSH_TEST_POSTGRES" "$@"; }
  pg -c "INSERT INTO suppressions (id, team, email, origin, source_id, created_at)
    SELECT ('01900000-0000-7000-8000-' || lpad(to_hex(g), 12, '0'))::uuid, 'bench', 'user' || lpad(g::text, 7, '0') || '@example.com',
      CASE WHEN g % 100 = 0 THEN 'bounce' ELSE 'manual' END, CASE WHEN g % 100 = 0 THEN 'evt-' || g END,
      timestamptz '2026-11-18 00:00:00+00' + g * interval '1 millisecond'
    FROM generate_series(0, $n - 1) g" -c "VACUUM ANALYZE suppressions" >/dev/null
  floor() {
    pg -c "\\copy (SELECT id, email, origin, source_id, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"'), note,
      to_char(expires_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"') FROM suppressions WHERE team = 'bench' ORDER BY team DESC, id DESC) TO STDOUT CSV" >"$dir/floor.csv"
  }
  ;;
*)
  echo "store must be sqlite or postgres, not $kind" >&2
  exit 2
  ;;
esac

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$bin" serve --addr "127.0.0.1:$port" --db "$db" --rate 1000000 >/dev/null 2>&1 &
serve=$!
for _ in $(seq 100); do curl -fs "127.0.0.1:$port/healthz" >/dev/null && break; sleep 0.1; done
shush() {
  curl -fsS -H "Authorization: Bearer $key" "http://127.0.0.1:$port/suppressions/export?format=csv" -o "$dir/shush.csv"
}
seconds() { # runs "$@" and prints its wall time in seconds
  local t0 t1
  t0=$(date +%s.%N)
  "$@"
  t1=$(date +%s.%N)
  echo "$t1 - $t0" | bc
}
# A warm-up of each, so that neither round pays for a cold cache alone.
floor
shush
[[ $(wc -l <"$dir/floor.csv") -eq $n && $(wc -l <"$dir/shush.csv") -eq $((n + 1)) ]] || {
  echo "the outputs do not hold $n rows: floor $(wc -l <"$dir/floor.csv"), shush $(wc -l <"$dir/shush.csv") (with its header)" >&2
  exit 1
}
# The same rows in the same order, byte for byte but for line ends and the
# export's header.
cmp -s <(tail -n +2 "$dir/shush.csv" | tr -d '\r') <(tr -d '\r' <"$dir/floor.csv") || {
  echo "the export and the floor differ" >&2
  exit 1
}
ratios=()
for r in $(seq "$rounds"); do
  if ((r % 2)); then
    f=$(seconds floor); s=$(seconds shush)
  else
    s=$(seconds shush); f=$(seconds floor)
  fi
  ratio=$(echo "scale=3; $s / $f" | bc)
  ratios+=("$ratio")
  printf 'round %d: floor %.3f s, shush %.3f s, %.2fx (load %s)\n' "$r" "$f" "$s" "$ratio" "$(cut -d' ' -f1 /proc/loadavg)"
done
printf '%s\n' "${ratios[@]}" | sort -n | awk '{ a[NR] = $1 } END { printf "median shush / floor: %.2fx (%.2f-%.2f) over %d rounds\n", a[int((NR + 1) / 2)], a[1], a[NR], NR }'
