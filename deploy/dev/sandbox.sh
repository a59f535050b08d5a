#!/usr/bin/env bash
# Dev mode against local fake WeChat Pay, Alipay and Stripe APIs: the fakes the tests use (testsupport/FakeProviders),
# started by io.paycallback.testsupport.Sandbox from the test classes, so that they never reach the packaged
# application. They sign with the private halves of dev mode's demo keys, and dev mode gets the merchant default's API
# keys for them as system properties (never a file: dev mode and the tests must not pick up a sandbox's settings).
# Order queries and refund queries run after seconds rather than minutes, so that a person sees them happen.
#
#   bash deploy/dev/sandbox.sh [maven options, e.g. -o or -Dquarkus.http.port=18080]
#
# Environment: SANDBOX_PORT, the fakes' port (default 8088; control endpoints at http://127.0.0.1:8088/control/...).
# SANDBOX_KAFKA=1 also starts a local Kafka broker (deploy/kafka/start.sh; it keeps running after dev mode ends, until
# `bash deploy/kafka/start.sh stop`) and adds the destination `bus`, every event type on the topic pay-callback.events,
# signed with a dev-only secret: `bash deploy/kafka/start.sh watch pay-callback.events` shows each record with its headers.
# Ctrl-C ends dev mode, then the fakes.
set -euo pipefail
cd "$(dirname "$0")/../.."
port=${SANDBOX_PORT:-8088}
dir=target/sandbox
mkdir -p "$dir"
rm -f "$dir/dev.properties"

./mvnw -q test-compile dependency:build-classpath -Dmdep.outputFile="$dir/classpath.txt" -Dmdep.includeScope=test "$@"
java deploy/dev/SendSample.java provider-keys >"$dir/provider-keys.properties"
java -cp "target/test-classes:target/classes:$(cat "$dir/classpath.txt")" io.paycallback.testsupport.Sandbox \
  "$port" "$dir/provider-keys.properties" "$dir/dev.properties" >"$dir/fakes.log" 2>&1 &
fakes=$!
trap 'kill "$fakes" 2>/dev/null || true' EXIT
# Ctrl-C reaches the whole process group, but not the fakes: a background job of a script ignores SIGINT. Without
# these traps bash would die of the signal without running the EXIT trap, and leave them running.
trap 'exit 130' INT
trap 'exit 143' TERM
# Up to two minutes: the fakes generate their RSA keys at start, slow on a busy machine.
for _ in $(seq 1 600); do
  grep -q '^sandbox:' "$dir/fakes.log" && break
  kill -0 "$fakes" 2>/dev/null || { cat "$dir/fakes.log"; echo "sandbox: the fake providers did not start" >&2; exit 1; }
  sleep 0.2
done
grep -q '^sandbox:' "$dir/fakes.log" || { cat "$dir/fakes.log"; echo "sandbox: the fake providers did not start" >&2; exit 1; }
cat "$dir/fakes.log"

settings=()
while IFS= read -r line; do
  settings+=("-D${line}")
done <"$dir/dev.properties"
# The first order query 20 s after an order is registered, the refund queries every 20 s for a while (defaults: 5m and
# 5m,15m,...): the loops a person watches in the console.
settings+=(-Dpaycallback.reconcile.after=20s -Dpaycallback.reconcile.schedule=20s,20s,20s,1m,5m,1h)

if [[ ${SANDBOX_KAFKA:-0} == 1 ]]; then
  brokers=$(bash deploy/kafka/start.sh | tail -1)
  bus=-Dpaycallback.downstream.destinations.bus
  settings+=("$bus.kafka.bootstrap-servers=$brokers" "$bus.kafka.topic=pay-callback.events"
    "$bus.events=order.paid,refund.requested,refund.submitted,refund.succeeded,refund.failed,alert"
    "$bus.signing-secret=whsec_c2FuZGJveC1vbmx5LXNpZ25pbmctc2VjcmV0LTMyYg==")
  echo "sandbox: Kafka destination bus on $brokers, topic pay-callback.events;" \
    "watch it with: bash deploy/kafka/start.sh watch pay-callback.events"
fi

./mvnw quarkus:dev "${settings[@]}" "$@"
