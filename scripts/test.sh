#!/usr/bin/env bash
# Fresh machine to passing tests in one command: set up, then run the whole suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec .venv/bin/python -m pytest "$@"
