#!/usr/bin/env bash
# A Kafka destination beside an HTTP one, in one run on one service: per round, ROWS due order.paid events for the
# HTTP destination `sink` (bench/DownstreamSink on loopback, answers 200 at once) are loaded at once and delivered,
# then as many for the Kafka destination `bus` (a local broker, deploy/kafka/start.sh in target/bench/kafka, a topic
# of 3 partitions, acks=all), the order swapped every round so the machine's other load falls on both alike. Both
# destinations signed, with the same concurrency. Per pass: events/s from the first delivered to none pending, the
# service's CPU per event (/proc/<pid>/stat), the broker's CPU per event for Kafka, and p50 / p99 of each try's own
# latency (request to answer, or record to acknowledgement: the rows' delivered_latency_ms). The packaged application
# (target/quarkus-app, built when missing) runs in the prod profile on the image's JDK and JAVA_OPTS, on a database
# of its own on the machine's MariaDB (root over the unix socket). Results: target/bench/kafka/passes.tsv and
# summary.txt (medians per destination, and Kafka's ratio to HTTP).
#
#   bash deploy/bench/kafka-destination.sh
#   ROUNDS=6 ROWS=40000 CONCURRENCY=32 bash deploy/bench/kafka-destination.sh
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"
ROUNDS=${ROUNDS:-4}
ROWS=${ROWS:-20000}
CONCURRENCY=${CONCURRENCY:-32}
TIMEOUT=${TIMEOUT:-300}        # seconds per pass at most
PORT=${PORT:-18580}
MPORT=$((PORT + 10))
DB=paycallback_kafka_bench
DB_USER=paycallback_kafka_bench
DB_PASSWORD=bench-$(hostname | md5sum | cut -c1-12)
SECRET=whsec_$(head -c 32 /dev/urandom | base64)
SERVICE_JAVA=${SERVICE_JAVA:-/usr/lib/jvm/temurin-25-jdk-amd64/bin/java}
[[ -x $SERVICE_JAVA ]] || SERVICE_JAVA=java
WORK=$ROOT/target/bench/kafka
mkdir -p "$WORK"
log() { printf '%s kafka-destination: %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
cpu_ms() { awk '{print ($14 + $15) * 10}' "/proc/$1/stat"; }
now_ms() { date +%s%3N; }
sql() { mariadb -uroot -N -B "$DB" -e "$1"; }

[[ -f target/quarkus-app/quarkus-run.jar ]] || ./mvnw -B -q package -DskipTests
[[ -s target/bench/cp-test.txt ]] || ./mvnw -B -q test-compile dependency:build-classpath \
  -Dmdep.outputFile=target/bench/cp-test.txt -Dmdep.includeScope=test
CP="target/test-classes:target/classes:$(cat target/bench/cp-test.txt)"

BROKERS=$(KAFKA_DIR=$WORK/broker bash deploy/kafka/start.sh fresh | tail -1)
BROKER_PID=$(cat "$WORK/broker/kafka.pid")
TOPIC=bench-$(date +%s)
"$SERVICE_JAVA" -cp "$ROOT/target/kafka/lib/*" org.apache.kafka.tools.TopicCommand --bootstrap-server "$BROKERS" \
  --create --topic "$TOPIC" --partitions 3 --replication-factor 1 >/dev/null
log "broker $BROKERS (pid $BROKER_PID), topic $TOPIC"

java -cp "$CP" io.paycallback.bench.DownstreamSink 0 >"$WORK/sink.port" 2>"$WORK/sink.err" &
SINK_PID=$!
for _ in $(seq 1 50); do [[ -s $WORK/sink.port ]] && break; sleep 0.2; done
SINK_URL=http://127.0.0.1:$(head -1 "$WORK/sink.port")/events

bash deploy/bench/own-database.sh "$DB" "$DB_USER" "$DB_PASSWORD"

JAVA_OPTS=$(bash deploy/image-java-opts.sh "$SERVICE_JAVA")
if curl -s -o /dev/null --max-time 1 "http://127.0.0.1:$PORT/"; then echo "port $PORT is taken" >&2; exit 1; fi
D=-Dpaycallback.downstream.destinations
# shellcheck disable=SC2086 # an option list
QUARKUS_PROFILE=prod QUARKUS_DATASOURCE_JDBC_URL="jdbc:mariadb://127.0.0.1:3306/$DB" \
  QUARKUS_DATASOURCE_REACTIVE_URL="mysql://127.0.0.1:3306/$DB" QUARKUS_DATASOURCE_USERNAME=$DB_USER \
  QUARKUS_DATASOURCE_PASSWORD=$DB_PASSWORD \
  "$SERVICE_JAVA" $JAVA_OPTS -Dquarkus.http.host=127.0.0.1 -Dquarkus.management.host=127.0.0.1 \
  -Dquarkus.http.port=$PORT -Dquarkus.management.port=$MPORT -Dpaycallback.local-config.ignore=true \
  "-Dpaycallback.registry.key-encryption-keys=bench-2026:$(head -c 32 /dev/urandom | base64)" \
  "$D.sink.url=$SINK_URL" "$D.sink.events=order.paid" "$D.sink.signing-secret=$SECRET" \
  "$D.sink.concurrency=$CONCURRENCY" \
  "$D.bus.kafka.bootstrap-servers=$BROKERS" "$D.bus.kafka.topic=$TOPIC" "$D.bus.events=order.paid" \
  "$D.bus.signing-secret=$SECRET" "$D.bus.concurrency=$CONCURRENCY" \
  -jar target/quarkus-app/quarkus-run.jar >"$WORK/service.log" 2>&1 &
PID=$!
trap 'kill $PID $SINK_PID 2>/dev/null || true; KAFKA_DIR=$WORK/broker bash deploy/kafka/start.sh stop' EXIT
for _ in $(seq 1 120); do curl -fs -o /dev/null "http://127.0.0.1:$MPORT/q/health/ready" && break; sleep 1; done
curl -fs -o /dev/null "http://127.0.0.1:$MPORT/q/health/ready" || { tail -30 "$WORK/service.log" >&2; exit 1; }
log "service ready, pid $PID"

pass() { # destination label rows
  local destination=$1 label=$2 n=$3 prefix="K$2-$1-"
  sql "DELETE FROM outbox WHERE status = 1"
  local c0 b0 c1 b1 first_ms= first_left=$n left=$n deadline end_ms
  c0=$(cpu_ms $PID) b0=$(cpu_ms "$BROKER_PID")
  sql "INSERT INTO outbox (source, type, destination, merchant_id, out_trade_no, payload, status, retry_count,
      next_retry_at, created_at, updated_at)
    SELECT CONCAT('bench:$prefix', seq), 'order.paid', '$destination', 'default', CONCAT('$prefix', seq),
      CONCAT('{\"id\":\"pay:', seq, '/order.paid\",\"type\":\"order.paid\",\"merchantId\":\"default\",',
        '\"outTradeNo\":\"$prefix', seq, '\",\"channel\":\"stripe\",\"channelTradeNo\":\"pi_$prefix', seq,
        '\",\"amount\":\"88.00\",\"currency\":\"USD\",\"occurredAt\":\"2026-12-08T00:00:00Z\"}'),
      0, 0, NOW(3) - INTERVAL 1 MINUTE, NOW(3), NOW(3) FROM seq_0_to_$((n - 1))"
  deadline=$(($(now_ms) + TIMEOUT * 1000))
  while ((left > 0)) && (($(now_ms) < deadline)); do
    left=$(sql "SELECT COUNT(*) FROM outbox WHERE status = 0")
    if [[ -z $first_ms ]] && ((left < n)); then first_ms=$(now_ms); first_left=$left; fi
    if ((left > 0)); then sleep 0.2; fi
  done
  end_ms=$(now_ms) c1=$(cpu_ms $PID) b1=$(cpu_ms "$BROKER_PID")
  local latencies p50 p99 done_n
  latencies=$(sql "SELECT delivered_latency_ms FROM outbox WHERE status = 1 AND destination = '$destination'
      ORDER BY delivered_latency_ms")
  done_n=$(wc -l <<<"$latencies")
  p50=$(awk -v n="$done_n" 'NR == int(n * 0.5) + 1 {print; exit}' <<<"$latencies")
  p99=$(awk -v n="$done_n" 'NR == int(n * 0.99) + 1 {print; exit}' <<<"$latencies")
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$label" "$destination" "$n" "$left" \
    "$(awk -v d=$((first_left - left)) -v ms=$((end_ms - ${first_ms:-end_ms})) 'BEGIN {printf "%.0f", (ms > 0 ? d * 1000 / ms : 0)}')" \
    "$(awk -v c=$((c1 - c0)) -v n="$n" 'BEGIN {printf "%.1f", c * 1000 / n}')" \
    "$(awk -v c=$((b1 - b0)) -v n="$n" 'BEGIN {printf "%.1f", c * 1000 / n}')" "$p50" "$p99" >>"$WORK/passes.tsv"
  log "$label $destination: $(tail -1 "$WORK/passes.tsv" | cut -f5) events/s, $(tail -1 "$WORK/passes.tsv" | cut -f6) us service CPU per event"
}

printf 'round\tdestination\tevents\tleft\tevents_per_s\tservice_cpu_us_per_event\tbroker_cpu_us_per_event\tp50_ms\tp99_ms\n' \
  >"$WORK/passes.tsv"
pass sink warm $((ROWS / 2))
pass bus warm $((ROWS / 2))
for round in $(seq 1 "$ROUNDS"); do
  order=(sink bus)
  ((round % 2)) || order=(bus sink)
  for destination in "${order[@]}"; do pass "$destination" "$round" "$ROWS"; done
done
records=$("$SERVICE_JAVA" -cp "$ROOT/target/kafka/lib/*" org.apache.kafka.tools.GetOffsetShell \
  --bootstrap-server "$BROKERS" --topic "$TOPIC" 2>/dev/null | awk -F: '{s += $3} END {print s}')

median() { # column destination
  awk -F'\t' -v c="$1" -v d="$2" '$1 != "warm" && $1 != "round" && $2 == d {print $c}' "$WORK/passes.tsv" | sort -n \
    | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'
}
{
  echo "medians of $ROUNDS rounds of $ROWS events per destination, concurrency $CONCURRENCY, $(nproc) cores," \
    "load $(cut -d' ' -f1-3 /proc/loadavg); records on the topic: $records (every pass's events, warm-up included)"
  printf 'destination\tevents/s\tservice CPU us/event\tbroker CPU us/event (idle during sink)\ttry p50 ms\ttry p99 ms\n'
  for destination in sink bus; do
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$destination" "$(median 5 "$destination")" "$(median 6 "$destination")" \
      "$(median 7 "$destination")" "$(median 8 "$destination")" "$(median 9 "$destination")"
  done
  printf 'kafka / http\t%s\t%s\t\t%s\t%s\n' \
    "$(awk -v a="$(median 5 bus)" -v b="$(median 5 sink)" 'BEGIN {printf "%.2f", (b > 0 ? a / b : 0)}')" \
    "$(awk -v a="$(median 6 bus)" -v b="$(median 6 sink)" 'BEGIN {printf "%.2f", (b > 0 ? a / b : 0)}')" \
    "$(awk -v a="$(median 8 bus)" -v b="$(median 8 sink)" 'BEGIN {printf "%.2f", (b > 0 ? a / b : 0)}')" \
    "$(awk -v a="$(median 9 bus)" -v b="$(median 9 sink)" 'BEGIN {printf "%.2f", (b > 0 ? a / b : 0)}')"
} | tee "$WORK/summary.txt"
