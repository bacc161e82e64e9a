#!/usr/bin/env bash
# The official postgres image's entry point, for the variables it documents (a condensed copy).
set -Eeo pipefail

if [ "${1:0:1}" = '-' ]; then
  set -- postgres "$@"
fi

if [ "$1" = 'postgres' ] && [ "$(id -u)" = '0' ]; then
  mkdir -p "$PGDATA" /var/run/postgresql
  chown postgres:postgres "$PGDATA" /var/run/postgresql
  chmod 00700 "$PGDATA"
  chmod 03775 /var/run/postgresql
  exec setpriv --reuid=postgres --regid=postgres --init-groups "${BASH_SOURCE[0]}" "$@"
fi

if [ "$1" = 'postgres' ] && [ ! -s "$PGDATA/PG_VERSION" ]; then
  if [ -z "${POSTGRES_PASSWORD:-}" ] && [ "${POSTGRES_HOST_AUTH_METHOD:-}" != 'trust' ]; then
    echo 'Error: Database is uninitialized and superuser password is not specified.' >&2
    echo '       You must specify POSTGRES_PASSWORD to a non-empty value for the superuser.' >&2
    exit 1
  fi
  user="${POSTGRES_USER:-postgres}"
  db="${POSTGRES_DB:-$user}"
  # shellcheck disable=SC2086
  initdb --username="$user" --pwfile=<(printf '%s\n' "${POSTGRES_PASSWORD:-}") ${POSTGRES_INITDB_ARGS:-}
  printf '\nhost all all all %s\n' "${POSTGRES_HOST_AUTH_METHOD:-scram-sha-256}" >> "$PGDATA/pg_hba.conf"
  pg_ctl -D "$PGDATA" -o "-c listen_addresses='' -p 5432" -w start
  export PGUSER="$user" PGPASSWORD="${POSTGRES_PASSWORD:-}"
  if [ "$db" != 'postgres' ]; then
    psql -v ON_ERROR_STOP=1 --no-password --dbname postgres --set db="$db" \
      <<< 'CREATE DATABASE :"db";'
  fi
  for f in /docker-entrypoint-initdb.d/*; do
    case "$f" in
      *.sh) echo "running $f"; if [ -x "$f" ]; then "$f"; else . "$f"; fi ;;
      *.sql) echo "running $f"; psql -v ON_ERROR_STOP=1 --no-password --dbname "$db" -f "$f" ;;
      *.sql.gz) echo "running $f"; gunzip -c "$f" | psql -v ON_ERROR_STOP=1 --no-password --dbname "$db" ;;
      *) [ -e "$f" ] && echo "ignoring $f" ;;
    esac
  done
  unset PGPASSWORD
  pg_ctl -D "$PGDATA" -m fast -w stop
  echo 'PostgreSQL init process complete; ready for start up.'
fi

exec "$@"
