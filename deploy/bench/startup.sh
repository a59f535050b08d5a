#!/usr/bin/env bash
# Start-up and memory of the packaged JVM service, per variant (JDK, application directory, JVM options), started
# ROUNDS times in alternating order (A B, B A, ...) so that the machine's other load hits every variant alike.
# Per start: wall time from exec to the first 200 of /q/health/ready, CPU time (user + sys) the process used until
# then (robust to a busy machine, unlike the wall time), Quarkus's own "started in", RSS at ready; with LOAD > 0
# also LOAD seconds of unique signed stripe callbacks (wrk, 64 connections): the largest RSS sampled during the load
# and the service's CPU per request. With -XX:NativeMemoryTracking=summary among the options the NMT summary at the
# end of the load goes to target/bench/startup/nmt-<variant>-<round>.txt.
#
#   bash deploy/bench/startup.sh 'j17|/usr/lib/jvm/java-17-openjdk-amd64|target/quarkus-app|' \
#                                'j25-coh|/usr/lib/jvm/temurin-25-jdk-amd64|target/quarkus-app|-XX:+UseCompactObjectHeaders'
#   ROUNDS=4 LOAD=10 bash deploy/bench/startup.sh ...
#
# Each variant is "name|JDK home|application directory (holding quarkus-run.jar)|extra JVM options"; the options of
# deploy/Dockerfile.jvm come first, as in run.sh. Uses run.sh's database and keys (run it once first, any PHASES:
# it creates the user, the migrated schema and target/bench/keys) and run.sh's knobs BENCH_DB, HTTP_PORT, MGMT_PORT.
# Loopback only; the service and wrk inherit this script's niceness (run it under `nice -n 10` beside other work).
# The scheduler is off unless SCHEDULER=1 (as in run.sh and production, where its first passes run during the start):
# with it, these services' scanners would take due rows of a run.sh pass on the same database (one did: 1,600 of an
# e2e pass's order.paid events went to the log destination of a service started here).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"
ROUNDS=${ROUNDS:-3}
LOAD=${LOAD:-0}
CONNS=${CONNS:-64}
SCHEDULER=${SCHEDULER:-0}
SCHEDULER_OPT=-Dquarkus.scheduler.enabled=false
[[ $SCHEDULER == 1 ]] && SCHEDULER_OPT=-Dquarkus.scheduler.enabled=true
DB=${BENCH_DB:-paycallback_bench}
DB_USER=paycallback_bench
DB_PASSWORD=${BENCH_DB_PASSWORD:-bench-$(hostname | md5sum | cut -c1-12)}
HTTP_PORT=${HTTP_PORT:-8080}
MGMT_PORT=${MGMT_PORT:-9000}
WORK=$ROOT/target/bench/startup
mkdir -p "$WORK"
RESULTS=$WORK/results.tsv
: >"$RESULTS"
(($# > 0)) || { sed -n '2,20p' "$0" >&2; exit 2; }
[[ -f target/bench/keys/app.properties && -f target/cp.txt ]] || { echo "run deploy/bench/run.sh once first" >&2; exit 2; }

sql() { mariadb -uroot --batch --skip-column-names "$@"; }
now_ms() { date +%s%3N; }
cpu_ms() { awk '{print ($14 + $15) * 10}' "/proc/$1/stat"; }
rss_mb() { awk '/^VmRSS/ {printf "%.0f", $2/1024}' "/proc/$1/status"; }
GEN_CP="target/test-classes:target/classes:$(cat target/cp.txt)"

JAVA_OPTS=$(bash deploy/image-java-opts.sh)
JAVA_OPTS=${JAVA_OPTS//-Dquarkus.http.host=0.0.0.0/-Dquarkus.http.host=127.0.0.1}
# What differs between JDKs is named per variant: the image's Java 25 options come out of the common part.
JAVA_OPTS=${JAVA_OPTS//-XX:+UseCompactObjectHeaders/}
MERCHANT_OPTS=()
while IFS= read -r line; do MERCHANT_OPTS+=("-D$line"); done <target/bench/keys/app.properties

PID=
stop() {
  if [[ -n $PID ]] && kill -0 "$PID" 2>/dev/null; then
    kill "$PID"
    # A training run (-XX:AOTCacheOutput) writes its cache at exit, which takes a while.
    for _ in $(seq 1 900); do kill -0 "$PID" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$PID" 2>/dev/null || true
  fi
  PID=
}
trap stop EXIT

one() { # round name jdk appdir opts
  local round=$1 name=$2 jdk=$3 app=$4 opts=$5 started ready cpu
  if curl -s -o /dev/null --max-time 1 "http://127.0.0.1:$MGMT_PORT/q/health/ready"; then
    echo "something already listens on :$MGMT_PORT" >&2; exit 1
  fi
  local log=$WORK/service-$name-$round.log
  started=$(now_ms)
  # From the application directory: an AOT cache or CDS archive records the class path as the JVM saw it.
  # shellcheck disable=SC2086 # option lists
  (cd "$app" && QUARKUS_PROFILE=prod \
    QUARKUS_DATASOURCE_JDBC_URL="jdbc:mariadb://127.0.0.1:3306/$DB" \
    QUARKUS_DATASOURCE_REACTIVE_URL="mysql://127.0.0.1:3306/$DB" \
    QUARKUS_DATASOURCE_USERNAME=$DB_USER QUARKUS_DATASOURCE_PASSWORD=$DB_PASSWORD \
    PAYCALLBACK_ADMIN_TOKEN=bench-admin-token \
    exec "$jdk/bin/java" $JAVA_OPTS $opts "${MERCHANT_OPTS[@]}" \
      -Dquarkus.management.host=127.0.0.1 -Dquarkus.http.port="$HTTP_PORT" -Dquarkus.management.port="$MGMT_PORT" \
      '-Dquarkus.log.category."io.paycallback.outbox".level=WARN' $SCHEDULER_OPT \
      -jar quarkus-run.jar) >"$log" 2>&1 &
  PID=$!
  until curl -fsS -o /dev/null "http://127.0.0.1:$MGMT_PORT/q/health/ready" 2>/dev/null; do
    kill -0 "$PID" 2>/dev/null || { tail -20 "$log" >&2; echo "$name did not start" >&2; exit 1; }
    sleep 0.02
  done
  ready=$(($(now_ms) - started))
  cpu=$(cpu_ms "$PID")
  local rss0 quarkus
  rss0=$(rss_mb "$PID")
  quarkus=$(grep -o 'started in [0-9.]*s' "$log" | grep -o '[0-9.]*' | head -1 || true)
  printf '%s\t%s\tready_ms\t%s\n%s\t%s\tcpu_to_ready_ms\t%s\n%s\t%s\tquarkus_started_s\t%s\n%s\t%s\trss_ready_mb\t%s\n' \
    "$name" "$round" "$ready" "$name" "$round" "$cpu" "$name" "$round" "$quarkus" "$name" "$round" "$rss0" >>"$RESULTS"
  local line="$name #$round: ready ${ready} ms, CPU to ready ${cpu} ms, quarkus ${quarkus}s, RSS ${rss0} MB"
  if ((LOAD > 0)); then
    local n=$((LOAD * 4000)) prefix="SU$round-$name-$RANDOM-"
    java -cp "$GEN_CP" io.paycallback.bench.RequestGenerator requests target/bench/keys stripe "$n" "$prefix" \
      "$WORK/stripe.req" >/dev/null
    sql "$DB" -e "INSERT INTO orders (merchant_id, out_trade_no, amount, currency, status, refunded_amount, created_at, updated_at)
      SELECT 'default', CONCAT('$prefix', seq), 88.00, 'USD', 'PENDING', 0, NOW(3), NOW(3) FROM seq_0_to_$((n - 1))"
    local cpu0 rss max=0 wrk_pid out=$WORK/wrk-$name-$round.out
    cpu0=$(cpu_ms "$PID")
    wrk -t2 -c"$CONNS" -d"${LOAD}s" --timeout 10s -s deploy/bench/ingest.lua "http://127.0.0.1:$HTTP_PORT" \
      -- "$WORK/stripe.req" 2 >"$out" 2>/dev/null &
    wrk_pid=$!
    while kill -0 "$wrk_pid" 2>/dev/null; do
      rss=$(rss_mb "$PID"); ((rss > max)) && max=$rss
      sleep 0.1
    done
    wait "$wrk_pid" || true
    if [[ " $opts " == *NativeMemoryTracking* ]]; then
      "$jdk/bin/jcmd" "$PID" VM.native_memory summary >"$WORK/nmt-$name-$round.txt" 2>&1 || true
    fi
    local reqs rps per
    reqs=$(sed -n 's/.* requests=\([0-9]*\).*/\1/p' "$out")
    rps=$(sed -n 's/.* rps=\([0-9.]*\).*/\1/p' "$out")
    per=$(awk -v c=$(($(cpu_ms "$PID") - cpu0)) -v n="${reqs:-0}" 'BEGIN{printf "%.3f", (n > 0 ? c/n : 0)}')
    printf '%s\t%s\trss_load_max_mb\t%s\n%s\t%s\tstripe_rps\t%s\n%s\t%s\tstripe_cpu_ms\t%s\n' \
      "$name" "$round" "$max" "$name" "$round" "$rps" "$name" "$round" "$per" >>"$RESULTS"
    line+="; load: RSS max ${max} MB, ${rps} req/s, ${per} ms CPU/request"
  fi
  echo "$(date +%H:%M:%S) $line" >&2
  stop
}

for round in $(seq 1 "$ROUNDS"); do
  variants=("$@")
  if ((round % 2 == 0)); then
    variants=()
    for ((i = $#; i >= 1; i--)); do variants+=("${!i}"); done
  fi
  for v in "${variants[@]}"; do
    IFS='|' read -r name jdk app opts <<<"$v"
    one "$round" "$name" "$jdk" "$app" "$opts"
  done
done

# Medians per variant and figure.
echo "| variant | figure | median | values |"
echo "|---|---|---:|---|"
for v in "$@"; do
  name=${v%%|*}
  for f in ready_ms cpu_to_ready_ms quarkus_started_s rss_ready_mb rss_load_max_mb stripe_rps stripe_cpu_ms; do
    vals=$(awk -F'\t' -v n="$name" -v f="$f" '$1==n && $3==f {print $4}' "$RESULTS")
    [[ -n $vals ]] || continue
    med=$(sort -g <<<"$vals" | awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}')
    echo "| $name | $f | $med | $(paste -sd' ' <<<"$vals") |"
  done
done
