"""The net strategy (kernels/net.py) against its reference (net_reference.py):
the afterstates, the network's input (the kernel's and self-play's
`features`) and each move's value, over positions of random rounds and of
random card layouts; the tie rule; weights files (engine/nets.py); the
`weights` parameter; fair play (the hidden cards change nothing); the
shipped network in a run."""
import hashlib
import json
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import scopa_sim
from scopa_sim import Round, Rules, parse_strategy
from scopa_sim import kernels
# the kernel modules read below as attributes (kernels.<module>.<name>)
import scopa_sim.kernels.batch
import scopa_sim.kernels.moves
import scopa_sim.kernels.search
import scopa_sim.kernels.strategies
from scopa_sim.engine import nets
from scopa_sim.engine.rules import kernel_rules
from scopa_sim.kernels import net as N
from scopa_sim.kernels.layout import MAX_MOVES
from scopa_sim.kernels.moves import W_SIZE
from scopa_sim.kernels.position import (
    DECK, HAND, LAST, PILE, PLAYS, POS_SIZE, SCOPAS, TABLE, TOTAL, TURN)
from scopa_sim.engine.nets import features

import net_reference as R

# 2 players; 4 in two teams, all dealt at once; 3 alone; 4 with the scopa
# rules' variants (asso piglia tutto, a scopa on the last play); 6 in three teams
PRESETS = ["scopa", "scopone-scientifico", "scopa-3",
           "scopa-4+ace_takes_all+scopa_on_last_play", "scopa-6"]
TOLERANCE = 1e-5


# -- helpers ---------------------------------------------------------------------
def random_rounds(rules, count, seed, deck_not_out=False):
    """Rounds played by random legal moves to a random depth, not over
    (with `deck_not_out`, only positions with cards still to deal)."""
    r = random.Random(seed)
    out = []
    while len(out) < count:
        deck = list(range(40))
        r.shuffle(deck)
        game = Round(rules, deck=deck, dealer=r.randrange(rules.players))
        total = game.total_plays
        depth = r.randrange(total) if r.random() < 0.75 else total - 1 - r.randrange(4)
        for _ in range(depth):                     # (a quarter near the end: last plays)
            card, take = r.choice(game.legal_moves())
            game.play(card, take)
        pos, _ = game.kernel_position()
        if deck_not_out and pos[DECK] >= 40:
            continue
        out.append(game)
    return out


def random_weights(rng, h1=32, h2=16, scale=0.1):
    """A network's arrays (float32, as a weights file holds them)."""
    f32 = np.float32
    return (rng.normal(0, scale, (N.F_SIZE, h1)).astype(f32), rng.normal(0, scale, h1).astype(f32),
            rng.normal(0, scale, (h1, h2)).astype(f32), rng.normal(0, scale, h2).astype(f32),
            rng.normal(0, scale, h2).astype(f32), rng.normal(0, scale, 1).astype(f32))


def net_of(weights):
    """The kernel's Net of one network."""
    w1, b1, w2, b2, w3, b3 = weights
    return N.net_record(w1[None], b1[None], w2[None], b2[None], w3[None], b3)


def legal(pos, vector, seat):
    """The kernel's legal moves of `seat`: cards, takes, count."""
    cards, takes = np.zeros(MAX_MOVES, np.int64), np.zeros(MAX_MOVES, np.uint64)
    n = kernels.moves.legal_moves(pos[HAND + seat], pos[TABLE], vector, cards, takes,
                                  np.zeros(W_SIZE, np.int64))
    assert n >= 1
    return cards, takes, int(n)


def kernel_after(pos, vector, seat, card, take):
    a = np.zeros(N.A_SIZE, np.int64)
    N.after(pos, vector, np.int64(seat), np.int64(card), np.uint64(take), a)
    return a


def as_dict(a):
    return {name: int(a[i]) for i, name in enumerate(N.AFTER_FIELDS)}


def kernel_values(net, pos, vector, seat, n, cards, takes):
    N.move_values(net, np.int64(0), pos, vector, np.int64(seat), np.int64(n), cards, takes)
    return net.values[:n].astype(np.float64)


def close(kernel_value, reference_value):
    return abs(kernel_value - reference_value) <= TOLERANCE * max(1.0, abs(reference_value))


def check_decision(pos, vector, seat, weights, net):
    """Every legal move of `seat`: the kernel's afterstate is the reference's,
    its value the reference's, and pick_net the first best. Returns the
    kernel's afterstates (int64[n, A_SIZE]) and the reference's inputs."""
    cards, takes, n = legal(pos, vector, seat)
    values = kernel_values(net, pos, vector, seat, n, cards, takes)
    rows, xs, expected = [], [], []
    for i in range(n):
        ref = R.afterstate(pos, vector, seat, int(cards[i]), int(takes[i]))
        a = kernel_after(pos, vector, seat, cards[i], takes[i])
        assert as_dict(a) == ref, (i, as_dict(a), ref)
        x = R.feature_vector(ref)
        v = R.value(weights, x)
        assert close(values[i], v), (i, values[i], v)
        rows.append(a)
        xs.append(x)
        expected.append(v)
    pick = N.pick_net(np.int64(0), np.int64(seat), np.int64(n), pos, vector, cards, takes, net)
    if n > 1:
        assert pick == int(np.argmax(values))                  # the first of the highest
        best = int(np.argmax(expected))
        runner_up = max([v for i, v in enumerate(expected) if i != best])
        if expected[best] - runner_up > 1e-3:                   # no near tie: the same move
            assert pick == best
    else:
        assert pick == 0
    return np.array(rows, np.int64), np.array(xs)


