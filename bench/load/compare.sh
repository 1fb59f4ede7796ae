#!/usr/bin/env bash
# compare.sh measures the service with the load tool on SQLite and on
# PostgreSQL, with one and with two `shush serve` processes, over a list
# filled to FILL entries first. It prints the load tool's tables.
#
#   bench/load/compare.sh [DURATION] [CLIENTS] [FILL]     (defaults: 30s 8 1000000)
#
# PostgreSQL: SHUSH_BENCH_POSTGRES (default
# postgres://postgres@127.0.0.1:5432/test?sslmode=disable); the run works in
# a schema of its own and drops it at the end. SHUSH_BIN: a shush binary to
# measure instead of building this tree. STORES: which stores to measure
# (default "sqlite postgres"). Everything runs on loopback.
set -euo pipefail
DURATION=${1:-30s}
CLIENTS=${2:-8}
FILL=${3:-1000000}
PG=${SHUSH_BENCH_POSTGRES:-postgres://postgres@127.0.0.1:5432/test?sslmode=disable}
cd "$(dirname "$0")/../.."
work=$(mktemp -d)
schema=shush_bench_$$
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	psql -q "$PG" -c "DROP SCHEMA IF EXISTS $schema CASCADE" >/dev/null 2>&1 || true
	rm -rf "$work"
}
trap cleanup EXIT
umask 077
if [ -n "${SHUSH_BIN:-}" ]; then cp "$SHUSH_BIN" "$work/shush"; else go build -o "$work/shush" .; fi
go build -o "$work/load" ./bench/load

serve() { # port dsn
	"$work/shush" serve --addr "127.0.0.1:$1" --db "$2" --rate 1000000 --log-format json 2>/dev/null &
	pids+=($!)
	for _ in $(seq 100); do
		curl -fs "http://127.0.0.1:$1/healthz" >/dev/null 2>&1 && return
		sleep 0.1
	done
	echo "serve on port $1 did not start" >&2
	exit 1
}
stop_all() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	pids=()
}

for store in ${STORES:-sqlite postgres}; do
	if [ "$store" = sqlite ]; then
		dsn="$work/bench.db"
	else
		psql -q "$PG" -c "CREATE SCHEMA $schema" >/dev/null
		dsn="$PG&search_path=$schema"
	fi
	"$work/shush" keys create --team bench --db "$dsn" >"$work/key" 2>/dev/null
	serve 18081 "$dsn"
	echo "== $store: filling the list to $FILL entries"
	"$work/load" -url http://127.0.0.1:18081 -key-file "$work/key" -clients "$CLIENTS" -fill "$FILL" -duration 1s -mix list=1 -seed 1 >/dev/null
	echo "== $store, one process"
	"$work/load" -url http://127.0.0.1:18081 -key-file "$work/key" -clients "$CLIENTS" -duration "$DURATION" -seed 2 || true
	serve 18082 "$dsn"
	echo "== $store, two processes"
	"$work/load" -url http://127.0.0.1:18081,http://127.0.0.1:18082 -key-file "$work/key" -clients "$CLIENTS" -duration "$DURATION" -seed 3 || true
	stop_all
done
