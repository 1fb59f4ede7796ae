#!/usr/bin/env bash
# Peak memory (maximum resident set size) and wall time of the batch import
# and the export at N addresses, with GNU time:
#   1. `shush suppressions batch add --file F --dry-run` (reading and
#      planning alone);
#   2. `shush suppressions batch add --file F` into a fresh `shush serve`
#      (SQLite) on loopback with its rate limit out of the way, the --json
#      answer to /dev/null; the service's peak over the import;
#   3. `shush suppressions export --output` of the N entries from a service
#      started again on that database; the service's peak over the export.
# The addresses are `user%07d@example.com`, distinct and sorted. Extra
# arguments go to the import (e.g. --concurrency 4). Two floors are
# measured in the same run: `shush version` (what any run of the binary
# takes) and the export fetched with curl (the service alone). Prints one
# line per step: seconds and peak RSS in KB.
#
#   go build -o /tmp/shush . && bash bench/rss.sh /tmp/shush 1000000
set -euo pipefail
bin=$1 n=$2
shift 2
dir=$(mktemp -d)
serve=
stop() {
  if [[ -n $serve ]]; then
    kill -INT "$(pgrep -P "$serve")" 2>/dev/null || true
    wait "$serve" 2>/dev/null || true
    serve=
  fi
}
trap 'stop; rm -rf "$dir"' EXIT
export HOME=$dir XDG_STATE_HOME=$dir/state XDG_DATA_HOME=$dir/data XDG_CONFIG_HOME=$dir/config
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
start() { # $1: where GNU time writes the service's figures
  /usr/bin/time -f '%e %M' -o "$1" "$bin" serve --addr "127.0.0.1:$port" --db "$dir/service.db" --rate 1000000 >/dev/null 2>&1 &
  serve=$!
  for _ in $(seq 100); do curl -fs "127.0.0.1:$port/healthz" >/dev/null && return; sleep 0.1; done
  echo "shush serve did not start" >&2
  exit 1
}
# The key goes through the environment: it never shows in a command line.
SHUSH_API_KEY=$("$bin" keys create --team bench --db "$dir/service.db" --json --jq .key | tr -d '"')
export SHUSH_API_KEY SHUSH_BASE_URL="http://127.0.0.1:$port"
awk -v n="$n" 'BEGIN { for (i = 0; i < n; i++) printf "user%07d@example.com\n", i }' >"$dir/in.txt"

/usr/bin/time -f '%e %M' -o "$dir/floor.time" "$bin" version >/dev/null
echo "floor (shush version): $(cat "$dir/floor.time")"
/usr/bin/time -f '%e %M' -o "$dir/dry.time" "$bin" suppressions batch add --file "$dir/in.txt" --dry-run >/dev/null
echo "dry-run client: $(cat "$dir/dry.time")"

start "$dir/serve-import.time"
/usr/bin/time -f '%e %M' -o "$dir/import.time" "$bin" suppressions batch add --file "$dir/in.txt" "$@" >/dev/null
stop
echo "import client: $(cat "$dir/import.time")"
echo "import service: $(cat "$dir/serve-import.time")"

# The service's anonymous memory (its heap, not the database file it maps)
# at its highest during the export, sampled every 50 ms.
sample() { # $1: pid; prints the highest RssAnon in KB until the process ends
  local most=0 kb
  while kb=$(awk '/^RssAnon:/ {print $2}' "/proc/$1/status" 2>/dev/null) && [[ -n $kb ]]; do
    ((kb > most)) && most=$kb
    sleep 0.05
  done
  echo "$most"
}
start "$dir/serve-export.time"
sample "$(pgrep -P "$serve")" >"$dir/anon" &
sampler=$!
/usr/bin/time -f '%e %M' -o "$dir/curl.time" curl -fsS -o "$dir/curl.csv" --config - <<<"header = \"Authorization: Bearer $SHUSH_API_KEY\"
url = \"$SHUSH_BASE_URL/suppressions/export\""
/usr/bin/time -f '%e %M' -o "$dir/export.time" "$bin" suppressions export --output "$dir/out.csv" 2>/dev/null
stop
wait "$sampler"
echo "export floor (curl): $(cat "$dir/curl.time")"
echo "export client: $(cat "$dir/export.time")"
echo "export service: $(cat "$dir/serve-export.time") (anonymous: $(cat "$dir/anon") KB)"
lines=$(wc -l <"$dir/out.csv")
if [[ $lines -ne $((n + 1)) ]]; then
  echo "the export has $lines lines, not $((n + 1))" >&2
  exit 1
fi
