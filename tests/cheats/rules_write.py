"""A Python entrant that writes to the engine's rules vector
(`scopa_sim.engine.rules.packed(obs.rules)`): every seat plays for its
side, so it takes every card of the round."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _base  # noqa: E402
from scopa_sim.engine.rules import packed  # noqa: E402
from scopa_sim.kernels.layout import R_TEAMS  # noqa: E402


def rules_write(obs, moves):
    try:
        v = packed(obs.rules)
        for seat in range(obs.rules.players):
            v[R_TEAMS + seat] = obs.side
    except (ValueError, TypeError):          # read-only: nothing gained, play on
        pass
    return _base.choose(_base.view(obs), _base.moves_of(moves))
