"""The decks of many rounds at once in numpy, dealt as the kernels deal
them (`kernels.rng`: the deal stream, SipHash-2-4 then SplitMix64;
`kernels.round.deal_deck`: Fisher-Yates from the top; `kernels.deals`: the
deal round the seats), every step over all rows together: the deal columns
of a small run without loading Numba, which costs more than dealing some
hundred thousand rounds so (tests/test_deals.py checks them against the
kernel). Card sets are uint64, bit `suit*10 + rank - 1`.
"""
from __future__ import annotations

import numpy as np

from ..kernels.layout import N_CARDS, N_RANKS

U = np.uint64
GOLDEN, M1, M2 = U(0x9E3779B97F4A7C15), U(0xBF58476D1CE4E5B9), U(0x94D049BB133111EB)
DEAL = U(0x6465616C)                     # the deal stream's key half (`kernels.rng.DEAL`)
SIP_INIT = (U(0x736F6D6570736575), U(0x646F72616E646F6D), U(0x6C7967656E657261),
            U(0x7465646279746573))


def _rotl(x: np.ndarray, b: int) -> np.ndarray:
    return (x << U(b)) | (x >> U(64 - b))


# SipRound as four add-rotate-xor steps (a, b, r, turn): v[a] += v[b], v[b] =
# rotl(v[b], r) ^ v[a], then with `turn` v[a] = rotl(v[a], 32)
SIP_ROUND = ((0, 1, 13, True), (2, 3, 16, False), (0, 3, 21, False), (2, 1, 17, True))


def _sip_rounds(v: list[np.ndarray], times: int) -> list[np.ndarray]:
    for _ in range(times):
        for a, b, r, turn in SIP_ROUND:
            v[a] = v[a] + v[b]
            v[b] = _rotl(v[b], r) ^ v[a]
            if turn:
                v[a] = _rotl(v[a], 32)
    return v


def _sip(k0: np.uint64, k1: np.uint64, m: np.ndarray) -> np.ndarray:
    """SipHash-2-4 of each word of `m` under the key (k0, k1)."""
    v = [np.full_like(m, k ^ init) for k, init in zip((k0, k1, k0, k1), SIP_INIT)]
    for block in (m, np.full_like(m, U(8) << U(56))):       # the word, then the length byte
        v[3] ^= block
        v = _sip_rounds(v, 2)
        v[0] ^= block
    v[2] ^= U(0xFF)
    v = _sip_rounds(v, 4)
    return v[0] ^ v[1] ^ v[2] ^ v[3]


def _mix64(z: np.ndarray) -> np.ndarray:
    z = (z ^ (z >> U(30))) * M1
    z = (z ^ (z >> U(27))) * M2
    return z ^ (z >> U(31))


def decks(seed: int, units: np.ndarray, numbers: np.ndarray) -> np.ndarray:
    """deck[i, row]: the i-th card dealt in round `numbers[row]` of unit
    `units[row]` of run `seed` (int8); a seed of up to 128 bits keys the
    stream as `kernels.rng.keyed_deal_stream` does (its high half xored into DEAL)."""
    rows = len(units)
    key = (U(int(seed) % 2**64), DEAL ^ U(int(seed) >> 64))
    state = _sip(*key, (units.astype(U) << U(20)) | (numbers.astype(U) & U(0xFFFFF)))
    deck = np.repeat(np.arange(N_CARDS, dtype=np.int8), rows)      # deck[i * rows + row]
    column = np.arange(rows)
    for i in range(N_CARDS - 1, 0, -1):           # swap card i with card j <= i, j drawn
        state += GOLDEN
        j = (((_mix64(state) >> U(32)) * U(i + 1)) >> U(32)).astype(np.intp) * rows + column
        drawn = deck[j]
        deck[j] = deck[i * rows:(i + 1) * rows]
        deck[i * rows:(i + 1) * rows] = drawn
    return deck.reshape(N_CARDS, rows)


def deal_sets(seed: int, units: np.ndarray, numbers: np.ndarray, dealers: np.ndarray,
              rules) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(hands, dealt, tables) of the rows, as `kernels.deals.deal_sets` fills
    them: the table first, then one card at a time to each seat from the
    leader, the first `hand_size` each the hands."""
    n, rows, out = rules.players, len(units), N_CARDS - rules.deck_size
    order = decks(seed, units, numbers)
    if out:                     # the cards set aside first, the others in their order
        order = np.take_along_axis(order, np.argsort(order % N_RANKS < rules.ranks, axis=0,
                                                     kind="stable"), axis=0)
    table = out + rules.table_size
    first = table + rules.hand_size * n                            # past the first hands
    end = N_CARDS if rules.refill else first
    bits = U(1) << order.astype(U)
    hands, dealt = np.zeros((rows, n), U), np.zeros((rows, n), U)
    row = np.arange(rows)
    for k in range(n):                                             # the k-th seat from the leader
        seat = (dealers + 1 + k) % n
        hands[row, seat] = bits[table + k:first:n].sum(0, dtype=U)
        dealt[row, seat] = bits[table + k:end:n].sum(0, dtype=U)
    return hands, dealt, bits[out:table].sum(0, dtype=U)
