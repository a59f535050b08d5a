#!/bin/sh
# HAProxy's external check (arguments: proxy address, proxy port, server address, server port): healthy only when the
# node says wsrep_local_state = 4 (Synced). A donor, a joiner, a desynced or a hung node fails it.
state=$(timeout 3 mariadb --connect-timeout=2 -h "$3" -P "$4" -u haproxy_check -N -s \
  -e "SHOW STATUS LIKE 'wsrep_local_state'" 2>/dev/null | awk '{print $2}')
[ "$state" = 4 ]
