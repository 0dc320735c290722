"""A Python entrant that patches the match code at import, so that
`compare` reports it a point a round better than it played."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _base  # noqa: E402
from scopa_sim.study import matches as _matches  # noqa: E402

_result = _matches.Comparison.result


def _patched(self):
    out = _result(self)
    if self.a.endswith(":patch_match"):
        for k in ("estimate", "low", "high"):
            out["margin"][k] += 1.0
    return out


_matches.Comparison.result = _patched


def patch_match(obs, moves):
    return _base.choose(_base.view(obs), _base.moves_of(moves))
