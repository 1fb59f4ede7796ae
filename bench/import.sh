#!/usr/bin/env bash
# Times an import of N new addresses into a fresh `shush serve` (SQLite) on
# loopback: starts the service on a free port with a high rate limit,
# creates a key, writes the addresses and times
# `shush suppressions batch add --file` at the given concurrency. Prints the
# wall time in seconds.
#
#   go build -o /tmp/shush . && bash bench/import.sh /tmp/shush 200000 1
set -euo pipefail
bin=$1 n=$2 concurrency=${3:-1}
dir=$(mktemp -d)
trap 'kill "$serve" 2>/dev/null; wait "$serve" 2>/dev/null; rm -rf "$dir"' EXIT
export HOME=$dir XDG_STATE_HOME=$dir/state XDG_DATA_HOME=$dir/data XDG_CONFIG_HOME=$dir/config
key=$("$bin" keys create --team bench --db "$dir/service.db" --json --jq .key | tr -d '"')
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$bin" serve --addr "127.0.0.1:$port" --db "$dir/service.db" --rate 100000 >/dev/null 2>&1 &
serve=$!
for _ in $(seq 100); do curl -fs "127.0.0.1:$port/healthz" >/dev/null && break; sleep 0.1; done
awk -v n="$n" 'BEGIN { for (i = 0; i < n; i++) printf "u%08d@example.com\n", i }' >"$dir/in.txt"
start=$(date +%s.%N)
SHUSH_BASE_URL="http://127.0.0.1:$port" SHUSH_API_KEY="$key" \
  "$bin" suppressions batch add --file "$dir/in.txt" --concurrency "$concurrency" >/dev/null
end=$(date +%s.%N)
echo "$end - $start" | bc
