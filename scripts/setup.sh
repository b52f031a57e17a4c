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
