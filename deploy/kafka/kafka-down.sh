#!/usr/bin/env bash
# Stop the broker started by kafka-up.sh (SIGTERM, then SIGKILL after 30 s).
# --clean also deletes its data directory.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
dir="${LOCAL_KAFKA_DIR:-$root/var/kafka}"

if [ -f "$dir/broker.pid" ]; then
  pid="$(cat "$dir/broker.pid")"
  if kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 1 60); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.5
    done
    if kill -0 "$pid" 2>/dev/null; then
      echo "kafka-down: broker did not stop in 30 s; killing it" >&2
      kill -KILL "$pid" 2>/dev/null || true
    fi
  fi
  rm -f "$dir/broker.pid"
fi
if [ "${1:-}" = "--clean" ]; then
  rm -rf "$dir"
fi