# -- the afterstates and values of positions of random rounds ---------------------
@pytest.mark.parametrize("preset", PRESETS)
def test_afterstates_inputs_and_values_match_the_reference(preset):
    rules = Rules.resolve(preset)
    vector = kernel_rules(rules)
    rng = np.random.default_rng(PRESETS.index(preset))
    weights = random_weights(rng)
    net = net_of(weights)
    rows, xs = [], []
    for k, game in enumerate(random_rounds(rules, 30, seed=100 + PRESETS.index(preset))):
        if k % 10 == 0:                            # a fresh network now and then
            weights = random_weights(rng, h1=int(rng.integers(1, 40)), h2=int(rng.integers(1, 20)))
            net = net_of(weights)
        pos, _ = game.kernel_position()
        a, x = check_decision(pos, vector, game.turn, weights, net)
        rows.append(a)
        xs.append(x)
    rows, xs = np.concatenate(rows), np.concatenate(xs)
    got = features(rows)
    assert got.shape == xs.shape and got.dtype == np.float32
    np.testing.assert_array_equal(got.astype(np.float64), xs)


@pytest.mark.parametrize("preset", ["scopa", "scopa-4+ace_takes_all+scopa_on_last_play"])
def test_the_reference_afterstate_is_what_the_engine_plays(preset):
    """The reference checked against the engine itself: the table, piles,
    scopas and last capturer a move leaves (when no deal follows)."""
    rules = Rules.resolve(preset)
    vector = kernel_rules(rules)
    checked = 0
    for game in random_rounds(rules, 40, seed=7):
        pos, _ = game.kernel_position()
        seat, side = game.turn, rules.teams[game.turn]
        for card, take in game.legal_moves():
            ref = R.afterstate(pos, vector, seat, card, R.mask_of(take))
            child = game.copy()
            child.play(card, take)
            after, _ = child.kernel_position()
            assert ref["scopas_mine"] == int(after[SCOPAS + side])
            assert ref["scopas_theirs"] == sum(int(after[SCOPAS + t]) for t in range(rules.n_sides)
                                               if t != side)
            if child.done or after[DECK] != pos[DECK]:
                continue                           # the table swept, or a deal
            assert ref["hand"] == int(after[HAND + seat])
            assert ref["table"] == int(after[TABLE])
            assert ref["mine"] == int(after[PILE + side])
            last = int(after[LAST])
            assert ref["last"] == (0 if not last else 1 if rules.teams[last - 1] == side else 2)
            checked += 1
    assert checked >= 50


# -- random card layouts (not necessarily reachable) -----------------------------
VARIANTS = ["scopa", "scopa+ace_takes_all+scopa_on_last_play", "scopa+ace_takes_all",
            "scopa-3+scopa_on_last_play", "scopone-scientifico+ace_takes_all", "scopa-6"]
_NET = {}


@st.composite
def layouts(draw):
    """A rules variant and a position: every card in a hand, on the table, in
    a side's pile or in the deck; scopas, last capturer, plays (the next one
    the round's last, sometimes) at random; the mover holds a card."""
    rules = Rules.resolve(draw(st.sampled_from(VARIANTS)))
    n, sides = rules.players, rules.n_sides
    places = draw(st.lists(st.integers(0, n + sides + 1), min_size=40, max_size=40))
    seat = draw(st.integers(0, n - 1))
    table_room = draw(st.integers(0, 5))          # small tables: sweeps, so scopas
    pos = np.zeros(POS_SIZE, np.uint64)
    in_deck = 0
    for card, place in enumerate(places):
        bit = np.uint64(1 << card)
        if place < n:
            pos[HAND + place] |= bit
        elif place == n:
            if table_room:
                pos[TABLE] |= bit
                table_room -= 1
            else:
                in_deck += 1
        elif place <= n + sides:
            pos[PILE + place - n - 1] |= bit
        else:
            in_deck += 1
    if not pos[HAND + seat]:                      # the mover holds a card
        card = draw(st.integers(0, 39))
        for k in range(POS_SIZE):
            pos[k] &= ~np.uint64(1 << card)
        pos[HAND + seat] |= np.uint64(1 << card)
    for t in range(sides):
        pos[SCOPAS + t] = draw(st.integers(0, 12))
    pos[LAST] = draw(st.integers(0, n))
    pos[DECK] = 40 - in_deck
    pos[PLAYS] = draw(st.integers(0, 38))
    pos[TOTAL] = pos[PLAYS] + draw(st.integers(1, 3))
    pos[TURN] = seat
    return rules, pos, seat


