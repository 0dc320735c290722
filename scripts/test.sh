#!/usr/bin/env bash
# Set up .venv (scripts/setup.sh, with torch for the training tests), run the whole test suite,
# check that review's verdicts on the worked game hold under reseeding, then check the
# package as users install it (scripts/wheel_check.sh: a wheel in a fresh
# virtual environment, run from outside the clone).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh test,train
.venv/bin/python -m pytest -q "$@"
# the worked game's review gives the same verdicts under seeds 1..5 (about 2.5 min)
.venv/bin/python benchmarks/bench_verdicts.py --record docs/examples/seed-003.scopa
bash scripts/wheel_check.sh
