#!/usr/bin/env bash
# The README's second command: installs what a fresh machine lacks, then runs the whole suite.
# Every executable scripts/setup.d/*.sh runs first, in lexical order; each is idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."
for step in scripts/setup.d/*.sh; do
  [ -x "$step" ] || continue
  echo "== setup: $step"
  "$step"
done
npm test