@settings(max_examples=150, deadline=None)
@given(layouts(), st.integers(0, 2**32 - 1))
def test_afterstates_and_values_of_any_layout_match_the_reference(layout, seed):
    rules, pos, seat = layout
    if rules.name not in _NET:
        weights = random_weights(np.random.default_rng(len(_NET)), h1=24, h2=8)
        _NET[rules.name] = weights, net_of(weights)
    weights, net = _NET[rules.name]
    a, x = check_decision(pos, kernel_rules(rules), seat, weights, net)
    np.testing.assert_array_equal(features(a).astype(np.float64), x)


def test_counts_are_capped_at_their_last_slot():
    """Scopas past 7, a hand past 10: the last slot of their field."""
    after = {"hand": (1 << 12) - 1, "table": 0, "mine": 0, "theirs": 0, "scopas_mine": 9,
             "scopas_theirs": 30, "deck_left": 40, "hand_size": 12, "next_hand": 11, "last": 2,
             "next_partner": 1, "table_sum": 25, "unseen": (1 << 40) - (1 << 12)}
    x = R.feature_vector(after)
    assert x[N.F_SCOPAS_MINE + 7] == x[N.F_SCOPAS_THEIRS + 7] == 1
    assert x[N.F_HAND_SIZE + 10] == x[N.F_NEXT_HAND + 10] == x[N.F_DECK_LEFT + 40] == 1
    assert x[N.F_TABLE_SUM + 11] == 1
    # cards 0..11 are not unseen: two of each of ranks 1 and 2 (0, 10; 1, 11), one of the others
    assert x[N.F_UNSEEN_RANK + 2] == x[N.F_UNSEEN_RANK + 5 + 2] == x[N.F_UNSEEN_RANK + 10 + 3] == 1
    assert x.sum() == 12 + 7 + 1 + 10             # the hand, seven counts, the flag, ten ranks
    row = np.array([[after[name] for name in N.AFTER_FIELDS]], np.int64)
    np.testing.assert_array_equal(features(row)[0], x)


@pytest.mark.parametrize("table, ranks", [([], []), ([4], [5]), ([4, 12], [3, 5, 8]),
                                           ([0, 10, 20], [1, 2, 3]), ([9, 19], [10])])
def test_takes_marks_the_ranks_some_table_cards_sum_to(table, ranks):
    """Cards 4 (a 5), 12 (a 3), 0/10/20 (aces), 9/19 (kings, 10): a king
    takes a king, two kings sum past 10."""
    x = R.feature_vector({**dict.fromkeys(N.AFTER_FIELDS, 0), "table": R.mask_of(table)})
    assert list(np.flatnonzero(x[N.F_TAKES:N.F_TAKES + 10]) + 1) == ranks
    row = np.array([[R.mask_of(table) if f == "table" else 0 for f in N.AFTER_FIELDS]])
    np.testing.assert_array_equal(features(row)[0], x)


def test_a_network_of_an_earlier_version_plays_as_it_did(tmp_path):
    """A network with the inputs before `takes` loads with zero rows for
    it: its values are the earlier inputs' through its own rows."""
    (old,) = N.EARLIER_F_SIZES
    weights = random_weights(np.random.default_rng(8), h1=16, h2=8)
    weights = (weights[0][:old], *weights[1:])
    path = _write(tmp_path / "old.npz", dict(zip(nets.NAMES, weights)),
                  json.dumps({"format": nets.FORMAT, "features": old}))
    w = nets.load(path)
    assert w.arrays[0].shape == (N.F_SIZE, 16) and not w.arrays[0][old:].any()
    net = N.net_record(*(a[None] for a in w.arrays[:5]), w.arrays[5])
    vector = kernel_rules(Rules.resolve("scopa"))
    for game in random_rounds(Rules.resolve("scopa"), 5, seed=5):
        pos, _ = game.kernel_position()
        cards, takes, n = legal(pos, vector, game.turn)
        values = kernel_values(net, pos, vector, game.turn, n, cards, takes)
        for i in range(n):
            x = R.feature_vector(R.afterstate(pos, vector, game.turn, int(cards[i]),
                                              int(takes[i])))
            assert abs(values[i] - R.value(weights, x[:old])) < TOLERANCE


# -- the tie rule ---------------------------------------------------------------
def _many_moves(preset="scopa", at_least=3):
    rules = Rules.resolve(preset)
    vector = kernel_rules(rules)
    for game in random_rounds(rules, 60, seed=11):
        pos, _ = game.kernel_position()
        cards, takes, n = legal(pos, vector, game.turn)
        if n >= at_least:
            return game, pos, vector, cards, takes, n
    raise AssertionError("no position with enough moves")


