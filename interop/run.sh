#!/usr/bin/env bash
# Interop: the hosted service's official SDKs against `shush serve`. Starts
# the service on a fresh SQLite file with a key, points each SDK at it
# (RESEND_BASE_URL, RESEND_API_KEY) and runs every suppression call (Go) and
# every webhooks call with a real, verified delivery (Go and Node). The Node
# SDK needs node and npm; its packages come from the lock file (npm ci).
set -euo pipefail
cd "$(dirname "$0")/.."

work=$(mktemp -d)
trap 'kill "$pid" 2>/dev/null || true; rm -rf "$work"' EXIT
go build -o "$work/shush" .
db="$work/interop.db"
key=$("$work/shush" keys create --team interop --name interop --db "$db")
port=$((20000 + RANDOM % 20000))
"$work/shush" serve --addr "127.0.0.1:$port" --db "$db" --rate 1000 --webhook-allow-private >"$work/serve.log" 2>&1 &
pid=$!
for _ in $(seq 1 50); do
  (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
  sleep 0.1
done

echo "resend-go v3.17.0 against shush serve on 127.0.0.1:$port"
( cd interop/resend-go && RESEND_BASE_URL="http://127.0.0.1:$port/" RESEND_API_KEY="$key" go run . )

if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  echo "interop/run.sh: the Node SDK check needs node and npm (Debian: apt-get install nodejs npm)" >&2
  exit 1
fi
echo "resend (npm) $(sed -n 's/.*"resend": "\(.*\)".*/\1/p' interop/resend-node/package.json) on node $(node --version) against shush serve on 127.0.0.1:$port"
# The Node SDK appends paths that start with "/" to the base URL as they are:
# no trailing slash here, unlike the Go SDK's.
( cd interop/resend-node && npm ci --no-audit --no-fund --loglevel=error &&
  RESEND_BASE_URL="http://127.0.0.1:$port" RESEND_API_KEY="$key" node webhooks.mjs )
