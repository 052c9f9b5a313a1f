#!/usr/bin/env bash
# Install Debian's prometheus package (prometheus + promtool) when they are missing.
# Used by `make test`.
set -euo pipefail
command -v prometheus >/dev/null && command -v promtool >/dev/null && exit 0
bash "$(dirname "$0")/../apt-install.sh" prometheus prometheus promtool
# The package may start its own service; the tests run their own server on other ports.
if command -v systemctl >/dev/null && systemctl is-active --quiet prometheus 2>/dev/null; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO systemctl stop prometheus || true
fi