@pytest.mark.parametrize("h1", [1, 7, 13, 64])
def test_the_head_sums_as_one_row_at_a_time_in_the_units_order(h1):
    """`head` adds the second layer's rows four at a time; every element's
    sum is still taken in the units' order, so its value is the float32 bits
    of the plain loop (rows of the positive units, one at a time)."""
    rng = np.random.default_rng(h1)
    f32 = np.float32
    z, w2 = rng.normal(size=h1).astype(f32), rng.normal(size=(h1, 9)).astype(f32)
    b2, w3, b3 = rng.normal(size=9).astype(f32), rng.normal(size=9).astype(f32), f32(0.25)
    z2 = b2.copy()
    for i in range(h1):
        if z[i] > 0:
            z2 = z2 + z[i] * w2[i]
    v = b3
    for j in range(9):
        if z2[j] > 0:
            v = f32(v + z2[j] * w3[j])
    got = N.head(z, np.zeros(9, f32), w2, b2, w3, b3, np.zeros(h1, np.int64), np.zeros(h1, f32))
    assert f32(got) == v


def test_equal_values_choose_the_first_move():
    game, pos, vector, cards, takes, n = _many_moves()
    f32 = np.float32
    flat = (np.zeros((N.F_SIZE, 4), f32), np.zeros(4, f32), np.zeros((4, 2), f32),
            np.zeros(2, f32), np.zeros(2, f32), np.ones(1, f32))
    net = net_of(flat)
    assert N.pick_net(np.int64(0), np.int64(game.turn), np.int64(n), pos, vector, cards, takes,
                      net) == 0
    np.testing.assert_array_equal(net.values[:n], np.ones(n, f32))
    values = np.array([0, 2, 2, 1, 5], np.float32)
    assert kernels.search.best_total(values, np.int64(4)) == 1            # the first of the highest
    assert kernels.search.best_total(values, np.int64(1)) == 0


def favouring(x, h1=4, h2=2):
    """A network whose value is highest for input `x` alone: the one unit
    counts x's ones less the others' ones."""
    f32 = np.float32
    w1 = np.zeros((N.F_SIZE, h1), f32)
    w1[:, 0] = 2 * np.asarray(x) - 1
    w2, w3 = np.zeros((h1, h2), f32), np.zeros(h2, f32)
    w2[0, 0], w3[0] = 1, 1
    return w1, np.zeros(h1, f32), w2, np.zeros(h2, f32), w3, np.zeros(1, f32)


def test_a_network_favouring_a_move_chooses_it(tmp_path):
    game, pos, vector, cards, takes, n = _many_moves()
    seat = game.turn
    for target in range(n):
        x = R.feature_vector(R.afterstate(pos, vector, seat, int(cards[target]),
                                          int(takes[target])))
        weights = favouring(x)
        assert N.pick_net(np.int64(0), np.int64(seat), np.int64(n), pos, vector, cards, takes,
                          net_of(weights)) == target
    # and through the strategy, from a weights file (the last target)
    nets.save(tmp_path / "fav.npz", weights, {"preset": "scopa"})
    move = game.suggest(f"net:weights={tmp_path / 'fav.npz'},endgame=0")
    assert move == (int(cards[n - 1]), tuple(R.cards_of(int(takes[n - 1]))))


# -- weights files ---------------------------------------------------------------
def test_save_then_load_gives_the_same_network(tmp_path):
    weights = random_weights(np.random.default_rng(5), h1=24, h2=12)
    path = tmp_path / "w.npz"
    sha = nets.save(path, weights, {"preset": "scopa", "note": "test"})
    assert sha == hashlib.sha256(path.read_bytes()).hexdigest()
    w = nets.load(path)
    assert w.sha256 == sha and w.text == str(path) and w.shape == (24, 12)
    for got, want in zip(w.arrays, weights):
        assert got.dtype == np.float32
        np.testing.assert_array_equal(got, want)
    assert w.meta["format"] == nets.FORMAT and w.meta["features"] == N.F_SIZE
    assert w.meta["preset"] == "scopa" and w.meta["note"] == "test"
    assert nets.load(str(path)) == w


def _write(path, arrays, meta=None):
    """An npz of these arrays (by name) and a meta text, as nets.save would
    not write it."""
    meta = json.dumps({"format": nets.FORMAT, "features": N.F_SIZE}) if meta is None else meta
    with open(path, "wb") as f:
        np.savez(f, **arrays, **({} if meta is False else {"meta": np.array(meta)}))
    return path


def _good():
    return dict(zip(nets.NAMES, random_weights(np.random.default_rng(1), h1=8, h2=4)))


