#!/usr/bin/env bash
# A local Apache Kafka broker for Kafka destinations (docs/webhooks.md#kafka-destinations): the broker's jars from Maven
# Central (deploy/kafka/pom.xml, copied through the Maven wrapper from ~/.m2 into target/kafka/lib), one node in KRaft
# mode that is its own controller, on loopback, with no authentication. Topics are created on first use; the internal
# topics have one replica. Runs on the machine's Java (17 or newer; KAFKA_JAVA_HOME to choose another).
#
#   deploy/kafka/start.sh [port [controller-port]]   starts it (port: the last one used when free, else a free one),
#                                     waits until it answers a metadata request, prints its bootstrap address
#                                     (127.0.0.1:<port>) as the last line of stdout; when this directory's is already
#                                     running, prints that one's address. Topics and records from earlier runs stay.
#   deploy/kafka/start.sh fresh [port [controller-port]]   the same with an empty broker: stops this directory's,
#                                     deletes its topics and formats the storage anew (a new cluster id)
#   deploy/kafka/start.sh stop        stops the one this directory started (its data stays)
#   deploy/kafka/start.sh watch TOPIC prints TOPIC's records from the beginning, with keys and headers, until Ctrl-C
#
# KAFKA_DIR (default target/kafka) holds one broker's config, data (data/), log (kafka.log) and pid file; the tests use
# a directory of their own, so that they never stop or kill a person's broker. The jars stay in target/kafka/lib.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BASE=${KAFKA_DIR:-$ROOT/target/kafka}
LIB=$ROOT/target/kafka/lib
DATA=$BASE/data
PID_FILE=$BASE/kafka.pid
ADDRESS_FILE=$BASE/kafka.address
LOG=$BASE/kafka.log
JAVA=${KAFKA_JAVA_HOME:+$KAFKA_JAVA_HOME/bin/}java
mkdir -p "$BASE"

# By its command line: a killed broker stays a zombie for a while (kill -0 still succeeds), and a pid gets reused.
running() { [[ -f $PID_FILE ]] && ps -o args= -p "$(cat "$PID_FILE")" 2>/dev/null | grep -qF "kafka.Kafka $BASE/"; }

stop() {
  if running; then
    pid=$(cat "$PID_FILE")
    # SIGTERM is a controlled shutdown: the broker closes its logs cleanly, and the next start skips their recovery.
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 60); do running || break; sleep 0.5; done
    kill -9 "$pid" 2>/dev/null || true
  fi
  rm -f "$PID_FILE" "$ADDRESS_FILE"
}

fetch() {
  if [[ ! -f $LIB/kafka_2.13-4.4.0.jar ]]; then
    echo "kafka: fetching org.apache.kafka:kafka_2.13:4.4.0 and its dependencies" >&2
    rm -rf "$LIB"
    (cd "$ROOT" && ./mvnw -B -q -f deploy/kafka/pom.xml dependency:copy-dependencies -DincludeScope=runtime \
      -DoutputDirectory="$LIB") >&2
  fi
}

case "${1:-}" in
  stop)
    stop
    exit 0
    ;;
  watch)
    [[ -n ${2:-} && -f $ADDRESS_FILE ]] || { echo "usage: $0 watch TOPIC, with the broker started" >&2; exit 2; }
    exec "$JAVA" -Xmx128m -Dlog4j2.configurationFile="$BASE/log4j2-tools.properties" -cp "$LIB/*" \
      org.apache.kafka.tools.consumer.ConsoleConsumer --bootstrap-server "$(cat "$ADDRESS_FILE")" --topic "$2" \
      --from-beginning --formatter-property print.key=true --formatter-property print.headers=true --formatter-property print.partition=true \
      --formatter-property print.offset=true --command-property group.protocol=consumer
    ;;
  fresh)
    stop
    rm -rf "$DATA"
    shift
    ;;
esac

"$JAVA" -version 2>&1 | grep -qE 'version "(1[7-9]|[2-9][0-9])' \
  || { echo "kafka: $JAVA is not Java 17 or newer (set KAFKA_JAVA_HOME)" >&2; exit 1; }
fetch

# One per directory: a second start (the tests' restart while it runs, a second terminal) uses the running one.
if running && [[ -f $ADDRESS_FILE ]]; then
  echo "kafka: already running as $(cat "$PID_FILE"), log in $LOG" >&2
  cat "$ADDRESS_FILE"
  exit 0
fi
rm -f "$PID_FILE" "$ADDRESS_FILE"

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}
is_free() {
  python3 -c 'import socket,sys; s=socket.socket(); s.bind(("127.0.0.1", int(sys.argv[1])))' "$1" 2>/dev/null
}
# The last run's ports when they are free, so that a person's consumers and settings keep working across a restart.
previous() { [[ -f $BASE/$1 ]] && is_free "$(cat "$BASE/$1")" && cat "$BASE/$1"; }
PORT=${1:-$(previous port || free_port)}
CONTROLLER_PORT=${2:-$(previous controller.port || free_port)}
echo "$PORT" >"$BASE/port"
echo "$CONTROLLER_PORT" >"$BASE/controller.port"

