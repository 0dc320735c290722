"""Greedy, written as a plain Python user strategy: the same choices as the
built-in `greedy` (and as `greedy_jit.py`), at prototyping speed.

    scopa-sim compare docs/examples/greedy_py.py:greedy greedy --deals 2000
"""
import scopa_sim

PRIMIERA = (16, 12, 13, 14, 15, 18, 21, 10, 10, 10)     # by rank 1..10


def worth(cards, p):
    """What a set of cards is worth, in hundredths of a card."""
    return (p["card"] * len(cards) + p["coin"] * sum(c < 10 for c in cards)
            + p["settebello"] * (6 in cards) + sum(p["primiera"] * PRIMIERA[c % 10] for c in cards))


def sweeps(obs, card, taken):
    """Whether taking `taken` with `card` is a scopa under the observation's rules."""
    if len(taken) != len(obs.table):
        return False
    if obs.last_play and not obs.rules.scopa_on_last_play:
        return False
    ace_sweep = obs.rules.ace_takes_all and card % 10 == 0 and not any(c % 10 == 0 for c in taken)
    return not ace_sweep


@scopa_sim.params(card=100.0, coin=100.0, settebello=400.0, primiera=5.0, scopa=1000.0)
def greedy(obs, moves, p):
    """Best immediate gain: a scopa, then the most valuable capture; else
    trail the least valuable card."""
    def gain(move):
        card, taken = move
        if not taken:
            return -worth([card], p)
        return worth([card, *taken], p) + (p["scopa"] if sweeps(obs, card, taken) else 0)
    if len(moves) == 1:
        return 0
    values = [gain(m) for m in moves]
    return values.index(max(values))
