#!/usr/bin/env bash
# Regenerate the README's card questions and docs/values-endgame.png: ten
# million rounds of endgame against endgame, keeping what each side captured
# (14 minutes measured on 2 cores busy with other work, the simulation 9 of
# them; once made, the run is kept in runs/ and only the questions and the
# figure are made again, in about 5 minutes), five questions about the deal
# and the captured cards, and what each card is worth.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
S=.venv/bin/scopa-sim
R=runs/endgame-10m
[ -f "$R/manifest.json" ] || $S simulate --rounds 10000000 --strategies endgame,endgame \
    --seed 2026 --batch-size 250000 --keep-taken --out "$R" --quiet
$S ask "$R" "winner == 0" --given "'7d' in dealt_0"
$S ask "$R" "winner == 0" --given "'7d' in hand_0"
$S ask "$R" "winner == dealer_side" --given "count(table & sevens) >= 1"
$S ask "$R" "winner == 0" --given "count(taken_0 & sevens) >= 3"
$S ask "$R" "margin" --given "count(hand_0 & sevens) >= 2"
$S values "$R" --out docs/values-endgame.png --overwrite
