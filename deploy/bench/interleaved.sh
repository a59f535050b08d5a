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
#
# Each variant is "name|application directory (holding quarkus-run.jar)|extra JVM options|environment (VAR=value
# ...)"; deploy/Dockerfile.jvm's JAVA_OPTS come first, without the AOT cache (start-up is startup.sh's business).
# Phases per round and variant: `stripe` (UNIQ unique signed stripe payments for PENDING orders, the outbox to the
# log destination) and `storm` (one signed callback over and over: the duplicate path). Uses run.sh's database, user
# and keys (run run.sh once first, any PHASES) and its knobs BENCH_DB; ports from BASE_PORT (HTTP) and BASE_PORT+10
# (management) upwards. The scheduler stays on (the stripe bursts' callbacks are processed), so do not run it beside
# a run.sh pass on the same database. DB_PER_VARIANT=1 gives each variant an empty database of its own
# (<BENCH_DB>_<name>, made again at every invocation): sharing one, each variant's scanner also leases the rows another
# one's burst wrote due, which its CPU then counts. Loopback only; every load loop is bounded in time.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"
ROUNDS=${ROUNDS:-6}
BURST=${BURST:-6}            # seconds per burst
TAIL=${TAIL:-2}              # seconds after a burst still counted (processing of what it stored)
WARM=${WARM:-15}             # seconds of unmeasured stripe load per variant after start (then 10 s of storm)
CONNS=${CONNS:-32}
UNIQ=${UNIQ:-12000}          # unique callbacks signed per stripe burst (a thread that runs out stops early)
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
cpu_ms() { awk '{print ($14 + $15) * 10}' "/proc/$1/stat"; }
rss_mb() { awk '/^VmRSS/ {printf "%.0f", $2/1024}' "/proc/$1/status"; }

JAVA_OPTS=$(bash deploy/image-java-opts.sh)
JAVA_OPTS=$(sed -E 's/-Dquarkus.http.host=[^ ]*//' <<<"$JAVA_OPTS")
if (($("$SERVICE_JAVA" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p') < 25)); then
  JAVA_OPTS=${JAVA_OPTS//-XX:+UseCompactObjectHeaders/}
fi
MERCHANT_OPTS=()
while IFS= read -r line; do MERCHANT_OPTS+=("-D$line"); done <"$KEYS/app.properties"

NAMES=() PIDS=() PORTS=() DBS=()
cleanup() { for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done; }
trap cleanup EXIT
trap 'exit 130' INT TERM

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
  # shellcheck disable=SC2086 # option and environment lists
  env $envs QUARKUS_PROFILE=prod \
    QUARKUS_DATASOURCE_JDBC_URL="jdbc:mariadb://127.0.0.1:3306/$db" QUARKUS_DATASOURCE_REACTIVE_URL="mysql://127.0.0.1:3306/$db" \
    QUARKUS_DATASOURCE_USERNAME=$DB_USER QUARKUS_DATASOURCE_PASSWORD=$DB_PASSWORD PAYCALLBACK_ADMIN_TOKEN=bench-admin-token \
    "$SERVICE_JAVA" $JAVA_OPTS "${MERCHANT_OPTS[@]}" -Dquarkus.http.host=127.0.0.1 -Dquarkus.management.host=127.0.0.1 \
      -Dquarkus.http.port=$port -Dquarkus.management.port=$mport '-Dquarkus.log.category."io.paycallback.outbox".level=WARN' \
      $opts -jar "$dir/quarkus-run.jar" >"$WORK/service-$name.log" 2>&1 &
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
unique_callbacks() { # index round -> request file, its orders PENDING
  local prefix="IL$INVOCATION-$2${NAMES[$1]}-" file="$WORK/unique.req"
  generate requests "$KEYS" stripe "$UNIQ" "$prefix" "$file"
  mariadb -uroot "${DBS[$1]}" -e "INSERT INTO orders (merchant_id, out_trade_no, amount, currency, status, refunded_amount, created_at, updated_at)
    SELECT 'default', CONCAT('$prefix', seq), 88.00, 'USD', 'PENDING', 0, NOW(3), NOW(3) FROM seq_0_to_$((UNIQ - 1))"
}
# Stripe accepts a signature for 300 s, so the storm's one callback is signed again every round.
storm_callback() { generate requests "$KEYS" stripe 300 "ILSTORM$1-$RANDOM-" "$WORK/storm.req" same; }

storm_callback w
for i in "${!NAMES[@]}"; do
  unique_callbacks "$i" w; burst "$i" "$WORK/unique.req" "" warm-stripe "$WARM"
  burst "$i" "$WORK/storm.req" cycle warm-storm 10
done
order=("${!NAMES[@]}")
for r in $(seq 1 "$ROUNDS"); do
  storm_callback "$r"
  for i in "${order[@]}"; do
    unique_callbacks "$i" "$r"; burst "$i" "$WORK/unique.req" "" stripe "$BURST"
    burst "$i" "$WORK/storm.req" cycle storm "$BURST"
  done
  reversed=(); for ((k = ${#order[@]} - 1; k >= 0; k--)); do reversed+=("${order[$k]}"); done; order=("${reversed[@]}")
  log "round $r of $ROUNDS done (load $(cut -d' ' -f1 /proc/loadavg))"
done

# Per round and phase, CPU per request and its ratio to the first variant; then medians.
awk -F'\t' -v first="${NAMES[0]}" -v n=${#NAMES[@]} '
  $1 == "stripe" || $1 == "storm" {
    k = $1; seen[k]++; round = int((seen[k] - 1) / n)
    per[k, $2, round] = ($3 > 0 ? $6 / $3 : 0); p99[k, $2, round] = $5; rss[$2] = ($8 > rss[$2] ? $8 : rss[$2])
    names[$2] = 1; rounds[k] = round + 1
  }
  function median(a, m,   i, j, t) {
    for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
    return m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
  }
  END {
    for (k in rounds) for (v in names) {
      line = ""; split("", c); split("", q); split("", p)
      for (r = 0; r < rounds[k]; r++) {
        c[r + 1] = per[k, v, r]; q[r + 1] = (per[k, first, r] > 0 ? per[k, v, r] / per[k, first, r] : 0); p[r + 1] = p99[k, v, r]
        line = line sprintf(" %.3f", per[k, v, r])
      }
      printf "%s %s: CPU ms per request%s; median %.3f; ratio to %s median %.2f; p99 median %.0f ms; RSS max %d MB\n",
        k, v, line, median(c, rounds[k]), first, median(q, rounds[k]), median(p, rounds[k]), rss[v]
    }
  }' "$WORK/bursts.tsv" | sort | tee "$WORK/summary.txt"
