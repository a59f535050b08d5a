#!/usr/bin/env bash
# Trains the JVM's AOT cache (JEP 483/514/515) of the packaged service where there is no database: the image build
# (deploy/Dockerfile.jvm) and the bench (deploy/bench/run.sh) both run this script, so both train alike.
#
#   bash deploy/train-aot-cache.sh <java> <cache to write> <quarkus-run.jar> [the run's JVM options]
#
# The service starts in full with its datasources pointed at a closed local port and Flyway's migrate-at-start off:
# every bean, route, scheduler job and the two HTTP servers come up (the datasource pools connect lazily), the
# scheduler's first passes fail on the connection and are logged. Once Quarkus reports "started", the probes k8s
# sends and a Prometheus scrape are answered a few times (the first readiness probe is part of every start), then
# the process is stopped with SIGTERM; the JVM writes the cache as it exits. Stopping at the datasource instead, as
# a start without any URL does, leaves out everything Quarkus starts after it: the application's beans, the routes,
# the HTTP servers, the probes (deploy/bench/results/2026-12-04-aot-cache-trained-on-a-full-start.md has the
# measurements).
# The cache is trained with the run's own options (the JVM refuses a cache whose options differ), but for a larger
# metaspace ceiling while writing: the archive is assembled in it, and at 96m a full start's cache does not fit.
# Runs from the caller's working directory: the cache records the class path as the JVM sees it, so the run must use
# the same <quarkus-run.jar> path from the same directory. The log goes to $AOT_TRAINING_LOG (default
# /tmp/aot-training.log) and is printed when training fails.
set -eu
(($# >= 3)) || { sed -n '2,5p' "$0" >&2; exit 2; }
java=$1 cache=$2 jar=$3
shift 3
log=${AOT_TRAINING_LOG:-/tmp/aot-training.log}
opts=$(echo "$*" | sed -E 's/-XX:AOTCache(Output)?=[^ ]*//g; s/-XX:MaxMetaspaceSize=[^ ]*//g')
closed=127.0.0.1:9
rm -f "$cache"
: >"$log"
# shellcheck disable=SC2086 # an option list
"$java" $opts -XX:MaxMetaspaceSize=256m -XX:AOTCacheOutput="$cache" \
  -Dquarkus.datasource.jdbc.url="jdbc:mariadb://$closed/training" \
  -Dquarkus.datasource.reactive.url="mysql://$closed/training" \
  -Dquarkus.flyway.migrate-at-start=false -Dquarkus.http.port=0 -Dquarkus.management.port=0 \
  -jar "$jar" >"$log" 2>&1 &
pid=$!
# Whatever ends this script, the training JVM does not outlive it (after a normal end it has exited already).
trap 'kill -9 "$pid" 2>/dev/null || true' EXIT
# Bash and coreutils only (no grep, no curl): the image's base is ubi9-minimal.
started() { ! sed -n '/ started in /q 1' "$log"; } # GNU sed: exit status 1 at the first match
waited=0
until started; do
  if ! kill -0 "$pid" 2>/dev/null || ((waited >= 1200)); then
    tail -40 "$log" >&2
    echo "AOT training: the service did not start" >&2
    exit 1
  fi
  sleep 0.1
  waited=$((waited + 1))
done
management=$(sed -n 's/.*Management interface listening on http:\/\/[^:]*:\([0-9]*\).*/\1/p' "$log" | head -1)
get() { # path: one HTTP/1.0 GET on the management interface, the answer read to its end
  exec 3<>"/dev/tcp/127.0.0.1/$management" || return 0
  printf 'GET %s HTTP/1.0\r\n\r\n' "$1" >&3
  cat <&3 >/dev/null
  exec 3<&-
}
for _ in 1 2 3 4 5; do
  for path in /q/health/started /q/health/live /q/health/ready /q/metrics; do get "$path"; done
  sleep 0.2
done
kill -TERM "$pid"
wait "$pid" || true
if [[ ! -s $cache ]]; then
  tail -40 "$log" >&2
  echo "AOT training wrote no cache" >&2
  exit 1
fi
