#!/usr/bin/env bash
# Regenerate the README's card questions and docs/values-endgame.png: ten
# million rounds of endgame against endgame (about two minutes on 2 cores),
# three questions about the deal, and what each card is worth.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
S=.venv/bin/scopa-sim
R=runs/endgame-10m
[ -f "$R/manifest.json" ] || $S simulate --rounds 10000000 --strategies endgame,endgame \
    --seed 2026 --batch-size 250000 --out "$R" --quiet
$S ask "$R" "winner == 0" --given "'7d' in dealt_0"
$S ask "$R" "winner == dealer_side" --given "count(table & sevens) >= 1"
$S ask "$R" "margin" --given "count(hand_0 & sevens) >= 2"
$S values "$R" --out docs/values-endgame.png
