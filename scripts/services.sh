#!/usr/bin/env bash
# Starts (or stops) a throwaway PostgreSQL 15 and Redis on loopback for the test suite and benchmarks.
#   scripts/services.sh start   → prints the DATABASE_URL and REDIS_URL lines to export
#   scripts/services.sh stop
# Everything lives under $SERVICES_DIR (default .ci/tmp); installs PostgreSQL/Redis from Debian when missing.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
dir=${SERVICES_DIR:-$root/.ci/tmp}
pg_port=${PG_PORT:-54329}
redis_port=${REDIS_PORT:-63790}

apt_install() {
  if [ "$(id -u)" -ne 0 ]; then echo "need root to apt-get install $*" >&2; exit 1; fi
  apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

pg_bin() {
  for candidate in /usr/lib/postgresql/15/bin /usr/lib/postgresql/*/bin; do
    [ -x "$candidate/pg_ctl" ] && { echo "$candidate"; return; }
  done
}

# initdb refuses to run as root: run PostgreSQL as the postgres user when we are root.
as_pg() { if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }

start() {
  mkdir -p "$dir"
  local bin; bin=$(pg_bin)
  if [ -z "$bin" ]; then apt_install postgresql; bin=$(pg_bin); fi
  command -v redis-server >/dev/null || apt_install redis-server

  if [ "$(id -u)" -eq 0 ]; then chown postgres "$dir"; fi
  if [ ! -f "$dir/pg/PG_VERSION" ]; then
    as_pg "$bin/initdb" -D "$dir/pg" -A trust -U postgres --no-sync >/dev/null
  fi
  # PG_STAT_STATEMENTS=1 (npm run bench) loads pg_stat_statements, for PostgreSQL's execution time per request.
  local stats=''
  if [ "${PG_STAT_STATEMENTS:-}" = 1 ]; then stats='-c shared_preload_libraries=pg_stat_statements'; fi
  as_pg "$bin/pg_ctl" -D "$dir/pg" -l "$dir/pg.log" -w -t 60 \
    -o "-p $pg_port -k $dir -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200 $stats" start >/dev/null
  redis-server --port "$redis_port" --bind 127.0.0.1 --daemonize yes --save '' --appendonly no \
    --pidfile "$dir/redis.pid" --logfile "$dir/redis.log"
  for _ in $(seq 1 50); do redis-cli -p "$redis_port" ping >/dev/null 2>&1 && break; sleep 0.1; done
  echo "DATABASE_URL=postgres://postgres@127.0.0.1:$pg_port/postgres"
  echo "REDIS_URL=redis://127.0.0.1:$redis_port"
}

stop() {
  local bin; bin=$(pg_bin)
  if [ -n "$bin" ] && [ -f "$dir/pg/postmaster.pid" ]; then as_pg "$bin/pg_ctl" -D "$dir/pg" -m fast -w stop >/dev/null || true; fi
  if [ -f "$dir/redis.pid" ]; then kill "$(cat "$dir/redis.pid")" 2>/dev/null || true; rm -f "$dir/redis.pid"; fi
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  *) echo "usage: $0 start|stop" >&2; exit 2 ;;
esac
