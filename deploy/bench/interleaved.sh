#!/usr/bin/env bash
# A/B of code or JVM variants on a busy machine: every variant runs at the same time, each on its own ports, and
# short wrk bursts go to one after the other, the order reversed every round (A B C, C B A, ...), so the machine's
# other load changes within seconds for all of them alike instead of between whole run.sh passes minutes apart.
# Per burst: the service's CPU per request from /proc/<pid>/stat (the burst plus TAIL seconds, so the processing
# behind unique callbacks counts), wrk's p99, the service's RSS after it. Per round and channel the ratio of each
# variant to the first one, then the medians, go to target/bench/interleaved/summary.txt.
#
#   bash deploy/bench/interleaved.sh 'main|/tmp/app-main|' 'branch|target/quarkus-app|' \
#                                    'arena2|target/quarkus-app||MALLOC_ARENA_MAX=2'
#   ROUNDS=8 BURST=6 nice -n 5 bash deploy/bench/interleaved.sh ...
#   PHASES=e2e DB_PER_VARIANT=1 bash deploy/bench/interleaved.sh 'old|/tmp/app-old|' 'new|target/quarkus-app|'
#
# Each variant is "name|application directory (holding quarkus-run.jar)|extra JVM options|environment (VAR=value
# ...)"; deploy/Dockerfile.jvm's JAVA_OPTS come first, without the AOT cache (start-up is startup.sh's business).
# Phases per round and variant (PHASES, default `stripe storm`): `stripe` (UNIQ unique signed stripe payments for
# PENDING orders, the outbox to the log destination) and `storm` (one signed callback over and over: the duplicate
# path), each per request; `e2e` (UNIQ unique paid stripe callbacks for PENDING orders for BURST seconds, then
# nothing until every callback the burst stored has its order.paid delivered over HTTP to the variant's own
# DownstreamSink, at most E2E_WAIT seconds plus the burst's length after it), per delivered order: the service's CPU
# from the burst's start to that delivery, wrk's p99, the largest RSS sampled meanwhile (every 0.2 s), orders/s from
# the first callback stored to the last delivery (the rows' NOW(3) stamps). The warm-up sends UNIQ callbacks per BURST
# seconds of WARM. With `e2e` among the phases every variant gets a sink of its own (destination
# `sink`, as run.sh's e2e), so the other phases' events go over HTTP too. A variant whose options turn on
# -XX:NativeMemoryTracking gets `jcmd VM.native_memory summary` after each e2e burst (nmt-<name>-<round>.txt, with
# /proc's RssAnon and RssFile). JFR=1 records every variant over the measured rounds only (jcmd JFR.start after the
# warm-up, settings=profile, dumped before the summary) into <name>.jfr for deploy/bench/jfr-top.sh; every variant pays
# the recorder alike. Uses run.sh's database, user and keys (run run.sh once first, any PHASES) and its
# knobs BENCH_DB; ports from BASE_PORT (HTTP) and BASE_PORT+10 (management) upwards. The scheduler stays on (the stripe bursts' callbacks are processed), so do not run it beside
# a run.sh pass on the same database. DB_PER_VARIANT=1 gives each variant an empty database of its own
# (<BENCH_DB>_<name>, made again at every invocation): sharing one, each variant's scanner also leases the rows another
# one's burst wrote due, which its CPU then counts. Each variant holds up to 34 database connections (the reactive
# pool's 32 and JDBC's 2): five variants exhaust MariaDB's default max_connections of 151. Loopback only; every load
# loop is bounded in time.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"
ROUNDS=${ROUNDS:-6}
BURST=${BURST:-6}            # seconds per burst
TAIL=${TAIL:-2}              # seconds after a burst still counted (processing of what it stored)
WARM=${WARM:-15}             # seconds of unmeasured load per variant after start (stripe, e2e; storm 10 s)
CONNS=${CONNS:-32}
UNIQ=${UNIQ:-12000}          # unique callbacks signed per stripe or e2e burst (a thread that runs out stops early)
JFR=${JFR:-0}
E2E_WAIT=${E2E_WAIT:-60}     # seconds, plus the burst's own, that an e2e burst's orders may take to be delivered
PHASES=" ${PHASES:-stripe storm} "
phase() { [[ $PHASES == *" $1 "* ]]; }
for p in $PHASES; do [[ $p == stripe || $p == storm || $p == e2e ]] || { echo "PHASES: unknown '$p'" >&2; exit 2; }; done
BASE_PORT=${BASE_PORT:-18080}
DB=${BENCH_DB:-paycallback_bench}
DB_PER_VARIANT=${DB_PER_VARIANT:-0}
DB_USER=paycallback_bench
DB_PASSWORD=${BENCH_DB_PASSWORD:-bench-$(hostname | md5sum | cut -c1-12)}
SERVICE_JAVA=${SERVICE_JAVA:-/usr/lib/jvm/temurin-25-jdk-amd64/bin/java}
[[ -x $SERVICE_JAVA ]] || SERVICE_JAVA=java
WORK=$ROOT/target/bench/interleaved
INVOCATION=$(date +%s)       # in the order numbers: the orders of earlier invocations stay in the database
KEYS=$ROOT/target/bench/keys
mkdir -p "$WORK"
: >"$WORK/bursts.tsv"
(($# >= 2)) || { echo "usage: $0 'name|app dir|jvm options|env' 'name|...' ..." >&2; exit 2; }
[[ -s $KEYS/app.properties && -s target/cp.txt ]] || { echo "run deploy/bench/run.sh once first (keys, classpath)" >&2; exit 2; }

log() { printf '%s interleaved: %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
GEN_CP="target/test-classes:target/classes:$(cat target/cp.txt)"
generate() { java -cp "$GEN_CP" io.paycallback.bench.RequestGenerator "$@" >/dev/null; }
sql() { mariadb -uroot --batch --skip-column-names "$@"; }
cpu_ms() { awk '{print ($14 + $15) * 10}' "/proc/$1/stat"; }
rss_mb() { awk '/^VmRSS/ {printf "%.0f", $2/1024}' "/proc/$1/status"; }
now_ms() { date +%s%3N; }

JAVA_OPTS=$(bash deploy/image-java-opts.sh)
JAVA_OPTS=$(sed -E 's/-Dquarkus.http.host=[^ ]*//' <<<"$JAVA_OPTS")
if (($("$SERVICE_JAVA" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p') < 25)); then
  JAVA_OPTS=${JAVA_OPTS//-XX:+UseCompactObjectHeaders/}
fi
MERCHANT_OPTS=()
while IFS= read -r line; do MERCHANT_OPTS+=("-D$line"); done <"$KEYS/app.properties"

NAMES=() PIDS=() PORTS=() DBS=() SINK_PIDS=()
cleanup() { for pid in ${PIDS[@]+"${PIDS[@]}"} ${SINK_PIDS[@]+"${SINK_PIDS[@]}"}; do kill "$pid" 2>/dev/null || true; done; }
trap cleanup EXIT
trap 'exit 130' INT TERM

# One DownstreamSink per variant, as run.sh's e2e starts it: no variant's deliveries queue behind another's.
start_sink() { # name -> its events URL on stdout
  : >"$WORK/sink-$1.port"
  java -cp "$GEN_CP" io.paycallback.bench.DownstreamSink 0 >"$WORK/sink-$1.port" 2>"$WORK/sink-$1.err" &
  SINK_PIDS+=($!)
  for _ in $(seq 1 100); do [[ -s $WORK/sink-$1.port ]] && break; sleep 0.1; done
  [[ -s $WORK/sink-$1.port ]] || { cat "$WORK/sink-$1.err" >&2; echo "DownstreamSink for $1 did not start" >&2; exit 1; }
}

i=0
for spec in "$@"; do
  IFS='|' read -r name dir opts envs <<<"$spec"
  [[ -f $dir/quarkus-run.jar ]] || { echo "$name: no $dir/quarkus-run.jar" >&2; exit 2; }
  port=$((BASE_PORT + i)) mport=$((BASE_PORT + 10 + i))
  if curl -s -o /dev/null --max-time 1 "http://127.0.0.1:$port/"; then echo "port $port is taken" >&2; exit 1; fi
  db=$DB
  if [[ $DB_PER_VARIANT == 1 ]]; then
    db="${DB}_$name"
    mariadb -uroot -e "DROP DATABASE IF EXISTS \`$db\`; CREATE DATABASE \`$db\` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
      GRANT ALL PRIVILEGES ON \`$db\`.* TO '$DB_USER'@'127.0.0.1', '$DB_USER'@'localhost'"
  fi
  DBS+=("$db")
  sink_opts=()
  if phase e2e; then
    start_sink "$name"
    sink_opts=("-Dpaycallback.downstream.destinations.sink.url=http://127.0.0.1:$(head -1 "$WORK/sink-$name.port")/events"
      "-Dpaycallback.downstream.destinations.sink.events=order.paid,refund.requested,refund.succeeded,refund.failed,alert")
  fi
  # shellcheck disable=SC2086 # option and environment lists
  env $envs QUARKUS_PROFILE=prod \
    QUARKUS_DATASOURCE_JDBC_URL="jdbc:mariadb://127.0.0.1:3306/$db" QUARKUS_DATASOURCE_REACTIVE_URL="mysql://127.0.0.1:3306/$db" \
    QUARKUS_DATASOURCE_USERNAME=$DB_USER QUARKUS_DATASOURCE_PASSWORD=$DB_PASSWORD PAYCALLBACK_ADMIN_TOKEN=bench-admin-token \
    "$SERVICE_JAVA" $JAVA_OPTS "${MERCHANT_OPTS[@]}" -Dquarkus.http.host=127.0.0.1 -Dquarkus.management.host=127.0.0.1 \
      -Dquarkus.http.port=$port -Dquarkus.management.port=$mport '-Dquarkus.log.category."io.paycallback.outbox".level=WARN' \
      ${sink_opts[@]+"${sink_opts[@]}"} $opts -jar "$dir/quarkus-run.jar" >"$WORK/service-$name.log" 2>&1 &
  PIDS+=($!) NAMES+=("$name") PORTS+=("$port")
  for _ in $(seq 1 180); do curl -fs -o /dev/null "http://127.0.0.1:$mport/q/health/ready" && break; sleep 1; done
  curl -fs -o /dev/null "http://127.0.0.1:$mport/q/health/ready" || { tail -20 "$WORK/service-$name.log" >&2; exit 1; }
  log "$name ready: $dir, options '${opts}', environment '${envs}', pid ${PIDS[$i]}, port $port, database $db"
  i=$((i + 1))
done

burst() { # index file mode label seconds
  local pid=${PIDS[$1]} c0 c1 out
  c0=$(cpu_ms "$pid")
  out=$(wrk -t2 -c"$CONNS" -d"$5s" --timeout 10s -s deploy/bench/ingest.lua "http://127.0.0.1:${PORTS[$1]}" -- "$2" 2 "$3" 2>&1)
  sleep "$TAIL"
  c1=$(cpu_ms "$pid")
  local req non200 p99
  req=$(sed -n 's/.*RESULT requests=\([0-9]*\).*/\1/p' <<<"$out" | head -1)
  non200=$(sed -n 's/.*RESULT .* non200=\([0-9]*\).*/\1/p' <<<"$out" | head -1)
  p99=$(sed -n 's/.*RESULT .* p99=\([0-9.]*\).*/\1/p' <<<"$out" | head -1)
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$4" "${NAMES[$1]}" "${req:-0}" "${non200:-?}" "${p99:-?}" "$((c1 - c0))" \
    "$(cut -d' ' -f1 /proc/loadavg)" "$(rss_mb "$pid")" >>"$WORK/bursts.tsv"
}
unique_callbacks() { # index round [count] -> request file, its orders PENDING
  # By the variant's index, not its name: names may hold LIKE's wildcards or begin with another's.
  local prefix="IL$INVOCATION-$2-$1-" file="$WORK/unique.req" n=${3:-$UNIQ}
  generate requests "$KEYS" stripe "$n" "$prefix" "$file"
  mariadb -uroot "${DBS[$1]}" -e "INSERT INTO orders (merchant_id, out_trade_no, amount, currency, status, refunded_amount, created_at, updated_at)
    SELECT 'default', CONCAT('$prefix', seq), 88.00, 'USD', 'PENDING', 0, NOW(3), NOW(3) FROM seq_0_to_$((n - 1))"
}
# The warm-up's unique callbacks: UNIQ per BURST seconds, so a longer WARM does not run out of them sooner.
WARM_UNIQ=$(((UNIQ * WARM + BURST - 1) / BURST))
# Stripe accepts a signature for 300 s, so the storm's one callback is signed again every round.
storm_callback() { generate requests "$KEYS" stripe 300 "ILSTORM$1-$RANDOM-" "$WORK/storm.req" same; }

# An e2e burst: unique paid callbacks for BURST seconds, then the service's own pace until every callback it stored
# (counted in pay_callback_log by this burst's order numbers) has its order.paid delivered to the sink (status 1),
# polled every 0.2 s with two index range counts, bounded by E2E_WAIT. CPU counts from the burst's start to the poll
# that saw the last delivery: nothing of the next burst, nothing of the variant's idle minutes.
e2e_burst() { # index round label seconds [callbacks]
  local pid=${PIDS[$1]} db=${DBS[$1]} prefix="IL$INVOCATION-$2-$1-" c0 c1 start_ms deadline wrk_pid rss rss_max=0
  unique_callbacks "$1" "$2" "${5:-$UNIQ}"
  local out=$WORK/wrk-e2e.out
  c0=$(cpu_ms "$pid"); start_ms=$(now_ms)
  wrk -t2 -c"$CONNS" -d"$4s" --timeout 10s -s deploy/bench/ingest.lua "http://127.0.0.1:${PORTS[$1]}" \
    -- "$WORK/unique.req" 2 >"$out" 2>&1 &
  wrk_pid=$!
  while kill -0 "$wrk_pid" 2>/dev/null; do rss=$(rss_mb "$pid"); ((rss > rss_max)) && rss_max=$rss; sleep 0.2; done
  wait "$wrk_pid" || true
  local counts="SELECT (SELECT COUNT(*) FROM pay_callback_log WHERE merchant_id = 'default' AND out_trade_no LIKE '$prefix%'),
    (SELECT COUNT(*) FROM outbox WHERE merchant_id = 'default' AND out_trade_no LIKE '$prefix%' AND type = 'order.paid'
      AND destination = 'sink' AND status = 1)" stored delivered
  deadline=$(($(now_ms) + (E2E_WAIT + $4) * 1000))
  while read -r stored delivered < <(sql "$db" -e "$counts") && ((delivered < stored)) && (($(now_ms) < deadline)); do
    rss=$(rss_mb "$pid"); ((rss > rss_max)) && rss_max=$rss
    sleep 0.2
  done
  c1=$(cpu_ms "$pid")
  local wall_ms=$(($(now_ms) - start_ms)) first_to_last_us result sent non200 p99
  rss=$(rss_mb "$pid"); ((rss > rss_max)) && rss_max=$rss
  first_to_last_us=$(sql "$db" -e "SELECT TIMESTAMPDIFF(MICROSECOND,
      (SELECT MIN(created_at) FROM pay_callback_log WHERE merchant_id = 'default' AND out_trade_no LIKE '$prefix%'),
      (SELECT MAX(updated_at) FROM outbox WHERE merchant_id = 'default' AND out_trade_no LIKE '$prefix%'
        AND type = 'order.paid' AND destination = 'sink' AND status = 1))")
  [[ $first_to_last_us =~ ^[0-9]+$ ]] || first_to_last_us=0
  result=$(grep '^RESULT' "$out" || true)
  sent=$(sed -n 's/.* sent=\([0-9]*\).*/\1/p' <<<"$result")
  non200=$(sed -n 's/.* non200=\([0-9]*\).*/\1/p' <<<"$result")
  p99=$(sed -n 's/.* p99=\([0-9.]*\).*/\1/p' <<<"$result")
  # Columns as the other phases' (units are delivered orders), then: callbacks sent, stored, ms from the burst's start
  # to the last delivery seen, orders/s by the database's stamps.
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$3" "${NAMES[$1]}" "$delivered" "${non200:-?}" "${p99:-?}" \
    "$((c1 - c0))" "$(cut -d' ' -f1 /proc/loadavg)" "$rss_max" "${sent:-?}" "$stored" "$wall_ms" \
    "$(awk -v d="$delivered" -v us="$first_to_last_us" 'BEGIN{printf "%.1f", (us > 0 ? d*1e6/us : 0)}')" >>"$WORK/bursts.tsv"
  ((delivered >= stored)) || log "${NAMES[$1]} $3: only $delivered of $stored delivered in time"
  if tr '\0' '\n' <"/proc/$pid/cmdline" | grep -q '^-XX:NativeMemoryTracking='; then
    { grep -E '^(VmRSS|RssAnon|RssFile|RssShmem)' "/proc/$pid/status"; jcmd "$pid" VM.native_memory summary; } \
      >"$WORK/nmt-${NAMES[$1]}-$2.txt" 2>&1 || true
  fi
}

storm_callback w
for i in "${!NAMES[@]}"; do
  if phase stripe; then unique_callbacks "$i" w "$WARM_UNIQ"; burst "$i" "$WORK/unique.req" "" warm-stripe "$WARM"; fi
  if phase storm; then burst "$i" "$WORK/storm.req" cycle warm-storm 10; fi
  if phase e2e; then e2e_burst "$i" ew warm-e2e "$WARM" "$WARM_UNIQ"; fi
done
if [[ $JFR == 1 ]]; then
  for i in "${!NAMES[@]}"; do
    rm -f "$WORK/${NAMES[$i]}.jfr"
    jcmd "${PIDS[$i]}" JFR.start name=interleaved settings=profile >/dev/null
  done
fi
order=("${!NAMES[@]}")
for r in $(seq 1 "$ROUNDS"); do
  storm_callback "$r"
  for i in "${order[@]}"; do
    if phase stripe; then unique_callbacks "$i" "$r"; burst "$i" "$WORK/unique.req" "" stripe "$BURST"; fi
    if phase storm; then burst "$i" "$WORK/storm.req" cycle storm "$BURST"; fi
    if phase e2e; then e2e_burst "$i" "e$r" e2e "$BURST"; fi
  done
  reversed=(); for ((k = ${#order[@]} - 1; k >= 0; k--)); do reversed+=("${order[$k]}"); done; order=("${reversed[@]}")
  log "round $r of $ROUNDS done (load $(cut -d' ' -f1 /proc/loadavg))"
done

if [[ $JFR == 1 ]]; then
  for i in "${!NAMES[@]}"; do
    jcmd "${PIDS[$i]}" JFR.dump name=interleaved filename="$WORK/${NAMES[$i]}.jfr" >/dev/null
    log "${NAMES[$i]}: $WORK/${NAMES[$i]}.jfr"
  done
fi

# Per round and phase, CPU per unit (request; delivered order for e2e) and its ratio to the first variant in the same
# round; then medians. RSS: the largest and the median of the values after (e2e: during) each burst of the phase.
{
  echo "# $(date -u '+%F %H:%M UTC'), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg) at the end; ROUNDS=$ROUNDS BURST=$BURST TAIL=$TAIL WARM=$WARM CONNS=$CONNS UNIQ=$UNIQ E2E_WAIT=$E2E_WAIT PHASES='$(echo $PHASES)' DB_PER_VARIANT=$DB_PER_VARIANT"
  printf '# variant %s\n' "$@"
  awk -F'\t' -v first="${NAMES[0]}" -v n=${#NAMES[@]} '
  $1 == "stripe" || $1 == "storm" || $1 == "e2e" {
    k = $1; seen[k]++; round = int((seen[k] - 1) / n)
    per[k, $2, round] = ($3 > 0 ? $6 / $3 : 0); p99[k, $2, round] = $5; rs[k, $2, round] = $8
    rss[k, $2] = ($8 > rss[k, $2] ? $8 : rss[k, $2]); ops[k, $2, round] = $12
    names[$2] = 1; rounds[k] = round + 1
  }
  function median(a, m,   i, j, t) {
    for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
    return m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
  }
  END {
    for (k in rounds) for (v in names) {
      line = ""; ratios = ""; split("", c); split("", q); split("", p); split("", m); split("", o)
      for (r = 0; r < rounds[k]; r++) {
        c[r + 1] = per[k, v, r]; q[r + 1] = (per[k, first, r] > 0 ? per[k, v, r] / per[k, first, r] : 0)
        p[r + 1] = p99[k, v, r]; m[r + 1] = rs[k, v, r]; o[r + 1] = ops[k, v, r]
        line = line sprintf(" %.3f", per[k, v, r]); ratios = ratios sprintf(" %.2f", q[r + 1])
      }
      unit = (k == "e2e" ? "delivered order" : "request")
      printf "%s %s: CPU ms per %s%s; median %.3f; ratio to %s per round%s, median %.2f; p99 median %.0f ms; RSS max %d, median %d MB%s\n",
        k, v, unit, line, median(c, rounds[k]), first, ratios, median(q, rounds[k]), median(p, rounds[k]), rss[k, v],
        median(m, rounds[k]), (k == "e2e" ? sprintf("; orders/s median %.0f", median(o, rounds[k])) : "")
    }
  }' "$WORK/bursts.tsv" | sort
} | tee "$WORK/summary.txt"
