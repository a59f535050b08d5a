#!/usr/bin/env bash
# The merchant registry at scale: MERCHANTS direct merchants (a Stripe and a WeChat Pay account each), PLATFORMS
# platforms (Stripe Connect and WeChat Pay partner keys) and SUB_MERCHANTS sub-merchants spread over them, in the
# database, served by the packaged service (prod profile, the image's JDK, JAVA_OPTS and AOT cache, as run.sh runs it).
# A benchmark, not a test: CI does not run it.
#
#   bash deploy/bench/registry.sh
#   HTTP_PORT=18600 MGMT_PORT=19600 nice -n 5 bash deploy/bench/registry.sh
#   PROFILE=1 bash deploy/bench/registry.sh     # also a JFR recording around the changes, summarised by jfr-top.sh
#
# On its own fresh database (BENCH_DB, paycallback_bench_registry by default; user paycallback_bench as run.sh):
#   1. a first start migrates the empty database; it is stopped;
#   2. start on the empty registry: exec to the first 200 of /q/health/ready; heap after a full GC, RSS;
#   3. io.paycallback.bench.RegistrySeed inserts the registry (the rows the API writes, one change at the end); the
#      running service's poll serves it: seed committed to the version gauge showing it, the service's CPU for that
#      reload; heap after a full GC, RSS;
#   4. CHANGES times one PUT /admin/registry/merchants/m00001/accounts/stripe (a new webhook secret): the answer's
#      wall time (the change's transaction and the writing instance's full reload) and the time until the version
#      gauge shows it; the service's CPU per change (from /proc, over the change and SETTLE seconds after it, less
#      the idle rate measured before); medians; then CHANGES times a row written into registry_changes beside the
#      service, as another instance's change: the poll's reload alone, what every instance but the writer pays;
#   5. a restart on the seeded registry: exec to ready, and to the registry version being served.
# The table goes to stdout and target/bench/registry-figures.txt, service logs to target/bench/registry-*.log.
# Knobs: MERCHANTS (10000), PLATFORMS (100), SUB_MERCHANTS (10000), CHANGES (5), SETTLE (3 s), PROFILE (0),
# HTTP_PORT (8080), MGMT_PORT (9000), BENCH_DB, SERVICE_JAVA and AOT (as run.sh), SKIP_BUILD=1, and EXTRA_JAVA_OPTS
# after the image's options (EXTRA_JAVA_OPTS=-Xmx512m: a larger heap than the image's). Each service logs its
# collections to target/bench/registry-gc-<start>.log. A service that dies (the image's -XX:+ExitOnOutOfMemoryError)
# ends the run with the figures so far and the reason in the table.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"

MERCHANTS=${MERCHANTS:-10000}
PLATFORMS=${PLATFORMS:-100}
SUB_MERCHANTS=${SUB_MERCHANTS:-10000}
CHANGES=${CHANGES:-5}
SETTLE=${SETTLE:-3}
PROFILE=${PROFILE:-0}
EXTRA_JAVA_OPTS=${EXTRA_JAVA_OPTS:-}
SKIP_BUILD=${SKIP_BUILD:-0}
HTTP_PORT=${HTTP_PORT:-8080}
MGMT_PORT=${MGMT_PORT:-9000}
APP=http://127.0.0.1:$HTTP_PORT
MGMT=http://127.0.0.1:$MGMT_PORT
DB=${BENCH_DB:-paycallback_bench_registry}
DB_USER=paycallback_bench
DB_PASSWORD=${BENCH_DB_PASSWORD:-bench-$(hostname | md5sum | cut -c1-12)}
JDBC_URL="jdbc:mariadb://127.0.0.1:3306/$DB"
ADMIN_TOKEN=bench-admin-token
OPERATOR_TOKEN=bench-registry-operator-token
# A key-encryption key of this run only: the database is dropped at the next run anyway.
KEK="bench:$(head -c 32 /dev/urandom | base64)"
APP_DIR=target/quarkus-app

WORK=$ROOT/target/bench
OUT=$WORK/registry-figures.txt
mkdir -p "$WORK"

