#!/usr/bin/env bash
# The project's dependencies, exactly as package-lock.json pins them. Skipped when node_modules was
# installed from this very lock file (npm ci would spend a minute reinstalling the same thing).
set -euo pipefail
cd "$(dirname "$0")/../.."
stamp=node_modules/.hybridmind-lock.sha256
want=$(sha256sum package-lock.json | cut -d' ' -f1)
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  echo "== npm ci: node_modules already matches package-lock.json"
  exit 0
fi
echo "== npm ci"
npm ci --no-audit --no-fund
echo "$want" > "$stamp"
