#!/bin/sh
# One-shot (temporalio/admin-tools): create Temporal's two PostgreSQL databases and bring their schema
# to the version this admin-tools image ships. Safe to run on every `docker compose up`:
#   create                ignores a database that already exists;
#   setup-schema -v 0.0   keeps the recorded version when it is newer than 0.0;
#   update-schema         applies only the versions not yet applied.
# So upgrading Temporal is: raise the server and admin-tools tags together, `docker compose up -d`.
#
# The same script prepares `npm run stack:cluster` outside containers (tools/local-cluster/stack-cluster.ts), driven by
# the environment alone: DBNAME / VISIBILITY_DBNAME (the server's own names for its two databases, default
# temporal / temporal_visibility), TEMPORAL_SCHEMA_DIR (the schema files admin-tools ships, copied from the
# server module by tools/local-cluster/temporal-binaries.sh) and temporal-sql-tool found on PATH.
set -eu

: "${POSTGRES_SEEDS:?POSTGRES_SEEDS must name the PostgreSQL host}"
: "${POSTGRES_USER:?POSTGRES_USER must name the Temporal database role}"
: "${SQL_PASSWORD?SQL_PASSWORD must hold the Temporal database role password (empty for trust authentication)}"
PORT="${DB_PORT:-5432}"
SCHEMA_DIR="${TEMPORAL_SCHEMA_DIR:-/etc/temporal/schema/postgresql/v12}"
DATABASE="${DBNAME:-temporal}"
VISIBILITY_DATABASE="${VISIBILITY_DBNAME:-temporal_visibility}"

sql_tool() {
  # SQL_PASSWORD is read by temporal-sql-tool from the environment (never on the command line).
  export SQL_PASSWORD
  temporal-sql-tool --plugin postgres12 --ep "$POSTGRES_SEEDS" --port "$PORT" --user "$POSTGRES_USER" "$@"
}

setup() {
  database="$1"
  schema="$2"
  echo "temporal-schema: ${database}"
  sql_tool --db "$database" create
  sql_tool --db "$database" setup-schema -v 0.0
  sql_tool --db "$database" update-schema -d "${SCHEMA_DIR}/${schema}/versioned"
}

setup "$DATABASE" temporal
setup "$VISIBILITY_DATABASE" visibility
echo "temporal-schema: up to date"
