#!/usr/bin/env bash
# procs.sh measures one `shush serve` process against two on the same
# PostgreSQL database, in paired rounds: each round fills a fresh schema to
# FILL entries, then runs CLIENTS clients of one team for DURATION through
# one process and through two (the order alternating by round), and prints
# requests/s, the ratio two / one, and the CPU seconds the serve processes
# and the postgres processes on this machine used during each run (every
# process of the user postgres alive at the end of the run: anything else
# the server did meanwhile is in it, a backend that ended is not).
#
#   bench/procs.sh [ROUNDS] [DURATION] [CLIENTS] [FILL] [MIX]
#   (defaults: 3 6s 64 10000 add=100)
#
# SHUSH_BENCH_POSTGRES: the server (default
# postgres://postgres@127.0.0.1:5432/test?sslmode=disable); SHUSH_BIN: a
# shush binary to measure instead of building this tree. Loopback only.
set -euo pipefail
ROUNDS=${1:-3}
DURATION=${2:-6s}
CLIENTS=${3:-64}
FILL=${4:-10000}
MIX=${5:-add=100}
PG=${SHUSH_BENCH_POSTGRES:-postgres://postgres@127.0.0.1:5432/test?sslmode=disable}
cd "$(dirname "$0")/.."
work=$(mktemp -d)
pids=()
schema=
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	[ -n "$schema" ] && psql -q "$PG" -c "DROP SCHEMA IF EXISTS $schema CASCADE" >/dev/null 2>&1 || true
	rm -rf "$work"
}
trap cleanup EXIT
umask 077
if [ -n "${SHUSH_BIN:-}" ]; then cp "$SHUSH_BIN" "$work/shush"; else go build -o "$work/shush" .; fi
go build -o "$work/load" ./bench/load
tck=$(getconf CLK_TCK)

cpu_of() { # pids...: CPU seconds (user + system) so far
	local t=0
	for p in "$@"; do
		# A process may end between the listing and the read.
		v=$(awk '{print $14 + $15}' "/proc/$p/stat" 2>/dev/null) || continue
		[ -n "$v" ] && t=$((t + v))
	done
	echo "$t"
}
# pg_snap prints "pid ticks" for every process of the user postgres;
# pg_used OLD NEW sums, over the processes in NEW, the ticks since OLD (all
# of a process's ticks when it started meanwhile; one that ended
# meanwhile is not counted).
pg_snap() {
	for p in $(pgrep -u postgres || true); do
		v=$(awk '{print $14 + $15}' "/proc/$p/stat" 2>/dev/null) || continue
		[ -n "$v" ] && echo "$p $v"
	done
}
pg_used() { awk 'NR == FNR { old[$1] = $2; next } { t += $2 - ($1 in old ? old[$1] : 0) } END { print t + 0 }' "$1" "$2"; }

serve() { # port dsn
	"$work/shush" serve --addr "127.0.0.1:$1" --db "$2" --rate 1000000 --log-format json >/dev/null 2>&1 &
	pids+=($!)
	for _ in $(seq 100); do
		curl -fs "http://127.0.0.1:$1/healthz" >/dev/null 2>&1 && return
		sleep 0.1
	done
	echo "serve on port $1 did not start" >&2
	exit 1
}

run() { # procs round: writes "req/s serveCPU pgCPU errors" to $work/result
	schema="shush_procs_$$_$1_$2"
	psql -q "$PG" -c "CREATE SCHEMA $schema" >/dev/null
	local dsn="$PG&search_path=$schema" urls=http://127.0.0.1:18101
	"$work/shush" keys create --team bench --db "$dsn" >"$work/key" 2>/dev/null
	serve 18101 "$dsn"
	if [ "$1" = 2 ]; then serve 18102 "$dsn"; urls="$urls,http://127.0.0.1:18102"; fi
	"$work/load" -url http://127.0.0.1:18101 -key-file "$work/key" -clients 8 -fill "$FILL" -duration 1s -mix list=1 -seed 1 >/dev/null
	local s0 p0 s1 p1
	s0=$(cpu_of "${pids[@]}"); pg_snap >"$work/pg0"
	"$work/load" -url "$urls" -key-file "$work/key" -clients "$CLIENTS" -duration "$DURATION" -mix "$MIX" -seed "$2" -json >"$work/out.json"
	s1=$(cpu_of "${pids[@]}"); pg_snap >"$work/pg1"; p0=0; p1=$(pg_used "$work/pg0" "$work/pg1")
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	pids=()
	psql -q "$PG" -c "DROP SCHEMA IF EXISTS $schema CASCADE" >/dev/null 2>&1 || true
	schema=
	python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); e=r["errors_by_status"]; print("%.1f" % r["requests_per_second"], "%.1f" % ((int(sys.argv[2])-int(sys.argv[3]))/float(sys.argv[6])), "%.1f" % ((int(sys.argv[4])-int(sys.argv[5]))/float(sys.argv[6])), sum(e.values()) if e else 0)' \
		"$work/out.json" "$s1" "$s0" "$p1" "$p0" "$tck" >"$work/result"
}

ratios=()
for r in $(seq "$ROUNDS"); do
	for n in $( [ $((r % 2)) = 1 ] && echo 1 2 || echo 2 1); do
		run "$n" "$r"
		if [ "$n" = 1 ]; then read -r one c1 pg1 e1 <"$work/result"; else read -r two c2 pg2 e2 <"$work/result"; fi
	done
	ratio=$(python3 -c "print('%.2f' % ($two / $one))")
	ratios+=("$ratio")
	echo "round $r: one process $one req/s (serve CPU ${c1}s, postgres CPU ${pg1}s, $e1 errors), two $two req/s (serve CPU ${c2}s, postgres CPU ${pg2}s, $e2 errors), two/one $ratio, load $(cut -d' ' -f1 /proc/loadavg)"
done
printf '%s\n' "${ratios[@]}" | sort -n | awk '{a[NR]=$1} END {print "median two/one over " NR " rounds: " a[int((NR+1)/2)] " (" a[1] "-" a[NR] ")"}'
