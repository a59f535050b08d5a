#!/usr/bin/env bash
# pay-callback performance benchmark: one run measures the database ceiling (sysbench single-row INSERTs), ingest
# (wrk, pre-signed stripe and wxpay callbacks), a duplicate storm, the drain of due callbacks (with and without 1M
# done rows), end to end (paid callbacks in, order.paid delivered out), RSS and start-to-ready, then prints one
# table and writes deploy/bench/results/latest.md.
# A benchmark, not a test: CI does not run it. Loopback only; every load loop is bounded in time.
#
#   bash deploy/bench/run.sh                 # one run
#   RUNS=3 bash deploy/bench/run.sh          # three runs, medians reported
#   EXTRA_JAVA_OPTS='-Dquarkus.datasource.reactive.max-size=64' SKIP_BUILD=1 bash deploy/bench/run.sh
#   BATCH="1 50" PHASES='ceiling drain e2e' bash deploy/bench/run.sh   # A/B of transaction-size in one run
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BENCH=$ROOT/deploy/bench
cd "$ROOT"

RUNS=${RUNS:-1}
CONNS=${CONNS:-64}
WRK_THREADS=${WRK_THREADS:-2}
DURATION=${DURATION:-20}               # seconds per load phase
# Enough callbacks that wrk's -d ends the run, not the file: wrk divides by the full -d even when a thread stopped
# early, so an exhausted file makes req/s a lower bound (marked ">=" in the table).
STRIPE_COUNT=${STRIPE_COUNT:-200000}
WX_COUNT=${WX_COUNT:-70000}            # RSA-signed: ~1 ms of CPU each to generate, so fewer
# A fresh JVM spends its first tens of seconds in the JIT compiler (on 2 cores, C2 took as much CPU as the event
# loops in the first 15 s), so each run first sends unmeasured traffic through both channels.
WARMUP=${WARMUP:-15}                   # seconds per channel; 0 skips
DRAIN_ROWS=${DRAIN_ROWS:-100000}
EXTRA_DONE=${EXTRA_DONE:-1000000}
DELIVERY_ROWS=${DELIVERY_ROWS:-60000}  # due outbox events of the delivery phase
DRAIN_TIMEOUT=${DRAIN_TIMEOUT:-600}    # seconds; a drain slower than this is reported from its partial progress
STATEMENT_LINES=${STATEMENT_LINES:-1000000}  # bill lines of the statement phase
STATEMENT_TIMEOUT=${STATEMENT_TIMEOUT:-900}  # seconds from enrolment; a slower run is reported as failed
E2E_ROWS=${E2E_ROWS:-100000}           # paid stripe callbacks of the e2e phase, each sent exactly once
E2E_TIMEOUT=${E2E_TIMEOUT:-600}        # seconds for sending plus processing; a slower e2e reports partial progress
ISOLATION_ROWS=${ISOLATION_ROWS:-3000}  # per pass of the isolation phase: due events per destination, paid callbacks
ISOLATION_TIMEOUT=${ISOLATION_TIMEOUT:-900}  # seconds per isolation pass until the healthy destination has every event
# What the isolation phase puts beside the healthy destination, one service start each: none, a destination that never
# answers (dead), one that answers 500 after 5 s (slow500).
ISOLATION_BESIDE=${ISOLATION_BESIDE:-none dead slow500}
LIMIT_BATCH=${LIMIT_BATCH:-50}         # orders per transaction in the limit phase (the service's transaction-size)
SKIP_BUILD=${SKIP_BUILD:-0}
# The packaged application the service runs from. Another directory (a copy of another commit's target/quarkus-app)
# is never built here: alternating runs with two of them is how an A/B of code changes shares one machine state.
APP_DIR=${APP_DIR:-target/quarkus-app}
# SETTLE=0 skips waiting for the backlog between phases (only for single-phase experiments: the next phase would
# otherwise compete with the previous one's processing).
EXTRA_JAVA_OPTS=${EXTRA_JAVA_OPTS:-}
# Outbox events go to the built-in "log" destination, one INFO line each; that is console I/O, not the service's
# work, so the bench mutes it by default (OUTBOX_LOG=INFO measures it).
OUTBOX_LOG=${OUTBOX_LOG:-WARN}
# A subset of phases for profiling and tuning experiments; the report then only has their rows.
PHASES=" ${PHASES:-ceiling limit stripe wxpay storm openloop drain delivery e2e isolation statement} "
phase() { [[ $PHASES == *" $1 "* ]]; }
# The open-loop phase: unique paid stripe callbacks at a fixed arrival rate (bench/OpenLoop, wrk2's model: latency from
# when each request was due), at these shares of the same run's closed-loop stripe req/s, for OPEN_LOOP_SECONDS each.
OPEN_LOOP_SHARES=${OPEN_LOOP_SHARES:-50 80}
OPEN_LOOP_SECONDS=${OPEN_LOOP_SECONDS:-30}

# paycallback.retry.transaction-size for the drain and e2e phases: a space-separated list runs those phases once per
# value in the same run (the service restarted with each), so an A/B shares one ceiling and one machine state.
# Unset: one pass on the service's own default, labelled "default".
BATCH=${BATCH:-}
read -ra BATCH_LABELS <<<"${BATCH:-default}"
for b in "${BATCH_LABELS[@]}"; do
  [[ $b == default || $b =~ ^[1-9][0-9]*$ ]] || { echo "BATCH: '$b' is not a positive number" >&2; exit 2; }
done
# Every wrk thread needs a slice of its own: an empty one would never report its answers.
((E2E_ROWS >= WRK_THREADS)) || { echo "E2E_ROWS must be at least WRK_THREADS ($WRK_THREADS)" >&2; exit 2; }

# Outbox events to a real HTTP destination (bench/DownstreamSink on loopback) instead of the log destination, so the
# drain's event figure includes HTTP delivery and its recorded attempts. The e2e phase always delivers to the sink:
# its figure ends at the delivery.
SINK=${SINK:-0}

# Own names: the CI database (paycallback_ci, user paycallback) is never touched. BENCH_DB, HTTP_PORT and MGMT_PORT
# let a bench run beside other services on one machine.
DB=${BENCH_DB:-paycallback_bench}
CEILING_DB=${DB}_ceiling
DB_USER=paycallback_bench
DB_PASSWORD=${BENCH_DB_PASSWORD:-bench-$(hostname | md5sum | cut -c1-12)}
ADMIN_TOKEN=bench-admin-token
HTTP_PORT=${HTTP_PORT:-8080}
MGMT_PORT=${MGMT_PORT:-9000}
APP=http://127.0.0.1:$HTTP_PORT
MGMT=http://127.0.0.1:$MGMT_PORT

WORK=$ROOT/target/bench
RESULTS=$WORK/results.tsv
mkdir -p "$WORK" "$BENCH/results"
: >"$RESULTS"
rm -f "$WORK/explain.txt"

