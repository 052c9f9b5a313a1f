#!/usr/bin/env bash
# Install Debian's chromium when it is missing: the review page's tests drive it through
# Playwright (tests/browser). Used by `make test`; needs root (CI runs as root) or sudo.
set -euo pipefail
if command -v chromium >/dev/null; then
  exit 0
fi
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends chromium >/dev/null
command -v chromium >/dev/null
