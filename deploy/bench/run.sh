#!/usr/bin/env bash
# pay-callback performance benchmark: one run measures the database ceiling (sysbench single-row INSERTs), ingest
# (wrk, pre-signed stripe and wxpay callbacks), a duplicate storm, the drain of due callbacks (with and without 1M
# done rows), RSS and start-to-ready, then prints one table and writes deploy/bench/results/latest.md.
# A benchmark, not a test: CI does not run it. Loopback only; every load loop is bounded in time.
#
#   bash deploy/bench/run.sh                 # one run
#   RUNS=3 bash deploy/bench/run.sh          # three runs, medians reported
#   EXTRA_JAVA_OPTS='-Dquarkus.datasource.reactive.max-size=64' SKIP_BUILD=1 bash deploy/bench/run.sh
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
DRAIN_TIMEOUT=${DRAIN_TIMEOUT:-600}    # seconds; a drain slower than this is reported from its partial progress
SKIP_BUILD=${SKIP_BUILD:-0}
# SETTLE=0 skips waiting for the backlog between phases (only for single-phase experiments: the next phase would
# otherwise compete with the previous one's processing).
EXTRA_JAVA_OPTS=${EXTRA_JAVA_OPTS:-}
# Outbox events go to the built-in "log" destination, one INFO line each; that is console I/O, not the service's
# work, so the bench mutes it by default (OUTBOX_LOG=INFO measures it).
OUTBOX_LOG=${OUTBOX_LOG:-WARN}
# A subset of phases for profiling and tuning experiments; the report then only has their rows.
PHASES=" ${PHASES:-ceiling stripe wxpay storm drain} "

# Outbox events to a real HTTP destination (bench/DownstreamSink on loopback) instead of the log destination, so the
# drain's event figure includes HTTP delivery and its recorded attempts.
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
}
trap 'cleanup; stop_sink' EXIT
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
if [[ $SKIP_BUILD != 1 || ! -f target/quarkus-app/quarkus-run.jar || ! -f target/cp.txt ]]; then
  log "building (mvnw package, test classpath for the generator)"
  ./mvnw -B -q package -DskipTests
  ./mvnw -B -q test-compile dependency:build-classpath -Dmdep.outputFile=target/cp.txt
fi
GEN_CP="target/test-classes:target/classes:$(cat target/cp.txt)"
generate() { java -cp "$GEN_CP" io.paycallback.bench.RequestGenerator "$@"; }

# The same JVM options as the container image, read from deploy/Dockerfile.jvm so the two cannot drift apart.
JAVA_OPTS_SOURCE=deploy/Dockerfile.jvm
JAVA_OPTS=$(sed -n 's/^ENV JAVA_OPTS="\(.*\)"$/\1/p' deploy/Dockerfile.jvm 2>/dev/null | head -1)
if [[ -z $JAVA_OPTS ]]; then
  JAVA_OPTS="-Xmx128m -XX:+UseSerialGC -Xss512k -XX:MaxMetaspaceSize=96m -XX:+ExitOnOutOfMemoryError"
  JAVA_OPTS_SOURCE="fallback (no ENV JAVA_OPTS in deploy/Dockerfile.jvm)"
