#!/usr/bin/env bash
# Install everything the tests need on a fresh Debian machine, then run lint and the tests.
# Browser tests drive Debian's chromium through playwright (never `playwright install`).
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -x /usr/bin/chromium ]; then
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
fi
python3 -m pip install -q --disable-pip-version-check -r requirements-dev.txt
python3 -m ruff check .
python3 -m pytest -q "$@"
