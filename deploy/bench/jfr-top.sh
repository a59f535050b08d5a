#!/usr/bin/env bash
# Where the service's CPU goes, from a JFR recording made with
#   EXTRA_JAVA_OPTS='-XX:StartFlightRecording=filename=/tmp/x.jfr,settings=profile,dumponexit=true' bash deploy/bench/run.sh
# Prints sampled threads, the hottest leaf frames, and the hottest io.paycallback frames (inclusive).
#   bash deploy/bench/jfr-top.sh /tmp/x.jfr [N]
set -euo pipefail
file=$1 n=${2:-25}
jfr print --events jdk.ExecutionSample --stack-depth 64 "$file" | awk -v n="$n" '
  /jdk.ExecutionSample/ { samples++; first = 1; delete seen; next }
  /sampledThread = / { t = $0; sub(/.*sampledThread = "/, "", t); sub(/".*/, "", t); gsub(/[0-9]+/, "N", t); threads[t]++ }
  /^[ \t]+[A-Za-z_$][A-Za-z0-9_.$<>]*\(/ {
    f = $1; sub(/\(.*/, "", f)
    if (first) { leaf[f]++; first = 0 }
    if (f ~ /^io\.paycallback\./ && !(f in seen)) { own[f]++; seen[f] = 1 }
  }
  END {
    printf "samples %d\n\n-- threads\n", samples
    for (t in threads) printf "%6d %5.1f%% %s\n", threads[t], 100 * threads[t] / samples, t | "sort -rn | head -8"
    close("sort -rn | head -8")
    printf "\n-- leaf frames\n"
    for (f in leaf) printf "%6d %5.1f%% %s\n", leaf[f], 100 * leaf[f] / samples, f | "sort -rn | head -" n
    close("sort -rn | head -" n)
    printf "\n-- io.paycallback frames, inclusive\n"
    for (f in own) printf "%6d %5.1f%% %s\n", own[f], 100 * own[f] / samples, f | "sort -rn | head -" n
  }'
