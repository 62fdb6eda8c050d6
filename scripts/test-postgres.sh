#!/usr/bin/env bash
# A throwaway PostgreSQL server for the PostgreSQL test suites: its data lives in a temp folder, it listens on a free
# loopback port only, and a generated password guards it.
#
#   eval "$(scripts/test-postgres.sh start)"   # prints `export HAL_TEST_DATABASE_URL=…` and `export HAL_TEST_PG_DIR=…`
#   scripts/test-postgres.sh stop "$HAL_TEST_PG_DIR"
#
# Needs Debian's `postgresql` package (`apt-get install -y postgresql`); it does not touch the packaged cluster.
# As root the server runs as the `postgres` user (PostgreSQL refuses to run as root).
set -euo pipefail

bin_dir() {
  local dir
  dir="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)"
  if [ -z "$dir" ] || [ ! -x "$dir/initdb" ]; then
    echo "test-postgres: PostgreSQL is not installed (apt-get install -y postgresql)" >&2
    exit 1
  fi
  echo "$dir"
}

as_owner() {
  if [ "$(id -u)" = "0" ]; then su postgres -s /bin/sh -c "$1"; else sh -c "$1"; fi
}

start() {
  local bin dir port password
  bin="$(bin_dir)"
  dir="$(mktemp -d /tmp/hal-test-pg.XXXXXX)"
  password="$(node -e 'process.stdout.write(require("node:crypto").randomBytes(18).toString("hex"))')"
  port="$(node -e 'const s=require("node:net").createServer();s.listen(0,"127.0.0.1",()=>{process.stdout.write(String(s.address().port));s.close()})')"
  printf '%s\n' "$password" >"$dir/password"
  [ "$(id -u)" = "0" ] && chown -R postgres "$dir"
  chmod 700 "$dir"
  as_owner "'$bin/initdb' -D '$dir/data' -U hal --pwfile='$dir/password' --auth-local=scram-sha-256 --auth-host=scram-sha-256 -E UTF8 >'$dir/initdb.log' 2>&1"
  rm -f "$dir/password"
  # fsync off: a test server whose data is thrown away needs no durability, and the machine is shared.
  as_owner "'$bin/pg_ctl' -D '$dir/data' -l '$dir/server.log' -w -o \"-p $port -k '$dir' -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200\" start >/dev/null"
  echo "export HAL_TEST_PG_DIR='$dir'"
  echo "export HAL_TEST_DATABASE_URL='postgres://hal:$password@127.0.0.1:$port/postgres'"
}

stop() {
  local bin dir="${1:?usage: test-postgres.sh stop <dir>}"
  bin="$(bin_dir)"
  case "$dir" in /tmp/hal-test-pg.*) ;; *) echo "test-postgres: not a test server folder: $dir" >&2; exit 1 ;; esac
  as_owner "'$bin/pg_ctl' -D '$dir/data' -m fast -w stop >/dev/null" || true
  rm -rf "$dir"
}

case "${1:-}" in
  start) start ;;
  stop) stop "${2:-}" ;;
  *) echo "usage: test-postgres.sh start | stop <dir>" >&2; exit 2 ;;
esac
