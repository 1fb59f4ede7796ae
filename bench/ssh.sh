#!/usr/bin/env bash
# The terminal UI over SSH: the memory of `shush serve --ssh-addr` (VmRSS)
# with no session, one idle session and 20 concurrent sessions, and the
# time from starting `ssh` to the first frame (the header naming the
# agent on the screen), the median of RUNS logins. Every session is the
# real OpenSSH client in a tmux pane of 120x32 (tmux answers the UI's
# background query as a terminal does); an ed25519 key per agent, made by
# ssh-keygen. The first-frame time is read by polling the pane every 5 ms,
# so it includes up to that much.
#
#   go build -o /tmp/shush . && bash bench/ssh.sh /tmp/shush [RUNS]
set -euo pipefail
bin=$1 runs=${2:-9}
dir=$(mktemp -d)
sock=shush-bench-ssh-$$
serve=
stop() {
  tmux -L "$sock" kill-server 2>/dev/null || true
  if [[ -n $serve ]]; then
    kill -INT "$serve" 2>/dev/null || true
    wait "$serve" 2>/dev/null || true
  fi
}
trap 'stop; rm -rf "$dir"' EXIT
db=$dir/shush.db
port=$((20000 + RANDOM % 20000))
for i in $(seq 1 20); do
  ssh-keygen -q -t ed25519 -N '' -f "$dir/agent$i"
  "$bin" agents add "agent$i" --team support --ssh-key "$dir/agent$i.pub" --db "$db" >/dev/null
done
"$bin" serve --addr 127.0.0.1:0 --ssh-addr "127.0.0.1:$port" --db "$db" 2>"$dir/serve.log" &
serve=$!
for _ in $(seq 1 100); do grep -q 'host key SHA256' "$dir/serve.log" && break; sleep 0.05; done
rss() { awk '/VmRSS/ {print $2}' "/proc/$serve/status"; }
tmux -L "$sock" -f /dev/null new-session -d -s keep "sleep 3600"
ssh_cmd() {
  echo "ssh -F /dev/null -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR -o IdentitiesOnly=yes -o IdentityAgent=none -i $dir/agent$1 -p $port 127.0.0.1"
}
shown() { tmux -L "$sock" capture-pane -p -t "$1" 2>/dev/null | grep -q "agent agent$2 "; }

sleep 1
echo "serve, no session: $(rss) KB"

# The first frame, RUNS times, each login alone.
times=()
for r in $(seq 1 "$runs"); do
  start=$(date +%s%N)
  tmux -L "$sock" new-session -d -s "f$r" -x 120 -y 32 "$(ssh_cmd 1)"
  until shown "f$r" 1; do sleep 0.005; done
  times+=($(( ($(date +%s%N) - start) / 1000000 )))
  tmux -L "$sock" kill-session -t "f$r"
  sleep 0.3
done
sorted=$(printf '%s\n' "${times[@]}" | sort -n)
echo "ssh to the first frame (ms, $runs logins): $(echo $sorted) — median $(echo "$sorted" | sed -n "$(( (runs + 1) / 2 ))p")"

tmux -L "$sock" new-session -d -s s1 -x 120 -y 32 "$(ssh_cmd 1)"
until shown s1 1; do sleep 0.01; done
sleep 2
echo "serve, 1 idle session: $(rss) KB"

for i in $(seq 2 20); do
  tmux -L "$sock" new-session -d -s "s$i" -x 120 -y 32 "$(ssh_cmd "$i")"
done
for i in $(seq 2 20); do
  until shown "s$i" "$i"; do sleep 0.01; done
done
sleep 2
echo "serve, 20 concurrent sessions: $(rss) KB"
