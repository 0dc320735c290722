"""Counter-based randomness: SplitMix64 streams keyed by (seed, index), and
the keyed hash (SipHash-2-4) that starts the streams of a run's rounds.

A stream's state is a one-element uint64 array, passed in and advanced in
place; nothing global. Every start is a pure function of its key, so a unit
of work (a round, a game) draws the same numbers on any thread, batch or
machine.

A run's round r of unit u (a round, or a game) draws from two streams::

    deal stream    sip(seed, DEAL, u << 20 | r)      shuffles the deck
    decide stream  sip(seed, DECIDE, u << 20 | r)    every decision's draws

(u < 2**44, a run's units are fewer; r < 2**20, a game's rounds are fewer)

so the deck of a round is a function of (seed, u, r) alone, whatever the
strategies draw, and since SipHash is a keyed pseudo-random function, no
number of draws from the one stream says anything of the other. What a user
strategy sees of the decide stream (`observed_bits`) is hashed again, keyed
by the stream's state, so it says nothing of that state either.

A seed of up to 128 bits (a contest's secret seed, `isolate`) keys the
streams with its high 64 bits `hi` xored into the second key word
(`keyed_deal_stream`: sip(lo, DEAL ^ hi, ...)); hi = 0 gives the streams
above exactly.

`stream(seed, index)` is the plain SplitMix64 start (mix64 twice) for work
that deals no real cards: advise's rollouts, a suggested move.
"""
import numpy as np

from ._jit import kernel, spliced

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
M1 = np.uint64(0xBF58476D1CE4E5B9)
M2 = np.uint64(0x94D049BB133111EB)
S30, S27, S31, S32 = np.uint64(30), np.uint64(27), np.uint64(31), np.uint64(32)
# SipHash's rotations, as uint64 constants: literal ints would compile `_rotl` once each
R13, R16, R17, R21, R32 = (np.uint64(b) for b in (13, 16, 17, 21, 32))
B64 = np.uint64(64)
DEAL = np.uint64(0x6465616C)            # "deal": the key halves that tell the streams apart
DECIDE = np.uint64(0x64656369646521)     # "decide!"
OBSERVE = np.uint64(0x6F627365727665)    # "observe"


@kernel
def mix64(z):
    """SplitMix64's finaliser: a bijection on uint64 that scatters bits."""
    z = (z ^ (z >> S30)) * M1
    z = (z ^ (z >> S27)) * M2
    return z ^ (z >> S31)


@kernel
def _rotl(x, b):
    return (x << b) | (x >> (B64 - b))


@kernel
def _sip_round(v0, v1, v2, v3):
    v0 += v1
    v1 = _rotl(v1, R13) ^ v0
    v0 = _rotl(v0, R32)
    v2 += v3
    v3 = _rotl(v3, R16) ^ v2
    v0 += v3
    v3 = _rotl(v3, R21) ^ v0
    v2 += v1
    v1 = _rotl(v1, R17) ^ v2
    v2 = _rotl(v2, R32)
    return v0, v1, v2, v3


@kernel
def sip(k0, k1, m):
    """SipHash-2-4 of the 8-byte little-endian word `m` under the 128-bit key
    (k0, k1): a pseudo-random function, so its outputs tell nothing of its
    key (Aumasson and Bernstein, 2012)."""
    k0, k1, m = np.uint64(k0), np.uint64(k1), np.uint64(m)
    v0 = k0 ^ np.uint64(0x736F6D6570736575)
    v1 = k1 ^ np.uint64(0x646F72616E646F6D)
    v2 = k0 ^ np.uint64(0x6C7967656E657261)
    v3 = k1 ^ np.uint64(0x7465646279746573)
    for block in (m, np.uint64(8) << np.uint64(56)):   # the word, then the length byte
        v3 ^= block
        for _ in range(2):
            v0, v1, v2, v3 = _sip_round(v0, v1, v2, v3)
        v0 ^= block
    v2 ^= np.uint64(0xFF)
    for _ in range(4):
        v0, v1, v2, v3 = _sip_round(v0, v1, v2, v3)
    return v0 ^ v1 ^ v2 ^ v3


@kernel
def stream(seed, index, state):
    """Set `state[0]` to the start of stream `index` of run `seed`."""
    state[0] = mix64(mix64(np.uint64(seed)) + np.uint64(index))


@kernel
def round_key(unit, number):
    """The word that names round `number` of unit `unit`: unit << 20 | number."""
    return (np.uint64(unit) << np.uint64(20)) | (np.uint64(number) & np.uint64(0xFFFFF))


@spliced
def deal_stream(seed, unit, number, state):
    """Set `state[0]` to the start of the deal stream of round `number` of
    unit `unit` of run `seed` (see the module docstring)."""
    state[0] = sip(seed, DEAL, round_key(unit, number))


@spliced
def decide_stream(seed, unit, number, state):
    """Set `state[0]` to the start of the decide stream of round `number`
    of unit `unit` of run `seed` (see the module docstring)."""
    state[0] = sip(seed, DECIDE, round_key(unit, number))


@spliced
def keyed_deal_stream(seed, hi, unit, number, state):
    """`deal_stream` of the 128-bit seed hi << 64 | seed."""
    state[0] = sip(seed, DEAL ^ np.uint64(hi), round_key(unit, number))


@spliced
def keyed_decide_stream(seed, hi, unit, number, state):
    """`decide_stream` of the 128-bit seed hi << 64 | seed."""
    state[0] = sip(seed, DECIDE ^ np.uint64(hi), round_key(unit, number))


@kernel
def observed_bits(state, plays):
    """63 random bits for a user strategy's decision at play `plays`, keyed by
    the decide stream's state (read, not advanced)."""
    return np.int64(sip(state[0], OBSERVE, plays) >> np.uint64(1))


@kernel
def next_u64(state):
    """The stream's next 64 random bits."""
    state[0] += GOLDEN
    return mix64(state[0])


@kernel
def scaled(bits, n):
    """64 random bits as a draw in 0..n-1 (n < 2**32): multiply-shift on the
    high 32 bits."""
    return np.int64(((bits >> S32) * np.uint64(n)) >> S32)


@kernel
def below(state, n):
    """A draw in 0..n-1 (n < 2**32) from the stream (`scaled`)."""
    return scaled(next_u64(state), n)


@kernel
def shuffle(deck, state):
    """Fisher-Yates, from the top: for i = 39..1 swap deck[i], deck[below(i+1)].
    The stream's state is kept in a local for the loop (a store to `deck`
    might be one to `state` for all the compiler knows: it would go through
    memory at every draw)."""
    z = state[0]
    for i in range(deck.shape[0] - 1, 0, -1):
        z += GOLDEN
        j = scaled(mix64(z), i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    state[0] = z
