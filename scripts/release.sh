#!/usr/bin/env bash
# Build the release archives of shush: linux, macOS and windows on amd64 and
# arm64, each a .tar.gz (a .zip for windows) holding
#
#   shush_VERSION_OS_ARCH/
#     shush (shush.exe)         the binary, its version stamped (shush --version)
#     LICENSE  README.md
#     docs/                     the manual the README links to (docs/*.md,
#                               docs/screens/, docs/shush.service)
#     THIRD_PARTY_NOTICES.txt   licence and NOTICE files of every module linked
#                               into this target's binary (scripts/notices)
#     completions/              shush.bash, _shush (zsh), shush.fish, shush.ps1
#     man/man1/                 a manual page per command (shush man)
#
# and SHA256SUMS over the archives. Offline once the module cache holds the
# dependencies (go mod download). Archives are reproducible: file times are
# the commit's (SOURCE_DATE_EPOCH), owners and order fixed.
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
for tool in tar gzip zip sha256sum; do
  command -v "$tool" >/dev/null || { echo "release.sh needs $tool" >&2; exit 2; }
done
dist="${DIST:-dist}"
targets="${TARGETS:-linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64}"
ldflags="-s -w -X github.com/shushlist/shush/cli.Version=${version}"
epoch="${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}"
export SOURCE_DATE_EPOCH="$epoch" # the manual pages' date too

mkdir -p "$dist"
rm -rf "$dist"/shush_* "$dist/SHA256SUMS"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# Completions and manual pages are the same for every target: made once, by
# a binary of this machine stamped with the same version.
host="$work/host/shush"
CGO_ENABLED=0 go build -trimpath -ldflags "$ldflags" -o "$host" .
shared="$work/shared"
mkdir -p "$shared/completions" "$shared/man/man1"
"$host" completion bash > "$shared/completions/shush.bash"
"$host" completion zsh > "$shared/completions/_shush"
"$host" completion fish > "$shared/completions/shush.fish"
"$host" completion powershell > "$shared/completions/shush.ps1"
"$host" man "$shared/man/man1" 2>/dev/null
cp LICENSE README.md "$shared/"
mkdir -p "$shared/docs/screens"
cp docs/*.md docs/shush.service "$shared/docs/"
cp docs/screens/*.md docs/screens/*.txt "$shared/docs/screens/"

for t in $targets; do
  os="${t%/*}"; arch="${t#*/}"
  name="shush_${version#v}_${os}_${arch}"
  stage="$work/$name"
  bin="shush"; [ "$os" = windows ] && bin="shush.exe"
  echo "building $name"
  cp -R "$shared" "$stage"
  CGO_ENABLED=0 GOOS="$os" GOARCH="$arch" go build -trimpath -ldflags "$ldflags" -o "$stage/$bin" .
  go run ./scripts/notices -version "$version" -goos "$os" -goarch "$arch" > "$stage/THIRD_PARTY_NOTICES.txt"
  find "$stage" -exec touch -h -d "@$epoch" {} +
  if [ "$os" = windows ]; then
    ( cd "$work" && find "$name" -print | LC_ALL=C sort | zip -X -q -@ "$name.zip" )
    mv "$work/$name.zip" "$dist/"
  else
    tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$epoch" -C "$work" -cf - "$name" \
      | gzip -n -9 > "$dist/$name.tar.gz"
  fi
done

shopt -s nullglob
archives=("$dist"/shush_*.tar.gz "$dist"/shush_*.zip)
( cd "$dist" && sha256sum "${archives[@]##*/}" > SHA256SUMS )
echo "wrote $(wc -l < "$dist/SHA256SUMS") archives and $dist/SHA256SUMS"