def _bad_files(tmp_path):
    good = _good()
    nan = dict(good, w2=good["w2"].copy())
    nan["w2"][1, 2] = np.nan
    inf = dict(good, b1=good["b1"].copy())
    inf["b1"][0] = np.inf
    garbage = tmp_path / "garbage.npz"
    garbage.write_text("this is not\na weights file\n")
    empty = tmp_path / "empty.npz"
    empty.write_bytes(b"")
    w3 = {k: v for k, v in good.items() if k != "w3"}
    return {
        "missing": (tmp_path / "nowhere.npz", "no such file"),
        "garbage": (garbage, "not a weights file"),
        "empty": (empty, "not a weights file"),
        "no arrays": (_write(tmp_path / "bare.npz", {}), "no w1, b1, w2, b2, w3, b3"),
        "no w3": (_write(tmp_path / "now3.npz", w3), "no w3"),
        "no meta": (_write(tmp_path / "nometa.npz", good, meta=False), "no meta"),
        "w1 rows": (_write(tmp_path / "rows.npz", dict(good, w1=np.zeros((100, 8), np.float32))),
                    f"w1 has shape (100, 8), not ({N.F_SIZE}, H1)"),
        "w2 rows": (_write(tmp_path / "w2.npz", dict(good, w2=np.zeros((9, 4), np.float32))),
                    "w2 has shape (9, 4)"),
        "b3 shape": (_write(tmp_path / "b3.npz", dict(good, b3=np.zeros(2, np.float32))),
                     "b3 has shape (2,)"),
        "nan": (_write(tmp_path / "nan.npz", nan), "w2 is not all finite"),
        "inf": (_write(tmp_path / "inf.npz", inf), "b1 is not all finite"),
        "ints": (_write(tmp_path / "ints.npz", dict(good, b2=np.zeros(4, np.int64))),
                 "b2 is not all finite"),
        "meta format": (_write(tmp_path / "other.npz", good,
                               json.dumps({"format": "scopa-sim-net/0"})), "meta is not"),
        "meta text": (_write(tmp_path / "text.npz", good, "{not json"), "meta is not"),
        "meta list": (_write(tmp_path / "list.npz", good, "[1, 2]"), "meta is not"),
    }


@pytest.mark.parametrize("case", ["missing", "garbage", "empty", "no arrays", "no w3", "no meta",
                                  "w1 rows", "w2 rows", "b3 shape", "nan", "inf", "ints",
                                  "meta format", "meta text", "meta list"])
def test_a_bad_weights_file_is_one_line_naming_it(tmp_path, case):
    path, says = _bad_files(tmp_path)[case]
    with pytest.raises(nets.WeightsError) as e:
        nets.load(path)
    message = str(e.value)
    assert "\n" not in message and str(path) in message and says in message, message
    with pytest.raises(ValueError) as e:                 # and as the strategy's parameter
        parse_strategy(f"net:weights={path}")
    assert str(path) in str(e.value)


def test_save_refuses_a_network_of_another_shape(tmp_path):
    good = _good()
    for bad in (dict(good, w1=np.zeros((100, 8), np.float32)),
                dict(good, w3=np.full(4, np.nan, np.float32))):
        with pytest.raises(nets.WeightsError):
            nets.save(tmp_path / "bad.npz", [bad[k] for k in nets.NAMES], {})
    assert not (tmp_path / "bad.npz").exists()


def test_a_npy_file_is_a_weights_error(tmp_path):
    path = tmp_path / "array.npy"
    np.save(path, np.zeros(3))
    with pytest.raises(nets.WeightsError):
        nets.load(path)


def test_weights_beyond_float32_are_refused(tmp_path):
    good = _good()
    big = good["w1"].astype(np.float64)
    big[0, 0] = 1e39
    path = _write(tmp_path / "big.npz", dict(good, w1=big))
    with pytest.raises(nets.WeightsError):
        nets.load(path)


# -- the weights parameter -------------------------------------------------------
def test_the_weights_parameter_loads_the_file(tmp_path):
    weights = random_weights(np.random.default_rng(2), h1=16, h2=8)
    path = tmp_path / "mine.npz"
    sha = nets.save(path, weights, {})
    s = parse_strategy(f"net:weights={path}")
    (w,) = s.nets()
    assert w.sha256 == sha and w.text == str(path)
    np.testing.assert_array_equal(w.arrays[0], weights[0])
    assert str(s) == f"net:weights={path}"
    assert str(parse_strategy(str(s))) == str(s)
    assert str(parse_strategy(f"net:weights={path},endgame=0")) == f"net:weights={path},endgame=0"
    assert str(parse_strategy("net")) == "net"
    assert parse_strategy("net:weights=shipped").nets() == [nets.shipped()]
    with pytest.raises(ValueError, match="no such file"):
        parse_strategy(f"net:weights={tmp_path / 'absent.npz'}")


# -- fair play -------------------------------------------------------------------
def _reshuffled(pos, deck, seat, players, r):
    """The position with the cards `seat` cannot see (the other hands and
    the undealt deck) dealt again at random, each hand keeping its size."""
    pos, deck = pos.copy(), deck.copy()
    at = int(pos[DECK])
    others = [s for s in range(players) if s != seat]
    hidden = [c for s in others for c in R.cards_of(pos[HAND + s])] + deck[at:].tolist()
    sizes = [len(R.cards_of(pos[HAND + s])) for s in others]
    r.shuffle(hidden)
    for s, k in zip(others, sizes):
        pos[HAND + s] = np.uint64(R.mask_of(hidden[:k]))
        hidden = hidden[k:]
    deck[at:] = hidden
    return pos, deck


