#!/usr/bin/env bash
# A three-node MariaDB Galera cluster and an HAProxy in front of it, all on 127.0.0.1, from the machine's packages
# (mariadb-server, galera-4, rsync, haproxy). The Galera tier (-Pgalera, io.paycallback.galera.GaleraIT) drives it;
# a developer can too:
#   deploy/galera/cluster.sh up           fresh cluster: node 1 bootstraps, 2 and 3 join by SST, HAProxy on :3510
#   deploy/galera/cluster.sh kill N       kill -9 of node N
#   deploy/galera/cluster.sh rejoin N     --wsrep-recover, then start at the recovered position: IST from a donor
#   deploy/galera/cluster.sh pause N|resume N   SIGSTOP / SIGCONT: a hung node, not a dead one
#   deploy/galera/cluster.sh recover      after the whole cluster died: bootstrap the most advanced node, the rest rejoin
#   deploy/galera/cluster.sh state N      wsrep_local_state of node N (4 = Synced), or "down"
#   deploy/galera/cluster.sh desync N ON|OFF    wsrep_desync, as a backup tool sets it: the node leaves Synced
#   deploy/galera/cluster.sh down         stop everything
# Ports: node N takes SQL 351N, gcomm 457N, IST 458N, SST 459N; HAProxy 3510. Data, logs and configs live under
# GALERA_DIR (default target/galera). Users: root by socket; paycallback / GALERA_PASSWORD (default paycallback-galera)
# on the database paycallback; haproxy_check (no password, no privileges) for HAProxy's check.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
DIR=$(mkdir -p "${GALERA_DIR:-target/galera}" && cd "${GALERA_DIR:-target/galera}" && pwd)
PASSWORD=${GALERA_PASSWORD:-paycallback-galera}
NODES=(1 2 3)
PROXY_PORT=3510
MARIADBD=/usr/sbin/mariadbd
PROVIDER=$( (dpkg -L galera-4 2>/dev/null || true) | grep -m1 '/libgalera_smm\.so$' || echo /usr/lib/galera/libgalera_smm.so)

log() { echo "galera: $*" >&2; }

