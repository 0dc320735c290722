#!/usr/bin/env bash
# Set up .venv (scripts/setup.sh, with torch for the training tests), run the whole test suite, then check the
# package as users install it (scripts/wheel_check.sh: a wheel in a fresh
# virtual environment, run from outside the clone).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh test,train
.venv/bin/python -m pytest -q "$@"
bash scripts/wheel_check.sh
