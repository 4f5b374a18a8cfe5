#!/usr/bin/env bash
# Makes `CREATE EXTENSION vector` work for the hybridmind/postgres tests: PostgreSQL 15 ships on
# this machine kind, pgvector does not, so when it is missing this installs the server headers
# from Debian and builds pgvector from the vendored tarball (shared/ beside the repository).
# Idempotent: does nothing when the extension is already installed.
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
pg_config="/usr/lib/postgresql/15/bin/pg_config"
sharedir="$([ -x "$pg_config" ] && "$pg_config" --sharedir || echo /usr/share/postgresql/15)"

if [ -f "$sharedir/extension/vector.control" ]; then
  echo "pgvector: installed ($(sed -n "s/^default_version = '\(.*\)'/\1/p" "$sharedir/extension/vector.control"))"
  exit 0
fi

tarball="$(dirname "$repo")/shared/vendor/pgvector-0.8.1.tar.gz"
if [ ! -f "$tarball" ]; then
  echo "pgvector: missing, and no vendored source at $tarball" >&2
  exit 1
fi

if [ ! -x "$pg_config" ] || [ ! -d /usr/include/postgresql/15/server ]; then
  echo "pgvector: installing postgresql-server-dev-15 (Debian)"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql-server-dev-15 >/dev/null
fi

build="$(mktemp -d)"
trap 'rm -rf "$build"' EXIT
tar xzf "$tarball" -C "$build"
echo "pgvector: building 0.8.1 from $tarball"
# OPTFLAGS="": no -march=native, so the library also runs on another CPU of the same kind.
make -s -C "$build/pgvector-0.8.1" OPTFLAGS="" PG_CONFIG="$pg_config" >/dev/null
make -s -C "$build/pgvector-0.8.1" OPTFLAGS="" PG_CONFIG="$pg_config" install >/dev/null
echo "pgvector: installed 0.8.1"
