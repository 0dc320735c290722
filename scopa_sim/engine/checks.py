"""Checks of whole-number arguments, shared by every public entry point."""
from __future__ import annotations

import secrets

import numpy as np

MAX_SEED = 2**64 - 1
SEED_SPAN = "a whole number 0..2**64-1"


def whole(value, name: str, low: int, high: int, span: str | None = None) -> int:
    """`value` as an int in low..high, or a ValueError naming `name` and the
    range (`span`: the range as people write it, e.g. "0..2**64-1")."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) \
            or not low <= value <= high:
        span = span or (f"a positive whole number at most {high:,}" if low == 1
                        else f"a whole number {low:,}..{high:,}")
        raise ValueError(f"{name} must be {span}, not {value!r}")
    return int(value)


def seed_or_fresh(seed) -> int:
    """`seed` checked (0..2**64-1); None draws a fresh one (63 random bits),
    as the command line does without --seed. Every entry point that takes a
    seed returns the one it used (a result's "seed", a DataFrame's
    `attrs["seed"]`), so a run without one can be repeated."""
    if seed is None:
        return secrets.randbits(63)
    return whole(seed, "seed", 0, MAX_SEED, SEED_SPAN)


def below_target(score: tuple[int, int], target: int, untaken: str) -> tuple[int, int]:
    """A game score (mine, theirs) as it is if both are below the target;
    else a ValueError (that game is over, or plays on from a tie, which
    `untaken` says the caller does not take)."""
    if max(score) >= target:
        raise ValueError(f"score {score[0]}-{score[1]} is not below the target {target}: that "
                         f"game is over (or plays on from a tie, which {untaken})")
    return score


def mine_theirs(text: str, name: str) -> tuple[int, int]:
    """"7-9" -> (7, 9): two whole numbers written MINE-THEIRS (a score, the
    scopas), or a ValueError naming `name`."""
    parts = str(text).replace(" ", "").split("-")
    if len(parts) != 2 or not all(p.isascii() and p.isdigit() for p in parts):
        raise ValueError(f"{name} is written MINE-THEIRS, e.g. 7-9, not {text!r}")
    return int(parts[0]), int(parts[1])
