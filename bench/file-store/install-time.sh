#!/usr/bin/env bash
# Install time of each SQLite file engine for Node: a clean `npm install` of the pinned version into
# an empty project with an empty npm cache (so downloads count), then whether a file opens in WAL.
# Hold the heavy lock: better-sqlite3 compiles from source where its prebuilt download fails.
#   flock /tmp/hybridmind-heavy.lock bash bench/file-store/install-time.sh
set -euo pipefail
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
for spec in better-sqlite3@12.11.1 libsql@0.5.29 node-sqlite3-wasm@0.8.60; do
  dir="$root/${spec%@*}"
  mkdir -p "$dir" && cd "$dir"
  echo '{"name":"probe","version":"1.0.0","private":true}' > package.json
  start=$(date +%s.%N)
  npm install "$spec" --no-audit --no-fund --cache "$dir/.cache" >/dev/null 2>&1
  end=$(date +%s.%N)
  size=$(du -sm node_modules | cut -f1)
  mode=$(node -e '
    const name = process.argv[1];
    if (name === "node-sqlite3-wasm") { const { Database } = require(name); const db = new Database("t.db"); console.log(db.all("PRAGMA journal_mode=WAL")[0].journal_mode); db.close(); }
    else { const D = require(name); const db = new D("t.db"); console.log(db.pragma("journal_mode=WAL")[0].journal_mode); db.close(); }' "${spec%@*}")
  printf "%-26s install %6.1f s  node_modules %4s MB  journal_mode after asking WAL: %s\n" "$spec" "$(awk "BEGIN { print $end - $start }")" "$size" "$mode"
done
