#!/usr/bin/env bash
# A throwaway PostgreSQL server for the tests, from Debian's postgresql
# package (scripts/setup.sh installs it): its own data directory, listening on
# 127.0.0.1 only, with password login for TCP clients.
#
#   tests/postgres_server.sh start STATE   prints the server's URI,
#                                          postgresql://cqlite:PASSWORD@127.0.0.1:PORT/cqlite
#   tests/postgres_server.sh stop STATE    stops it and removes its data
#
# STATE is a file the script writes (where the data directory is); start
# exits 2, printing why, when PostgreSQL is not installed. The server runs as
# the `postgres` user when the caller is root (PostgreSQL refuses to run as
# root), and keeps its data under /tmp, where that user can reach it.
set -euo pipefail

user=cqlite
password=cqlite-test-password

bin_dir() {
  local found
  found=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
  if [ -z "$found" ] || [ ! -x "$found/initdb" ] || [ ! -x "$found/pg_ctl" ]; then
    echo "PostgreSQL server is not installed (Debian package postgresql; scripts/setup.sh installs it)" >&2
    exit 2
  fi
  echo "$found"
}

as_server_user() {
  if [ "$(id -u)" -eq 0 ]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

start() {
  local state=$1 bin data port
  bin=$(bin_dir)
  data=$(mktemp -d /tmp/cqlite-postgres.XXXXXX)
  echo "$data" >"$state"
  [ "$(id -u)" -eq 0 ] && chown postgres: "$data"
  echo "$password" >"$data/pwfile"
  [ "$(id -u)" -eq 0 ] && chown postgres: "$data/pwfile"
  as_server_user "$bin/initdb" -D "$data/db" -U "$user" --pwfile="$data/pwfile" --auth-local=trust \
    --auth-host=scram-sha-256 -E UTF8 --locale=C.UTF-8 -N >"$data/initdb.log" 2>&1 ||
    { cat "$data/initdb.log" >&2; exit 1; }
  for _ in 1 2 3 4 5 6 7 8; do
    port=$((20000 + RANDOM % 30000))
    if as_server_user "$bin/pg_ctl" -D "$data/db" -l "$data/server.log" -w -t 60 \
        -o "-c listen_addresses=127.0.0.1 -p $port -k $data -c fsync=off -c synchronous_commit=off" \
        start >/dev/null 2>&1; then
      as_server_user "$bin/createdb" -h "$data" -p "$port" -U "$user" "$user"
      echo "$port" >"$data/port"
      echo "postgresql://$user:$password@127.0.0.1:$port/$user"
      return 0
    fi
    grep -q "could not bind\|already in use" "$data/server.log" 2>/dev/null || break
  done
  cat "$data/server.log" >&2 2>/dev/null || true
  exit 1
}

stop() {
  local state=$1 bin data
  [ -f "$state" ] || return 0
  data=$(cat "$state")
  bin=$(bin_dir)
  if [ -d "$data/db" ]; then
    as_server_user "$bin/pg_ctl" -D "$data/db" -m immediate -w stop >/dev/null 2>&1 || true
  fi
  rm -rf "$data" "$state"
}

case "${1:-}" in
  start) start "$2" ;;
  stop) stop "$2" ;;
  *) echo "usage: $0 start|stop STATE" >&2; exit 2 ;;
esac
