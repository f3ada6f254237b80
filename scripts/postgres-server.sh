#!/usr/bin/env bash
# A PostgreSQL server of its own, for the tests and benchmarks: Debian's binaries, a data
# directory under DIR, the Unix socket in DIR, no TCP unless LISTEN is given.
#
#   scripts/postgres-server.sh start DIR [PORT] [LISTEN]   initdb (once) and start; prints the address
#   scripts/postgres-server.sh createdb DIR NAME [PORT]    a new, empty database
#   scripts/postgres-server.sh restart DIR                  stop (-m fast: every session ends) and start again
#   scripts/postgres-server.sh stop DIR                     stop at once (-m immediate)
#
# For a server reached over TCP, TRUST_NETWORK (a CIDR such as 10.231.0.0/16) lets that
# network in without a password, and POSTGRES_OPTIONS adds server settings
# ("-c tcp_keepalives_idle=1 …"). POSTGRES_MAX_CONNECTIONS sets max_connections (200).
#
# PostgreSQL refuses to run as root: as root, the server runs as the `postgres` user that
# Debian's package creates.
set -euo pipefail

command=${1:?start, createdb or stop}
dir=${2:?the directory of the server}

bindir=""
for candidate in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
  if [ -x "$candidate/initdb" ]; then bindir=$candidate; break; fi
done
if [ -z "$bindir" ]; then
  echo "PostgreSQL's server is not installed: apt-get install postgresql (make prerequisites does)" >&2
  exit 3
fi

as_owner() {
  if [ "$(id -u)" = 0 ]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

case "$command" in
  start)
    port=${3:-5432}
    listen=${4:-}
    mkdir -p "$dir"
    if [ "$(id -u)" = 0 ]; then chown postgres: "$dir"; fi
    if [ ! -f "$dir/data/PG_VERSION" ]; then
      as_owner "$bindir/initdb" -D "$dir/data" --auth=trust -U postgres -E UTF8 --no-sync >"$dir/initdb.log" 2>&1 || {
        cat "$dir/initdb.log" >&2
        exit 1
      }
    fi
    if [ -n "${TRUST_NETWORK:-}" ] && ! grep -q "$TRUST_NETWORK" "$dir/data/pg_hba.conf"; then
      echo "host all all $TRUST_NETWORK trust" >>"$dir/data/pg_hba.conf"
    fi
    as_owner "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
      -o "-k $dir -p $port -c listen_addresses='$listen' -c max_connections=${POSTGRES_MAX_CONNECTIONS:-200} -c fsync=on ${POSTGRES_OPTIONS:-}" start >/dev/null || {
      cat "$dir/server.log" >&2
      exit 1
    }
    echo "postgresql://postgres@/postgres?host=$dir&port=$port"
    ;;
  createdb)
    name=${3:?a database name}
    port=${4:-5432}
    as_owner "$bindir/createdb" -h "$dir" -p "$port" -U postgres "$name"
    ;;
  restart)
    as_owner "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -m fast -w -t 60 restart >/dev/null || {
      cat "$dir/server.log" >&2
      exit 1
    }
    ;;
  stop)
    if [ -f "$dir/data/postmaster.pid" ]; then
      as_owner "$bindir/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
    fi
    ;;
  *)
    echo "unknown command $command: start, createdb, restart or stop" >&2
    exit 2
    ;;
esac
