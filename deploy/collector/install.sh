#!/usr/bin/env bash
# Build the test Collector (manifest.yaml) once, with the Collector Builder from the Go module
# proxy, into a cache keyed by the manifest, and link it as var/otelcol/ragmon-otelcol. Later
# runs find the binary and return at once; the first build takes a few minutes.
set -euo pipefail
cd "$(dirname "$0")/../.."
CACHE="${RAGMON_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ragmon}"
key=$(sha256sum deploy/collector/manifest.yaml | cut -c1-16)
out="$CACHE/otelcol-$key"
mkdir -p var/otelcol
if [ ! -x "$out/ragmon-otelcol" ]; then
  command -v go >/dev/null || { echo "collector: go is not installed" >&2; exit 1; }
  version=$(sed -n 's|.*collector/receiver/otlpreceiver \(v[0-9.]*\).*|\1|p' deploy/collector/manifest.yaml)
  export GOPATH="$CACHE/gopath" GOFLAGS=-mod=mod
  mkdir -p "$out"
  echo "collector: building $version (the first time only; a few minutes)"
  go install "go.opentelemetry.io/collector/cmd/builder@$version"
  work=$(mktemp -d)
  cp deploy/collector/manifest.yaml "$work/"
  (cd "$work" && "$GOPATH/bin/builder" --config manifest.yaml >"$work/build.log" 2>&1) \
    || { tail -20 "$work/build.log" >&2; exit 1; }
  mv "$work/build/ragmon-otelcol" "$out/ragmon-otelcol"
  rm -rf "$work"
fi
ln -sf "$out/ragmon-otelcol" var/otelcol/ragmon-otelcol
echo "collector: var/otelcol/ragmon-otelcol -> $out/ragmon-otelcol"
