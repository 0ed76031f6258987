#!/bin/sh
# One-shot (temporalio/admin-tools): make sure the namespace exists, that the payment search
# attributes are registered in it and that the webhooks task queue is paced per tenant, before any
# API or worker starts.
#
# Arguments: `--name NAME --type TYPE` pairs (docker-compose.yml lists them), passed unchanged to
#   temporal operator search-attribute create
# which is idempotent: an attribute that already exists with the same type is left alone, one that
# exists with another type is an error (and this one-shot fails, so the API and workers do not start).
set -eu

: "${TEMPORAL_ADDRESS:?TEMPORAL_ADDRESS must name the Temporal frontend, e.g. temporal:7233}"
NAMESPACE="${TEMPORAL_NAMESPACE:-default}"
RETENTION="${TEMPORAL_NAMESPACE_RETENTION:-30d}"
ATTEMPTS="${TEMPORAL_WAIT_ATTEMPTS:-90}"

if [ "$#" -eq 0 ]; then
  echo "usage: $0 --name NAME --type TYPE [--name NAME --type TYPE ...]" >&2
  exit 2
fi

# retry CMD...: run CMD until it succeeds, every 2 seconds, at most $ATTEMPTS times.
retry() {
  n=1
  until "$@"; do
    if [ "$n" -ge "$ATTEMPTS" ]; then
      echo "register-search-attributes: giving up after $n attempts: $*" >&2
      return 1
    fi
    n=$((n + 1))
    sleep 2
  done
}

ensure_namespace() {
  temporal operator namespace describe --address "$TEMPORAL_ADDRESS" --namespace "$NAMESPACE" >/dev/null 2>&1 ||
    temporal operator namespace create --address "$TEMPORAL_ADDRESS" --namespace "$NAMESPACE" --retention "$RETENTION"
}

echo "register-search-attributes: waiting for Temporal at ${TEMPORAL_ADDRESS}"
retry temporal operator cluster health --address "$TEMPORAL_ADDRESS" >/dev/null

echo "register-search-attributes: namespace ${NAMESPACE}"
retry ensure_namespace

# One attempt; a type clash ends the one-shot at once (retrying cannot fix it).
register() {
  if out="$(temporal operator search-attribute create --address "$TEMPORAL_ADDRESS" --namespace "$NAMESPACE" "$@" 2>&1)"; then
    printf '%s\n' "$out"
    return 0
  fi
  printf '%s\n' "$out" >&2
  case "$out" in
    *"different type"*)
      echo "register-search-attributes: an attribute exists with another type; fix it by hand (docs/deploy.md)" >&2
      exit 1
      ;;
  esac
  return 1
}

echo "register-search-attributes: registering $*"
retry register "$@"

# Check that every name is now listed for the namespace.
listed="$(temporal operator search-attribute list --address "$TEMPORAL_ADDRESS" --namespace "$NAMESPACE")"
expect_name=""
for arg in "$@"; do
  if [ "$expect_name" = 1 ]; then
    if ! printf '%s\n' "$listed" | grep -qw -- "$arg"; then
      echo "register-search-attributes: ${arg} is not listed after registration" >&2
      exit 1
    fi
    expect_name=""
  elif [ "$arg" = "--name" ]; then
    expect_name=1
  fi
done

# The webhooks task queue's per-fairness-key rate limit: each tenant's (account and mode) delivery
# attempts are handed out at most WEBHOOK_FAIRNESS_KEY_RPS a second (docs/webhooks.md). Idempotent.
if [ -n "${WEBHOOK_TASK_QUEUE:-}" ]; then
  echo "register-search-attributes: ${WEBHOOK_TASK_QUEUE} paced at ${WEBHOOK_FAIRNESS_KEY_RPS:-50} per fairness key and second"
  retry temporal task-queue config set --address "$TEMPORAL_ADDRESS" --namespace "$NAMESPACE" \
    --task-queue "$WEBHOOK_TASK_QUEUE" --task-queue-type activity \
    --fairness-key-rps-limit-default "${WEBHOOK_FAIRNESS_KEY_RPS:-50}" --fairness-key-rps-limit-reason WEBHOOK_FAIRNESS_KEY_RPS >/dev/null
fi

# Temporal services refresh their namespace cache every 2 s (system.namespaceCacheRefreshInterval);
# wait a little longer so the first workflow started with these attributes is accepted everywhere.
sleep "${TEMPORAL_SEARCH_ATTRIBUTE_SETTLE_SECONDS:-5}"
echo "register-search-attributes: done"
