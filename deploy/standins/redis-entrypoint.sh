#!/bin/sh
# The official redis image's entry point, with setpriv for gosu and protected mode turned off.
set -e
if [ "${1#-}" != "$1" ] || [ "${1%.conf}" != "$1" ]; then
  set -- redis-server "$@"
fi
if [ "$1" = 'redis-server' ] && [ "$(id -u)" = '0' ]; then
  find . \! -user redis -exec chown redis '{}' +
  exec setpriv --reuid=redis --regid=redis --init-groups "$0" "$@"
fi
um="$(umask)"
if [ "$um" = '0022' ]; then
  umask 0077
fi
if [ "$1" = 'redis-server' ]; then
  shift
  if [ "${1%.conf}" != "${1:-}" ]; then
    config="$1"
    shift
    set -- redis-server "$config" --protected-mode no "$@"
  else
    set -- redis-server --protected-mode no "$@"
  fi
fi
exec "$@"
