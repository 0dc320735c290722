"""Counter-based randomness: SplitMix64 streams keyed by (seed, index).

A stream's state is a one-element uint64 array, passed in and advanced in
place; nothing global. `stream(seed, i)` is a pure function, so a unit of work
(a round, a game) draws the same numbers on any thread, batch or machine.
"""
import numpy as np

from ._jit import kernel

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
M1 = np.uint64(0xBF58476D1CE4E5B9)
M2 = np.uint64(0x94D049BB133111EB)
S30, S27, S31, S32 = np.uint64(30), np.uint64(27), np.uint64(31), np.uint64(32)


@kernel
def mix64(z):
    """SplitMix64's finaliser: a bijection on uint64 that scatters bits."""
    z = (z ^ (z >> S30)) * M1
    z = (z ^ (z >> S27)) * M2
    return z ^ (z >> S31)


@kernel
def stream(seed, index, state):
    """Set `state[0]` to the start of stream `index` of run `seed`."""
    state[0] = mix64(mix64(np.uint64(seed)) + np.uint64(index))


@kernel
def next_u64(state):
    """The stream's next 64 random bits."""
    state[0] += GOLDEN
    return mix64(state[0])


@kernel
def below(state, n):
    """A draw in 0..n-1 (n < 2**32) by multiply-shift on the high 32 bits."""
    return np.int64(((next_u64(state) >> S32) * np.uint64(n)) >> S32)


@kernel
def shuffle(deck, state):
    """Fisher-Yates, from the top: for i = 39..1 swap deck[i], deck[below(i+1)]."""
    for i in range(deck.shape[0] - 1, 0, -1):
        j = below(state, i + 1)
        deck[i], deck[j] = deck[j], deck[i]