def _decide(strategy, pos, deck, rules):
    """The strategy's move index and the net's values under `rules`, by the
    kernel's dispatch (as `Round.suggest` calls it, with the preset's network)."""
    s, vector = parse_strategy(strategy), kernel_rules(rules)
    scratch = kernels.batch.scratch(nets=nets.record(s.nets(rules)))
    seat = int(pos[TURN])
    n = int(kernels.moves.legal_moves(pos[HAND + seat], pos[TABLE], vector, scratch.cards,
                                scratch.takes, scratch.work))
    i = kernels.batch.call(kernels.strategies.decide, s.spec.id, s.vector(), seat, n,
                           scratch.board(pos, deck), scratch.kit(vector))
    return int(i), scratch.net.values[:n].copy(), n


@pytest.mark.parametrize("preset, strategy", [("scopa", "net"), ("scopa-4", "net"),
                                              ("scopone-scientifico", "net:endgame=0")])
def test_the_hidden_cards_change_nothing(preset, strategy):
    rules = Rules.resolve(preset)
    r = random.Random(31)
    tested = changed = 0
    for game in random_rounds(rules, 12, seed=41, deck_not_out=preset != "scopone-scientifico"):
        pos, deck = game.kernel_position()
        choice, values, n = _decide(strategy, pos, deck, rules)
        if n == 1:
            continue
        assert game.suggest(strategy) == game.legal_moves()[choice]
        for _ in range(3):
            p2, d2 = _reshuffled(pos, deck, game.turn, rules.players, r)
            assert p2[HAND + game.turn] == pos[HAND + game.turn]
            changed += not np.array_equal(p2, pos) or not np.array_equal(d2, deck)
            choice2, values2, _ = _decide(strategy, p2, d2, rules)
            assert choice2 == choice
            np.testing.assert_array_equal(values2, values)
        tested += 1
    assert tested >= 6 and changed >= 3 * tested - 2


@pytest.mark.parametrize("preset", ["scopa-3", "scopone-scientifico"])
def test_with_few_cards_left_in_hands_net_plays_endgames_sampled_move(preset):
    """Once the deck is out and at most `deal_cards` are in hands, net plays
    endgame's move (its sampled exact play on the same deals, or its exact one
    when a single other hand holds the rest); with `deals=0` the network's."""
    rules = Rules.resolve(preset)
    r = random.Random(5)
    differ = 0
    for k in range(16):
        game = Round(rules, deck=r.sample(range(40), 40), dealer=r.randrange(rules.players))
        for _ in range(game.total_plays - r.randint(2, 7)):
            game.play(*r.choice(game.legal_moves()))
        played = game.suggest("net", seed=k)
        assert played == game.suggest("endgame:deals=16,deal_cards=7", seed=k)
        differ += played != game.suggest("net:deals=0", seed=k)
    assert differ >= 1


# -- the shipped network ---------------------------------------------------------
def test_the_shipped_network_loads_and_plays():
    w = nets.shipped()
    assert w.arrays[0].shape[0] == N.F_SIZE and w.meta["format"] == nets.FORMAT
    assert all(np.isfinite(a).all() and a.dtype == np.float32 for a in w.arrays)
    df = scopa_sim.simulate(200, strategies="net,random", seed=3)
    assert len(df) == 200
    again = scopa_sim.simulate(200, strategies="net,random", seed=3, workers=2, batch_size=50)
    assert df.equals(again)


@pytest.mark.parametrize("name, preset", [("v1", "scopa"), ("scopa-3-v1", "scopa-3"),
                                          ("scopa-4-v1", "scopa-4")])
def test_the_networks_shipped_before_are_still_played_by_name(name, preset):
    s = parse_strategy(f"net:weights={name}")
    (w,) = s.nets()
    assert w == nets.earlier(name) and w.text == name and str(s) == f"net:weights={name}"
    assert w.arrays[0].shape[0] == N.F_SIZE and w.meta["format"] == nets.FORMAT
    assert w.meta.get("preset", "scopa") == preset
    assert w.sha256 != nets.shipped(preset).sha256 and str(parse_strategy(str(s))) == str(s)


def test_a_run_of_the_network_shipped_before_is_told_how_to_play_it():
    from scopa_sim.runs.plan import shipped_before
    assert "net:weights=v1" in shipped_before({"shipped": nets.earlier("v1").sha256})
    assert shipped_before({"shipped": nets.shipped().sha256}) == ""
    assert shipped_before({"v1": nets.earlier("v1").sha256}) == shipped_before({}) == ""


def test_the_shipped_network_matches_the_reference():
    w = nets.shipped()
    net = N.net_record(*(a[None] for a in w.arrays[:5]), w.arrays[5])
    rules = Rules.resolve("scopa")
    for game in random_rounds(rules, 10, seed=77):
        pos, _ = game.kernel_position()
        check_decision(pos, kernel_rules(rules), game.turn, w.arrays, net)


