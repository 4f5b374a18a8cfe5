#!/usr/bin/env bash
# all-MiniLM-L6-v2 through the package's own command (`npx hybridmind model fetch`), into the user
# cache, linked to ./models for the repository's tests and demo. A cache hit takes about a second.
set -euo pipefail
cd "$(dirname "$0")/../.."
node cli/hybridmind.mjs model fetch --out models
