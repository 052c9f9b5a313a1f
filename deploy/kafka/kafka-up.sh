#!/usr/bin/env bash
# Start a single-node Apache Kafka 4.x broker (KRaft: broker + controller) on 127.0.0.1 and
# wait until it serves metadata. Idempotent: an already running broker is left alone.
#
# The jars come from Maven Central via deploy/kafka/pom.xml and are cached in
# $LOCAL_KAFKA_CACHE (default ~/.cache/ragmon/kafka-<version>), so only the first start on a
# machine downloads anything. Storage lives in $LOCAL_KAFKA_DIR (default var/kafka); it is
# formatted once and reused, so a stop and start keeps topics, offsets and committed groups.
#
#   LOCAL_KAFKA_PORT       client port (default 9092); the controller uses port + 1
#   LOCAL_KAFKA_DIR        data, config, log and pid file (default var/kafka)
#   LOCAL_KAFKA_CACHE      where the jars are kept
#   LOCAL_KAFKA_HEAP       JVM heap (default 512m)
#   LOCAL_KAFKA_WAIT       seconds to wait for readiness (default 90)
#   LOCAL_KAFKA_TOPICS     topics created when missing, 4 partitions each
#                          (default: rag_traces rag_traces_dlq ragmon_turns, as
#                          deploy/ragmon.local.yaml uses: traces, dead letters, turns)
#
# Needs Java 17+ (and Maven once, to fetch the jars); both are checked with a one-line error.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"

version="$(sed -n 's:.*<kafka.version>\(.*\)</kafka.version>.*:\1:p' "$here/pom.xml")"
port="${LOCAL_KAFKA_PORT:-9092}"
controller_port="$((port + 1))"
dir="${LOCAL_KAFKA_DIR:-$root/var/kafka}"
cache="${LOCAL_KAFKA_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ragmon/kafka-$version}"
heap="${LOCAL_KAFKA_HEAP:-512m}"
wait_s="${LOCAL_KAFKA_WAIT:-90}"
topics="${LOCAL_KAFKA_TOPICS-rag_traces rag_traces_dlq ragmon_turns}"
python="${PYTHON:-$root/.venv/bin/python}"
[ -x "$python" ] || python="$(command -v python3)"

log() { echo "kafka-up: $*" >&2; }

# The readiness probe and topic creation speak Kafka through kafka-python: say at once when
# the chosen Python lacks it, instead of waiting out the readiness timeout.
if ! "$python" -c "import kafka" 2>/dev/null; then
  log "$python cannot import kafka-python, which the readiness check needs: run 'make kafka-up' (it installs ragmon's virtualenv first), or set PYTHON to a Python that has it"
  exit 1
fi

ready() {
  "$python" - "$port" <<'PY' >/dev/null 2>&1
import sys
from kafka import KafkaAdminClient
admin = KafkaAdminClient(bootstrap_servers=f"127.0.0.1:{sys.argv[1]}", request_timeout_ms=3000)
admin.describe_cluster()
admin.close()
PY
}

create_topics() {
  [ -n "$topics" ] || return 0
  "$python" - "$port" $topics <<'PY' >&2
import sys
from kafka import KafkaAdminClient
from kafka.admin import NewTopic
port, wanted = sys.argv[1], sys.argv[2:]
admin = KafkaAdminClient(bootstrap_servers=f"127.0.0.1:{port}")
missing = [t for t in wanted if t not in set(admin.list_topics())]
if missing:
    admin.create_topics([NewTopic(t, 4, 1) for t in missing])
    print(f"kafka-up: created topic(s) {', '.join(missing)} (4 partitions)")
admin.close()
PY
}

mkdir -p "$dir"
if [ -f "$dir/broker.pid" ] && kill -0 "$(cat "$dir/broker.pid")" 2>/dev/null; then
  if ready; then
    log "already running (pid $(cat "$dir/broker.pid")) on 127.0.0.1:$port"
    create_topics
    exit 0
  fi
fi

command -v java >/dev/null || { log "java not found: Kafka $version needs Java 17 or newer"; exit 1; }
java_major="$(java -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -n 1)"
if [ -n "$java_major" ] && [ "$java_major" -lt 17 ]; then
  log "java $java_major found: Kafka $version needs Java 17 or newer"; exit 1
fi
# Two first starts at once (two checkouts, two terminals): the second waits for the first's
# fetch under a lock, and a fetch lands in a scratch directory renamed into place whole, so
# no broker ever starts on half a cache.
mkdir -p "$(dirname "$cache")"
if command -v flock >/dev/null; then
  exec 9>"$cache.lock"
  flock 9
fi
if [ ! -f "$cache/.complete" ]; then
  command -v mvn >/dev/null || { log "mvn not found: needed once to fetch the Kafka jars"; exit 1; }
  log "fetching Kafka $version jars from Maven Central into $cache"
  scratch="$(mktemp -d "$cache.fetch.XXXXXX")"
  if ! mvn -B -f "$here/pom.xml" dependency:copy-dependencies \
        -DoutputDirectory="$scratch/lib" -DincludeScope=runtime > "$dir/maven.log" 2>&1; then
    rm -rf "$scratch"
    log "maven could not fetch the jars; last lines of $dir/maven.log:"
    tail -n 30 "$dir/maven.log" >&2
    exit 1
  fi
  touch "$scratch/.complete"
  rm -rf "$cache"
  mv "$scratch" "$cache"
fi
exec 9>&-  # the broker must not inherit the lock
classpath="$cache/lib/*"

cat > "$dir/server.properties" <<PROPS
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$controller_port
listeners=PLAINTEXT://127.0.0.1:$port,CONTROLLER://127.0.0.1:$controller_port
advertised.listeners=PLAINTEXT://127.0.0.1:$port
controller.listener.names=CONTROLLER
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
inter.broker.listener.name=PLAINTEXT
log.dirs=$dir/data
auto.create.topics.enable=false
num.partitions=1
offsets.topic.replication.factor=1
offsets.topic.num.partitions=8
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
group.initial.rebalance.delay.ms=0
log.retention.hours=24
PROPS

java_opts=(-Xms128m "-Xmx$heap" -XX:+UseG1GC -Djava.awt.headless=true
           "-Dlog4j2.configurationFile=$here/log4j2.properties" "-Dkafka.logs.file=$dir/broker.log")

if [ ! -f "$dir/data/meta.properties" ]; then
  cluster_id="$(java -cp "$classpath" "${java_opts[@]}" kafka.tools.StorageTool random-uuid)"
  log "formatting storage in $dir/data (cluster $cluster_id)"
  java -cp "$classpath" "${java_opts[@]}" kafka.tools.StorageTool format \
       -t "$cluster_id" -c "$dir/server.properties" >/dev/null
fi

log "starting Kafka $version on 127.0.0.1:$port"
nohup java -cp "$classpath" "${java_opts[@]}" kafka.Kafka "$dir/server.properties" \
      > "$dir/broker.out" 2>&1 &
echo $! > "$dir/broker.pid"

for _ in $(seq 1 "$wait_s"); do
  if ! kill -0 "$(cat "$dir/broker.pid")" 2>/dev/null; then
    log "broker exited during startup; last lines of its output:"
    tail -n 30 "$dir/broker.out" "$dir/broker.log" >&2 || true
    exit 1
  fi
  if ready; then log "ready (pid $(cat "$dir/broker.pid"))"; create_topics; exit 0; fi
  sleep 1
done
log "not ready after ${wait_s}s; see $dir/broker.log"
exit 1
