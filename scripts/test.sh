#!/usr/bin/env bash
# Install everything the tests need on a fresh Debian machine, then run lint and the tests.
# Browser tests drive Debian's chromium through playwright (never `playwright install`).
set -euo pipefail
cd "$(dirname "$0")/.."

# chromium for the browser tests; Tesseract and its language data for OCR of scanned PDFs
# (without it scans are refused with a message saying how to install it). The English word
# list of the fuzzy fix comes with pip (wordfreq, requirements.txt): no OS package.
MISSING=""
[ -x /usr/bin/chromium ] || MISSING="$MISSING chromium"
command -v tesseract >/dev/null || MISSING="$MISSING tesseract-ocr"
# English, French and German language data: a scan's language is chosen per page from the
# installed ones (French and German pages read in English lose their accents).
for LANG in eng fra deu; do
  [ -n "$(find /usr/share/tesseract-ocr -name $LANG.traineddata 2>/dev/null | head -1)" ] \
    || MISSING="$MISSING tesseract-ocr-$LANG"
done
if [ -n "$MISSING" ]; then
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  # shellcheck disable=SC2086
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $MISSING >/dev/null
fi
python3 -m pip install -q --disable-pip-version-check -r requirements-dev.txt
python3 -m ruff check .
lint-imports
python3 -m mypy
python3 -m pytest -q "$@"
