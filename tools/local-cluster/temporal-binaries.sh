#!/usr/bin/env bash
# The Temporal binaries `npm run stack:cluster` runs in place of docker-compose.yml's images, at the
# versions the compose file pins (it is the one source: the tags are read from it here, and
# tools/local-cluster/plan.test.ts checks that this script and the plan agree with it).
# stack-cluster.ts runs this script itself when a binary is missing; .ci/run runs it with --cli first.
#
#   temporalio/server:X      → temporal-server    go install go.temporal.io/server/cmd/server@vX
#   temporalio/admin-tools:X → temporal-sql-tool  go install go.temporal.io/server/cmd/tools/sql@vX
#                              schema/            the module's schema/postgresql (what the image ships
#                                                 under /etc/temporal/schema/postgresql)
#                              temporal           the Temporal CLI the project already uses (npm start), at
#                                                 src/platform/lib/temporalDevServer.ts's CLI_VERSION, in .cache/bin
#   temporalio/ui:Y          → ui-server          go install github.com/temporalio/ui-server/v2/cmd/server@vY
#                              config template    the module's, as the image ships it (config/docker.yaml,
#                                                 or docker/config-template.yaml for dockerize)
#
# Each set goes into the project's .cache/<name>-<version>/, copied from the machine-wide cache
# ${XDG_CACHE_HOME:-$HOME/.cache}/payment-custody/<name>-<version>/ when a previous run built it, else
# built with `go install` (a few minutes each on two cores) and then stored there for the next run.
#
# Usage: tools/local-cluster/temporal-binaries.sh            install what is missing, print the directories
#        tools/local-cluster/temporal-binaries.sh --cli      the Temporal CLI only (what `npm test` needs)
#        tools/local-cluster/temporal-binaries.sh --versions print SERVER_VERSION=… UI_VERSION=… and exit
set -euo pipefail
cd "$(dirname "$0")/../.."

COMPOSE=docker-compose.yml
image_tag() { sed -n "s|^ *image: temporalio/$1:\([0-9][0-9.]*\) *\$|\1|p" "$COMPOSE" | sort -u; }
SERVER_TAG="$(image_tag server)"
ADMIN_TOOLS_TAG="$(image_tag admin-tools)"
UI_TAG="$(image_tag ui)"
if [ -z "$SERVER_TAG" ] || [ "$(printf '%s\n' "$SERVER_TAG" | wc -l)" -ne 1 ] || [ "$SERVER_TAG" != "$ADMIN_TOOLS_TAG" ] || [ -z "$UI_TAG" ]; then
  echo "temporal-binaries: $COMPOSE must pin one temporalio/server tag, the same admin-tools tag and one temporalio/ui tag" >&2
  exit 1
fi
SERVER_VERSION="v$SERVER_TAG"
UI_VERSION="v$UI_TAG"

if [ "${1:-}" = "--versions" ]; then
  printf 'SERVER_VERSION=%s\nUI_VERSION=%s\n' "$SERVER_VERSION" "$UI_VERSION"
  exit 0
fi

SHARED="${XDG_CACHE_HOME:-$HOME/.cache}/payment-custody"
export PATH="$PATH:/usr/local/go/bin"

# The Temporal CLI at the version npm start builds (src/platform/lib/temporalDevServer.ts): .cache/bin/temporal,
# copied from the machine-wide cache (one file, temporal-<version>) or built with go install.
CLI_VERSION="$(sed -n "s/^export const CLI_VERSION = '\(v[0-9.]*\)';\$/\1/p" src/platform/lib/temporalDevServer.ts)"
[ -n "$CLI_VERSION" ] || { echo "temporal-binaries: no CLI_VERSION in src/platform/lib/temporalDevServer.ts" >&2; exit 1; }
install_cli() {
  local cli=.cache/bin/temporal shared="$SHARED/temporal-$CLI_VERSION"
  if [ ! -x "$cli" ]; then
    mkdir -p .cache/bin
    if [ -x "$shared" ]; then
      cp "$shared" "$cli"
    else
      command -v go >/dev/null || { echo "temporal-binaries: the Temporal CLI is not cached and Go is missing" >&2; exit 1; }
      echo "temporal-binaries: building the Temporal CLI $CLI_VERSION (first run on this machine only)" >&2
      GOBIN="$PWD/.cache/bin" go install "github.com/temporalio/cli/cmd/temporal@$CLI_VERSION"
      mkdir -p "$SHARED" && cp "$cli" "$shared.tmp" && mv "$shared.tmp" "$shared" || true
    fi
  fi
  echo "$cli"
}

