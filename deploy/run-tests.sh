#!/usr/bin/env bash
# Start the services the tests need, run pytest, stop the services — also when pytest fails.
# Arguments are passed to pytest.
#
# Kafka: a real single-node KRaft broker (deploy/kafka/kafka-up.sh) on its own port and data
# directory, so a developer's broker on 9092 is left alone. Tests find it through
# TEST_KAFKA_BOOTSTRAP and stop/start it (outage tests) with the same LOCAL_KAFKA_* variables.
set -euo pipefail
cd "$(dirname "$0")/.."

export LOCAL_KAFKA_PORT="${TEST_KAFKA_PORT:-19092}"
export LOCAL_KAFKA_DIR="${TEST_KAFKA_DIR:-$PWD/var/kafka-test}"
export TEST_KAFKA_BOOTSTRAP="127.0.0.1:$LOCAL_KAFKA_PORT"

cleanup() {
  bash deploy/kafka/kafka-down.sh --clean || true
}
trap cleanup EXIT

bash deploy/kafka/kafka-down.sh --clean || true  # leftovers of an interrupted run
bash deploy/kafka/kafka-up.sh

set +e
if [ "$#" -eq 0 ]; then
  # The unit tier on both cores (pytest-xdist). The tiers with real services on both cores
  # too, a test file to a worker (--dist loadfile: a file's tests share group names and run
  # in order), but for the tests that stop the broker everyone shares (marked `exclusive`),
  # which run alone after the rest.
  pytest -n 2 tests/unit
  code=$?
  # the verdict guard once more on the interpreted checks, when the tier above ran compiled
  if [ "${TEST_EXPECT_COMPILED:-0}" = "1" ]; then
    RAGMON_COMPILED=0 pytest -q tests/unit/test_verdicts.py
    interpreted=$?
    [ "$code" -eq 0 ] && code=$interpreted
  fi
  pytest -n 2 --dist loadfile -m "not exclusive" --ignore=tests/unit --durations=30  # the slowest, for whoever trims the tier
  rest=$?
  [ "$code" -eq 0 ] && code=$rest
  pytest -m exclusive --ignore=tests/unit
  alone=$?
  [ "$code" -eq 0 ] && code=$alone
else
  pytest "$@"
  code=$?
fi
set -e
if [ "$code" -eq 5 ]; then
  echo "run-tests: pytest collected no tests" >&2
fi
exit "$code"
