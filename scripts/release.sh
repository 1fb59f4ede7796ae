#!/usr/bin/env bash
# Cross-build shush for release: linux, macOS and windows on amd64 and
# arm64, with the version stamped into the binary (shush --version, the
# User-Agent), and a SHA256SUMS file. Offline once the module cache holds
# the dependencies (go mod download).
#
#   scripts/release.sh v1.2.0            # every target, into dist/
#   TARGETS="linux/amd64" scripts/release.sh v1.2.0-rc1
#   DIST=/tmp/out scripts/release.sh v1.2.0
set -euo pipefail
cd "$(dirname "$0")/.."

version="${1:-}"
if [[ ! "$version" =~ ^v[0-9]+\.[0-9]+\.[0-9]+([-+][0-9A-Za-z.-]+)?$ ]]; then
  echo "usage: scripts/release.sh vMAJOR.MINOR.PATCH[-pre]   (got '${version}')" >&2
  exit 2
fi
dist="${DIST:-dist}"
targets="${TARGETS:-linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64}"
mkdir -p "$dist"
rm -f "$dist"/shush_* "$dist/SHA256SUMS"

for t in $targets; do
  os="${t%/*}"; arch="${t#*/}"
  out="$dist/shush_${version#v}_${os}_${arch}"
  [ "$os" = windows ] && out="$out.exe"
  echo "building $out"
  CGO_ENABLED=0 GOOS="$os" GOARCH="$arch" go build -trimpath \
    -ldflags "-s -w -X github.com/shushlist/shush/cli.Version=${version}" \
    -o "$out" .
done

( cd "$dist" && sha256sum shush_* > SHA256SUMS )
echo "wrote $(wc -l < "$dist/SHA256SUMS") binaries and $dist/SHA256SUMS"