if [ "${1:-}" = "--cli" ]; then
  install_cli
  exit 0
fi

# install NAME CHECK BUILD: make .cache/NAME (complete when CHECK exists in it) from the shared cache,
# else run BUILD with $out set to an empty directory, then publish it to both places.
install() {
  local name="$1" check="$2" build="$3"
  local project=".cache/$name" shared="$SHARED/$name"
  if [ -e "$project/$check" ]; then echo "$project"; return; fi
  mkdir -p .cache "$SHARED"
  if [ ! -e "$shared/$check" ]; then
    command -v go >/dev/null || { echo "temporal-binaries: $name is not cached and Go is missing" >&2; exit 1; }
    local out
    out="$(mktemp -d "$SHARED/.$name.XXXXXX")"
    echo "temporal-binaries: building $name (first run on this machine only)" >&2
    "$build" "$out"
    rm -rf "$shared" && mv "$out" "$shared"
  fi
  rm -rf "$project.tmp" && cp -a "$shared" "$project.tmp" && rm -rf "$project" && mv "$project.tmp" "$project"
  echo "$project"
}

module_dir() { go mod download -json "$1" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p'; }

build_server() {
  local out="$1" gobin
  gobin="$(mktemp -d)"
  GOBIN="$gobin" go install "go.temporal.io/server/cmd/server@$SERVER_VERSION"
  GOBIN="$gobin" go install "go.temporal.io/server/cmd/tools/sql@$SERVER_VERSION"
  mv "$gobin/server" "$out/temporal-server"
  mv "$gobin/sql" "$out/temporal-sql-tool"
  rm -rf "$gobin"
  mkdir -p "$out/schema"
  cp -r "$(module_dir "go.temporal.io/server@$SERVER_VERSION")/schema/postgresql" "$out/schema/"
  chmod -R u+w "$out/schema"
}

# go_build_module MODULE@VERSION PACKAGE OUT: `go install PACKAGE@VERSION`, or where that refuses because the
# module's go.mod has `replace` directives, the same build from a throw-away main module that requires it
# and repeats those replace directives (so the dependency versions are the module's own).
go_build_module() {
  local module="${1%@*}" version="${1#*@}" package="$2" out="$3" gobin tmp dir
  gobin="$(mktemp -d)"
  if GOBIN="$gobin" go install "$package@$version" 2>"$gobin/err"; then
    mv "$gobin/$(basename "$package")" "$out"
  elif grep -q 'replace directives' "$gobin/err"; then
    echo "temporal-binaries: go install refused $package@$version (its go.mod has replace directives); building it from a temporary main module" >&2
    dir="$(module_dir "$module@$version")"
    tmp="$(mktemp -d)"
    (
      cd "$tmp"
      go mod init local/build >/dev/null 2>&1
      go mod edit -require="$module@$version"
      sed -n 's/^replace[[:space:]]\{1,\}\([^ ]*\)[[:space:]]*=>[[:space:]]*\([^ ]*\)[[:space:]]\{1,\}\([^ ]*\)[[:space:]]*$/\1=\2@\3/p' "$dir/go.mod" |
        while read -r r; do go mod edit -replace="$r"; done
      go get "$package@$version"
      go build -o "$out" "$package"
    )
    rm -rf "$tmp"
  else
    cat "$gobin/err" >&2
    return 1
  fi
  rm -rf "$gobin"
}

build_ui() {
  local out="$1"
  go_build_module "github.com/temporalio/ui-server/v2@$UI_VERSION" github.com/temporalio/ui-server/v2/cmd/server "$out/ui-server"
  # The image's configuration: newer releases ship config/docker.yaml (templated by ui-server itself),
  # older ones docker/config-template.yaml (rendered by dockerize at start; stack:cluster renders it).
  local dir
  dir="$(module_dir "github.com/temporalio/ui-server/v2@$UI_VERSION")"
  if [ -f "$dir/docker/config-template.yaml" ]; then
    cp "$dir/docker/config-template.yaml" "$out/config-template.yaml"
  else
    mkdir -p "$out/config"
    cp "$dir/config/docker.yaml" "$out/config/docker.yaml"
  fi
  chmod -R u+w "$out"
}

install "temporal-server-$SERVER_VERSION" temporal-server build_server
install "temporal-ui-server-$UI_VERSION" ui-server build_ui
install_cli
