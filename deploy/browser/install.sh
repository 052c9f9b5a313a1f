#!/usr/bin/env bash
# Install Debian's chromium when it is missing: the review page's tests drive it through
# Playwright (tests/browser). Used by `make test`.
set -euo pipefail
bash "$(dirname "$0")/../apt-install.sh" chromium chromium
