#!/usr/bin/env bash
# Create .venv (if missing) and install scopa-sim with its extras into it: test
# (pytest, hypothesis) by default, or those named: `bash scripts/setup.sh test,train`
# (train: torch, CPU build, for `scopa-sim train`; envs: PettingZoo, Gymnasium and
# OpenSpiel, for scopa_sim.envs).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x .venv/bin/python ]; then
    python3 -m venv .venv
fi
.venv/bin/python -m pip install --quiet --upgrade pip
# setuptools warns on every editable install that a folder named like the package
# may shadow it (ours is the package itself): not for the user to act on.
PYTHONWARNINGS="ignore:Editable installation" \
    .venv/bin/python -m pip install --quiet -e ".[${1:-test}]"

