"""Python scopone partners that share their hands through module memory:
each writes its hand where the other reads it, and so knows every card
the opponents hold (scopone scientifico deals all forty)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _base  # noqa: E402

SHARED = {}          # seat -> (hand, played) when it last played


def collude(obs, moves):
    v = _base.view(obs)
    SHARED[obs.seat] = (v["hand"], v["played"])
    partner = (obs.seat + 2) % obs.rules.players
    opponents = None
    if partner in SHARED:
        hand, played = SHARED[partner]
        now = hand & v["unseen"]
        if played & ~v["played"] == 0 and bin(now).count("1") == obs.hand_sizes[partner]:
            opponents = v["unseen"] & ~now
    return _base.choose(v, _base.moves_of(moves), opponents)
