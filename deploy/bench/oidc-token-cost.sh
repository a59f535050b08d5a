#!/usr/bin/env bash
# CPU per admin request with an identity provider's access token (a Keycloak JWT: signature verified against the
# realm's keys, which quarkus-oidc fetched once and caches) against the same request with a static operator token
# (one SHA-256 and a constant-time compare per configured token). The packaged application (target/quarkus-app,
# built when missing) runs in the prod profile on the image's JDK and JAVA_OPTS (deploy/image-java-opts.sh), bound to
# loopback, on a database of its own on the machine's MariaDB (root over the unix socket), with Keycloak from
# deploy/keycloak/start.sh. Per round and endpoint, one wrk burst with each token, their order swapped every round so
# the machine's other load falls on both alike; per burst the service's CPU from /proc/<pid>/stat over requests
# answered. A fresh access token per burst (Keycloak's last 5 minutes). Results: target/bench/oidc/bursts.tsv and
# summary.txt (medians per endpoint and kind, and the ratio of the medians).
#
#   bash deploy/bench/oidc-token-cost.sh
#   ROUNDS=8 BURST=10 ENDPOINTS="/admin/destinations/none /admin/overview" bash deploy/bench/oidc-token-cost.sh
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"
ROUNDS=${ROUNDS:-6}
BURST=${BURST:-10}             # seconds per burst
WARM=${WARM:-20}               # seconds of unmeasured load per kind first
CONNS=${CONNS:-8}
# The first answers 404 after authentication and authorisation from memory, so its CPU is nearly all the token's;
# the overview reads the database, as a dashboard refresh does.
ENDPOINTS=${ENDPOINTS:-/admin/destinations/none /admin/overview}
PORT=${PORT:-18480}
MPORT=$((PORT + 10))
DB=paycallback_oidc_bench
DB_USER=paycallback_oidc_bench
DB_PASSWORD=bench-$(hostname | md5sum | cut -c1-12)
STATIC_TOKEN=bench-static-operator-token-$(hostname | md5sum | cut -c1-8)
SERVICE_JAVA=${SERVICE_JAVA:-/usr/lib/jvm/temurin-25-jdk-amd64/bin/java}
[[ -x $SERVICE_JAVA ]] || SERVICE_JAVA=java
WORK=$ROOT/target/bench/oidc
mkdir -p "$WORK"
log() { printf '%s oidc-token-cost: %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
cpu_ms() { awk '{print ($14 + $15) * 10}' "/proc/$1/stat"; }

command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq --no-install-recommends wrk; }
[[ -f target/quarkus-app/quarkus-run.jar ]] || ./mvnw -B -q package -DskipTests
KEYCLOAK=$(bash deploy/keycloak/start.sh)
ISSUER=$KEYCLOAK/realms/paycallback
log "Keycloak at $KEYCLOAK"

bash deploy/bench/own-database.sh "$DB" "$DB_USER" "$DB_PASSWORD"

JAVA_OPTS=$(bash deploy/image-java-opts.sh "$SERVICE_JAVA")
if curl -s -o /dev/null --max-time 1 "http://127.0.0.1:$PORT/"; then echo "port $PORT is taken" >&2; exit 1; fi
# shellcheck disable=SC2086 # an option list
QUARKUS_PROFILE=prod QUARKUS_DATASOURCE_JDBC_URL="jdbc:mariadb://127.0.0.1:3306/$DB" \
  QUARKUS_DATASOURCE_REACTIVE_URL="mysql://127.0.0.1:3306/$DB" QUARKUS_DATASOURCE_USERNAME=$DB_USER \
  QUARKUS_DATASOURCE_PASSWORD=$DB_PASSWORD PAYCALLBACK_AUTH_OIDC_ENABLED=true QUARKUS_OIDC_AUTH_SERVER_URL=$ISSUER \
  QUARKUS_OIDC_CLIENT_ID=pay-callback-console QUARKUS_OIDC_CREDENTIALS_SECRET=console-secret-for-dev-and-tests-only \
  "$SERVICE_JAVA" $JAVA_OPTS -Dquarkus.http.host=127.0.0.1 -Dquarkus.management.host=127.0.0.1 \
  -Dquarkus.http.port=$PORT -Dquarkus.management.port=$MPORT -Dpaycallback.local-config.ignore=true \
  -Dpaycallback.auth.operators.tokens.bench="$STATIC_TOKEN" \
  -Dpaycallback.auth.oidc.role-mapping.paycallback-operators=operator \
  "-Dpaycallback.registry.key-encryption-keys=bench-2026:$(head -c 32 /dev/urandom | base64)" \
  -jar target/quarkus-app/quarkus-run.jar >"$WORK/service.log" 2>&1 &
PID=$!
trap 'kill $PID 2>/dev/null || true' EXIT
for _ in $(seq 1 120); do curl -fs -o /dev/null "http://127.0.0.1:$MPORT/q/health/ready" && break; sleep 1; done
curl -fs -o /dev/null "http://127.0.0.1:$MPORT/q/health/ready" || { tail -30 "$WORK/service.log" >&2; exit 1; }
log "service ready, pid $PID, port $PORT"

jwt() {
  curl -fsS -d grant_type=password -d client_id=pay-callback-cli -d username=alice-operator \
    -d password=alice-operator-password "$ISSUER/protocol/openid-connect/token" \
    | sed -n 's/.*"access_token":"\([^"]*\)".*/\1/p'
}
token_of() { if [[ $1 == jwt ]]; then jwt; else echo "$STATIC_TOKEN"; fi; }

burst() { # kind endpoint seconds label
  local token c0 c1 out requests status
  token=$(token_of "$1")
  status=$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $token" "http://127.0.0.1:$PORT$2")
  [[ $status == 200 || $status == 404 ]] || { echo "$1 $2 answered $status" >&2; exit 1; }
  c0=$(cpu_ms $PID)
  out=$(wrk -t2 -c"$CONNS" -d"$3s" --latency -H "Authorization: Bearer $token" "http://127.0.0.1:$PORT$2")
  c1=$(cpu_ms $PID)
  requests=$(sed -n 's/^ *\([0-9]*\) requests in.*/\1/p' <<<"$out")
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$4" "$1" "$2" "$status" "$requests" "$((c1 - c0))" \
    "$(awk -v c=$((c1 - c0)) -v r="$requests" 'BEGIN {printf "%.1f", r ? c * 1000 / r : 0}')" >>"$WORK/bursts.tsv"
}

printf 'round\tkind\tendpoint\tstatus\trequests\tcpu_ms\tcpu_us_per_request\n' >"$WORK/bursts.tsv"
for endpoint in $ENDPOINTS; do
  burst static "$endpoint" "$WARM" warm
  burst jwt "$endpoint" "$WARM" warm
done
for round in $(seq 1 "$ROUNDS"); do
  kinds=(static jwt)
  ((round % 2)) || kinds=(jwt static)
  for endpoint in $ENDPOINTS; do
    for kind in "${kinds[@]}"; do burst "$kind" "$endpoint" "$BURST" "$round"; done
  done
  log "round $round of $ROUNDS"
done

{
  echo "cpu per request, median of $ROUNDS rounds (${BURST} s bursts, $CONNS connections), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
  for endpoint in $ENDPOINTS; do
    median() { awk -F'\t' -v e="$endpoint" -v k="$1" '$1 != "warm" && $1 != "round" && $2 == k && $3 == e {print $7}' \
      "$WORK/bursts.tsv" | sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
    rate() { awk -F'\t' -v e="$endpoint" -v k="$1" -v s="$BURST" '$1 != "warm" && $1 != "round" && $2 == k && $3 == e {print $5 / s}' \
      "$WORK/bursts.tsv" | sort -n | awk '{a[NR]=$1} END {printf "%.0f", (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
    s=$(median static) j=$(median jwt)
    printf '%s\tstatic %s us (%s req/s)\tjwt %s us (%s req/s)\tratio %s\n' "$endpoint" "$s" "$(rate static)" "$j" \
      "$(rate jwt)" "$(awk -v s="$s" -v j="$j" 'BEGIN {printf "%.2f", j / s}')"
  done
} | tee "$WORK/summary.txt"
