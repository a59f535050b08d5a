#!/usr/bin/env bash
# Keycloak for the console's and the admin API's sign-in through an identity provider (docs/operations.md#identity-
# provider): the distribution from Maven Central (fetched through the Maven wrapper into ~/.m2, unpacked under
# target/keycloak), started in dev mode on loopback with the realm in deploy/keycloak/realm-paycallback.json imported
# fresh (an in-memory-sized H2 file under its own directory, wiped at every start). Keycloak needs Java 21 or newer:
# KEYCLOAK_JAVA_HOME, else /usr/lib/jvm/temurin-25-jdk-amd64.
#
#   deploy/keycloak/start.sh [port]   starts it (port: free one when omitted), waits until the realm answers, prints
#                                     its URL (http://127.0.0.1:<port>) as the last line of stdout; when this checkout's
#                                     is already running, prints that one's URL
#   deploy/keycloak/start.sh stop     stops the one this checkout started
#
# The realm's issuer is http://127.0.0.1:<port>/realms/paycallback; its users, clients and secrets are for dev and
# tests only (docs/operations.md lists them).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
VERSION=${KEYCLOAK_VERSION:-26.5.6}
BASE=${KEYCLOAK_DIR:-$ROOT/target/keycloak}
HOME_DIR=$BASE/keycloak-$VERSION
PID_FILE=$BASE/keycloak.pid
LOG=$BASE/keycloak.log
JAVA_HOME=${KEYCLOAK_JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
export JAVA_HOME

if [[ "${1:-}" == "stop" ]]; then
  if [[ -f $PID_FILE ]]; then
    pid=$(cat "$PID_FILE")
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 30); do kill -0 "$pid" 2>/dev/null || break; sleep 1; done
    kill -9 "$pid" 2>/dev/null || true
    rm -f "$PID_FILE" "$BASE/keycloak.url"
  fi
  exit 0
fi

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}
PORT=${1:-$(free_port)}
MANAGEMENT_PORT=$(free_port)

test -x "$JAVA_HOME/bin/java" || { echo "keycloak: no Java at $JAVA_HOME (set KEYCLOAK_JAVA_HOME to a JDK 21+)" >&2; exit 1; }
mkdir -p "$BASE"
if [[ ! -x $HOME_DIR/bin/kc.sh ]]; then
  echo "keycloak: fetching org.keycloak:keycloak-quarkus-dist:$VERSION" >&2
  (cd "$ROOT" && ./mvnw -B -q dependency:copy -Dartifact="org.keycloak:keycloak-quarkus-dist:$VERSION:zip" \
    -DoutputDirectory="$BASE" -Dmdep.overWriteReleases=true) >&2
  (cd "$BASE" && unzip -q -o "keycloak-quarkus-dist-$VERSION.zip" && rm -f "keycloak-quarkus-dist-$VERSION.zip")
fi

# One per checkout: a second start (the tests while a developer's is up) uses the running one.
if [[ -f $PID_FILE ]] && kill -0 "$(cat "$PID_FILE")" 2>/dev/null && [[ -f $BASE/keycloak.url ]]; then
  echo "keycloak: already running as $(cat "$PID_FILE"), log in $LOG" >&2
  cat "$BASE/keycloak.url"
  exit 0
fi
# A fresh realm every start: the import skips a realm that already exists.
rm -rf "$HOME_DIR/data"
mkdir -p "$HOME_DIR/data/import"
cp "$ROOT/deploy/keycloak/realm-paycallback.json" "$HOME_DIR/data/import/"

URL=http://127.0.0.1:$PORT
# The fixed hostname makes the issuer the same whoever asks (the service, a test, the browser).
KC_BOOTSTRAP_ADMIN_USERNAME=admin KC_BOOTSTRAP_ADMIN_PASSWORD=admin-for-dev-only \
  setsid "$HOME_DIR/bin/kc.sh" start-dev --import-realm --http-host=127.0.0.1 --http-port="$PORT" \
  --http-management-port="$MANAGEMENT_PORT" --hostname="$URL" --cache=local \
  >"$LOG" 2>&1 </dev/null &
echo $! >"$PID_FILE"

for _ in $(seq 1 120); do
  if curl -fsS -o /dev/null "$URL/realms/paycallback/.well-known/openid-configuration" 2>/dev/null; then
    echo "keycloak: ready after ${SECONDS} s, log in $LOG" >&2
    echo "$URL" >"$BASE/keycloak.url"
    echo "$URL"
    exit 0
  fi
  if ! kill -0 "$(cat "$PID_FILE")" 2>/dev/null; then
    echo "keycloak: exited; the end of $LOG:" >&2
    tail -30 "$LOG" >&2
    exit 1
  fi
  sleep 1
done
echo "keycloak: not ready after 120 s; the end of $LOG:" >&2
tail -30 "$LOG" >&2
exit 1