# Everything the cluster needs, installed when missing, as .ci/run does for its own tools.
ensure_packages() {
  local missing=()
  test -x "$MARIADBD" || missing+=(mariadb-server mariadb-client)
  test -f "$PROVIDER" || missing+=(galera-4)
  command -v rsync >/dev/null || missing+=(rsync)
  command -v haproxy >/dev/null || missing+=(haproxy)
  if ((${#missing[@]})); then
    log "installing ${missing[*]}"
    apt-get update -qq && apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    PROVIDER=$(dpkg -L galera-4 | grep -m1 '/libgalera_smm\.so$')
  fi
}

node_dir() { echo "$DIR/node$1"; }
sql_port() { echo "351$1"; }

# rsync SST run as root fails (code 23) on files it cannot chown back; as user mysql on chowned datadirs it works.
as_root() { [[ $(id -u) == 0 ]]; }

write_config() {
  local n=$1 d
  d=$(node_dir "$n")
  mkdir -p "$d/data"
  cat >"$d/my.cnf" <<CNF
[mysqld]
$(as_root && echo "user=mysql")
datadir=$d/data
port=$(sql_port "$n")
bind-address=127.0.0.1
socket=$d/mysqld.sock
pid-file=$d/mysqld.pid
log-error=$d/error.log
skip-name-resolve
max_connections=300
innodb_buffer_pool_size=48M
innodb_log_file_size=32M
# A process killed with -9 loses nothing: each commit's log write has reached the OS. Only an OS crash of every node
# at once could; the usual Galera trade, where durability comes from the other nodes.
innodb_flush_log_at_trx_commit=2
binlog_format=ROW
default_storage_engine=InnoDB
innodb_autoinc_lock_mode=2
wsrep_on=ON
wsrep_provider=$PROVIDER
wsrep_cluster_name=paycallback
wsrep_cluster_address=gcomm://127.0.0.1:4571,127.0.0.1:4572,127.0.0.1:4573
wsrep_node_name=node$n
wsrep_node_address=127.0.0.1
wsrep_provider_options="gmcast.listen_addr=tcp://127.0.0.1:457$n;ist.recv_addr=127.0.0.1:458$n;gcache.size=64M;evs.keepalive_period=PT0.5S;evs.suspect_timeout=PT1.5S;evs.inactive_timeout=PT3S"
wsrep_sst_method=rsync
wsrep_sst_receive_address=127.0.0.1:459$n
wsrep_slave_threads=2
# The default (1) has the server run an autocommit statement again once after a certification failure, which hides
# most reservation races from the client. 0 hands every one to the service, which must run it again itself: the
# stricter test, and what a cluster under more than two writers shows anyway.
wsrep_retry_autocommit=0
CNF
  if as_root; then chown -R mysql:mysql "$d"; fi
}

client() { mariadb --protocol=socket --socket="$(node_dir "$1")/mysqld.sock" -uroot -N -s "${@:2}"; }
# A hung node accepts the socket connection and never answers: every question to a node has a deadline.
ask() { timeout 3 mariadb --protocol=socket --socket="$(node_dir "$1")/mysqld.sock" -uroot -N -s "${@:2}"; }

pid_of() {
  local f
  f="$(node_dir "$1")/mysqld.pid"
  [[ -s $f ]] && kill -0 "$(cat "$f")" 2>/dev/null && cat "$f"
}

state() {
  if [[ -z $(pid_of "$1" || true) ]]; then echo down; return; fi
  ask "$1" -e "SHOW STATUS LIKE 'wsrep_local_state'" 2>/dev/null | awk '{print $2}' || echo unreachable
}

await_synced() {
  local n=$1 limit=${2:-120}
  for _ in $(seq 1 $((limit * 5))); do
    [[ $(state "$n") == 4 ]] && return 0
    if [[ -z $(pid_of "$n" || true) ]] && [[ -f $(node_dir "$n")/started ]] && ! kill -0 "$(cat "$(node_dir "$n")/started")" 2>/dev/null; then
      tail -30 "$(node_dir "$n")/error.log" >&2; log "node $n exited"; return 1
    fi
    sleep 0.2
  done
  tail -30 "$(node_dir "$n")/error.log" >&2
  log "node $n not Synced within ${limit}s"
  return 1
}

start_node() {
  local n=$1 d
  d=$(node_dir "$n")
  setsid "$MARIADBD" --defaults-file="$d/my.cnf" "${@:2}" >>"$d/stdout.log" 2>&1 </dev/null &
  echo $! >"$d/started"
}

# The position InnoDB recovered to after a crash; mariadbd run with --wsrep-recover prints it and exits.
recovered_position() {
  local n=$1 d
  d=$(node_dir "$n")
  rm -f "$d/recover.log"
  "$MARIADBD" --defaults-file="$d/my.cnf" --wsrep-recover --log-error="$d/recover.log" >/dev/null 2>&1 || true
  sed -n 's/.*WSREP: Recovered position: *\([^ ]*\).*/\1/p' "$d/recover.log" | tail -1
}

rejoin() {
  local n=$1 position
  position=$(recovered_position "$n")
  log "node $n rejoins at ${position:-?}"
  if [[ -n $position ]]; then start_node "$n" --wsrep-start-position="$position"; else start_node "$n"; fi
  await_synced "$n"
}

up() {
  ensure_packages
  down
  rm -rf "$DIR"/node* "$DIR/haproxy"*
  for n in "${NODES[@]}"; do write_config "$n"; done
  local d1
  d1=$(node_dir 1)
  mariadb-install-db --defaults-file="$d1/my.cnf" --auth-root-authentication-method=normal --skip-test-db \
    >"$d1/install.log" 2>&1 || { cat "$d1/install.log" >&2; exit 1; }
  start_node 1 --wsrep-new-cluster
  await_synced 1
  client 1 <<SQL
CREATE DATABASE paycallback CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
CREATE USER 'paycallback'@'127.0.0.1' IDENTIFIED BY '${PASSWORD}';
GRANT ALL ON paycallback.* TO 'paycallback'@'127.0.0.1';
CREATE USER 'haproxy_check'@'127.0.0.1';
SQL
  # One joiner at a time: two SSTs from one donor at once only slow both on two cores.
  for n in 2 3; do start_node "$n"; await_synced "$n"; done
  haproxy_up
  log "up: nodes on 3511-3513, HAProxy on ${PROXY_PORT}"
}

# HAProxy sends to node 2, to node 3 when node 2 is not Synced, to node 1 last. Its TCP and mysql checks would call a
# donor or joining node healthy; the external check asks each node for wsrep_local_state = 4.
haproxy_up() {
  cat >"$DIR/haproxy.cfg" <<CFG
global
  external-check
  insecure-fork-wanted
  maxconn 1000
  log stdout format raw local0
defaults
  mode tcp
  log global
  option log-health-checks
  timeout connect 2s
  timeout client 1h
  timeout server 1h
  timeout check 5s
listen galera
  bind 127.0.0.1:${PROXY_PORT}
  option external-check
  external-check path "/usr/bin:/bin"
  external-check command $HERE/check-synced.sh
  # Two failed checks a second apart mark a node down: fast enough for a failover, slow enough that one check slowed
  # by a busy machine does not take a healthy node out.
  default-server inter 1s fall 2 rise 2 on-marked-down shutdown-sessions
  server node2 127.0.0.1:3512 check
  server node3 127.0.0.1:3513 check backup
  server node1 127.0.0.1:3511 check backup
CFG
  # In the foreground of a session of its own, so its health-check log lines reach haproxy.log.
  setsid haproxy -f "$DIR/haproxy.cfg" -db >"$DIR/haproxy.log" 2>&1 </dev/null &
  echo $! >"$DIR/haproxy.pid"
  # Up once a query through it reaches a node.
  for _ in $(seq 1 300); do
    timeout 5 mariadb -h 127.0.0.1 -P "$PROXY_PORT" -u haproxy_check -N -s -e "SELECT 1" >/dev/null 2>&1 && return 0
    kill -0 "$(cat "$DIR/haproxy.pid")" 2>/dev/null || { cat "$DIR/haproxy.log" >&2; exit 1; }
    sleep 0.1
  done
  log "HAProxy routes to no node"; exit 1
}

recover() {
  local best="" best_seqno=-2 n position seqno
  for n in "${NODES[@]}"; do
    rm -f "$(node_dir "$n")/gvwstate.dat" "$(node_dir "$n")/data/gvwstate.dat"
    position=$(recovered_position "$n")
    seqno=${position##*:}
    log "node $n recovered ${position:-nothing}"
    if [[ -n $position ]] && ((seqno > best_seqno)); then best=$n; best_seqno=$seqno; fi
  done
  [[ -n $best ]] || { log "no node recovered a position"; exit 1; }
  log "node $best is the most advanced (seqno $best_seqno): it bootstraps"
  sed -i 's/^safe_to_bootstrap:.*/safe_to_bootstrap: 1/' "$(node_dir "$best")/data/grastate.dat"
  start_node "$best" --wsrep-new-cluster --wsrep-start-position="$(recovered_position "$best")"
  await_synced "$best"
  # Both others at once: each asks the bootstrapped node for IST only, which a donor serves to several joiners.
  local joining=()
  for n in "${NODES[@]}"; do
    if [[ $n != "$best" ]]; then rejoin "$n" & joining+=($!); fi
  done
  for pid in "${joining[@]}"; do wait "$pid"; done
}

kill_node() {
  local pid
  pid=$(pid_of "$1" || true)
  [[ -n $pid ]] || { log "node $1 is not running"; return 0; }
  kill -9 "$pid"
  while kill -0 "$pid" 2>/dev/null; do sleep 0.05; done
}

down() {
  local n pid
  if [[ -s $DIR/haproxy.pid ]]; then kill "$(cat "$DIR/haproxy.pid")" 2>/dev/null || true; rm -f "$DIR/haproxy.pid"; fi
  for n in "${NODES[@]}"; do
    pid=$(pid_of "$n" || true)
    if [[ -n $pid ]]; then
      kill -CONT "$pid" 2>/dev/null || true
      kill "$pid"
      for _ in $(seq 1 150); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
      kill -9 "$pid" 2>/dev/null || true
    fi
  done
}

case ${1:-} in
  up) up ;;
  down) down ;;
  kill) kill_node "$2" ;;
  rejoin) rejoin "$2" ;;
  pause) kill -STOP "$(pid_of "$2")" ;;
  resume) kill -CONT "$(pid_of "$2")" ;;
  recover) recover ;;
  state) state "$2" ;;
  desync) client "$2" -e "SET GLOBAL wsrep_desync = $3" ;;
  await) await_synced "$2" "${3:-120}" ;;
  *) echo "usage: $0 up|down|kill N|rejoin N|pause N|resume N|recover|state N|desync N ON|OFF|await N [seconds]" >&2; exit 2 ;;
esac
