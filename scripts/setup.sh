#!/usr/bin/env bash
# Set up everything the companion needs on a fresh machine: a virtual environment in .venv
# with the project and its test tools installed. Safe to run again; it only adds what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --disable-pip-version-check -e ".[dev]"
# Browser tests (tests/web_ui/test_browser.py): playwright comes with the dev extra above; it
# drives Debian's chromium (Playwright's own browser download cannot work here). Installed when
# missing and we are root; otherwise those tests skip and say why.
if [ ! -x /usr/bin/chromium ] && [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  echo "setup: installing Debian's chromium for the browser tests" >&2
  DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi
