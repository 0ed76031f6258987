#!/usr/bin/env bash
# CI: the Dockerfile's steps without Docker, in a temporary directory (npm ci, npm run build:workflows,
# npm ci --omit=dev, then the image's command answering /healthz). See scripts/ci-image-check.ts.
set -euo pipefail
cd "$(dirname "$0")/.."
exec node --import tsx scripts/ci-image-check.ts "$@"
