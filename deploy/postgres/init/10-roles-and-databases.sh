#!/bin/sh
# Runs once, when the postgresql container initialises an empty data volume
# (/docker-entrypoint-initdb.d; see docs/deploy.md). It is sourced by the image's entrypoint when it
# is not executable, so it sets no shell options and leaves by `exit 1` on a missing setting.
#
#   temporal  may create databases: the temporal-schema one-shot creates `temporal` and
#             `temporal_visibility` (owned by this role) and keeps their schema current.
#   payments  owns the `payments` database, the application's own data (knex migrations).

if [ -z "${TEMPORAL_DB_PASSWORD:-}" ] || [ -z "${PAYMENTS_DB_PASSWORD:-}" ]; then
  echo "10-roles-and-databases.sh: TEMPORAL_DB_PASSWORD and PAYMENTS_DB_PASSWORD must be set" >&2
  exit 1
fi

# psql variables (:'name') quote the passwords as SQL literals.
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname postgres \
  -v temporal_password="$TEMPORAL_DB_PASSWORD" \
  -v payments_password="$PAYMENTS_DB_PASSWORD" <<'SQL' || exit 1
CREATE ROLE temporal LOGIN CREATEDB PASSWORD :'temporal_password';
CREATE ROLE payments LOGIN PASSWORD :'payments_password';
CREATE DATABASE payments OWNER payments;
REVOKE ALL ON DATABASE payments FROM PUBLIC;
SQL
