#!/usr/bin/env bash
# Prints the JVM options the image runs with (ENV JAVA_OPTS of deploy/Dockerfile.jvm) without its -XX:AOTCache: every
# caller (.ci/run, the bench's run.sh, startup.sh, interleaved.sh) maps a cache of its own or none. Prints nothing
# when the Dockerfile has no such line.
#
#   deploy/image-java-opts.sh          the image's options
#   deploy/image-java-opts.sh JAVA     for a bench on this machine with the java command JAVA: without the image's
#                                      -Dquarkus.http.host (the bench binds loopback itself), and without the options
#                                      that JAVA's release lacks (before 25: -XX:+UseCompactObjectHeaders)
set -eu
opts=$(sed -n 's/^ENV JAVA_OPTS="\(.*\)"$/\1/p' "$(dirname "${BASH_SOURCE[0]}")/Dockerfile.jvm" | head -1 |
  sed -E 's/-XX:AOTCache=[^ ]*//')
if [ $# -ge 1 ]; then
  opts=$(printf '%s' "$opts" | sed -E 's/-Dquarkus.http.host=[^ ]*//')
  release=$("$1" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p')
  if [ "${release:-0}" -lt 25 ]; then
    opts=$(printf '%s' "$opts" | sed -E 's/-XX:\+UseCompactObjectHeaders//')
  fi
fi
printf '%s\n' "$opts"