fi
# Only loopback: the image binds 0.0.0.0 for its container network, the bench has no business listening outside.
JAVA_OPTS=${JAVA_OPTS//-Dquarkus.http.host=0.0.0.0/-Dquarkus.http.host=127.0.0.1}

generate keys "$WORK/keys"
MERCHANT_OPTS=()
while IFS= read -r line; do MERCHANT_OPTS+=("-D$line"); done <"$WORK/keys/app.properties"

if [[ $SINK == 1 ]]; then
  java -cp "$GEN_CP" io.paycallback.bench.DownstreamSink 0 >"$WORK/sink.port" 2>"$WORK/sink.err" &
  SINK_PID=$!
  for _ in $(seq 1 100); do [[ -s $WORK/sink.port ]] && break; sleep 0.1; done
  MERCHANT_OPTS+=("-Dpaycallback.downstream.destinations.bench.url=http://127.0.0.1:$(head -1 "$WORK/sink.port")/events"
    "-Dpaycallback.downstream.destinations.bench.events=order.paid,refund.requested,refund.succeeded,refund.failed,alert")
fi

# ---- helpers -----------------------------------------------------------------------------------------------------
record() { printf '%s\t%s\t%s\n' "$RUN" "$1" "$2" >>"$RESULTS"; }

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

start_service() {
  local started
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
    java $JAVA_OPTS "${MERCHANT_OPTS[@]}" \
      -Dquarkus.management.host=127.0.0.1 -Dquarkus.http.port="$HTTP_PORT" -Dquarkus.management.port="$MGMT_PORT" \
      "-Dquarkus.log.category.\"io.paycallback.outbox\".level=$OUTBOX_LOG" \
      $EXTRA_JAVA_OPTS -jar target/quarkus-app/quarkus-run.jar >"$WORK/service-$RUN.log" 2>&1 &
  SERVICE_PID=$!
  local deadline=$((started + 120000))
  until curl -fsS -o /dev/null "$MGMT/q/health/ready" 2>/dev/null; do
    if ! kill -0 "$SERVICE_PID" 2>/dev/null || (($(now_ms) > deadline)); then
      tail -40 "$WORK/service-$RUN.log" >&2
      echo "service did not become ready" >&2
      exit 1
    fi
    sleep 0.05
  done
  kill -0 "$SERVICE_PID"
  record start_ready_s "$(awk -v ms=$(($(now_ms) - started)) 'BEGIN{printf "%.2f", ms/1000}')"
}

# CPU time (ms) used so far by the service and by mariadbd, from /proc: where the 2 cores go, per request.
cpu_ms() { awk '{print ($14 + $15) * 10}' "/proc/$1/stat"; }
MARIADB_PID=$(pidof mariadbd | cut -d' ' -f1)
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
  record "$1_fsyncs" "$(awk -v c=$(($(db_counter Innodb_data_fsyncs) - FSYNCS0)) -v n="$2" 'BEGIN{printf "%.2f", (n > 0 ? c/n : 0)}')"
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

pending() { sql "$DB" -e "SELECT COUNT(*) FROM pay_callback_log WHERE status = 0"; }

# Waits (bounded) for work left over from the previous phase, so it does not count against the next one.
settle() {
  local deadline=$(($(now_ms) + ${SETTLE:-${1:-120}} * 1000))
  while (($(pending) > 0)) && (($(now_ms) < deadline)); do sleep 1; done
}

# Loads DRAIN_ROWS due callbacks and their PENDING orders in one transaction, so the scanner sees all or none of
# them, then times the service until none is pending.
explain_lease() {
  # The scanner's own statement (ledger/Leases.java LEASE_DUE), with literal values for its parameters.
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
  log "drain $name: $rate transitions/s ($((n - left))/$n done, $(( (end_ms - loaded) / 1000 )) s after load; outbox events done $(( (events_ms - end_ms) / 1000 )) s later)"
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

  TABLE=$WORK/table.md
  {
    echo "| figure | value (median) | ratio (median) | target | result | runs |"
    echo "|---|---:|---:|---|---|---|"
    row() { # label value ratio target result figure
      printf '| %s | %s | %s | %s | %s | %s |\n' "$1" "$2" "$3" "$4" "$5" "$(values "$6")"
    }
    row "ceiling: sysbench 1-row autocommit INSERT/s, $CONNS thr" "$(median ceiling)" "1.00" "-" "-" ceiling
    for ch in stripe wxpay; do
      target=0.90; [[ $ch == wxpay ]] && target=0.80
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
    row "duplicate storm rows stored" "$(median storm_rows)" "" "exactly 1" "$(awk -F'\t' '$2=="storm_rows" {n++; if ($3 != 1) bad=1} END {print (!n ? "n/a" : bad ? "FAIL" : "pass")}' "$RESULTS")" storm_rows
    r=$(ratio_median drain_base ceiling)
    row "drain $DRAIN_ROWS due, transitions/s" "$(median drain_base)" "$r" ">= 0.5 x ceiling" "$(pass "$r" '>=' 0.5)" drain_base
    r=$(ratio_median drain_big drain_base)
    row "drain with $EXTRA_DONE extra done rows, transitions/s (ratio to drain above)" "$(median drain_big)" "$r" ">= 0.90 x drain" "$(pass "$r" '>=' 0.90)" drain_big
    row "drain incl. delivery of its outbox events, transitions/s (base / 1M done rows)" "$(median drain_base_with_events) / $(median drain_big_with_events)" "$(ratio_median drain_base_with_events ceiling)" "-" "-" drain_base_with_events
  row "lease statement uses idx_pay_callback_retry (EXPLAIN)" "$(median explain_index)" "" "1" "$(pass "$(median explain_index)" '>=' 1)" explain_index
    row "JVM RSS after ingest MB" "$(median rss_mb)" "" "<= 200" "$(pass "$(median rss_mb)" '<=' 200)" rss_mb
    row "JVM RSS after storm / at end MB" "$(median rss_after_storm_mb) / $(median rss_end_mb)" "" "-" "-" rss_end_mb
    for f in ceiling stripe wxpay storm drain_base drain_big; do
      [[ -n $(median ${f}_cpu_java_ms) ]] || continue
      row "per request/transition, $f: CPU ms service / mariadbd; SQL statements; InnoDB fsyncs" \
        "$(median ${f}_cpu_java_ms) / $(median ${f}_cpu_db_ms); $(median ${f}_statements); $(median ${f}_fsyncs)" "" "-" "-" ${f}_cpu_java_ms
    done
    row "process start to first ready probe, s" "$(median start_ready_s)" "" "-" "-" start_ready_s
  } >"$TABLE"

  {
    echo "# pay-callback benchmark — latest"
    echo
    echo "$(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')$(git diff --quiet HEAD -- src 2>/dev/null || echo ' + uncommitted src changes'), $(nproc) cores, $(mariadb -uroot -N -e 'SELECT VERSION()'), $(java -version 2>&1 | head -1)."
    echo "runs finished: $RUN of RUNS=$RUNS, $CONNS connections / sysbench threads, ${DURATION} s per load phase, wrk $WRK_THREADS threads."
    echo "JVM options ($JAVA_OPTS_SOURCE): \`$JAVA_OPTS\`; extra: \`${EXTRA_JAVA_OPTS:-none}\`; outbox log level $OUTBOX_LOG; downstream: $([[ $SINK == 1 ]] && echo "HTTP sink (SINK=1)" || echo "log destination")."
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
  start_service
  log "ready after $(awk -F'\t' -v r="$RUN" '$1==r && $2=="start_ready_s" {print $3}' "$RESULTS") s"

  if ((WARMUP > 0)); then
    for ch in stripe wxpay; do
      if [[ $ch == stripe ]]; then n=$((WARMUP * 3000)) cur=USD; else n=$((WARMUP * 1000)) cur=CNY; fi
      generate requests "$WORK/keys" $ch $n "WARM$RUN$ch-" "$WORK/warmup.req"
      create_orders "WARM$RUN$ch-" $n $cur
      WRK_DURATION=$WARMUP wrk_run warmup_$ch "$WORK/warmup.req"
    done
    settle 120
  fi

  if [[ $PHASES == *" ceiling "* ]]; then ceiling; fi

  # Signed right before each phase: WeChat accepts +-5 min and Stripe +-300 s around the send time.
  if [[ $PHASES == *" stripe "* ]]; then
    generate requests "$WORK/keys" stripe "$STRIPE_COUNT" "S$RUN-" "$WORK/stripe.req"
    create_orders "S$RUN-" "$STRIPE_COUNT" USD
    wrk_run stripe "$WORK/stripe.req"
    # Rows of this phase only (the warm-up's have another prefix); in-flight requests at the end of -d are stored
    # but not counted by wrk, so rows slightly exceed requests.
    record stripe_rows "$(sql "$DB" -e "SELECT COUNT(*) FROM pay_callback_log WHERE out_trade_no LIKE 'S$RUN-%'")"
    record rss_after_stripe_mb "$(rss_mb)"
    settle 120
  fi

  if [[ $PHASES == *" wxpay "* ]]; then
    generate requests "$WORK/keys" wxpay "$WX_COUNT" "W$RUN-" "$WORK/wxpay.req"
    create_orders "W$RUN-" "$WX_COUNT" CNY
    wrk_run wxpay "$WORK/wxpay.req"
    record rss_mb "$(rss_mb)"
    record wxpay_rows "$(sql "$DB" -e "SELECT COUNT(*) FROM pay_callback_log WHERE out_trade_no LIKE 'W$RUN-%'")"
    settle 120
  fi

  if [[ $PHASES == *" storm "* ]]; then
    generate requests "$WORK/keys" stripe 1 "STORM$RUN-" "$WORK/storm.req" same
    create_orders "STORM$RUN-" 1 USD
    wrk_run storm "$WORK/storm.req" cycle
    record storm_rows "$(sql "$DB" -e "SELECT COUNT(*) FROM pay_callback_log WHERE out_trade_no = 'STORM$RUN-0'")"
    record rss_after_storm_mb "$(rss_mb)"
    settle 120
  fi

  # Drain on a table holding only the due rows, then on one that also holds EXTRA_DONE done rows (bodies blanked,
  # as housekeeping leaves them after a day): the (status, next_retry_at) index must keep the lease cost flat.
  if [[ $PHASES == *" drain "* ]]; then
    sql "$DB" -e "TRUNCATE pay_callback_log; TRUNCATE orders; TRUNCATE outbox"
    drain base
    if ((EXTRA_DONE > 0)); then
      sql "$DB" -e "TRUNCATE pay_callback_log; TRUNCATE orders; TRUNCATE outbox"
      sql "$DB" -e "INSERT INTO pay_callback_log (merchant_id, channel, channel_trade_no, out_trade_no, trade_state, amount,
          currency, status, retry_count, next_retry_at, raw_body, created_at, updated_at)
        SELECT 'default', 'wxpay', CONCAT('42X-', seq), CONCAT('X-', seq), 'SUCCESS', 88.00, 'CNY', 1, 0,
          NOW(3) - INTERVAL 2 DAY, '', NOW(3) - INTERVAL 2 DAY, NOW(3) - INTERVAL 2 DAY FROM seq_1_to_$EXTRA_DONE;
        ANALYZE TABLE pay_callback_log" >/dev/null
      drain big
    fi
    if [[ -f $WORK/explain.txt ]]; then
      record explain_index "$(grep -c idx_pay_callback_retry "$WORK/explain.txt" || true)"
    fi
    record rss_end_mb "$(rss_mb)"
  fi
  cleanup
  report
  log "run $RUN done; table so far in deploy/bench/results/latest.md"
done

cat "$TABLE"
log "written to deploy/bench/results/latest.md (raw: $RESULTS, logs: $WORK)"
