#!/usr/bin/env bash
# The package as users install it: build a wheel, install it into a fresh
# virtual environment, and run from a folder outside the clone: --help,
# simulate, the net strategy (its weights are package data), ask, a review of the shipped example (package data) and
# almanac --quick. Nothing of the clone is on the path there.
set -euo pipefail
cd "$(dirname "$0")/.."
here="$(pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir "$work/src"                      # the sources alone: no build/ left from before
git ls-files -z --cached --others --exclude-standard | xargs -0 cp -P --parents -t "$work/src"
.venv/bin/python -m pip wheel --quiet --no-deps -w "$work/dist" "$work/src"
python3 -m venv "$work/venv"
"$work/venv/bin/python" -m pip install --quiet --upgrade pip
"$work/venv/bin/python" -m pip install --quiet "$work"/dist/scopa_sim-*.whl
cd "$work"
sim="$work/venv/bin/scopa-sim"
step() { echo "wheel check: $*" >&2; }
step "--help";   "$sim" --help > /dev/null
step "simulate"; "$sim" simulate --rounds 1000 --strategies random,greedy --seed 1 --out runs/rg --quiet > /dev/null
step "net";      "$sim" simulate --rounds 200 --strategies net,endgame --seed 1 --quiet > /dev/null
step "ask";      "$sim" ask runs/rg "winner == 0" > /dev/null
example="$("$work/venv/bin/python" -c 'from scopa_sim import data; print(data.path("seed-003.scopa"))')"
case "$example" in "$here"/*) echo "wheel check: the example is read from the clone" >&2; exit 1;; esac
step "review";   "$sim" review "$example" --rollouts 200 --seed 1 --quiet > /dev/null
step "almanac";  "$sim" almanac --quick --out almanac --seed 1 --quiet > /dev/null
test -s almanac/ALMANAC.md
step "passed"