def test_each_seat_plays_its_own_network(tmp_path):
    """Two networks in one run: each seat's `weights` index is its own. A copy
    of the shipped network in a file plays as the shipped one; a flat one
    (every value equal: always the first move) plays otherwise."""
    shipped = nets.shipped()
    copy, flat = tmp_path / "copy.npz", tmp_path / "flat.npz"
    nets.save(copy, shipped.arrays, {"preset": "scopa"})
    nets.save(flat, [np.zeros_like(a) for a in shipped.arrays[:5]] + [np.ones(1, np.float32)], {})
    first = f"net:weights={flat},endgame=0"

    def run(*strategies):
        return scopa_sim.simulate(100, strategies=list(strategies), seed=8)

    assert run("net", "random").equals(run(f"net:weights={copy}", "random"))
    mixed = run(first, "net")
    assert mixed.equals(run(first, f"net:weights={copy}"))
    assert not mixed.equals(run(first, first))
    assert not mixed.equals(run("net", "net"))
    assert run("net", first).equals(run(f"net:weights={copy}", first))


def test_networks_of_two_shapes_play_in_one_run_as_each_alone(tmp_path):
    """A narrower network is padded with zero units to the widest in the
    run's record; each network's values keep their bits."""
    rng = np.random.default_rng(12)
    narrow, wide = tmp_path / "narrow.npz", tmp_path / "wide.npz"
    nets.save(narrow, random_weights(rng, h1=16, h2=8), {})
    nets.save(wide, random_weights(rng, h1=32, h2=16), {})
    narrow, wide = nets.load(narrow), nets.load(wide)
    both, alone = nets.record([narrow, wide]), (nets.record([narrow]), nets.record([wide]))
    vector = kernel_rules(Rules.resolve("scopa"))
    for game in random_rounds(Rules.resolve("scopa"), 5, seed=12):
        pos, _ = game.kernel_position()
        cards, takes, n = legal(pos, vector, game.turn)
        for model in range(2):
            N.move_values(both, np.int64(model), pos, vector, np.int64(game.turn), np.int64(n),
                          cards, takes)
            np.testing.assert_array_equal(both.values[:n],
                                          kernel_values(alone[model], pos, vector, game.turn, n,
                                                        cards, takes))


# -- a stored run records its networks ---------------------------------------------
def test_a_run_records_each_networks_sha256_and_resuming_with_other_weights_is_refused(tmp_path):
    import hashlib
    import shutil
    from click.testing import CliRunner
    from scopa_sim.cli import main
    from scopa_sim.runs.plan import RunSpec
    from scopa_sim.runs.resume import simulate_part
    from scopa_sim.runs.store import Run
    mine = tmp_path / "mine.npz"
    shutil.copy(nets.shipped_path(), mine)
    root = tmp_path / "run"
    spec = RunSpec.make(rounds=400, strategies=(f"net:weights={mine}", "net"), seed=4,
                        batch_size=200)
    with Run.create(root, spec) as run:
        run.save(0, simulate_part(spec, run.meta, 0)[0])
    manifest = json.loads((root / "manifest.json").read_text())
    sha = hashlib.sha256(mine.read_bytes()).hexdigest()
    assert manifest["nets"] == {str(mine): sha, "shipped": nets.shipped().sha256}
    other = _good()
    nets.save(mine, [other[k] for k in nets.NAMES], {"preset": "scopa"})
    r = CliRunner().invoke(main, ["simulate", "--resume", str(root)])
    assert r.exit_code == 2 and f"network {mine} is not the one the run played" in r.output
    assert "Traceback" not in r.output


def test_a_run_made_before_nets_play_changed_is_read_but_not_resumed_or_verified(tmp_path,
                                                                             monkeypatch):
    """A multi-seat run of net records the revision of net's play; one made
    before it (no revisions recorded, as an older scopa-sim wrote) is refused
    by --resume and verify in one line; 2-player runs record none."""
    from click.testing import CliRunner
    from scopa_sim.cli import main
    from scopa_sim.runs import plan
    from scopa_sim.runs.resume import simulate_part
    from scopa_sim.runs.store import Run
    three = plan.RunSpec.make(rounds=400, strategies="net,endgame,net", rules="scopa-3", seed=4,
                              batch_size=200)
    assert plan.spec_dict(three)["revisions"] == {"net": 1}
    assert "revisions" not in plan.spec_dict(plan.RunSpec.make(rounds=10, strategies="net,net"))
    with monkeypatch.context() as m:                          # as scopa-sim wrote it before
        m.setattr(plan, "revisions", lambda seats, rules: {})
        with Run.create(tmp_path / "half", three) as run:
            run.save(0, simulate_part(three, run.meta, 0)[0])
        done = CliRunner().invoke(main, ["simulate", "--rules", "scopa-3", "--rounds", "200",
                                         "--strategies", "net,endgame,net", "--seed", "4",
                                         "--out", str(tmp_path / "done")])
        assert done.exit_code == 0, done.output
    assert len(Run.open(tmp_path / "done").read()) == 200                # read as ever
    for args in (["simulate", "--resume", str(tmp_path / "half")],
                 ["verify", str(tmp_path / "done")]):
        r = CliRunner().invoke(main, args)
        assert r.exit_code == 2 and "made when net played otherwise" in r.output, r.output
        assert len(r.output.strip().splitlines()) == 1 and "Traceback" not in r.output
    assert len(Run.open(tmp_path / "half").read()) == 200                # nothing added
    written = plan.spec_dict(three)
    for bad in ("net", {"net": "1"}, {"net": 0}, {"net": True}, {"net": 10**6}):
        with pytest.raises(ValueError, match="revisions must be a JSON object"):
            plan.StoredSpec.from_dict({**written, "revisions": bad})