log() { printf '%s registry: %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
sql() { mariadb -uroot --batch --skip-column-names "$@"; }
now_ms() { date +%s%3N; }
seconds() { awk -v ms="$1" 'BEGIN { printf "%.2f", ms / 1000 }'; }
median() { tr ' ' '\n' | grep . | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# The largest heap a full collection left behind in this start's GC log (what was live at once), with the heap's
# size then; and the collections' pauses so far (ms), which /proc counts in the CPU and a JFR profile does not sample.
gc_peak() {
  sed -n 's/.*Pause Full.* [0-9]*M->\([0-9]*\)M(\([0-9]*\)M).*/\1 \2/p' "$WORK/registry-gc-$START_NO.log" | sort -n |
    tail -1 | awk '{ printf "%s (heap %s)", $1, $2 }'
}
gc_pause_ms() { awk '/Pause/ { sub(/ms$/, "", $NF); t += $NF } END { printf "%.0f", t }' "$WORK/registry-gc-$START_NO.log"; }

FIGURES=()
figure() { FIGURES+=("$1|$2"); log "$1: $2"; }
LOAD_AT_START=$(cut -d' ' -f1-3 /proc/loadavg)
REPORT=0
report() {
  ((REPORT)) || return 0
  {
    echo "# merchant registry at scale, $(date -u +%Y-%m-%dT%H:%MZ), commit $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- src || echo ' (+ local changes)')"
    echo "# $MERCHANTS merchants (Stripe + WeChat Pay each), $PLATFORMS platforms (Stripe Connect + WeChat Pay partner),"
    echo "# $SUB_MERCHANTS sub-merchants (Stripe connected accounts, every other one also a WeChat Pay sub-merchant)"
    echo "# load average at the start $LOAD_AT_START, at the end $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cores"
    echo "# $("$SERVICE_JAVA" -version 2>&1 | sed -n 2p); JAVA_OPTS: $JAVA_OPTS; extra: ${EXTRA_JAVA_OPTS:-none}"
    echo
    printf '| %s | %s |\n' figure value '---' '---'
    for f in "${FIGURES[@]}"; do printf '| %s | %s |\n' "${f%%|*}" "${f#*|}"; done
  } | tee "$OUT"
}
# A service that exited by itself is a figure: the reason from its log.
died() {
  local reason
  reason=$(grep -o 'Terminating due to [^"]*' "$WORK/registry-$START_NO.log" | head -1 || true)
  figure "service #$START_NO exited during: $1" "${reason:-exited, see target/bench/registry-$START_NO.log}"
  figure "largest heap live after a full collection before it exited (GC log), MB" "$(gc_peak)"
  exit 1
}

SERVICE_PID=
stop_service() {
  if [[ -n $SERVICE_PID ]] && kill -0 "$SERVICE_PID" 2>/dev/null; then
    kill "$SERVICE_PID" 2>/dev/null || true
    for _ in $(seq 1 100); do kill -0 "$SERVICE_PID" 2>/dev/null || break; sleep 0.2; done
    kill -9 "$SERVICE_PID" 2>/dev/null || true
  fi
  SERVICE_PID=
}
trap 'stop_service; report' EXIT
trap 'exit 130' INT TERM

# ---- database ----------------------------------------------------------------------------------------------------
if ! mariadb-admin -uroot --connect-timeout=2 ping >/dev/null 2>&1; then
  log "starting MariaDB"
  mkdir -p /run/mysqld && chown mysql:mysql /run/mysqld
  start-stop-daemon --start --oknodo --background --exec /usr/sbin/mariadbd
  for _ in $(seq 1 60); do mariadb-admin -uroot ping >/dev/null 2>&1 && break; sleep 1; done
  mariadb-admin -uroot ping >/dev/null
fi
# As run.sh: the Vert.x client cannot log in as unix_socket root; TCP from 127.0.0.1 may match either host.
sql <<SQL
DROP DATABASE IF EXISTS \`$DB\`;
CREATE DATABASE \`$DB\` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
CREATE USER IF NOT EXISTS '$DB_USER'@'127.0.0.1' IDENTIFIED BY '$DB_PASSWORD';
CREATE USER IF NOT EXISTS '$DB_USER'@'localhost' IDENTIFIED BY '$DB_PASSWORD';
ALTER USER '$DB_USER'@'127.0.0.1' IDENTIFIED BY '$DB_PASSWORD';
ALTER USER '$DB_USER'@'localhost' IDENTIFIED BY '$DB_PASSWORD';
GRANT ALL PRIVILEGES ON \`$DB\`.* TO '$DB_USER'@'127.0.0.1', '$DB_USER'@'localhost';
SQL

# ---- build -------------------------------------------------------------------------------------------------------
if [[ $SKIP_BUILD != 1 && ! -f $APP_DIR/quarkus-run.jar ]]; then
  log "building (mvnw package, the image's aot-jar layout)"
  ./mvnw -B -q package -DskipTests -Dquarkus.package.jar.type=aot-jar
fi
if [[ $SKIP_BUILD != 1 && (! -f target/cp.txt || ! -f target/test-classes/io/paycallback/bench/RegistrySeed.class ||
  src/test/java/io/paycallback/bench/RegistrySeed.java -nt target/test-classes/io/paycallback/bench/RegistrySeed.class) ]]; then
  log "compiling the seed (test classes, test classpath)"
  ./mvnw -B -q test-compile dependency:build-classpath -Dmdep.outputFile=target/cp.txt
fi
SEED_CP="target/test-classes:target/classes:$(cat target/cp.txt)"

# The image's options and JDK, as run.sh takes them (loopback only; an AOT cache trained by the image's script).
JAVA_OPTS=$(bash deploy/image-java-opts.sh 2>/dev/null)
[[ -n $JAVA_OPTS ]] || JAVA_OPTS="-Xmx128m -XX:+UseSerialGC -Xss512k -XX:MaxMetaspaceSize=96m -XX:+ExitOnOutOfMemoryError"
JAVA_OPTS=${JAVA_OPTS//-Dquarkus.http.host=0.0.0.0/-Dquarkus.http.host=127.0.0.1}
SERVICE_JAVA=${SERVICE_JAVA:-/usr/lib/jvm/temurin-25-jdk-amd64/bin/java}
[[ -x $SERVICE_JAVA ]] || SERVICE_JAVA=java
JDK_BIN=$(dirname "$(readlink -f "$(command -v "$SERVICE_JAVA")")")
AOT=${AOT:-1}
if (($("$SERVICE_JAVA" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p') < 25)); then
  JAVA_OPTS=${JAVA_OPTS//-XX:+UseCompactObjectHeaders/}
  AOT=0
fi
if [[ $AOT == 1 ]]; then
  AOT_FILE=$WORK/app.aot
  if [[ ! -s $AOT_FILE || $APP_DIR/quarkus-run.jar -nt $AOT_FILE || deploy/train-aot-cache.sh -nt $AOT_FILE ||
    deploy/Dockerfile.jvm -nt $AOT_FILE ]]; then
    log "training the AOT cache ($SERVICE_JAVA)"
    # shellcheck disable=SC2086 # option list
    AOT_TRAINING_LOG=$WORK/aot-training.log bash deploy/train-aot-cache.sh "$SERVICE_JAVA" "$AOT_FILE" \
      "$APP_DIR/quarkus-run.jar" $JAVA_OPTS
  fi
  JAVA_OPTS="$JAVA_OPTS -XX:AOTCache=$AOT_FILE"
fi

# ---- helpers -----------------------------------------------------------------------------------------------------
START_NO=0
STARTED_MS=
READY_MS=
start_service() {
  START_NO=$((START_NO + 1))
  if curl -s -o /dev/null --max-time 1 "$APP/" || curl -s -o /dev/null --max-time 1 "$MGMT/q/health/ready"; then
    echo "something already listens on 127.0.0.1:$HTTP_PORT or :$MGMT_PORT; stop it first" >&2
    exit 1
  fi
  STARTED_MS=$(now_ms)
  # shellcheck disable=SC2086 # JAVA_OPTS is an option list
  QUARKUS_PROFILE=prod \
  QUARKUS_DATASOURCE_JDBC_URL=$JDBC_URL \
  QUARKUS_DATASOURCE_REACTIVE_URL="mysql://127.0.0.1:3306/$DB" \
  QUARKUS_DATASOURCE_USERNAME=$DB_USER QUARKUS_DATASOURCE_PASSWORD=$DB_PASSWORD \
  PAYCALLBACK_ADMIN_TOKEN=$ADMIN_TOKEN \
  PAYCALLBACK_REGISTRY_KEY_ENCRYPTION_KEYS=$KEK \
    "$SERVICE_JAVA" $JAVA_OPTS "-Dpaycallback.auth.operators.tokens.bench=$OPERATOR_TOKEN" \
      -Dquarkus.management.host=127.0.0.1 -Dquarkus.http.port="$HTTP_PORT" -Dquarkus.management.port="$MGMT_PORT" \
      "-Xlog:gc:file=$WORK/registry-gc-$START_NO.log" $EXTRA_JAVA_OPTS \
      -jar "$APP_DIR/quarkus-run.jar" >"$WORK/registry-$START_NO.log" 2>&1 &
  SERVICE_PID=$!
  until curl -fsS -o /dev/null "$MGMT/q/health/ready" 2>/dev/null; do
    kill -0 "$SERVICE_PID" 2>/dev/null || died "start"
    if (($(now_ms) > STARTED_MS + 300000)); then
      tail -40 "$WORK/registry-$START_NO.log" >&2
      echo "service did not become ready" >&2
      exit 1
    fi
    sleep 0.05
  done
  READY_MS=$(now_ms)
  log "service #$START_NO (pid $SERVICE_PID) ready after $(seconds $((READY_MS - STARTED_MS))) s"
}

# The registry version the service serves, from its gauge (-1 until its first read).
served_version() {
  curl -fsS "$MGMT/q/metrics" 2>/dev/null | awk '/^paycallback_registry_version[ {]/ { printf "%d", $NF; exit }'
}
db_version() { sql "$DB" -e "SELECT COALESCE(MAX(id), 0) FROM registry_changes"; }
# Waits until the service serves at least version $1; SERVED_MS is when it did.
wait_version() {
  local want=$1 deadline=$(($(now_ms) + 600000)) v
  while :; do
    v=$(served_version || true)
    if [[ -n $v ]] && ((v >= want)); then SERVED_MS=$(now_ms); return; fi
    kill -0 "$SERVICE_PID" 2>/dev/null || died "the wait for registry version $want"
    if (($(now_ms) > deadline)); then
      tail -40 "$WORK/registry-$START_NO.log" >&2
      echo "the service never served registry version $want (serves ${v:-nothing})" >&2
      exit 1
    fi
    sleep 0.05
  done
}
# CPU time (ms) the service used so far.
cpu_ms() { awk '{ print ($14 + $15) * 10 }' "/proc/$SERVICE_PID/stat"; }
rss_mb() { awk '/^VmRSS/ { printf "%.0f", $2 / 1024 }' "/proc/$SERVICE_PID/status"; }
# Heap in use after a full collection (MB): the generations' "used" of GC.heap_info (Serial GC's layout).
heap_mb() {
  "$JDK_BIN/jcmd" "$SERVICE_PID" GC.run >/dev/null
  "$JDK_BIN/jcmd" "$SERVICE_PID" GC.heap_info | tee "$WORK/registry-heap-$1.txt" |
    awk '/total .*used/ && !/Metaspace|class space/ {
           for (i = 1; i < NF; i++) if ($i == "used") { v = $(i + 1); sub(/K.*/, "", v); s += v } }
         END { printf "%.1f", s / 1024 }'
  "$JDK_BIN/jcmd" "$SERVICE_PID" GC.class_histogram 2>/dev/null | head -30 >"$WORK/registry-histogram-$1.txt" || true
}

# ---- 1. a first start migrates the fresh database ----------------------------------------------------------------
REPORT=1
log "load average $LOAD_AT_START; $(nproc) cores; $MERCHANTS merchants, $PLATFORMS platforms, $SUB_MERCHANTS sub-merchants"
start_service
figure "first start on a fresh database (migrates it), exec to ready, s" "$(seconds $((READY_MS - STARTED_MS)))"
stop_service

# ---- 2. the empty registry ---------------------------------------------------------------------------------------
start_service
figure "start, empty registry: exec to ready, s" "$(seconds $((READY_MS - STARTED_MS)))"
wait_version 0; served=$SERVED_MS
figure "start, empty registry: exec to version 0 served, s" "$(seconds $((served - STARTED_MS)))"
figure "empty registry: heap after full GC, MB" "$(heap_mb empty)"
figure "empty registry: RSS, MB" "$(rss_mb)"

# ---- 3. seeded while the service runs ----------------------------------------------------------------------------
log "seeding"
seed_started=$(now_ms)
version=$(java -cp "$SEED_CP" io.paycallback.bench.RegistrySeed "$JDBC_URL" "$DB_USER" "$DB_PASSWORD" "$KEK" \
  "$MERCHANTS" "$PLATFORMS" "$SUB_MERCHANTS" | tail -1)
seeded=$(now_ms)
cpu0=$(cpu_ms)
figure "seed (RegistrySeed, separate JVM), s" "$(seconds $((seeded - seed_started)))"
figure "rows: owners / accounts" "$(sql "$DB" -e "SELECT (SELECT COUNT(*) FROM registry_owners), (SELECT COUNT(*) FROM registry_accounts)" | tr '\t' '/')"
wait_version "$version"; served=$SERVED_MS
figure "seed committed to version $version served (poll + full reload), s" "$(seconds $((served - seeded)))"
sleep "$SETTLE"
figure "service CPU from seed committed to served + ${SETTLE} s, ms" "$(($(cpu_ms) - cpu0))"
figure "seeded registry: heap after full GC, MB" "$(heap_mb seeded)"
figure "seeded registry: RSS, MB" "$(rss_mb)"

# ---- 4. one change through the API, CHANGES times ----------------------------------------------------------------
idle0=$(cpu_ms); idle_started=$(now_ms)
sleep 5
idle_rate=$(awk -v c=$(($(cpu_ms) - idle0)) -v ms=$(($(now_ms) - idle_started)) 'BEGIN { printf "%.4f", c / ms }')
figure "idle service CPU, ms per s" "$(awk -v r="$idle_rate" 'BEGIN { printf "%.1f", r * 1000 }')"
if [[ $PROFILE == 1 ]]; then
  "$JDK_BIN/jcmd" "$SERVICE_PID" JFR.start name=registry settings=profile filename="$WORK/registry-changes.jfr" >/dev/null
fi
walls=() serves=() cpus=()
pause0=$(gc_pause_ms)
for i in $(seq 1 "$CHANGES"); do
  body="{\"webhookSecrets\":[\"whsec_benchChange$(date +%s%N)\"],\"apiKey\":\"sk_test_benchChange$i\"}"
  before=$(db_version)
  c0=$(cpu_ms); t0=$(now_ms)
  code=$(curl -sS -o "$WORK/registry-change-$i.json" -w '%{http_code}' -X PUT -H "Authorization: Bearer $OPERATOR_TOKEN" \
    -H 'Content-Type: application/json' --data "$body" "$APP/admin/registry/merchants/m00001/accounts/stripe") || true
  t1=$(now_ms)
  kill -0 "$SERVICE_PID" 2>/dev/null || died "API change $i"
  [[ $code == 200 ]] || { cat "$WORK/registry-change-$i.json" >&2; echo "change $i answered $code" >&2; exit 1; }
  after=$(db_version)
  # Ids of registry_changes are AUTO_INCREMENT: a version moves up, by one or past a gap a batch insert left.
  ((after > before)) || { echo "change $i did not move the version ($before, then $after)" >&2; exit 1; }
  wait_version "$after"; t2=$SERVED_MS
  sleep "$SETTLE"
  c1=$(cpu_ms); t3=$(now_ms)
  walls+=($((t1 - t0))) serves+=($((t2 - t0)))
  cpus+=("$(awk -v c=$((c1 - c0)) -v ms=$((t3 - t0)) -v r="$idle_rate" 'BEGIN { printf "%.0f", c - r * ms }')")
  log "change $i: answered in $((t1 - t0)) ms, served after $((t2 - t0)) ms, CPU ${cpus[-1]} ms beyond idle"
done
if [[ $PROFILE == 1 ]]; then
  "$JDK_BIN/jcmd" "$SERVICE_PID" JFR.stop name=registry >/dev/null
  PATH="$JDK_BIN:$PATH" bash deploy/bench/jfr-top.sh "$WORK/registry-changes.jfr" 30 >"$WORK/registry-changes-profile.txt"
  log "profile of the changes: $WORK/registry-changes-profile.txt"
fi
figure "one change (PUT account): answer wall time, median of $CHANGES, ms" "$(echo "${walls[*]}" | median) (${walls[*]})"
figure "one change: request to version gauge moved, median, ms" "$(echo "${serves[*]}" | median) (${serves[*]})"
figure "one change: service CPU beyond idle, median, ms" "$(echo "${cpus[*]}" | median) (${cpus[*]})"
figure "GC pauses during the $CHANGES API changes, ms in all" "$(($(gc_pause_ms) - pause0))"
figure "after the changes: RSS, MB" "$(rss_mb)"

# ---- 4b. a change another instance made: this one's poll alone reloads ---------------------------------------------
# A row in registry_changes written beside the service moves the version as another instance's change does; the poll
# then reads and rebuilds everything, which is what every instance but the writer pays per change.
polls=() poll_cpus=()
pause0=$(gc_pause_ms)
for i in $(seq 1 "$CHANGES"); do
  c0=$(cpu_ms); t0=$(now_ms)
  sql "$DB" -e "INSERT INTO registry_changes (actor, action, owner_id, created_at) VALUES ('bench', 'bench-touch', 'bench-seed', NOW(3))"
  wait_version "$(db_version)"; t2=$SERVED_MS
  sleep "$SETTLE"
  c1=$(cpu_ms); t3=$(now_ms)
  polls+=($((t2 - t0)))
  poll_cpus+=("$(awk -v c=$((c1 - c0)) -v ms=$((t3 - t0)) -v r="$idle_rate" 'BEGIN { printf "%.0f", c - r * ms }')")
  log "change $i by another instance: served after $((t2 - t0)) ms (poll interval included), CPU ${poll_cpus[-1]} ms beyond idle"
done
figure "a change by another instance: committed to version gauge moved (poll + reload), median, ms" "$(echo "${polls[*]}" | median) (${polls[*]})"
figure "a change by another instance: service CPU beyond idle, median, ms" "$(echo "${poll_cpus[*]}" | median) (${poll_cpus[*]})"
figure "GC pauses during the $CHANGES changes by another instance, ms in all" "$(($(gc_pause_ms) - pause0))"
figure "largest heap live after a full collection (GC log), MB" "$(gc_peak)"

# ---- 5. a restart on the seeded registry ------------------------------------------------------------------------
version=$(db_version)
stop_service
start_service
figure "restart, seeded registry: exec to ready, s" "$(seconds $((READY_MS - STARTED_MS)))"
cpu_ready=$(cpu_ms)
wait_version "$version"; served=$SERVED_MS
figure "restart, seeded registry: exec to version $version served, s" "$(seconds $((served - STARTED_MS)))"
figure "restart: service CPU, exec to ready / to served, ms" "$cpu_ready / $(cpu_ms)"
figure "restart, seeded registry: heap after full GC, MB" "$(heap_mb restarted)"
figure "restart, seeded registry: RSS, MB" "$(rss_mb)"
stop_service
