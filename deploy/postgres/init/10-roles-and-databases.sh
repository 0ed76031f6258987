#!/bin/sh
# Runs once, when the postgresql container initialises an empty data volume
# (/docker-entrypoint-initdb.d; see docs/deploy.md). It is sourced by the image's entrypoint when it
# is not executable, so it sets no shell options and leaves by `exit 1` on a missing setting.
#
#   temporal         may create databases: the temporal-schema one-shot creates `temporal` and
#                    `temporal_visibility` (owned by this role) and keeps their schema current.
#   payments         owns the `payments` database and its tables: the migrate one-shot (knex migrations).
#   payments_api     what the api connects as; payments_worker, what the workers connect as. Both may
#                    only connect here: their table privileges are granted by the migrate one-shot after
#                    every migration run (src/platform/database/roles.ts), the one step that runs once the tables exist:
#                    rows of every table, never TRUNCATE, never own a table (so neither can disable the
#                    custody trail's append-only triggers), and for the api no write on the trail's
#                    tables nor on `payments` but its personal columns (docs/security.md, "Database roles").
#
# The role and database names can be changed for a test (test/compose.test.ts runs this script
# against a scratch server with names of its own); compose uses the defaults.

if [ -z "${TEMPORAL_DB_PASSWORD:-}" ] || [ -z "${PAYMENTS_DB_PASSWORD:-}" ] || [ -z "${PAYMENTS_API_DB_PASSWORD:-}" ] || [ -z "${PAYMENTS_WORKER_DB_PASSWORD:-}" ]; then
  echo "10-roles-and-databases.sh: TEMPORAL_DB_PASSWORD, PAYMENTS_DB_PASSWORD, PAYMENTS_API_DB_PASSWORD and PAYMENTS_WORKER_DB_PASSWORD must be set" >&2
  exit 1
fi

# psql variables (:'name', :"name") quote the passwords as SQL literals and the names as identifiers.
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname postgres \
  -v temporal_role="${TEMPORAL_ROLE:-temporal}" \
  -v payments_role="${PAYMENTS_ROLE:-payments}" \
  -v api_role="${PAYMENTS_API_ROLE:-payments_api}" \
  -v worker_role="${PAYMENTS_WORKER_ROLE:-payments_worker}" \
  -v payments_db="${PAYMENTS_DB:-payments}" \
  -v temporal_password="$TEMPORAL_DB_PASSWORD" \
  -v payments_password="$PAYMENTS_DB_PASSWORD" \
  -v api_password="$PAYMENTS_API_DB_PASSWORD" \
  -v worker_password="$PAYMENTS_WORKER_DB_PASSWORD" <<'SQL' || exit 1
CREATE ROLE :"temporal_role" LOGIN CREATEDB PASSWORD :'temporal_password';
CREATE ROLE :"payments_role" LOGIN PASSWORD :'payments_password';
CREATE ROLE :"api_role" LOGIN PASSWORD :'api_password';
CREATE ROLE :"worker_role" LOGIN PASSWORD :'worker_password';
CREATE DATABASE :"payments_db" OWNER :"payments_role";
REVOKE ALL ON DATABASE :"payments_db" FROM PUBLIC;
GRANT CONNECT ON DATABASE :"payments_db" TO :"api_role", :"worker_role";
SQL