# The controller quorum is static (one voter named in the config), so its port may change from one start to the next.
cat >"$BASE/server.properties" <<PROPERTIES
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$CONTROLLER_PORT
listeners=PLAINTEXT://127.0.0.1:$PORT,CONTROLLER://127.0.0.1:$CONTROLLER_PORT
advertised.listeners=PLAINTEXT://127.0.0.1:$PORT
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
log.dirs=$DATA
num.partitions=1
auto.create.topics.enable=true
offsets.topic.replication.factor=1
offsets.topic.num.partitions=3
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
transaction.state.log.num.partitions=3
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
group.initial.rebalance.delay.ms=0
# After a kill -9 the restarted controller holds the dead broker's registration until its session times out (9 s by
# default), refusing the new one (DUPLICATE_BROKER_REGISTRATION): the fault tests restart in seconds instead.
broker.session.timeout.ms=3000
broker.heartbeat.interval.ms=500
PROPERTIES

cat >"$BASE/log4j2.properties" <<'PROPERTIES'
appender.out.type=Console
appender.out.name=out
appender.out.layout.type=PatternLayout
appender.out.layout.pattern=[%d] %p %m (%c)%n
rootLogger.level=INFO
rootLogger.appenderRef.out.ref=out
logger.request.name=kafka.request.logger
logger.request.level=WARN
logger.authorizer.name=kafka.authorizer.logger
logger.authorizer.level=WARN
PROPERTIES
cat >"$BASE/log4j2-tools.properties" <<'PROPERTIES'
appender.err.type=Console
appender.err.name=err
appender.err.target=SYSTEM_ERR
appender.err.layout.type=PatternLayout
appender.err.layout.pattern=[%d] %p %m (%c)%n
rootLogger.level=WARN
rootLogger.appenderRef.err.ref=err
PROPERTIES
# The readiness check's client gives up on an unready broker in seconds rather than the admin client's minute.
printf 'request.timeout.ms=3000\ndefault.api.timeout.ms=5000\n' >"$BASE/ready-client.properties"

TOOLS_OPTS=(-Xmx128m -XX:TieredStopAtLevel=1 -Dlog4j2.configurationFile="$BASE/log4j2-tools.properties" -cp "$LIB/*")
if [[ ! -f $DATA/meta.properties ]]; then
  rm -rf "$DATA"
  # As kafka-storage.sh random-uuid makes one (a UUID's 16 bytes in URL-safe base64, never starting with "-"), without
  # the second of a JVM.
  cluster_id=$(python3 -c 'import base64, uuid
while (u := base64.urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip("=")).startswith("-"): pass
print(u)')
  "$JAVA" "${TOOLS_OPTS[@]}" kafka.tools.StorageTool format --cluster-id "$cluster_id" --config "$BASE/server.properties" \
    >"$BASE/format.log" 2>&1 || { cat "$BASE/format.log" >&2; exit 1; }
fi

# C1 alone: the broker is ready as soon, and spends a third of the CPU time on the way (a machine of two cores).
setsid "$JAVA" -Xms64m -Xmx384m -XX:TieredStopAtLevel=1 -XX:+ExitOnOutOfMemoryError -Djava.awt.headless=true \
  -Dlog4j2.configurationFile="$BASE/log4j2.properties" -cp "$LIB/*" kafka.Kafka "$BASE/server.properties" \
  >"$LOG" 2>&1 </dev/null &
echo $! >"$PID_FILE"

ADDRESS=127.0.0.1:$PORT
deadline=$((SECONDS + 90))
while ((SECONDS < deadline)); do
  if ! running; then
    echo "kafka: exited; the end of $LOG:" >&2
    tail -30 "$LOG" >&2
    rm -f "$PID_FILE"
    exit 1
  fi
  # The log's line first (cheap to poll), then a metadata request as a client makes it.
  if grep -q 'Kafka Server started' "$LOG" \
    && "$JAVA" "${TOOLS_OPTS[@]}" org.apache.kafka.tools.TopicCommand --bootstrap-server "$ADDRESS" \
      --command-config "$BASE/ready-client.properties" --list >/dev/null 2>&1; then
    echo "kafka: ready after ${SECONDS} s, log in $LOG" >&2
    echo "$ADDRESS" >"$ADDRESS_FILE"
    echo "$ADDRESS"
    exit 0
  fi
  sleep 0.2
done
echo "kafka: not ready after 90 s; the end of $LOG:" >&2
tail -30 "$LOG" >&2
exit 1
