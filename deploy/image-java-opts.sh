#!/usr/bin/env bash
# Prints the JVM options the image runs with (ENV JAVA_OPTS of deploy/Dockerfile.jvm) without its -XX:AOTCache: every
# caller (.ci/run, the bench's run.sh, startup.sh, interleaved.sh) maps a cache of its own or none. Prints nothing
# when the Dockerfile has no such line.
set -eu
sed -n 's/^ENV JAVA_OPTS="\(.*\)"$/\1/p' "$(dirname "${BASH_SOURCE[0]}")/Dockerfile.jvm" | head -1 |
  sed -E 's/-XX:AOTCache=[^ ]*//'
