#!/usr/bin/env bash
# mixed.sh measures shush serve (SQLite) against the minimal peer
# (bench/peer) under the load tool's mixed batch adds and removes, in
# paired rounds: each round fills a fresh file of each to FILL entries and
# then runs CLIENTS clients for DURATION on each, the order alternating.
# It prints each round's requests/s and the ratio shush / peer, then the
# median ratio.
#
#   bench/mixed.sh [ROUNDS] [DURATION] [CLIENTS] [FILL] [MIX]
#   (defaults: 5 6s 16 100000 add=50,remove=50)
#
# SHUSH_BIN: a shush binary to measure instead of building this tree.
# STORE=postgres measures both on PostgreSQL instead (SHUSH_BENCH_POSTGRES,
# default postgres://postgres@127.0.0.1:5432/test?sslmode=disable; each run
# in a fresh schema, dropped after it; the peer's pool has 16 connections).
# Everything runs on loopback.
set -euo pipefail
ROUNDS=${1:-5}
DURATION=${2:-6s}
CLIENTS=${3:-16}
FILL=${4:-100000}
MIX=${5:-add=50,remove=50}
STORE=${STORE:-sqlite}
PG=${SHUSH_BENCH_POSTGRES:-postgres://postgres@127.0.0.1:5432/test?sslmode=disable}
cd "$(dirname "$0")/.."
work=$(mktemp -d)
pid=
schema=
drop_schema() {
	[ -n "$schema" ] && psql -q "$PG" -c "DROP SCHEMA IF EXISTS $schema CASCADE" >/dev/null 2>&1 || true
	schema=
}
cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null || true
	wait 2>/dev/null || true
	drop_schema
	rm -rf "$work"
}
trap cleanup EXIT
umask 077
if [ -n "${SHUSH_BIN:-}" ]; then cp "$SHUSH_BIN" "$work/shush"; else go build -o "$work/shush" .; fi
go build -o "$work/load" ./bench/load
go build -o "$work/peer" ./bench/peer

start() { # what port db
	if [ "$1" = shush ]; then
		"$work/shush" serve --addr "127.0.0.1:$2" --db "$3" --rate 1000000 --log-format json >/dev/null 2>&1 &
	else
		"$work/peer" -addr "127.0.0.1:$2" -db "$3" >/dev/null 2>&1 &
	fi
	pid=$!
	for _ in $(seq 100); do
		# Any answer means it listens (the peer has no health route).
		curl -s -o /dev/null "http://127.0.0.1:$2/healthz" && return
		sleep 0.1
	done
	echo "$1 on port $2 did not start" >&2
	exit 1
}

run() { # what round: writes "requests/s errors" to $work/result
	local db="$work/$1-$2.db" port=18091
	[ "$1" = peer ] && port=18092
	if [ "$STORE" = postgres ]; then
		schema="shush_mixed_$$_$1_$2"
		psql -q "$PG" -c "CREATE SCHEMA $schema" >/dev/null
		db="$PG&search_path=$schema"
	fi
	"$work/shush" keys create --team bench --db "$db" >"$work/key" 2>/dev/null
	start "$1" "$port" "$db"
	"$work/load" -url "http://127.0.0.1:$port" -key-file "$work/key" -clients "$CLIENTS" -fill "$FILL" \
		-duration "$DURATION" -mix "$MIX" -seed "$2" -json >"$work/out.json"
	kill "$pid"
	wait "$pid" 2>/dev/null || true
	pid=
	rm -f "$db" "$db-wal" "$db-shm"
	drop_schema
	python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); e=r["errors_by_status"]; print("%.1f" % r["requests_per_second"], sum(e.values()) if e else 0)' "$work/out.json" >"$work/result"
}

ratios=()
for r in $(seq "$ROUNDS"); do
	for what in $( [ $((r % 2)) = 1 ] && echo shush peer || echo peer shush); do
		run "$what" "$r"
		if [ "$what" = shush ]; then read -r s se <"$work/result"; else read -r p pe <"$work/result"; fi
	done
	ratio=$(python3 -c "print('%.2f' % ($s / $p))")
	ratios+=("$ratio")
	echo "round $r: shush $s req/s ($se errors), peer $p req/s ($pe errors), shush/peer $ratio, load $(cut -d' ' -f1 /proc/loadavg)"
done
printf '%s\n' "${ratios[@]}" | sort -n | awk '{a[NR]=$1} END {print "median shush/peer over " NR " rounds: " a[int((NR+1)/2)] " (" a[1] "-" a[NR] ")"}'
