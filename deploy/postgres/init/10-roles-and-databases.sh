#!/bin/sh
# Runs once, when the postgresql container initialises an empty data volume
# (/docker-entrypoint-initdb.d; see docs/deploy.md). It is sourced by the image's entrypoint when it
# is not executable, so it sets no shell options and leaves by `exit 1` on a missing setting.
#
#   temporal      may create databases: the temporal-schema one-shot creates `temporal` and
#                 `temporal_visibility` (owned by this role) and keeps their schema current.
#   payments      owns the `payments` database and its tables: the migrate one-shot (knex migrations).
#   payments_app  what the api and workers connect as: read and write rows of the tables `payments`
#                 creates, never TRUNCATE, never own a table (so it cannot disable the custody
#                 trail's append-only triggers; docs/audit.md).
#
# The role and database names can be changed for a test (test/compose.test.ts runs this script
# against a scratch server with names of its own); compose uses the defaults.

if [ -z "${TEMPORAL_DB_PASSWORD:-}" ] || [ -z "${PAYMENTS_DB_PASSWORD:-}" ] || [ -z "${PAYMENTS_APP_DB_PASSWORD:-}" ]; then
  echo "10-roles-and-databases.sh: TEMPORAL_DB_PASSWORD, PAYMENTS_DB_PASSWORD and PAYMENTS_APP_DB_PASSWORD must be set" >&2
  exit 1
fi

# psql variables (:'name', :"name") quote the passwords as SQL literals and the names as identifiers.
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname postgres \
  -v temporal_role="${TEMPORAL_ROLE:-temporal}" \
  -v payments_role="${PAYMENTS_ROLE:-payments}" \
  -v app_role="${PAYMENTS_APP_ROLE:-payments_app}" \
  -v payments_db="${PAYMENTS_DB:-payments}" \
  -v temporal_password="$TEMPORAL_DB_PASSWORD" \
  -v payments_password="$PAYMENTS_DB_PASSWORD" \
  -v app_password="$PAYMENTS_APP_DB_PASSWORD" <<'SQL' || exit 1
CREATE ROLE :"temporal_role" LOGIN CREATEDB PASSWORD :'temporal_password';
CREATE ROLE :"payments_role" LOGIN PASSWORD :'payments_password';
CREATE ROLE :"app_role" LOGIN PASSWORD :'app_password';
CREATE DATABASE :"payments_db" OWNER :"payments_role";
REVOKE ALL ON DATABASE :"payments_db" FROM PUBLIC;
GRANT CONNECT ON DATABASE :"payments_db" TO :"app_role";
\connect :"payments_db"
GRANT USAGE ON SCHEMA public TO :"app_role";
-- Every table and sequence the owner's migrations create: rows only. No TRUNCATE, REFERENCES or TRIGGER.
ALTER DEFAULT PRIVILEGES FOR ROLE :"payments_role" IN SCHEMA public GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO :"app_role";
ALTER DEFAULT PRIVILEGES FOR ROLE :"payments_role" IN SCHEMA public GRANT USAGE, SELECT, UPDATE ON SEQUENCES TO :"app_role";
SQL