def test_a_folder_given_as_weights_is_one_line(tmp_path):
    with pytest.raises(nets.WeightsError, match="a folder"):
        nets.load(tmp_path)


def test_advise_plays_its_rollouts_with_net():
    df = scopa_sim.advise(hand="7d 7h As", table="2c 4h 5s Qd", strategy="net", rollouts=60,
                          seed=1)
    assert df.attrs["strategy"] == "net" and len(df) == 3
    assert df["margin"].notna().all()


def _declaring(path, shape):
    """A weights file whose w1 declares `shape` in its .npy header, and holds
    only a few bytes after it: what a 1.3 MB file unpacked to 1.4 GB looked like."""
    import io
    import zipfile
    arrays = _good()
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for k, a in [*arrays.items(), ("meta", np.array(json.dumps(
                {"format": nets.FORMAT, "features": N.F_SIZE})))]:
            buf = io.BytesIO()
            if k == "w1":
                np.lib.format.write_array_header_1_0(
                    buf, {"descr": "<f4", "fortran_order": False, "shape": shape})
                buf.write(b"\0" * 64)
            else:
                np.lib.format.write_array(buf, a)
            z.writestr(f"{k}.npy", buf.getvalue())
    return path


@pytest.mark.parametrize("shape, says", [((N.F_SIZE, 1_000_000), "declares shape"),
                                         ((N.F_SIZE, 4096), "w1 has shape"),
                                         ((10**12, 10**12), "declares shape")])
def test_a_weights_files_shapes_are_read_before_anything_is_unpacked(tmp_path, monkeypatch,
                                                                      shape, says):
    path = _declaring(tmp_path / "huge.npz", shape)
    monkeypatch.setattr(np, "load", lambda *a, **k: pytest.fail("unpacked before refusing"))
    with pytest.raises(nets.WeightsError, match=says) as e:
        nets.load(path)
    assert str(path) in str(e.value) and "\n" not in str(e.value)


def test_a_weights_file_beyond_any_networks_size_is_not_read(tmp_path, monkeypatch):
    path = tmp_path / "huge.npz"
    with open(path, "wb") as f:
        f.truncate(nets.MAX_FILE + 1)                 # sparse: no disk spent
    monkeypatch.setattr(type(path), "read_bytes", lambda self: pytest.fail("read"))
    with pytest.raises(nets.WeightsError, match="more than a network"):
        nets.load(path)


def test_a_preset_with_a_network_of_its_own_plays_it(tmp_path):
    """`net` plays the network shipped for the preset of the rules (scopone
    scientifico has one), scopa's where a preset has none (scopa-6); a run records
    the one it played, and plays exactly as with the file named."""
    from scopa_sim import simulate
    from scopa_sim.engine.rules import Rules
    from scopa_sim.runs.plan import RunSpec, spec_dict
    scopone, scopa6 = Rules.resolve("scopone-scientifico"), Rules.resolve("scopa-6")
    own = nets.shipped("scopone-scientifico")
    assert own.meta["preset"] == "scopone-scientifico" and own != nets.shipped()
    net = parse_strategy("net")
    assert net.nets(scopone) == [own] == net.nets(Rules.resolve("scopone-scientifico+target=21"))
    assert net.nets(scopa6) == [nets.shipped()] == net.nets()
    assert str(net) == "net"                          # still written as the default
    spec = RunSpec.make(rounds=10, strategies=("net", "net"), rules=scopone, seed=1)
    assert spec_dict(spec)["nets"] == {"shipped": own.sha256}
    path = nets.shipped_path("scopone-scientifico")
    played = [simulate(rounds=60, strategies=(s, "endgame"), rules="scopone-scientifico",
                       seed=3, workers=1)
              for s in ("net", f"net:weights={path}", f"net:weights={nets.shipped_path()}")]
    cols = [c for c in played[0].columns if c.startswith(("points_", "scopas_"))]
    assert played[0][cols].equals(played[1][cols])
    assert not played[0][cols].equals(played[2][cols])
