#!/usr/bin/env bash
# An empty database of a bench's own on the machine's MariaDB (root over the unix socket), and its user with a
# password (the service's reactive client cannot use the socket), reachable on 127.0.0.1 only.
#
#   bash deploy/bench/own-database.sh DATABASE USER PASSWORD
set -euo pipefail
(($# == 3)) || { echo "usage: $0 DATABASE USER PASSWORD" >&2; exit 2; }
mariadb -uroot <<SQL
DROP DATABASE IF EXISTS \`$1\`;
CREATE DATABASE \`$1\` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
CREATE USER IF NOT EXISTS '$2'@'127.0.0.1' IDENTIFIED BY '$3';
ALTER USER '$2'@'127.0.0.1' IDENTIFIED BY '$3';
GRANT ALL ON \`$1\`.* TO '$2'@'127.0.0.1';
SQL
