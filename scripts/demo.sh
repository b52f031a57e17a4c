#!/usr/bin/env bash
# Fresh machine to the main job in one command: set up, then run `domino-companion demo`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec .venv/bin/domino-companion demo "$@"
