#!/usr/bin/env bash
# Debian's Chromium for the Playwright tests (Playwright cannot download its own browsers here).
set -euo pipefail
if [ ! -x /usr/bin/chromium ]; then
  echo "== chromium: installing from Debian"
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium >/dev/null
fi
echo "== chromium: $(/usr/bin/chromium --version)"
