#!/usr/bin/env bash
# Where the service's CPU goes, from a JFR recording made with
#   EXTRA_JAVA_OPTS='-XX:StartFlightRecording=filename=/tmp/x.jfr,settings=profile,dumponexit=true' bash deploy/bench/run.sh
# Prints sampled threads, the leaf frames by group (Netty, Vert.x, the SQL client, the JDK, the service's own code, ...:
# where two builds' profiles differ), the hottest leaf frames, the io.paycallback packages and frames (inclusive).
#   bash deploy/bench/jfr-top.sh /tmp/x.jfr [N]
set -euo pipefail
file=$1 n=${2:-25}
jfr print --events jdk.ExecutionSample --stack-depth 64 "$file" | awk -v n="$n" '
  function group_of(f) {
    if (f ~ /^io\.paycallback\./) return "service (io.paycallback)"
    if (f ~ /^io\.vertx\.(mysqlclient|sqlclient)\./) return "SQL client"
    if (f ~ /^io\.netty\./) return "Netty"
    if (f ~ /^io\.vertx\./) return "Vert.x"
    if (f ~ /^io\.smallrye\.mutiny\./) return "Mutiny"
    if (f ~ /^io\.smallrye\.context\.|^io\.opentelemetry\.|^io\.quarkus\.opentelemetry\./) return "context propagation, tracing"
    if (f ~ /^io\.quarkus\.arc\.|^io\.quarkus\.vertx\.core\.runtime\.context\./) return "ArC"
    if (f ~ /^io\.quarkus\./) return "Quarkus other"
    if (f ~ /^com\.fasterxml\.jackson\./) return "Jackson"
    if (f ~ /^io\.micrometer\./) return "Micrometer"
    if (f ~ /^org\.jboss\.(logmanager|logging)\./) return "logging"
    if (f ~ /^(sun\.security|com\.sun\.crypto|javax\.crypto|java\.security)\./) return "JDK crypto"
    if (f ~ /^(java|javax|jdk|sun|com\.sun)\./) return "JDK"
    return "other"
  }
  /jdk.ExecutionSample/ { samples++; first = 1; delete seen; next }
  /sampledThread = / { t = $0; sub(/.*sampledThread = "/, "", t); sub(/".*/, "", t); gsub(/[0-9]+/, "N", t); threads[t]++ }
  /^[ \t]+[A-Za-z_$][A-Za-z0-9_.$<>]*\(/ {
    f = $1; sub(/\(.*/, "", f)
    if (first) { leaf[f]++; group[group_of(f)]++; first = 0 }
    if (f ~ /^io\.paycallback\./ && !(f in seen)) { own[f]++; seen[f] = 1 }
    if (f ~ /^io\.paycallback\./) {
      pkg = f; sub(/^io\.paycallback\./, "", pkg); sub(/\..*/, "", pkg)
      if (!(("pkg " pkg) in seen)) { pkgs[pkg]++; seen["pkg " pkg] = 1 }
    }
  }
  END {
    printf "samples %d\n\n-- threads\n", samples
    for (t in threads) printf "%6d %5.1f%% %s\n", threads[t], 100 * threads[t] / samples, t | "sort -rn | head -8"
    close("sort -rn | head -8")
    printf "\n-- leaf frames by group\n"
    for (g in group) printf "%6d %5.1f%% %s\n", group[g], 100 * group[g] / samples, g | "sort -rn"
    close("sort -rn")
    printf "\n-- leaf frames\n"
    for (f in leaf) printf "%6d %5.1f%% %s\n", leaf[f], 100 * leaf[f] / samples, f | "sort -rn | head -" n
    close("sort -rn | head -" n)
    printf "\n-- io.paycallback packages, inclusive\n"
    for (p in pkgs) printf "%6d %5.1f%% %s\n", pkgs[p], 100 * pkgs[p] / samples, p | "sort -rn"
    close("sort -rn")
    printf "\n-- io.paycallback frames, inclusive\n"
    for (f in own) printf "%6d %5.1f%% %s\n", own[f], 100 * own[f] / samples, f | "sort -rn | head -" n
  }'
