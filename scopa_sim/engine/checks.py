"""Checks of whole-number arguments, shared by every public entry point, and
how text from outside (a token, an exception) is echoed in an error: bounded;
and counts in words (`plural`)."""
from __future__ import annotations

import secrets

import numpy as np

MAX_SEED = 2**64 - 1
SEED_SPAN = "a whole number 0..2**64-1"
MAX_WIDE_SEED = 2**128 - 1          # a contest's seed (`isolate`): the Python loop deals it
WIDE_SPAN = "a whole number 0..2**128-1"


def whole(value, name: str, low: int, high: int, span: str | None = None) -> int:
    """`value` as an int in low..high, or a ValueError naming `name` and the
    range (`span`: the range as people write it, e.g. "0..2**64-1")."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) \
            or not low <= value <= high:
        span = span or (f"a positive whole number at most {high:,}" if low == 1
                        else f"a whole number {low:,}..{high:,}")
        raise ValueError(f"{name} must be {span}, not {value!r}")
    return int(value)


def seed_or_fresh(seed, wide: bool = False) -> int:
    """`seed` checked (0..2**64-1); None draws a fresh one (63 random bits),
    as the command line does without --seed. With `wide` (a run under
    isolation), 0..2**128-1, and a fresh one has 128 random bits: a secret
    no entrant can guess from its cards. Every entry point that takes a
    seed returns the one it used (a result's "seed", a DataFrame's
    `attrs["seed"]`), so a run without one can be repeated."""
    if seed is None:
        return secrets.randbits(128 if wide else 63)
    if wide:
        return whole(seed, "seed", 0, MAX_WIDE_SEED, WIDE_SPAN)
    if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool) and seed > MAX_SEED:
        raise ValueError(f"seed must be {SEED_SPAN}, not {seed!r} (a seed of up to 128 bits "
                         f"goes with isolation)")
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


SHOWN = 80          # characters of outside text an error echoes


def shown(text, limit: int = SHOWN) -> str:
    """`text` on one line, cut to `limit` characters with "…": a 10 MB token
    or a strategy's 5,000-character exception is echoed in a line, not whole."""
    text = " ".join(str(text).splitlines())
    return text if len(text) <= limit else text[:limit - 1] + "…"


def plural(k: int, what: str, many: str | None = None) -> str:
    """`1 card`, `2 cards`, `12,000 rounds`; `many`: an irregular plural."""
    return f"{k:,} " + (what if k == 1 else many or what + "s")


def raised(e: BaseException) -> str:
    """What an exception from outside says, bounded: `ValueError: bad …`."""
    return f"{type(e).__name__}: {shown(e)}"


def pair(value, what: str) -> tuple[int, int]:
    """A MINE-THEIRS pair from "5-7" (`mine_theirs`) or (5, 7): whole numbers 0..10**6."""
    if isinstance(value, str):
        return mine_theirs(value, what)
    try:
        a, b = value
        return whole(a, what, 0, 10**6), whole(b, what, 0, 10**6)
    except (TypeError, ValueError):
        raise ValueError(f"{what} is two whole numbers (mine, theirs), e.g. '5-7', "
                         f"not {value!r}") from None
