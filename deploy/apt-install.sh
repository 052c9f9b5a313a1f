#!/usr/bin/env bash
# apt-install.sh PACKAGE COMMAND...: install Debian's PACKAGE (no recommends) unless every
# COMMAND is already on the PATH. Used by `make test`; needs root (CI runs as root) or sudo.
set -euo pipefail
package="$1"
shift
missing=0
for cmd in "$@"; do command -v "$cmd" >/dev/null || missing=1; done
[ "$missing" -eq 1 ] || exit 0
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "$package" >/dev/null
for cmd in "$@"; do command -v "$cmd" >/dev/null; done
