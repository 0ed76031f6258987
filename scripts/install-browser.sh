#!/usr/bin/env bash
# Install the Chromium the browser (e2e) tests drive, from Debian's own package. Idempotent: does
# nothing when /usr/bin/chromium is already there. Never downloads a browser through playwright
# (the tests use playwright-core with executablePath=/usr/bin/chromium).
set -euo pipefail

CHROMIUM=/usr/bin/chromium

if [ -x "$CHROMIUM" ]; then
  "$CHROMIUM" --version 2>/dev/null || true
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
    echo "install-browser: $CHROMIUM is missing and this is not root (and no sudo)" >&2
    exit 1
  fi
fi

export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium

if [ ! -x "$CHROMIUM" ]; then
  echo "install-browser: apt-get finished but $CHROMIUM is still missing" >&2
  exit 1
fi
"$CHROMIUM" --version 2>/dev/null || true
