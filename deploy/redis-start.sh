#!/bin/sh
# Starts redis-server with its password read from a secret file, for deploy/docker-compose.yml:
#
#     redis-start.sh [redis-server options...]
#
# The password goes into a config file only this user can read (not on the command line, where ps
# shows it, nor in the environment, where `docker inspect` shows it). REDIS_PASSWORD_FILE names the
# file (default: the compose secret /run/secrets/redis_password); its first line is the password, as
# `typhoon serve --redis-password-file` reads it.
set -eu
password_file=${REDIS_PASSWORD_FILE:-/run/secrets/redis_password}
password=$(head -n 1 "$password_file" 2>/dev/null || true)
if [ -z "$password" ]; then
    echo "redis-start.sh: no password in $password_file (see deploy/README.md, Secrets)" >&2
    exit 1
fi
umask 077
conf=$(mktemp)
# a quoted Redis config string: backslashes and double quotes escaped
printf 'requirepass "%s"\n' "$(printf '%s' "$password" | sed -e 's/\\/\\\\/g' -e 's/"/\\"/g')" > "$conf"
exec redis-server "$conf" "$@"
