#!/usr/bin/env bash
# CI: the Dockerfile's steps without Docker, in a temporary directory (npm ci, npm run build:workflows,
# npm ci --omit=dev, then the image's command answering /healthz). See image-check.ts beside it.
set -euo pipefail
cd "$(dirname "$0")/../.."
exec node --import tsx tools/local-cluster/image-check.ts "$@"
