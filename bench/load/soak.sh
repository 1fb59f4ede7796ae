#!/usr/bin/env bash
# soak.sh runs `shush serve` under the load tool's mixed load for a long
# time and samples, every INTERVAL seconds, the process's memory (VmRSS and
# its peak from /proc) and OS threads, and its live goroutines. shush serve
# exposes no goroutine count and this script adds no endpoint: the count
# comes from the Go runtime's own scheduler trace on stderr
# (GODEBUG=schedtrace,scheddetail=1 lists every goroutine; dead ones, kept
# for reuse, are not counted). When the load ends and the service has been
# idle a few seconds, it sends SIGQUIT, which makes the runtime print every
# goroutine, and counts them too.
#
#   bench/load/soak.sh sqlite|postgres [DURATION] [CLIENTS] [FILL] [INTERVAL]
#   (defaults: 10m 8 100000 30)
#
# PostgreSQL: SHUSH_BENCH_POSTGRES, as for compare.sh; a schema of its own,
# dropped at the end. SHUSH_BIN: a shush binary instead of building this tree.
set -euo pipefail
STORE=${1:?usage: soak.sh sqlite|postgres [DURATION] [CLIENTS] [FILL] [INTERVAL]}
DURATION=${2:-10m}
CLIENTS=${3:-8}
FILL=${4:-100000}
INTERVAL=${5:-30}
PG=${SHUSH_BENCH_POSTGRES:-postgres://postgres@127.0.0.1:5432/test?sslmode=disable}
PORT=${SOAK_PORT:-18090}
cd "$(dirname "$0")/../.."
work=$(mktemp -d)
schema=shush_soak_$$
serve_pid=
load_pid=
cleanup() {
	[ -n "$load_pid" ] && kill "$load_pid" 2>/dev/null || true
	[ -n "$serve_pid" ] && kill "$serve_pid" 2>/dev/null || true
	wait 2>/dev/null || true
	[ "$STORE" = postgres ] && psql -q "$PG" -c "DROP SCHEMA IF EXISTS $schema CASCADE" >/dev/null 2>&1 || true
	rm -rf "$work"
}
trap cleanup EXIT
umask 077
if [ -n "${SHUSH_BIN:-}" ]; then cp "$SHUSH_BIN" "$work/shush"; else go build -o "$work/shush" .; fi
go build -o "$work/load" ./bench/load
case "$STORE" in
sqlite) dsn="$work/soak.db" ;;
postgres)
	psql -q "$PG" -c "CREATE SCHEMA $schema" >/dev/null
	dsn="$PG&search_path=$schema"
	;;
*) echo "soak.sh: the store is sqlite or postgres, not $STORE" >&2; exit 2 ;;
esac
"$work/shush" keys create --team soak --db "$dsn" >"$work/key" 2>/dev/null
GODEBUG="schedtrace=${INTERVAL}000,scheddetail=1" GOTRACEBACK=all "$work/shush" serve --addr "127.0.0.1:$PORT" --db "$dsn" --rate 1000000 --log-format json 2>"$work/serve.log" &
serve_pid=$!
for _ in $(seq 100); do
	curl -fs "http://127.0.0.1:$PORT/healthz" >/dev/null 2>&1 && break
	sleep 0.1
done
url="http://127.0.0.1:$PORT"
"$work/load" -url "$url" -key-file "$work/key" -clients "$CLIENTS" -fill "$FILL" -duration 1s -mix list=1 >/dev/null

# goroutines counts the live goroutines of the last complete scheduler dump
# (so it lags up to one interval behind).
goroutines() {
	local last
	last=$(grep -c '^SCHED' "$work/serve.log" || true)
	if [ "$last" -lt 2 ]; then echo "-"; return; fi
	awk -v last="$last" \
		'/^SCHED/ {n++} n == last-1 && /^ +G[0-9]+:/ && !/status=6\(/ {c++} END {print c+0}' "$work/serve.log"
}
sample() {
	awk -v t="$1" -v g="$(goroutines)" '/^VmRSS/ {rss=$2} /^VmHWM/ {hwm=$2} /^Threads/ {th=$2}
		END {printf "%8s  %10.1f  %10.1f  %7d  %10s\n", t, rss/1024, hwm/1024, th, g}' "/proc/$serve_pid/status"
}
echo "soak: $STORE, $DURATION of mixed load (add=45,remove=45,list=10), $CLIENTS clients, list filled to $FILL first"
printf "%8s  %10s  %10s  %7s  %10s\n" "elapsed" "RSS MiB" "peak MiB" "threads" "goroutines"
sample "0s"
"$work/load" -url "$url" -key-file "$work/key" -clients "$CLIENTS" -duration "$DURATION" -mix add=45,remove=45,list=10 \
	-max-requests 100000000 >"$work/load.out" 2>&1 &
load_pid=$!
start=$(date +%s)
while kill -0 "$load_pid" 2>/dev/null; do
	sleep "$INTERVAL"
	kill -0 "$load_pid" 2>/dev/null || break
	sample "$(($(date +%s) - start))s"
done
wait "$load_pid" || true
load_pid=
sleep $((INTERVAL + 5))
sample "idle"
cat "$work/load.out"
kill -QUIT "$serve_pid"
wait "$serve_pid" 2>/dev/null || true
serve_pid=
echo "goroutines in the idle service after the load (SIGQUIT dump): $(grep -cE '^goroutine [1-9][0-9]* ' "$work/serve.log")"
echo "(a fresh, idle shush serve has 14)"
