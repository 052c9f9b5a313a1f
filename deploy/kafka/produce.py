"""Send stdin, one record per line, to a topic of the local broker (`make kafka-up`):

    ragmon demo --count 1000 | python deploy/kafka/produce.py rag_traces

The broker is 127.0.0.1:$LOCAL_KAFKA_PORT (9092 when unset), as for deploy/kafka/kafka-up.sh
and deploy/ragmon.local.yaml. Needs kafka-python (ragmon's virtualenv has it)."""

from __future__ import annotations

import os
import sys


def main() -> int:
    if len(sys.argv) != 2:
        print("usage: produce.py TOPIC < records.jsonl", file=sys.stderr)
        return 2
    try:
        from kafka import KafkaProducer
        from kafka.errors import KafkaError
    except ImportError:
        print("produce.py: kafka-python is missing: run it with ragmon's virtualenv "
              "(. .venv/bin/activate)", file=sys.stderr)  # fmt: skip
        return 2
    where = f"127.0.0.1:{os.environ.get('LOCAL_KAFKA_PORT') or '9092'}"
    try:
        producer = KafkaProducer(bootstrap_servers=where, acks="all", bootstrap_timeout_ms=5000)
    except KafkaError as exc:
        print(f"produce.py: no broker at {where} ({exc}): start one with `make kafka-up`",
              file=sys.stderr)  # fmt: skip
        return 1
    sent = 0
    for line in sys.stdin.buffer:
        if line.strip():
            producer.send(sys.argv[1], line.rstrip(b"\r\n"))
            sent += 1
    producer.flush()
    producer.close()
    print(f"produce.py: {sent} records sent to {sys.argv[1]} at {where}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
