#!/usr/bin/env bash
# Set up .venv and run the main job: one million rounds of random vs greedy
# into runs/, with a progress bar and a summary.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec .venv/bin/scopa-sim simulate --rounds 1000000 --strategies random,greedy --seed 2026 \
    --out runs/demo --overwrite "$@"
