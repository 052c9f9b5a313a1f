#!/usr/bin/env bash
# Install Debian's prometheus package (prometheus + promtool) when they are missing.
# Used by `make test`; needs root (CI runs as root) or passwordless sudo.
set -euo pipefail
if command -v prometheus >/dev/null && command -v promtool >/dev/null; then
  exit 0
fi
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# --no-install-recommends: the binaries only, no node exporter or alertmanager
$SUDO apt-get install -y -qq --no-install-recommends prometheus >/dev/null
# The package may start its own service; the tests run their own server on other ports.
if command -v systemctl >/dev/null && systemctl is-active --quiet prometheus 2>/dev/null; then
  $SUDO systemctl stop prometheus || true
fi
command -v promtool >/dev/null