log() { printf '%s bench: %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
sql() { mariadb -uroot --batch --skip-column-names "$@"; }
now_ms() { date +%s%3N; }

SERVICE_PID=
SINK_PID=
BESIDE_PID=
cleanup() {
  if [[ -n $SERVICE_PID ]] && kill -0 "$SERVICE_PID" 2>/dev/null; then
    kill "$SERVICE_PID" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$SERVICE_PID" 2>/dev/null || break; sleep 0.2; done
    kill -9 "$SERVICE_PID" 2>/dev/null || true
  fi
  SERVICE_PID=
}
stop_sink() {
  if [[ -n $SINK_PID ]]; then kill "$SINK_PID" 2>/dev/null || true; fi
  SINK_PID=
  if [[ -n $BESIDE_PID ]]; then kill "$BESIDE_PID" 2>/dev/null || true; fi
  BESIDE_PID=
}
trap 'cleanup; stop_sink; stop_bill_server' EXIT
trap 'exit 130' INT TERM

# ---- tools and database ------------------------------------------------------------------------------------------
need=()
command -v wrk >/dev/null || need+=(wrk)
command -v sysbench >/dev/null || need+=(sysbench)
if ((${#need[@]})); then
  log "installing ${need[*]}"
  apt-get install -y "${need[@]}" >/dev/null || { apt-get update >/dev/null && apt-get install -y "${need[@]}" >/dev/null; }
fi

if ! mariadb-admin -uroot --connect-timeout=2 ping >/dev/null 2>&1; then
  log "starting MariaDB"
  mkdir -p /run/mysqld && chown mysql:mysql /run/mysqld
  start-stop-daemon --start --oknodo --background --exec /usr/sbin/mariadbd
  for _ in $(seq 1 60); do mariadb-admin -uroot ping >/dev/null 2>&1 && break; sleep 1; done
  mariadb-admin -uroot ping >/dev/null
fi

# The Vert.x client cannot log in as unix_socket root, so the service gets its own user with a password; TCP from
# 127.0.0.1 may be matched as 'localhost' or '127.0.0.1' depending on name resolution, so both exist.
sql <<SQL
CREATE USER IF NOT EXISTS '$DB_USER'@'127.0.0.1' IDENTIFIED BY '$DB_PASSWORD';
CREATE USER IF NOT EXISTS '$DB_USER'@'localhost' IDENTIFIED BY '$DB_PASSWORD';
ALTER USER '$DB_USER'@'127.0.0.1' IDENTIFIED BY '$DB_PASSWORD';
ALTER USER '$DB_USER'@'localhost' IDENTIFIED BY '$DB_PASSWORD';
GRANT ALL PRIVILEGES ON \`$DB\`.* TO '$DB_USER'@'127.0.0.1', '$DB_USER'@'localhost';
GRANT ALL PRIVILEGES ON \`$CEILING_DB\`.* TO '$DB_USER'@'127.0.0.1', '$DB_USER'@'localhost';
SQL

# ---- build -------------------------------------------------------------------------------------------------------
if [[ $APP_DIR != target/quarkus-app && ! -f $APP_DIR/quarkus-run.jar ]]; then
  echo "APP_DIR: no $APP_DIR/quarkus-run.jar (only target/quarkus-app is built by this script)" >&2; exit 2
fi
if [[ $SKIP_BUILD != 1 || ! -f $APP_DIR/quarkus-run.jar || ! -f target/cp.txt ]]; then
  log "building (mvnw package, test classpath for the generator)"
  # The image's layout (deploy/Dockerfile.jvm): the AOT cache covers the application's classes only with it.
  ./mvnw -B -q package -DskipTests -Dquarkus.package.jar.type=aot-jar
  ./mvnw -B -q test-compile dependency:build-classpath -Dmdep.outputFile=target/cp.txt
fi
GEN_CP="target/test-classes:target/classes:$(cat target/cp.txt)"
generate() { java -cp "$GEN_CP" io.paycallback.bench.RequestGenerator "$@"; }

# The same JVM options as the container image, read from deploy/Dockerfile.jvm so the two cannot drift apart.
JAVA_OPTS_SOURCE=deploy/Dockerfile.jvm
JAVA_OPTS=$(bash deploy/image-java-opts.sh 2>/dev/null)
if [[ -z $JAVA_OPTS ]]; then
  JAVA_OPTS="-Xmx128m -XX:+UseSerialGC -Xss512k -XX:MaxMetaspaceSize=96m -XX:+ExitOnOutOfMemoryError"
  JAVA_OPTS_SOURCE="fallback (no ENV JAVA_OPTS in deploy/Dockerfile.jvm)"
fi
# Only loopback: the image binds 0.0.0.0 for its container network, the bench has no business listening outside.
JAVA_OPTS=${JAVA_OPTS//-Dquarkus.http.host=0.0.0.0/-Dquarkus.http.host=127.0.0.1}
# The service runs on the image's JDK (Temurin 25) where this machine has it; SERVICE_JAVA overrides. Its AOT cache is
# trained here by the image build's own script (deploy/train-aot-cache.sh: a full start without a database), into
# target/bench/app*.aot (one per APP_DIR: a cache only serves the class path it was trained on), again whenever the
# jar, the script or the image's options are newer than it; AOT=0 runs without one. On a JDK before 25 the options
# that JDK lacks are left out.
SERVICE_JAVA=${SERVICE_JAVA:-/usr/lib/jvm/temurin-25-jdk-amd64/bin/java}
[[ -x $SERVICE_JAVA ]] || SERVICE_JAVA=java
AOT=${AOT:-1}
if (($("$SERVICE_JAVA" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p') < 25)); then
  JAVA_OPTS=${JAVA_OPTS//-XX:+UseCompactObjectHeaders/}
  AOT=0
fi
if [[ $AOT == 1 ]]; then
  AOT_FILE=$WORK/app.aot
  [[ $APP_DIR == target/quarkus-app ]] || AOT_FILE=$WORK/app-$(realpath "$APP_DIR" | md5sum | cut -c1-8).aot
  if [[ ! -s $AOT_FILE || $APP_DIR/quarkus-run.jar -nt $AOT_FILE || deploy/train-aot-cache.sh -nt $AOT_FILE ||
    deploy/Dockerfile.jvm -nt $AOT_FILE ]]; then
    log "training the AOT cache ($SERVICE_JAVA)"
    # shellcheck disable=SC2086 # option list
    AOT_TRAINING_LOG=$WORK/aot-training.log bash deploy/train-aot-cache.sh "$SERVICE_JAVA" "$AOT_FILE" \
      "$APP_DIR/quarkus-run.jar" $JAVA_OPTS
  fi
  JAVA_OPTS="$JAVA_OPTS -XX:AOTCache=$AOT_FILE"
fi

generate keys "$WORK/keys"
MERCHANT_OPTS=()
while IFS= read -r line; do MERCHANT_OPTS+=("-D$line"); done <"$WORK/keys/app.properties"

# The destination is named "sink": the e2e phase counts its delivered rows (outbox.destination = 'sink').
SINK_OPTS=()
if [[ $SINK == 1 ]] || phase e2e || phase delivery || phase isolation; then
  : >"$WORK/sink.port"
  java -cp "$GEN_CP" io.paycallback.bench.DownstreamSink 0 >"$WORK/sink.port" 2>"$WORK/sink.err" &
  SINK_PID=$!
  for _ in $(seq 1 100); do [[ -s $WORK/sink.port ]] && break; sleep 0.1; done
  [[ -s $WORK/sink.port ]] || { cat "$WORK/sink.err" >&2; echo "DownstreamSink did not start" >&2; exit 1; }
  SINK_OPTS=("-Dpaycallback.downstream.destinations.sink.url=http://127.0.0.1:$(head -1 "$WORK/sink.port")/events"
    "-Dpaycallback.downstream.destinations.sink.events=order.paid,refund.requested,refund.succeeded,refund.failed,alert")
fi
# The isolation phase's second destination, "other": a DownstreamSink whose answers the phase switches (POST /mode).
BESIDE=
if phase isolation; then
  : >"$WORK/beside.port"
  java -cp "$GEN_CP" io.paycallback.bench.DownstreamSink 0 ok >"$WORK/beside.port" 2>"$WORK/beside.err" &
  BESIDE_PID=$!
  for _ in $(seq 1 100); do [[ -s $WORK/beside.port ]] && break; sleep 0.1; done
  [[ -s $WORK/beside.port ]] || { cat "$WORK/beside.err" >&2; echo "DownstreamSink (beside) did not start" >&2; exit 1; }
  BESIDE=http://127.0.0.1:$(head -1 "$WORK/beside.port")
fi

# ---- helpers -----------------------------------------------------------------------------------------------------
# Figures of a BATCH pass carry its value as a suffix (drain_base@50), so the report can put the passes side by side.
LABEL=
record() { printf '%s\t%s\t%s\n' "$RUN" "$1${LABEL:+@$LABEL}" "$2" >>"$RESULTS"; }

reset_databases() {
  sql <<SQL
DROP DATABASE IF EXISTS \`$DB\`;
CREATE DATABASE \`$DB\` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
DROP DATABASE IF EXISTS \`$CEILING_DB\`;
CREATE DATABASE \`$CEILING_DB\` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
SQL
  # The ceiling table is pay_callback_log exactly as the migration creates it, under another name and database.
  sed -n '/^CREATE TABLE pay_callback_log/,/;/p' src/main/resources/db/migration/V1__*.sql \
    | sed 's/CREATE TABLE pay_callback_log/CREATE TABLE ceiling_callback_log/' | sql "$CEILING_DB"
}

START_NO=0
start_service() { # [transaction-size|default] [sink|-] [more JVM options...]
  local batch=${1:-default} started
  local opts=()
  if [[ $batch != default ]]; then opts+=("-Dpaycallback.retry.transaction-size=$batch"); fi
  if [[ $SINK == 1 || ${2:-} == sink ]]; then opts+=("${SINK_OPTS[@]}"); fi
  opts+=("${@:3}")
  START_NO=$((START_NO + 1))
  # Another service on these ports would answer our readiness probe and take our load.
  if curl -s -o /dev/null --max-time 1 "$APP/" || curl -s -o /dev/null --max-time 1 "$MGMT/q/health/ready"; then
    echo "something already listens on 127.0.0.1:$HTTP_PORT or :$MGMT_PORT; stop it first" >&2
    exit 1
  fi
  started=$(now_ms)
  # shellcheck disable=SC2086 # JAVA_OPTS and EXTRA_JAVA_OPTS are option lists
  QUARKUS_PROFILE=prod \
  QUARKUS_DATASOURCE_JDBC_URL="jdbc:mariadb://127.0.0.1:3306/$DB" \
  QUARKUS_DATASOURCE_REACTIVE_URL="mysql://127.0.0.1:3306/$DB" \
  QUARKUS_DATASOURCE_USERNAME=$DB_USER QUARKUS_DATASOURCE_PASSWORD=$DB_PASSWORD \
  PAYCALLBACK_ADMIN_TOKEN=$ADMIN_TOKEN \
    "$SERVICE_JAVA" $JAVA_OPTS "${MERCHANT_OPTS[@]}" ${opts[@]+"${opts[@]}"} \
      -Dquarkus.management.host=127.0.0.1 -Dquarkus.http.port="$HTTP_PORT" -Dquarkus.management.port="$MGMT_PORT" \
      "-Dquarkus.log.category.\"io.paycallback.outbox\".level=$OUTBOX_LOG" \
      $EXTRA_JAVA_OPTS -jar "$APP_DIR/quarkus-run.jar" >"$WORK/service-$RUN-$START_NO.log" 2>&1 &
  SERVICE_PID=$!
  local deadline=$((started + 120000))
  until curl -fsS -o /dev/null "$MGMT/q/health/ready" 2>/dev/null; do
    if ! kill -0 "$SERVICE_PID" 2>/dev/null || (($(now_ms) > deadline)); then
      tail -40 "$WORK/service-$RUN-$START_NO.log" >&2
      echo "service did not become ready" >&2
      exit 1
    fi
    sleep 0.05
  done
  kill -0 "$SERVICE_PID"
  local ready_s
  ready_s=$(awk -v ms=$(($(now_ms) - started)) 'BEGIN{printf "%.2f", ms/1000}')
  LABEL= record start_ready_s "$ready_s"
  # From the process's own command line, so the log proves which transaction size and destinations it got.
  log "service #$START_NO ready after $ready_s s; transaction-size: $(tr '\0' '\n' <"/proc/$SERVICE_PID/cmdline" \
    | sed -n 's/^-Dpaycallback.retry.transaction-size=//p' | grep . || echo "service default"); sink: $(tr '\0' '\n' \
    <"/proc/$SERVICE_PID/cmdline" | grep -q '^-Dpaycallback.downstream.destinations.sink.url=' && echo yes || echo no)"
}

# Unmeasured traffic through both channels after every start: a fresh JVM spends its first seconds in the JIT
# compiler, and every BATCH pass starts a fresh JVM.
warmup() {
  ((WARMUP > 0)) || return 0
  local ch n cur
  for ch in stripe wxpay; do
    if [[ $ch == stripe ]]; then n=$((WARMUP * 3000)) cur=USD; else n=$((WARMUP * 1000)) cur=CNY; fi
    generate requests "$WORK/keys" $ch $n "WARM$RUN-$START_NO$ch-" "$WORK/warmup.req"
    create_orders "WARM$RUN-$START_NO$ch-" $n $cur
    WRK_DURATION=$WARMUP wrk_run warmup_$ch "$WORK/warmup.req"
  done
  settle 120
}

# CPU time (ms) used so far by the service and by mariadbd, from /proc: where the 2 cores go, per request.
cpu_ms() { awk '{print ($14 + $15) * 10}' "/proc/$1/stat"; }
# The server the bench talks to, by its own pid file: other mariadbd processes may run beside it (a test cluster).
MARIADB_PID=$(cat "$(sql -e 'SELECT @@pid_file')")
# Statements and log fsyncs the server saw (all clients: the bench is alone on its loopback database).
db_counter() { sql -e "SHOW GLOBAL STATUS LIKE '$1'" | cut -f2; }
cpu_mark() {
  CPU_JAVA0=$(cpu_ms "$SERVICE_PID"); CPU_DB0=$(cpu_ms "$MARIADB_PID")
  QUESTIONS0=$(db_counter Questions); FSYNCS0=$(db_counter Innodb_data_fsyncs)
}
cpu_record() { # name count
  local java=$(($(cpu_ms "$SERVICE_PID") - CPU_JAVA0)) db=$(($(cpu_ms "$MARIADB_PID") - CPU_DB0))
  record "$1_cpu_java_ms" "$(awk -v c=$java -v n="$2" 'BEGIN{printf "%.3f", (n > 0 ? c/n : 0)}')"
  record "$1_cpu_db_ms" "$(awk -v c=$db -v n="$2" 'BEGIN{printf "%.3f", (n > 0 ? c/n : 0)}')"
  # Minus the few polling/status statements the bench itself sent, which is noise at these counts.
  record "$1_statements" "$(awk -v c=$(($(db_counter Questions) - QUESTIONS0)) -v n="$2" 'BEGIN{printf "%.1f", (n > 0 ? c/n : 0)}')"
  record "$1_fsyncs" "$(awk -v c=$(($(db_counter Innodb_data_fsyncs) - FSYNCS0)) -v n="$2" 'BEGIN{printf "%.3f", (n > 0 ? c/n : 0)}')"
}

rss_mb() { awk '/^VmRSS/ {printf "%.0f", $2/1024}' "/proc/$SERVICE_PID/status"; }

# Orders the callbacks refer to, so ingest and drain run the real happy path (PENDING -> PAID + outbox row) instead
# of retrying "unknown order".
create_orders() { # prefix count currency
  sql "$DB" -e "INSERT INTO orders (merchant_id, out_trade_no, amount, currency, status, refunded_amount, created_at, updated_at)
    SELECT 'default', CONCAT('$1', seq), 88.00, '$3', 'PENDING', 0, NOW(3), NOW(3) FROM seq_0_to_$(($2 - 1))"
}

wrk_run() { # name file [cycle]
  local out
  cpu_mark
  out=$(wrk -t"$WRK_THREADS" -c"$CONNS" -d"${WRK_DURATION:-$DURATION}s" --timeout 10s -s "$BENCH/ingest.lua" "$APP" \
    -- "$2" "$WRK_THREADS" "${3:-}" 2>"$WORK/wrk-$1-$RUN.err")
  echo "$out" >"$WORK/wrk-$1-$RUN.out"
  local result
  result=$(grep '^RESULT' <<<"$out")
  log "$1: ${result#RESULT }"
  local field
  for field in rps p50 p99 non200 socket_errors requests exhausted_threads; do
    record "$1_$field" "$(sed -n "s/.* $field=\([0-9.]*\).*/\1/p" <<<"$result")"
  done
  cpu_record "$1" "$(sed -n 's/.* requests=\([0-9]*\).*/\1/p' <<<"$result")"
}

# p50 / p99 / p99.9 at fixed arrival rates below the maximum: at 64 connections on two cores the closed-loop p99 is
# mostly queueing behind the other 63, which a real provider's pushes (arriving when they arrive) do not cause.
open_loop() {
  local max share rate n out result field
  max=$(awk -F'\t' -v r="$RUN" '$1 == r && $2 == "stripe_rps" {print $3}' "$RESULTS")
  [[ -n $max ]] || { log "openloop: needs the stripe phase's req/s in the same run"; return; }
  for share in $OPEN_LOOP_SHARES; do
    rate=$(awk -v m="$max" -v s="$share" 'BEGIN {printf "%.0f", m * s / 100}')
    n=$(awk -v r="$rate" -v d="$OPEN_LOOP_SECONDS" 'BEGIN {printf "%.0f", r * d}')
    generate requests "$WORK/keys" stripe "$n" "O$RUN-$share-" "$WORK/openloop.req"
    create_orders "O$RUN-$share-" "$n" USD
    cpu_mark
    out=$(java -cp "$GEN_CP" io.paycallback.bench.OpenLoop "127.0.0.1:$HTTP_PORT" "$WORK/openloop.req" "$rate" \
      "$OPEN_LOOP_SECONDS" "$CONNS")
    result=$(grep '^RESULT' <<<"$out")
    log "openloop $share % of $max req/s: ${result#RESULT }"
    for field in rate achieved non200 errors p50 p90 p99 p999 max; do
      record "openloop${share}_$field" "$(sed -n "s/.* $field=\([0-9.]*\).*/\1/p" <<<"$result")"
    done
    cpu_record "openloop${share}" "$n"
    settle 120
  done
}

ceiling() {
  local out
  cpu_mark
  out=$(sysbench --db-driver=mysql --mysql-host=127.0.0.1 --mysql-port=3306 --mysql-user=$DB_USER \
    --mysql-password="$DB_PASSWORD" --mysql-db=$CEILING_DB --threads="$CONNS" --time="$DURATION" \
    --events=0 "$BENCH/ceiling.lua" run)
  echo "$out" >"$WORK/sysbench-$RUN.out"
  local tps
  tps=$(sed -n 's/.*transactions: .*(\([0-9.]*\) per sec.*/\1/p' <<<"$out")
  log "ceiling: $tps INSERT/s"
  record ceiling "$tps"
  cpu_record ceiling "$(sed -n 's/.*transactions: *\([0-9]*\) .*/\1/p' <<<"$out")"
}

# The database alone doing the writes one paid order needs (limit.lua): copies of the service's tables, as the
# migrations left them on the bench database, in the ceiling database; PENDING orders for every thread beforehand.
limit() {
  local per_thread=$((DURATION * 150)) out
  sql "$CEILING_DB" <<SQL
DROP TABLE IF EXISTS pay_callback_log, orders, outbox;
CREATE TABLE pay_callback_log LIKE \`$DB\`.pay_callback_log;
CREATE TABLE orders LIKE \`$DB\`.orders;
CREATE TABLE outbox LIKE \`$DB\`.outbox;
INSERT INTO orders (merchant_id, out_trade_no, amount, currency, status, refunded_amount, created_at, updated_at)
  SELECT 'default', CONCAT('L', seq DIV $per_thread, '-', seq MOD $per_thread), 88.00, 'USD', 'PENDING', 0, NOW(3), NOW(3)
  FROM seq_0_to_$((CONNS * per_thread - 1));
SQL
  cpu_mark
  out=$(LIMIT_ORDERS_PER_THREAD=$per_thread LIMIT_BATCH=$LIMIT_BATCH sysbench --db-driver=mysql --mysql-host=127.0.0.1 \
    --mysql-port=3306 --mysql-user=$DB_USER --mysql-password="$DB_PASSWORD" --mysql-db=$CEILING_DB --threads="$CONNS" \
    --time="$DURATION" --events=0 "$BENCH/limit.lua" run)
  echo "$out" >"$WORK/sysbench-limit-$RUN.out"
  local batches_s batches orders
  batches_s=$(sed -n 's/.*transactions: .*(\([0-9.]*\) per sec.*/\1/p' <<<"$out")
  batches=$(sed -n 's/.*transactions: *\([0-9]*\) .*/\1/p' <<<"$out")
  # Cross-check: orders the script moved to PAID with their event delivered.
  orders=$(sql "$CEILING_DB" -e "SELECT COUNT(*) FROM outbox WHERE status = 1")
  record limit "$(awk -v t="$batches_s" -v b="$LIMIT_BATCH" 'BEGIN{printf "%.1f", t*b}')"
  record limit_orders "$orders"
  cpu_record limit $((batches * LIMIT_BATCH))
  log "limit: $(awk -v t="$batches_s" -v b="$LIMIT_BATCH" 'BEGIN{printf "%.1f", t*b}') orders/s ($orders orders PAID and delivered)"
  sql "$CEILING_DB" -e "DROP TABLE pay_callback_log, orders, outbox"
}

pending() { sql "$DB" -e "SELECT COUNT(*) FROM pay_callback_log WHERE status = 0"; }

# Waits (bounded) for work left over from the previous phase, so it does not count against the next one.
settle() {
  local deadline=$(($(now_ms) + ${SETTLE:-${1:-120}} * 1000))
  while (($(pending) > 0)) && (($(now_ms) < deadline)); do sleep 1; done
}

# Loads DRAIN_ROWS due callbacks and their PENDING orders in one transaction, so the scanner sees all or none of
# them, then times the service until none is pending.
explain_lease() {
  # The scanner's own statement (lease/LeaseStatements.java LEASE_DUE), with literal values for its parameters.
  mariadb -uroot --table "$DB" -e "EXPLAIN UPDATE pay_callback_log SET lease_token = 'explain', next_retry_at = DATE_ADD(NOW(3), INTERVAL 60000000 MICROSECOND), updated_at = NOW(3) WHERE status = 0 AND next_retry_at <= NOW(3) ORDER BY next_retry_at LIMIT 200"
}

drain() { # name
  local name=$1 n=$DRAIN_ROWS
  sql "$DB" <<SQL
START TRANSACTION;
INSERT INTO orders (merchant_id, out_trade_no, amount, currency, status, refunded_amount, created_at, updated_at)
  SELECT 'default', CONCAT('D$RUN$name-', seq), 88.00, 'USD', 'PENDING', 0, NOW(3), NOW(3) FROM seq_0_to_$((n - 1));
INSERT INTO pay_callback_log (merchant_id, channel, channel_trade_no, out_trade_no, trade_state, amount, currency,
    status, retry_count, next_retry_at, raw_body, created_at, updated_at)
  SELECT 'default', 'stripe', CONCAT('pi_D$RUN$name-', seq), CONCAT('D$RUN$name-', seq), 'succeeded', 88.00, 'USD',
    0, 0, NOW(3) - INTERVAL 1 MINUTE, REPEAT('x', 420), NOW(3), NOW(3) FROM seq_0_to_$((n - 1));
COMMIT;
SQL
  # Plan of the scanner's statement while the due rows wait (only asked for on the big table).
  if [[ $name == big ]]; then explain_lease >"$WORK/explain.txt"; fi
  local loaded first_ms= first_left=$n left=$n deadline
  cpu_mark
  loaded=$(now_ms)
  deadline=$((loaded + DRAIN_TIMEOUT * 1000))
  # The clock starts at the first transition, not at the load: the scanner's 5 s tick is latency, not throughput.
  while ((left > 0)) && (($(now_ms) < deadline)); do
    left=$(pending)
    if [[ -z $first_ms ]] && ((left < n)); then first_ms=$(now_ms); first_left=$left; fi
    if ((left > 0)); then sleep 0.5; fi
  done
  local end_ms rate
  end_ms=$(now_ms)
  rate=$(awk -v d=$((first_left - left)) -v ms=$((end_ms - ${first_ms:-end_ms})) 'BEGIN{printf "%.1f", (ms > 0 ? d*1000/ms : 0)}')
  record "drain_${name}" "$rate"
  record "drain_${name}_left" "$left"
  cpu_record "drain_${name}" $((n - left))
  # The transitions' outbox events (one each) are delivered by hand-off or, when the worker queue was full, by a
  # later scan: the callback figure above can finish before them, so their end is timed too (same start).
  local events
  while events=$(sql "$DB" -e "SELECT COUNT(*) FROM outbox WHERE status = 0") && ((events > 0)) \
      && (($(now_ms) < deadline)); do
    sleep 0.5
  done
  local events_ms=$(now_ms)
  record "drain_${name}_with_events" "$(awk -v d=$((first_left - left)) -v ms=$((events_ms - ${first_ms:-events_ms})) \
    'BEGIN{printf "%.1f", (ms > 0 ? d*1000/ms : 0)}')"
  log "drain $name${LABEL:+ [transaction-size $LABEL]}: $rate transitions/s ($((n - left))/$n done, $(( (end_ms - loaded) / 1000 )) s after load; outbox events done $(( (events_ms - end_ms) / 1000 )) s later)"
}

# Outbox delivery alone: DELIVERY_ROWS due order.paid events for the sink, loaded at once, timed from the first
# delivered to none pending. Each delivered event is one HTTP POST and its row marked done with its delivered try (the
# attempt log), so this is the figure the attempt log's cost is measured against.
delivery() {
  local n=$DELIVERY_ROWS
  sql "$DB" -e "INSERT INTO outbox (source, type, destination, merchant_id, out_trade_no, payload, status, retry_count,
      next_retry_at, created_at, updated_at)
    SELECT CONCAT('bench:$RUN-', seq), 'order.paid', 'sink', 'default', CONCAT('V$RUN-', seq),
      CONCAT('{\"id\":\"pay:', seq, '/order.paid/sink\",\"type\":\"order.paid\",\"merchantId\":\"default\",',
        '\"outTradeNo\":\"V$RUN-', seq, '\",\"channel\":\"stripe\",\"channelTradeNo\":\"pi_V$RUN-', seq,
        '\",\"amount\":\"88.00\",\"currency\":\"USD\",\"occurredAt\":\"2026-12-03T00:00:00Z\"}'),
      0, 0, NOW(3) - INTERVAL 1 MINUTE, NOW(3), NOW(3) FROM seq_0_to_$((n - 1))"
  local first_ms= first_left=$n left=$n deadline
  cpu_mark
  deadline=$(($(now_ms) + DRAIN_TIMEOUT * 1000))
  while ((left > 0)) && (($(now_ms) < deadline)); do
    left=$(sql "$DB" -e "SELECT COUNT(*) FROM outbox WHERE status = 0")
    if [[ -z $first_ms ]] && ((left < n)); then first_ms=$(now_ms); first_left=$left; fi
    if ((left > 0)); then sleep 0.5; fi
  done
  local end_ms=$(now_ms) rate
  rate=$(awk -v d=$((first_left - left)) -v ms=$((end_ms - ${first_ms:-end_ms})) 'BEGIN{printf "%.1f", (ms > 0 ? d*1000/ms : 0)}')
  record delivery "$rate"
  record delivery_left "$left"
  cpu_record delivery $((n - left))
  log "delivery: $rate events/s ($((n - left))/$n delivered)"
}

# End to end: E2E_ROWS unique paid stripe callbacks for PENDING orders, each sent once by wrk at CONNS connections
# while the service processes them, until every order is PAID and its order.paid row for the sink is delivered.
e2e() {
  local n=$E2E_ROWS prefix="E$RUN-$START_NO-"
  # Only this phase's rows in the tables: the polls below stay small and the final count needs no prefix.
  sql "$DB" -e "TRUNCATE pay_callback_log; TRUNCATE orders; TRUNCATE outbox"
  generate requests "$WORK/keys" stripe "$n" "$prefix" "$WORK/e2e.req"
  create_orders "$prefix" "$n" USD
  local out=$WORK/wrk-e2e-$RUN${LABEL:+-$LABEL}.out err=$WORK/wrk-e2e-$RUN${LABEL:+-$LABEL}.err
  local start_ms wrk_pid rss rss_max=0 deadline
  cpu_mark
  start_ms=$(now_ms)
  deadline=$((start_ms + E2E_TIMEOUT * 1000))
  # "once": every request exactly once, every answer awaited. wrk's -d is only the upper bound: wrk sleeps its full
  # -d even when all threads have stopped, so it is interrupted (SIGINT, its own way to end early) once every thread
  # reported all its answers.
  wrk -t"$WRK_THREADS" -c"$CONNS" -d"${E2E_TIMEOUT}s" --timeout 10s -s "$BENCH/ingest.lua" "$APP" \
    -- "$WORK/e2e.req" "$WRK_THREADS" once >"$out" 2>"$err" &
  wrk_pid=$!
  while kill -0 "$wrk_pid" 2>/dev/null; do
    if (($(grep -c '^e2e: thread done' "$err" || true) >= WRK_THREADS)); then
      # Again each second: a SIGINT that reaches one of wrk's threads still on its way out leaves the main thread
      # asleep for the whole -d (seen once: 6 min).
      while kill -INT "$wrk_pid" 2>/dev/null && sleep 1 && kill -0 "$wrk_pid" 2>/dev/null; do :; done
      break
    fi
    # RSS under load: sampled while wrk sends, from /proc (no statement to the database).
    rss=$(rss_mb); ((rss > rss_max)) && rss_max=$rss
    sleep 0.1
  done
  wait "$wrk_pid" || true
  local result ingest_ms=$(($(now_ms) - start_ms))
  result=$(grep '^RESULT' "$out" || true)
  log "e2e ingest${LABEL:+ [transaction-size $LABEL]}: ${result#RESULT }"
  local field
  for field in rps p50 p99 non200 ok200 sent socket_errors; do
    record "e2e_ingest_$field" "$(sed -n "s/.* $field=\([0-9.]*\).*/\1/p" <<<"$result")"
  done
  # Processing behind it: polled every ~200 ms with two small index range counts (nothing pending in the ledger or
  # the outbox). A stored callback is pending until its transition, which writes the order's PAID and its outbox row
  # in one transaction; that row is pending until delivered. So once every request was answered, nothing pending
  # means every stored callback's order is PAID and delivered, or dead: the exact count below tells which.
  local pending
  while pending=$(sql "$DB" -e "SELECT (SELECT COUNT(*) FROM pay_callback_log WHERE status = 0)
      + (SELECT COUNT(*) FROM outbox WHERE status = 0)") && ((pending > 0)) && (($(now_ms) < deadline)); do
    rss=$(rss_mb); ((rss > rss_max)) && rss_max=$rss
    sleep 0.2
  done
  local end_ms=$(now_ms)
  cpu_record e2e "$n"
  record rss_e2e_mb "$rss_max"
  # Orders PAID whose order.paid row for the sink is delivered (status 1), and the time from the first callback
  # stored to the last such delivery, both from the rows' own NOW(3) stamps (the service's clock and session), so
  # neither wrk's start-up nor the poll interval is counted.
  local delivered first_to_last_us
  read -r delivered first_to_last_us < <(sql "$DB" -e "SELECT COUNT(*),
      TIMESTAMPDIFF(MICROSECOND, (SELECT MIN(created_at) FROM pay_callback_log), MAX(x.updated_at))
    FROM orders o JOIN outbox x ON x.merchant_id = o.merchant_id AND x.out_trade_no = o.out_trade_no
    WHERE o.status = 'PAID' AND x.type = 'order.paid' AND x.destination = 'sink' AND x.status = 1")
  [[ $first_to_last_us =~ ^[0-9]+$ ]] || first_to_last_us=0
  record e2e_done "$delivered"
  record e2e "$(awk -v d="$delivered" -v us="$first_to_last_us" 'BEGIN{printf "%.1f", (us > 0 ? d*1e6/us : 0)}')"
  # The same over the bench's own clock (wrk launched to the poll that saw nothing pending): a cross-check.
  record e2e_wall "$(awk -v d="$delivered" -v ms=$((end_ms - start_ms)) 'BEGIN{printf "%.1f", (ms > 0 ? d*1000/ms : 0)}')"
  log "e2e${LABEL:+ [transaction-size $LABEL]}: $delivered/$n orders PAID and delivered, first callback stored to last delivery $((first_to_last_us / 1000)) ms; wall $((end_ms - start_ms)) ms (wrk $ingest_ms ms); RSS max $rss_max MB"
}

# Isolation: what a broken destination beside it does to a healthy one. The healthy destination is "sink"; beside it
# (ISOLATION_BESIDE, one service start each) nothing, or "other", subscribed to order.paid, which answers normally
# throughout ("ok": what a second destination costs by itself, each paid order writing two events) or during the
# warm-up only, then switched to never answering ("dead": it reads the request and keeps the connection open, so each
# try ends at the service's 5 s timeout) or to answering 500 after 5 s ("slow500"). Two passes each:
# delivery (ISOLATION_ROWS due order.paid events per destination, loaded at once) and e2e (ISOLATION_ROWS paid stripe
# callbacks, each sent once by wrk). Figures of the healthy destination only, from the rows' own NOW(3) stamps: events
# per second and the p50 / p99 / max of each event's time to delivered (its row marked done), counted from the first
# event delivered (delivery) or from the first callback stored (e2e); the service's CPU per healthy event; and how
# many requests "other" received during the pass.
beside_mode() { curl -fsS -o /dev/null -X POST --data "$1" "$BESIDE/mode"; }
beside_requests() { curl -fsS "$BESIDE/requests"; }

# Reads "micros" lines on stdin: count, rate per second over the largest, and p50 / p99 / max in ms.
latencies() {
  sort -n | awk '{v[NR]=$1} END {
    if (!NR) { print 0, 0, 0, 0, 0; exit }
    p50 = v[int((NR - 1) * 0.50) + 1]; p99 = v[int((NR - 1) * 0.99) + 1]; max = v[NR]
    printf "%d %.1f %.0f %.0f %.0f\n", NR, (max > 0 ? NR * 1e6 / max : 0), p50 / 1000, p99 / 1000, max / 1000 }'
}

isolation_pass() { # delivery|e2e
  local kind=$1 n=$ISOLATION_ROWS beside0=0 deadline delivered=0
  sql "$DB" -e "TRUNCATE pay_callback_log; TRUNCATE orders; TRUNCATE outbox; TRUNCATE delivery_attempts"
  [[ $LABEL == none ]] || beside0=$(beside_requests)
  if [[ $kind == delivery ]]; then
    # One statement, the destinations' rows interleaved by id, as events of several destinations arrive.
    local each="SELECT 'sink' AS d"
    [[ $LABEL == none ]] || each="$each UNION ALL SELECT 'other'"
    sql "$DB" -e "INSERT INTO outbox (source, type, destination, merchant_id, out_trade_no, payload, status, retry_count,
        next_retry_at, created_at, updated_at)
      SELECT CONCAT('iso:$RUN-', seq), 'order.paid', d, 'default', CONCAT('I$RUN-', seq),
        CONCAT('{\"id\":\"iso:', seq, ':order.paid\",\"type\":\"order.paid\",\"merchantId\":\"default\",',
          '\"outTradeNo\":\"I$RUN-', seq, '\",\"channel\":\"stripe\",\"channelTradeNo\":\"pi_I$RUN-', seq,
          '\",\"amount\":\"88.00\",\"currency\":\"USD\",\"occurredAt\":\"2026-12-03T00:00:00Z\"}'),
        0, 0, NOW(3) - INTERVAL 1 MINUTE, NOW(3), NOW(3) FROM seq_0_to_$((n - 1)) CROSS JOIN ($each) AS destinations
      ORDER BY seq, d"
    cpu_mark
  else
    local prefix="IE$RUN-$START_NO-"
    generate requests "$WORK/keys" stripe "$n" "$prefix" "$WORK/isolation.req"
    create_orders "$prefix" "$n" USD
    cpu_mark
    wrk -t"$WRK_THREADS" -c"$CONNS" -d"${ISOLATION_TIMEOUT}s" --timeout 10s -s "$BENCH/ingest.lua" "$APP" \
      -- "$WORK/isolation.req" "$WRK_THREADS" once >"$WORK/wrk-isolation-$RUN-$LABEL.out" 2>"$WORK/wrk-isolation-$RUN-$LABEL.err" &
    local wrk_pid=$!
    while kill -0 "$wrk_pid" 2>/dev/null; do
      if (($(grep -c '^e2e: thread done' "$WORK/wrk-isolation-$RUN-$LABEL.err" || true) >= WRK_THREADS)); then
        while kill -INT "$wrk_pid" 2>/dev/null && sleep 1 && kill -0 "$wrk_pid" 2>/dev/null; do :; done
        break
      fi
      sleep 0.1
    done
    wait "$wrk_pid" || true
  fi
  deadline=$(($(now_ms) + ISOLATION_TIMEOUT * 1000))
  while delivered=$(sql "$DB" -e "SELECT COUNT(*) FROM outbox WHERE destination = 'sink' AND type = 'order.paid' AND status = 1") \
      && ((delivered < n)) && (($(now_ms) < deadline)); do
    sleep 0.2
  done
  cpu_record "iso_$kind" "$delivered"
  local from
  if [[ $kind == delivery ]]; then
    from="(SELECT MIN(updated_at) FROM outbox WHERE destination = 'sink' AND status = 1)"
  else
    from="(SELECT MIN(created_at) FROM pay_callback_log)"
  fi
  local count rate p50 p99 max
  read -r count rate p50 p99 max < <(sql "$DB" -e "SELECT TIMESTAMPDIFF(MICROSECOND, $from, updated_at) FROM outbox
      WHERE destination = 'sink' AND type = 'order.paid' AND status = 1" | latencies)
  record "iso_${kind}" "$rate"
  record "iso_${kind}_done" "$count"
  record "iso_${kind}_p50_ms" "$p50"
  record "iso_${kind}_p99_ms" "$p99"
  record "iso_${kind}_max_ms" "$max"
  local beside=0
  [[ $LABEL == none ]] || beside=$(($(beside_requests) - beside0))
  record "iso_${kind}_beside_requests" "$beside"
  log "isolation $kind beside $LABEL: $count/$n healthy events delivered, $rate events/s, to delivered p50 $p50 ms, p99 $p99 ms, max $max ms; 'other' received $beside requests"
}

isolation() {
  for LABEL in $ISOLATION_BESIDE; do
    # Each configuration starts with every circuit closed (a release with circuits keeps them in the database).
    sql "$DB" -e "DELETE FROM destination_circuits" 2>/dev/null || true
    case $LABEL in
      none) start_service default sink ;;
      ok | dead | slow500)
        beside_mode ok
        start_service default sink "-Dpaycallback.downstream.destinations.other.url=$BESIDE/events" \
          "-Dpaycallback.downstream.destinations.other.events=order.paid"
        ;;
      *) echo "ISOLATION_BESIDE: '$LABEL' is none of none, ok, dead, slow500" >&2; exit 2 ;;
    esac
    warmup
    # The warm-up's events delivered first, while "other" still answers: the passes start on an empty outbox.
    local deadline=$(($(now_ms) + 120000))
    while (($(sql "$DB" -e "SELECT COUNT(*) FROM outbox WHERE status = 0") > 0)) && (($(now_ms) < deadline)); do sleep 0.5; done
    case $LABEL in dead) beside_mode silent ;; slow500) beside_mode slow-500 ;; esac
    isolation_pass delivery
    isolation_pass e2e
    cleanup
  done
  LABEL=
}

# One statement run of a STATEMENT_LINES-line WeChat Pay bill by the packaged service itself, at the image's JVM
# options (-Xmx128m, -XX:+ExitOnOutOfMemoryError) plus a GC log. The bill comes from io.paycallback.bench.BillServer,
# the tests' fake providers in a process of their own: the signed apply answer (GET /v3/bill/tradebill) and the gzip
# download, written while it is served (never held), whose decompressed SHA-1 the service checks. Line i pays order
# ST<run>-<i>, transaction 4200ST<run>-<i>, 1.00 CNY. The ledger is loaded with set-based INSERTs (not timed), with
# differences injected per 10,000 lines: i MOD 10000 = 0 is not registered here (NOT_REGISTERED); 2500 is an order
# still PENDING (MISSING_HERE: the run asks the provider, which does not know it, so it stays open); 5000 was paid
# 2.00 (AMOUNT_DIFFERS); and STATEMENT_LINES/10,000 paid orders of the day are in no bill (MISSING_AT_PROVIDER, open
# at once: the date is 30 days back, past the cross-day window). The run is enrolled through the admin API and timed
# from its enrolment (created_at) to its comparison (compared_at), both stamped by the database; that includes the
# scanner's pick-up (paycallback.retry.scan-interval, 5 s).
BILL_PID=
stop_bill_server() {
  if [[ -n $BILL_PID ]]; then kill "$BILL_PID" 2>/dev/null || true; fi
  BILL_PID=
}

statement() {
  local n=$STATEMENT_LINES p="ST$RUN-" date at base extra=$((STATEMENT_LINES / 10000)) gc_log="$WORK/statement-gc-$RUN.log"
  date=$(date -u -d '30 days ago' +%F)
  log "statement: a $n-line WeChat Pay bill of $date compared by the packaged service ($(grep -o -- '-Xmx[^ ]*' <<<"$JAVA_OPTS"))"
  : >"$WORK/bill-server.url"
  java -Xmx256m -cp "$GEN_CP" io.paycallback.bench.BillServer "$WORK/keys" "$WORK/bill-server.properties" \
    >"$WORK/bill-server.url" 2>"$WORK/bill-server.err" &
  BILL_PID=$!
  for _ in $(seq 1 100); do [[ -s $WORK/bill-server.url ]] && break; sleep 0.1; done
  [[ -s $WORK/bill-server.url ]] || { cat "$WORK/bill-server.err" >&2; echo "BillServer did not start" >&2; exit 1; }
  base=$(head -1 "$WORK/bill-server.url")
  local bill_opts=()
  while IFS= read -r line; do bill_opts+=("-D$line"); done <"$WORK/bill-server.properties"

  start_service default - "${bill_opts[@]}" "-Xlog:gc:file=$gc_log"
  # The orders first, then their payments, dated noon of the bill date in Beijing in the database's clock.
  at="TIMESTAMP('$date 04:00:00') + INTERVAL TIMESTAMPDIFF(SECOND, UTC_TIMESTAMP(), NOW()) SECOND"
  local seeded=$(now_ms)
  sql "$DB" <<SQL
INSERT INTO orders (merchant_id, out_trade_no, amount, currency, status, channel, channel_trade_no, paid_at, created_at,
                    updated_at)
  SELECT 'default', CONCAT('$p', seq), IF(seq MOD 10000 = 5000, 2.00, 1.00), 'CNY',
         IF(seq MOD 10000 = 2500, 'PENDING', 'PAID'), IF(seq MOD 10000 = 2500, NULL, 'wxpay'),
         IF(seq MOD 10000 = 2500, NULL, CONCAT('4200$p', seq)), IF(seq MOD 10000 = 2500, NULL, $at), $at, $at
  FROM seq_1_to_$n WHERE seq MOD 10000 <> 0;
INSERT INTO pay_callback_log (merchant_id, channel, channel_trade_no, out_trade_no, trade_state, amount, currency,
                              origin, status, retry_count, next_retry_at, raw_body, created_at, updated_at)
  SELECT 'default', 'wxpay', CONCAT('4200$p', seq), CONCAT('$p', seq), 'SUCCESS', IF(seq MOD 10000 = 5000, 2.00, 1.00),
         'CNY', 'callback', 3, 0, $at, '', $at, $at
  FROM seq_1_to_$n WHERE seq MOD 10000 NOT IN (0, 2500);
SQL
  if ((extra > 0)); then
    sql "$DB" <<SQL
INSERT INTO orders (merchant_id, out_trade_no, amount, currency, status, channel, channel_trade_no, paid_at, created_at,
                    updated_at)
  SELECT 'default', CONCAT('${p}X', seq), 1.00, 'CNY', 'PAID', 'wxpay', CONCAT('4200${p}X', seq), $at, $at, $at
  FROM seq_1_to_$extra;
INSERT INTO pay_callback_log (merchant_id, channel, channel_trade_no, out_trade_no, trade_state, amount, currency,
                              origin, status, retry_count, next_retry_at, raw_body, created_at, updated_at)
  SELECT 'default', 'wxpay', CONCAT('4200${p}X', seq), CONCAT('${p}X', seq), 'SUCCESS', 1.00, 'CNY', 'callback', 3, 0,
         $at, '', $at, $at
  FROM seq_1_to_$extra;
SQL
  fi
  sql "$DB" -e "ANALYZE TABLE orders, pay_callback_log" >/dev/null
  # The fake states the bill's SHA-1 in its apply answer, so it writes the bill once to learn it (not timed).
  curl -fsS -o /dev/null -X POST "$base/control/generated-bill?date=$date&prefix=$p&lines=$n"
  log "statement: ledger and bill ready in $(($(now_ms) - seeded)) ms; load: $(cut -d' ' -f1-3 /proc/loadavg)"

  local load0 cpu0 db0 rss_max=0 rss row state="" status=0 waited=0
  load0=$(cut -d' ' -f1-3 /proc/loadavg)
  cpu0=$(cpu_ms "$SERVICE_PID"); db0=$(cpu_ms "$MARIADB_PID")
  local answer
  answer=$(curl -fsS -H "Authorization: Bearer $ADMIN_TOKEN" -H 'Content-Type: application/json' -X POST \
    "$APP/admin/statements/runs" -d "{\"merchantId\":\"default\",\"channel\":\"wxpay\",\"billDate\":\"$date\"}")
  log "statement: enrolled through the admin API: $answer"
  local started
  started=$(now_ms)
  while :; do
    if ! kill -0 "$SERVICE_PID" 2>/dev/null; then
      log "statement: the service exited during the run"; break
    fi
    rss=$(rss_mb); ((rss > rss_max)) && rss_max=$rss
    row=$(sql "$DB" -e "SELECT state, status FROM statement_runs WHERE channel = 'wxpay' AND bill_date = '$date'")
    state=$(cut -f1 <<<"$row"); status=$(cut -f2 <<<"$row")
    [[ $state == MATCHED || $state == DIFFERENCES || $state == FAILED || $state == RETRYING || $status != 0 ]] && break
    waited=$(($(now_ms) - started))
    ((waited < STATEMENT_TIMEOUT * 1000)) || { log "statement: no result after $STATEMENT_TIMEOUT s"; break; }
    sleep 0.5
  done
  local alive=yes
  kill -0 "$SERVICE_PID" 2>/dev/null || alive=no
  grep -q 'OutOfMemoryError' "$WORK/service-$RUN-$START_NO.log" && alive="no (OutOfMemoryError)"
  local cpu_s db_s
  cpu_s=$(( ($(cpu_ms "$SERVICE_PID" 2>/dev/null || echo "$cpu0") - cpu0) ))
  db_s=$(( $(cpu_ms "$MARIADB_PID") - db0 ))
  # The heap: largest occupancy left after a collection and largest before one (the GC log's "before->after(committed)"),
  # over the service's whole life; the JVM's own view at the end; the process's peak RSS (VmHWM).
  local gc_after gc_before gc_committed gcs heap_info hwm
  read -r gc_before gc_after gc_committed gcs < <(grep -o '[0-9]*M->[0-9]*M([0-9]*M)' "$gc_log" \
    | awk -F'[M>()-]+' '{if ($1>b) b=$1; if ($2>a) a=$2; if ($3>c) c=$3; n++} END {print b+0, a+0, c+0, n+0}')
  heap_info=$("$(dirname "$(readlink -f "$(command -v "$SERVICE_JAVA")")")/jcmd" "$SERVICE_PID" GC.heap_info 2>&1 | tail -n +2 || true)
  hwm=$(awk '/^VmHWM/ {printf "%.0f", $2/1024}' "/proc/$SERVICE_PID/status" 2>/dev/null || echo "?")
  local run_row seconds lines found expected
  run_row=$(sql "$DB" -e "SELECT id, lines_compared, TIMESTAMPDIFF(MICROSECOND, created_at, compared_at) / 1e6,
      IFNULL(last_error, '') FROM statement_runs WHERE channel = 'wxpay' AND bill_date = '$date'")
  lines=$(cut -f2 <<<"$run_row"); seconds=$(cut -f3 <<<"$run_row")
  found=$(sql "$DB" -e "SELECT kind, COUNT(*) FROM statement_discrepancies WHERE run_id = '$(cut -f1 <<<"$run_row")'
      GROUP BY kind ORDER BY kind" | tr '\t\n' '= ' | sed 's/ $//')
  local nr=$((n / 10000)) mh=$((n >= 2500 ? (n - 2500) / 10000 + 1 : 0)) ad=$((n >= 5000 ? (n - 5000) / 10000 + 1 : 0))
  expected=$(printf '%s\n' "AMOUNT_DIFFERS=$ad" "MISSING_AT_PROVIDER=$extra" "MISSING_HERE=$mh" "NOT_REGISTERED=$nr" \
    | grep -v '=0$' | paste -sd' ')
  local exact=no
  [[ $found == "$expected" && $lines == "$n" && $state == DIFFERENCES && $alive == yes ]] && exact=yes
  log "statement: state $state, $lines lines in $seconds s (enrolment to compared), load before $load0, after $(cut -d' ' -f1-3 /proc/loadavg)"
  log "statement: discrepancies $found; injected $expected; exact: $exact; JVM alive: $alive"
  # The service's own split of the run (StatementRunner's log line).
  local split
  split=$(grep -o 'read and staged in [0-9.]* s, compared in [0-9.]* s, repairs and record [0-9.]* s' \
    "$WORK/service-$RUN-$START_NO.log" | tail -1 || true)
  log "statement: $split"
  log "statement: heap max before/after GC $gc_before/$gc_after MB (committed max $gc_committed MB, $gcs GCs); RSS max sampled $rss_max MB, VmHWM $hwm MB; CPU service $((cpu_s / 1000)) s, mariadbd $((db_s / 1000)) s"
  printf '%s\n' "$heap_info" >"$WORK/statement-heap-$RUN.txt"
  [[ -z $(cut -f4 <<<"$run_row") ]] || log "statement: last error: $(cut -f4 <<<"$run_row")"
  if [[ $exact == yes ]]; then
    record statement_seconds "$seconds"
    record statement_lines_per_s "$(awk -v n="$lines" -v s="$seconds" 'BEGIN{printf "%.0f", n/s}')"
  fi
  record statement_exact "$([[ $exact == yes ]] && echo 1 || echo 0)"
  record statement_heap_after_gc_mb "$gc_after"
  record statement_heap_before_gc_mb "$gc_before"
  record statement_rss_max_mb "$hwm"
  record statement_cpu_java_s "$(awk -v c="$cpu_s" 'BEGIN{printf "%.1f", c/1000}')"
  record statement_cpu_db_s "$(awk -v c="$db_s" 'BEGIN{printf "%.1f", c/1000}')"
  record statement_load1 "${load0%% *}"
  record statement_staged_s "$(sed -n 's/^read and staged in \([0-9.]*\) s.*/\1/p' <<<"$split")"
  record statement_compare_s "$(sed -n 's/.*compared in \([0-9.]*\) s.*/\1/p' <<<"$split")"
  cleanup
  stop_bill_server
}

# ---- report ------------------------------------------------------------------------------------------------------
# Written after every run, so an interrupted RUNS=3 still leaves the medians of the runs it finished.
report() {
  median() { # figure -> median over runs ("" when absent)
    awk -F'\t' -v f="$1" '$2==f {print $3}' "$RESULTS" | sort -g \
      | awk '{v[NR]=$1} END {if (NR) print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'
  }
  ratio_median() { # figure base -> median of per-run figure/base
    awk -F'\t' -v f="$1" -v b="$2" '$2==f {x[$1]=$3} $2==b {y[$1]=$3} END {for (r in x) if (y[r] > 0) printf "%.3f\n", x[r]/y[r]}' \
      "$RESULTS" | sort -g | awk '{v[NR]=$1} END {if (NR) printf "%.2f", (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'
  }
  pass() { awk -v v="$1" -v op="$2" -v t="$3" 'BEGIN{ if (v=="") {print "n/a"; exit}
    ok = (op==">=" ? v+0 >= t+0 : op=="<=" ? v+0 <= t+0 : v+0 == t+0); print (ok ? "pass" : "FAIL") }'; }
  values() { awk -F'\t' -v f="$1" '$2==f {printf "%s%s", (n++ ? " " : ""), $3}' "$RESULTS"; }

  # Per run, the largest of the figures matching a regex (RSS under load: after ingest, during each e2e pass).
  run_max() { awk -F'\t' -v re="$1" '$2 ~ re {if (!($1 in m) || $3+0 > m[$1]) m[$1]=$3+0} END {for (r in m) print r "\t" m[r]}' \
    "$RESULTS" | sort -n; }
  # Label of a BATCH pass in the table.
  tx() { printf '[transaction-size=%s]' "$1"; }

  TABLE=$WORK/table.md
  {
    echo "| figure | value (median) | ratio (median) | target | result | runs |"
    echo "|---|---:|---:|---|---|---|"
    row() { # label value ratio target result figure
      printf '| %s | %s | %s | %s | %s | %s |\n' "$1" "$2" "$3" "$4" "$5" "$(values "$6")"
    }
    row "ceiling: sysbench 1-row autocommit INSERT/s, $CONNS thr" "$(median ceiling)" "1.00" "-" "-" ceiling
    row "limit: sysbench, the writes of a paid order in batches of $LIMIT_BATCH, orders/s, $CONNS thr" "$(median limit)" "$(ratio_median limit ceiling)" "-" "-" limit
    for ch in stripe wxpay; do
      target=0.70; [[ $ch == wxpay ]] && target=0.60
      r=$(ratio_median ${ch}_rps ceiling)
      lb=$(awk -F'\t' -v f=${ch}_exhausted_threads '$2==f && $3>0 {print ">= "; exit}' "$RESULTS")
      row "ingest $ch req/s, $CONNS conn" "$lb$(median ${ch}_rps)" "$r" ">= $target x ceiling" "$(pass "$r" '>=' $target)" ${ch}_rps
      row "ingest $ch p50 ms" "$(median ${ch}_p50)" "" "-" "-" ${ch}_p50
      row "ingest $ch p99 ms" "$(median ${ch}_p99)" "" "<= 40" "$(pass "$(median ${ch}_p99)" '<=' 40)" ${ch}_p99
      non=$(awk -F'\t' -v c=$ch '$2==c"_non200" || $2==c"_socket_errors" {s+=$3; n++} END {if (n) print s+0}' "$RESULTS")
      row "ingest $ch non-200 + socket errors (all runs)" "$non" "" "0" "$(pass "$non" '==' 0)" ${ch}_non200
      row "ingest $ch requests sent / rows stored" "$(median ${ch}_requests) / $(median ${ch}_rows)" "" "-" "-" ${ch}_rows
    done
    r=$(ratio_median storm_rps ceiling)
    row "duplicate storm req/s, $CONNS conn, 1 callback" "$(median storm_rps)" "$r" ">= 1.0 x ceiling" "$(pass "$r" '>=' 1.0)" storm_rps
    row "duplicate storm p99 ms" "$(median storm_p99)" "" "<= 40" "$(pass "$(median storm_p99)" '<=' 40)" storm_p99
    non=$(awk -F'\t' '$2=="storm_non200" || $2=="storm_socket_errors" {s+=$3; n++} END {if (n) print s+0}' "$RESULTS")
    row "duplicate storm non-200 + socket errors (all runs)" "$non" "" "0" "$(pass "$non" '==' 0)" storm_non200
    for share in $OPEN_LOOP_SHARES; do
      row "open loop at $share % of the stripe req/s ($(median openloop${share}_rate) req/s asked, $(median openloop${share}_achieved) sent), p50 / p99 / p99.9 ms" \
        "$(median openloop${share}_p50) / $(median openloop${share}_p99) / $(median openloop${share}_p999)" "" \
        "$([[ $share == 80 ]] && echo "p99 <= 40" || echo "-")" \
        "$([[ $share == 80 ]] && pass "$(median openloop${share}_p99)" '<=' 40 || echo "-")" openloop${share}_p99
    done
    row "duplicate storm rows stored" "$(median storm_rows)" "" "exactly 1" "$(awk -F'\t' '$2=="storm_rows" {n++; if ($3 != 1) bad=1} END {print (!n ? "n/a" : bad ? "FAIL" : "pass")}' "$RESULTS")" storm_rows
    # Processing figures: one row per BATCH value, side by side.
    for b in "${BATCH_LABELS[@]}"; do
      r=$(ratio_median drain_base@$b ceiling)
      row "drain $DRAIN_ROWS due, transitions/s $(tx $b)" "$(median drain_base@$b)" "$r" ">= 1.0 x ceiling" "$(pass "$r" '>=' 1.0)" drain_base@$b
    done
    for b in "${BATCH_LABELS[@]}"; do
      v=$(median drain_base_statements@$b)
      row "drain SQL statements per transition $(tx $b)" "$v" "" "<= 2.0" "$(pass "$v" '<=' 2.0)" drain_base_statements@$b
    done
    for b in "${BATCH_LABELS[@]}"; do
      v=$(median drain_base_fsyncs@$b)
      row "drain InnoDB fsyncs per transition $(tx $b)" "$v" "" "<= 0.05" "$(pass "$v" '<=' 0.05)" drain_base_fsyncs@$b
    done
    for b in "${BATCH_LABELS[@]}"; do
      r=$(ratio_median drain_big@$b drain_base@$b)
      row "drain with $EXTRA_DONE extra done rows, transitions/s (ratio to drain above) $(tx $b)" "$(median drain_big@$b)" "$r" ">= 0.90 x drain" "$(pass "$r" '>=' 0.90)" drain_big@$b
    done
    for b in "${BATCH_LABELS[@]}"; do
      row "drain incl. delivery of its outbox events, transitions/s (base / $EXTRA_DONE done rows) $(tx $b)" "$(median drain_base_with_events@$b) / $(median drain_big_with_events@$b)" "$(ratio_median drain_base_with_events@$b ceiling)" "-" "-" drain_base_with_events@$b
    done
    row "outbox delivery alone, $DELIVERY_ROWS due events to the HTTP sink, events/s" "$(median delivery)" "$(ratio_median delivery ceiling)" "-" "-" delivery
    row "lease statement uses idx_pay_callback_retry (EXPLAIN)" "$(median explain_index)" "" "1" "$(pass "$(median explain_index)" '>=' 1)" explain_index
    for b in "${BATCH_LABELS[@]}"; do
      r=$(ratio_median e2e@$b ceiling)
      row "e2e $E2E_ROWS paid stripe callbacks, first stored to last order.paid delivered, orders/s $(tx $b)" "$(median e2e@$b)" "$r" "- (the limit row below replaces 0.5 x ceiling)" "-" e2e@$b
    done
    for b in "${BATCH_LABELS[@]}"; do
      r=$(ratio_median e2e@$b limit)
      row "e2e orders/s to limit orders/s $(tx $b)" "" "$r" ">= 0.7 x limit" "$(pass "$r" '>=' 0.7)" e2e@$b
      r=$(ratio_median e2e_cpu_db_ms@$b limit_cpu_db_ms)
      row "e2e MariaDB CPU per order to the limit's $(tx $b)" "$(median e2e_cpu_db_ms@$b) / $(median limit_cpu_db_ms)" "$r" "<= 1.05 x limit" "$(pass "$r" '<=' 1.05)" e2e_cpu_db_ms@$b
    done
    for b in "${BATCH_LABELS[@]}"; do
      row "e2e ingest req/s, $CONNS conn, processing behind it $(tx $b)" "$(median e2e_ingest_rps@$b)" "$(ratio_median e2e_ingest_rps@$b ceiling)" "-" "-" e2e_ingest_rps@$b
    done
    for b in "${BATCH_LABELS[@]}"; do
      v=$(median e2e_ingest_p99@$b)
      row "e2e ingest p99 ms $(tx $b)" "$v" "" "<= 40" "$(pass "$v" '<=' 40)" e2e_ingest_p99@$b
    done
    for b in "${BATCH_LABELS[@]}"; do
      # Every run: each callback sent once, answered 200, its order PAID and its order.paid delivered to the sink.
      ok=$(awk -F'\t' -v b="@$b" -v n="$E2E_ROWS" '$2=="e2e_ingest_sent"b || $2=="e2e_ingest_ok200"b || $2=="e2e_done"b {k++; if ($3 != n) bad=1}
        $2=="e2e_ingest_socket_errors"b {k++; if ($3 != 0) bad=1} END {print (!k ? "n/a" : bad ? "FAIL" : "pass")}' "$RESULTS")
      row "e2e callbacks sent / answered 200 / orders PAID and delivered; socket errors $(tx $b)" \
        "$(median e2e_ingest_sent@$b) / $(median e2e_ingest_ok200@$b) / $(median e2e_done@$b); $(median e2e_ingest_socket_errors@$b)" \
        "" "all $E2E_ROWS; 0" "$ok" e2e_done@$b
    done
    rss=$(run_max '^(rss_mb|rss_e2e_mb@.*)$' | cut -f2 \
      | sort -g | awk '{v[NR]=$1} END {if (NR) print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}')
    printf '| %s | %s | %s | %s | %s | %s |\n' "JVM RSS under load MB (max of after ingest and during e2e)" "$rss" "" "<= 200" \
      "$(pass "$rss" '<=' 200)" "$(run_max '^(rss_mb|rss_e2e_mb@.*)$' | cut -f2 | paste -sd' ')"
    row "JVM RSS after ingest / after storm MB" "$(median rss_mb) / $(median rss_after_storm_mb)" "" "-" "-" rss_mb
    for b in "${BATCH_LABELS[@]}"; do
      row "JVM RSS at end of drain / max during e2e MB $(tx $b)" "$(median rss_end_mb@$b) / $(median rss_e2e_mb@$b)" "" "-" "-" rss_e2e_mb@$b
    done
    for f in ceiling limit stripe wxpay storm delivery; do
      [[ -n $(median ${f}_cpu_java_ms) ]] || continue
      row "per request/transition/event, $f: CPU ms service / mariadbd; SQL statements; InnoDB fsyncs" \
        "$(median ${f}_cpu_java_ms) / $(median ${f}_cpu_db_ms); $(median ${f}_statements); $(median ${f}_fsyncs)" "" "-" "-" ${f}_cpu_java_ms
    done
    for f in drain_base drain_big e2e; do
      for b in "${BATCH_LABELS[@]}"; do
        [[ -n $(median ${f}_cpu_java_ms@$b) ]] || continue
        row "per $([[ $f == e2e ]] && echo order || echo transition), $f: CPU ms service / mariadbd; SQL statements; InnoDB fsyncs $(tx $b)" \
          "$(median ${f}_cpu_java_ms@$b) / $(median ${f}_cpu_db_ms@$b); $(median ${f}_statements@$b); $(median ${f}_fsyncs@$b)" "" "-" "-" ${f}_cpu_java_ms@$b
      done
    done
    if [[ -n $(median statement_exact) ]]; then
      ok=$(awk -F'\t' '$2=="statement_exact" {k++; if ($3 != 1) bad=1} END {print (!k ? "n/a" : bad ? "FAIL" : "pass")}' "$RESULTS")
      row "statement: $STATEMENT_LINES-line WeChat Pay bill, enrolment to compared, s, by the service ($(grep -o -- '-Xmx[^ ]*' <<<"$JAVA_OPTS"))" \
        "$(median statement_seconds)" "" "<= 60" "$(pass "$(median statement_seconds)" "<=" 60)" statement_seconds
      row "statement: lines/s; load (1 min) at the start" "$(median statement_lines_per_s); $(median statement_load1)" "" "-" "-" statement_load1
      row "statement: discrepancies found exactly as injected, JVM alive" "$(median statement_exact)" "" "1" "$ok" statement_exact
      row "statement: heap max after / before GC MB; peak RSS MB" \
        "$(median statement_heap_after_gc_mb) / $(median statement_heap_before_gc_mb); $(median statement_rss_max_mb)" "" "-" "-" statement_heap_after_gc_mb
      row "statement: CPU s service / mariadbd" "$(median statement_cpu_java_s) / $(median statement_cpu_db_s)" "" "-" "-" statement_cpu_java_s
      row "statement: s read and staged / compared (the service's log)" "$(median statement_staged_s) / $(median statement_compare_s)" "" "-" "-" statement_staged_s
    fi
    for kind in delivery e2e; do
      for b in $ISOLATION_BESIDE; do
        [[ -n $(median iso_${kind}@$b) ]] || continue
        if [[ $b == none ]]; then r="1.00" t="-" res="-"; else r=$(ratio_median iso_${kind}@$b iso_${kind}@none) t=">= 0.9 x alone" res=$(pass "$r" '>=' 0.9); fi
        # Beside a second destination that answers, the service does twice the deliveries: a reference, not a target.
        if [[ $b == ok ]]; then t="-" res="-"; fi
        row "isolation $kind, healthy destination beside $b: events/s ($ISOLATION_ROWS)" "$(median iso_${kind}@$b)" "$r" "$t" "$res" iso_${kind}@$b
        row "isolation $kind, healthy destination beside $b: to delivered p50 / p99 / max ms; CPU ms service per event; requests to 'other'" \
          "$(median iso_${kind}_p50_ms@$b) / $(median iso_${kind}_p99_ms@$b) / $(median iso_${kind}_max_ms@$b); $(median iso_${kind}_cpu_java_ms@$b); $(median iso_${kind}_beside_requests@$b)" \
          "$(ratio_median iso_${kind}_p99_ms@$b iso_${kind}_p99_ms@none)" "-" "-" iso_${kind}_p99_ms@$b
        if [[ $b != none && $b != ok && -n $(median iso_${kind}@ok) ]]; then
          r=$(ratio_median iso_${kind}@$b iso_${kind}@ok)
          row "isolation $kind, healthy destination beside $b: events/s against beside ok (the same two destinations, both answering)" \
            "$(median iso_${kind}@$b)" "$r" ">= 0.9 x beside ok" "$(pass "$r" '>=' 0.9)" iso_${kind}@$b
        fi
      done
    done
    row "process start to first ready probe, s (every start)" "$(median start_ready_s)" "" "-" "-" start_ready_s
  } >"$TABLE"

  {
    echo "# pay-callback benchmark — latest"
    echo
    echo "$(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')$(git diff --quiet HEAD -- src 2>/dev/null || echo ' + uncommitted src changes'), $(nproc) cores, $(mariadb -uroot -N -e 'SELECT VERSION()'), $(java -version 2>&1 | head -1)."
    echo "runs finished: $RUN of RUNS=$RUNS, $CONNS connections / sysbench threads, ${DURATION} s per load phase, wrk $WRK_THREADS threads; phases:${PHASES% }; DRAIN_ROWS=$DRAIN_ROWS, EXTRA_DONE=$EXTRA_DONE, E2E_ROWS=$E2E_ROWS, WARMUP=$WARMUP s."
    echo "BATCH (paycallback.retry.transaction-size of the drain and e2e passes, each on a freshly started service): ${BATCH_LABELS[*]}."
    echo "Service JVM: $("$SERVICE_JAVA" -version 2>&1 | sed -n 2p); options ($JAVA_OPTS_SOURCE): \`$JAVA_OPTS\`; extra: \`${EXTRA_JAVA_OPTS:-none}\`; outbox log level $OUTBOX_LOG; downstream: $([[ $SINK == 1 ]] && echo "HTTP sink (SINK=1)" || echo "log destination")$(phase e2e && echo "; e2e always to the HTTP sink")."
    echo "Ratios are per run (same run's ceiling), then the median; \"runs\" lists each run's value."
    echo
    cat "$TABLE"
    echo
    echo "EXPLAIN of the scanner's lease statement with $EXTRA_DONE done rows + pending rows (last run):"
    echo
    echo '```'
    cat "$WORK/explain.txt" 2>/dev/null || echo "(drain phase not run)"
    echo '```'
  } >"$BENCH/results/latest.md"
}

# ---- runs --------------------------------------------------------------------------------------------------------
for RUN in $(seq 1 "$RUNS"); do
  log "run $RUN/$RUNS"
  reset_databases

  # The ceiling and the ingest phases run on one service with its defaults (no BATCH: transaction-size applies to
  # processing, which they do not time).
  if phase ceiling || phase limit || phase stripe || phase wxpay || phase storm; then
    start_service
    warmup

    if phase ceiling; then ceiling; fi
    if phase limit; then limit; fi

    # Signed right before each phase: WeChat accepts +-5 min and Stripe +-300 s around the send time.
    if phase stripe; then
      generate requests "$WORK/keys" stripe "$STRIPE_COUNT" "S$RUN-" "$WORK/stripe.req"
      create_orders "S$RUN-" "$STRIPE_COUNT" USD
      wrk_run stripe "$WORK/stripe.req"
      # Rows of this phase only (the warm-up's have another prefix); in-flight requests at the end of -d are stored
      # but not counted by wrk, so rows slightly exceed requests.
      record stripe_rows "$(sql "$DB" -e "SELECT COUNT(*) FROM pay_callback_log WHERE out_trade_no LIKE 'S$RUN-%'")"
      record rss_after_stripe_mb "$(rss_mb)"
      settle 120
    fi

    if phase wxpay; then
      generate requests "$WORK/keys" wxpay "$WX_COUNT" "W$RUN-" "$WORK/wxpay.req"
      create_orders "W$RUN-" "$WX_COUNT" CNY
      wrk_run wxpay "$WORK/wxpay.req"
      record rss_mb "$(rss_mb)"
      record wxpay_rows "$(sql "$DB" -e "SELECT COUNT(*) FROM pay_callback_log WHERE out_trade_no LIKE 'W$RUN-%'")"
      settle 120
    fi

    if phase openloop; then
      open_loop
    fi

    if phase storm; then
      generate requests "$WORK/keys" stripe 1 "STORM$RUN-" "$WORK/storm.req" same
      create_orders "STORM$RUN-" 1 USD
      wrk_run storm "$WORK/storm.req" cycle
      record storm_rows "$(sql "$DB" -e "SELECT COUNT(*) FROM pay_callback_log WHERE out_trade_no = 'STORM$RUN-0'")"
      record rss_after_storm_mb "$(rss_mb)"
      settle 120
    fi
    cleanup
  fi

  # Processing phases, once per BATCH value, each on a freshly started (and warmed) service with that transaction
  # size. The drain keeps its own service, without the sink unless SINK=1, so its figures stay comparable with
  # earlier runs; e2e gets one that delivers order.paid to the sink.
  for LABEL in "${BATCH_LABELS[@]}"; do
    # Drain on a table holding only the due rows, then on one that also holds EXTRA_DONE done rows (bodies blanked,
    # as housekeeping leaves them after a day): the (status, next_retry_at) index must keep the lease cost flat.
    if phase drain; then
      start_service "$LABEL"
      warmup
      sql "$DB" -e "TRUNCATE pay_callback_log; TRUNCATE orders; TRUNCATE outbox"
      drain base
      if ((EXTRA_DONE > 0)); then
        sql "$DB" -e "TRUNCATE pay_callback_log; TRUNCATE orders; TRUNCATE outbox"
        sql "$DB" -e "INSERT INTO pay_callback_log (merchant_id, channel, channel_trade_no, out_trade_no, trade_state, amount,
            currency, status, retry_count, next_retry_at, raw_body, created_at, updated_at)
          SELECT 'default', 'wxpay', CONCAT('42X-', seq), CONCAT('X-', seq), 'SUCCESS', 88.00, 'CNY', 1, 0,
            NOW(3) - INTERVAL 2 DAY, '', NOW(3) - INTERVAL 2 DAY, NOW(3) - INTERVAL 2 DAY FROM seq_1_to_$EXTRA_DONE;
          ANALYZE TABLE pay_callback_log" >/dev/null
        rm -f "$WORK/explain.txt"
        drain big
        LABEL= record explain_index "$(grep -c idx_pay_callback_retry "$WORK/explain.txt" || true)"
      fi
      record rss_end_mb "$(rss_mb)"
      cleanup
    fi

    if phase e2e; then
      start_service "$LABEL" sink
      warmup
      e2e
      cleanup
    fi
  done
  LABEL=
  if phase delivery; then
    start_service default sink
    warmup
    sql "$DB" -e "TRUNCATE outbox; TRUNCATE delivery_attempts"
    delivery
    cleanup
  fi
  LABEL=
  if phase isolation; then isolation; fi
  if phase statement; then statement; fi
  report
  log "run $RUN done; table so far in deploy/bench/results/latest.md"
done

cat "$TABLE"
log "written to deploy/bench/results/latest.md (raw: $RESULTS, logs: $WORK)"
