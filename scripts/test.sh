#!/usr/bin/env bash
# Install what the tests need, then run lint and the tests:
#   bash scripts/test.sh [--light] [pytest options...]
# It says what it installs system-wide (apt) before doing it. Python packages go into the
# active venv; with no venv and a Python that refuses pip (PEP 668, Debian's), into ./.venv,
# made here. The dense retriever's packages (torch, sentence-transformers: about 1.5 GB,
# requirements-dense.txt) are installed for the tests marked `dense`; --light does not
# install them (those tests then skip, saying why; under CI=true they fail). Browser tests drive Debian's chromium through playwright (never `playwright install`).
set -euo pipefail
cd "$(dirname "$0")/.."

LIGHT=0
if [ "${1:-}" = "--light" ]; then
  LIGHT=1
  shift
fi
PYTHON=python3

# PEP 668: a system Python marked externally managed refuses `pip install` outside a venv.
externally_managed() {
  [ -z "${VIRTUAL_ENV:-}" ] && "$PYTHON" -c 'import os, sys, sysconfig
sys.exit(0 if sys.prefix == sys.base_prefix and os.path.exists(
    os.path.join(sysconfig.get_path("stdlib"), "EXTERNALLY-MANAGED")) else 1)'
}
MAKE_VENV=0
if [ -x .venv/bin/python ] && [ -z "${VIRTUAL_ENV:-}" ]; then
  PYTHON=.venv/bin/python
  echo "test.sh: using ./.venv (made by an earlier run)"
elif externally_managed; then
  MAKE_VENV=1
fi

# chromium for the browser tests; Tesseract and its language data for OCR of scanned PDFs
# (without it scans are refused with a message saying how to install it). The English word
# list of the fuzzy fix comes with pip (wordfreq, requirements.txt): no OS package.
MISSING=""
WHY=""
[ -x /usr/bin/chromium ] || { MISSING="$MISSING chromium"; WHY="$WHY
  chromium: the browser tests drive the dashboard in headless Chromium"; }
command -v tesseract >/dev/null || { MISSING="$MISSING tesseract-ocr"; WHY="$WHY
  tesseract-ocr: OCR of scanned PDFs"; }
# English, French and German language data: a scan's language is chosen per page from the
# installed ones (French and German pages read in English lose their accents).
for code in eng fra deu; do
  [ -n "$(find /usr/share/tesseract-ocr -name "$code.traineddata" 2>/dev/null | head -1)" ] \
    || { MISSING="$MISSING tesseract-ocr-$code"; WHY="$WHY
  tesseract-ocr-$code: the $code language data of the OCR tests"; }
done
if [ "$MAKE_VENV" = 1 ] && ! "$PYTHON" -c 'import ensurepip' 2>/dev/null; then
  MISSING="$MISSING python3-venv"
  WHY="$WHY
  python3-venv: this Python refuses pip outside a venv (PEP 668); the tests run in ./.venv"
fi
if [ -n "$MISSING" ]; then
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  echo "test.sh: installing system-wide with ${SUDO:+sudo }apt-get:$WHY"
  $SUDO apt-get update -qq
  # shellcheck disable=SC2086
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $MISSING >/dev/null
fi
if [ "$MAKE_VENV" = 1 ]; then
  echo "test.sh: $PYTHON refuses pip outside a venv (PEP 668): making ./.venv and testing in it"
  "$PYTHON" -m venv .venv
  PYTHON=.venv/bin/python
fi

echo "test.sh: pip install -r requirements-dev.txt into $("$PYTHON" -c 'import sys; print(sys.prefix)')"
"$PYTHON" -m pip install -q --disable-pip-version-check -r requirements-dev.txt
if [ "$LIGHT" = 1 ]; then
  echo "test.sh: --light: not installing torch and sentence-transformers; where they are" \
    "missing, the dense tests skip saying so (under CI=true they fail)"
else
  echo "test.sh: pip install -r requirements-dense.txt (torch, sentence-transformers) for" \
    "the dense tests; --light leaves them out"
  "$PYTHON" -m pip install -q --disable-pip-version-check -r requirements-dense.txt
fi
"$PYTHON" -m ruff check .
# import-linter's lint-imports, run by this Python (its script may not be on PATH in a venv)
"$PYTHON" -c "import sys; from importlinter.cli import lint_imports_command; sys.exit(lint_imports_command())"
# Byte-compile the checkout once: where PYTHONDONTWRITEBYTECODE is set (it is on the
# machines this project is developed on) Python never writes a .pyc, so every ragdash
# command, parse worker and Streamlit server a test starts compiled ragdash's modules
# again (12% of the CPU of tests/test_cli*.py). A .pyc is read whatever that variable says.
"$PYTHON" -m compileall -q -j 0 ragdash benchmarks tests app.py >/dev/null
# mypy runs beside the tests (a minute of one core on a fresh clone, while the tests leave
# part of the other idle waiting on browsers and servers); its report follows theirs, and
# either failing fails this script.
MYPY_LOG=$(mktemp)
"$PYTHON" -m mypy >"$MYPY_LOG" 2>&1 &
MYPY_PID=$!
# Two pytest workers per core (pytest-xdist), at most 4: part of a test's time is waiting
# (a page in Chromium, a server starting, a timeout). Measured on 2026-12-06 (CI=true bash
# .ci/run, fresh clone, quiet two-core machine): three workers 20 min 49 s (1,870
# CPU-seconds), two 22 min 0 s (1,849); after this day's cuts four workers 15 min 5 s
# (1,404) and five 17 min 4 s (1,604).
# Each worker runs a whole test file (--dist loadfile), so a file's Streamlit server,
# Chromium and parses start once; the files in the order tests/conftest.py gives (the
# longest first: LONGEST_FILES), not xdist's most-tests-first. Pass `-n 0` to run in this
# process (pdb, -x on the first failure in order).
WORKERS=$("$PYTHON" -c 'import os
cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
print(min(4, 2 * (cores or 1)))')
PYTEST_RC=0
"$PYTHON" -m pytest -q -n "$WORKERS" --dist loadfile --no-loadscope-reorder "$@" || PYTEST_RC=$?
MYPY_RC=0
wait "$MYPY_PID" || MYPY_RC=$?
echo "test.sh: mypy:"
cat "$MYPY_LOG"
rm -f "$MYPY_LOG"
if [ "$PYTEST_RC" -ne 0 ] || [ "$MYPY_RC" -ne 0 ]; then
  echo "test.sh: failed (pytest exit $PYTEST_RC, mypy exit $MYPY_RC)" >&2
  exit 1
fi
