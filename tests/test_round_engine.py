"""`Round` is a checked wrapper over the kernel's position arrays: stepping it
is the kernel's code path, so it must agree with the slow reference
(tests/reference/engine.py) move for move on random rounds of every rule
set; a position rebuilt with `from_position` must step like the round it
came from; the log is a golden transcript; and stepping makes no scratch
arrays, packs no rules and checks no position it built itself (the
overhead, seen without timing it: benchmarks/bench_round.py times it).
"""
import random
import re
import threading

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import scopa_sim
from scopa_sim import Round, Rules, parse_cards
from scopa_sim.engine import game as face
from scopa_sim.engine.cards import names
from scopa_sim.kernels import batch, layout as L
from scopa_sim.kernels import position as P

try:
    from tests.reference import engine as ref
except ImportError:  # tests/ on sys.path instead of the repo root
    from reference import engine as ref

RULES = [
    "scopa", "scopa-3", "scopa-4", "scopa-4-nine", "scopone-scientifico", "scopa-6",
    "scopa+fewest_cards+ace_takes_all+scopa_on_last_play+primiera_forfeit+re_bello+napola",
    "scopa-3+ace_takes_all+napola", "scopa-4+fewest_cards+primiera_forfeit",
    "scopa-4-nine+scopa_on_last_play+re_bello", "scopa-6+ace_takes_all+scopa_on_last_play",
    "scopa+primiera_scale=1,1,1,1,1,1,1,1,1,1000",
]
# who picks Round's moves: None is Python's random choice among legal_moves()
CHOOSERS = [None, "random", "greedy", "heuristic", "counter"]
SMALL = {"samples": 2, "iterations": 8, "max_cards": 4}
EVERY = [":".join([name, ",".join(f"{k}={SMALL[k]}" for k in spec.params if k in SMALL)]).rstrip(":")
         for name, spec in scopa_sim.STRATEGIES.items()]
SETTINGS = settings(max_examples=60, deadline=None)


def dealt(deck, rules_id, dealer):
    rules = Rules.preset(rules_id)
    return rules, Round(rules, deck=list(deck), dealer=dealer % rules.players)


# ---- stepping against the reference ---------------------------------------
@SETTINGS
@given(deck=st.permutations(range(40)), rules_id=st.sampled_from(RULES),
       dealer=st.integers(0, 5), chooser=st.sampled_from(CHOOSERS),
       seed=st.integers(0, 2**64 - 1))
def test_stepping_a_round_agrees_with_the_reference(deck, rules_id, dealer, chooser, seed):
    """The reference plays the round in lockstep, asking `Round` for each
    move: at every turn both list the same legal moves and show the same
    table (in the same order); at the end the same record."""
    rules, game = dealt(deck, rules_id, dealer)
    pick = random.Random(seed)

    def follow(moves, table, is_last_play, rng):
        assert not game.done and game.legal_moves() == moves
        assert game.table == table
        hand = game.hands[game.turn]
        assert sorted({c for c, _ in moves}) == hand
        if chooser is None:
            move = pick.choice(moves)
        else:
            move = game.suggest(chooser, seed=pick.randrange(2**64))
        assert game.play(*move) == move
        return move

    log = []
    want = ref.play_round(list(deck), game.dealer, (follow,) * rules.players,
                          ref.from_rules(rules), ref.stream(0, 0), log=log)
    assert game.done and game.legal_moves() == []
    assert game.moves == log
    got = game.result()
    assert {k: got[k] for k in want} == want
    pos, _ = game.kernel_position()
    assert [int(pos[P.PILE + t]) for t in range(rules.n_sides)] == [
        sum(1 << c for c in pile) for pile in game.piles]


@SETTINGS
@given(deck=st.permutations(range(40)), rules_id=st.sampled_from(RULES),
       dealer=st.integers(0, 5), cut=st.integers(0, 39), seed=st.integers(0, 2**32))
def test_a_position_rebuilt_mid_round_steps_like_the_round(deck, rules_id, dealer, cut, seed):
    """From hands, table and deck only, `from_position` builds a position
    the kernel steps exactly as the round it came from; the cards played
    before are out of the round, in no side's pile."""
    rules, game = dealt(deck, rules_id, dealer)
    pick = random.Random(seed)
    for _ in range(cut % (40 - rules.table_size)):
        game.play(*pick.choice(game.legal_moves()))
    rebuilt = Round.from_position(hands=[names(h) for h in game.hands], table=names(game.table),
                                  deck=names(game.deck), rules=rules, dealer=game.dealer)
    pos, _ = rebuilt.kernel_position()
    before = game.kernel_position()[0]
    if rules.n_sides < L.MAX_PLAYERS:         # the cards out of the round: the piles so far
        assert int(pos[P.PILE + face.OUT]) == sum(1 << c for p in game.piles for c in p)
    scopas = game.scopas
    while not game.done:
        assert (rebuilt.turn, rebuilt.hands, rebuilt.table, rebuilt.deck, rebuilt.legal_moves()) \
            == (game.turn, game.hands, game.table, game.deck, game.legal_moves())
        move = pick.choice(game.legal_moves())
        game.play(*move)
        rebuilt.play(*move)
    assert rebuilt.done
    assert rebuilt.scopas == [a - b for a, b in zip(game.scopas, scopas)]
    assert rebuilt.captures == game.captures - int(before[P.CAPTURES])
    assert rebuilt.last_capturer == (game.last_capturer if rebuilt.captures else -1)
    assert rebuilt.result()["leftover"] == game.result()["leftover"]


def test_trace_round_replays_the_kernels_round_through_round():
    """`trace_round` replays a simulated round through `Round`: the two
    kernel paths (the batch loop and Round's calls) give the same row."""
    for index in range(20):
        row = scopa_sim.simulate(rounds=index + 1, strategies=("greedy", "random"),
                                 seed=5).iloc[index]
        result = scopa_sim.trace_round(5, index, strategies=("greedy", "random")).result()
        assert {k: int(row[k]) for k in result} == result


# ---- the log: a golden transcript -----------------------------------------
# Seed 003's stacked deck played to the end (two scopas), and a four-player
# position dealt on the spot (12 cards out of the round) whose leftovers go
# to the last capturer. The moves are read back from the text.
SEED_003 = "2c 4h 5s Qd 7d 3h 7h Kc As Jd Js 5c 6d 6s 2h Qh"
GOLDEN_2P = """\
dealer: seat 1
deal: seat 0: 7d 7h As | seat 1: Jd 3h Kc | table: 2c 4h 5s Qd
seat 0 plays 7h takes 5s 2c              table: 4h Qd
seat 1 plays 3h trails                   table: 4h Qd 3h
seat 0 plays 7d takes 3h 4h              table: Qd
seat 1 plays Jd trails                   table: Qd Jd
seat 0 plays As trails                   table: Qd Jd As
seat 1 plays Kc takes Qd As              table: Jd
deal: seat 0: 6d 2h Js | seat 1: Qh 6s 5c | table: Jd
seat 0 plays Js takes Jd SCOPA           table: (empty)
seat 1 plays 5c trails                   table: 5c
seat 0 plays 6d trails                   table: 5c 6d
seat 1 plays Qh trails                   table: 5c 6d Qh
seat 0 plays 2h trails                   table: 5c 6d Qh 2h
seat 1 plays 6s takes 6d                 table: 5c Qh 2h
deal: seat 0: Ad 3d 5d | seat 1: 2d 4d Kd | table: 5c Qh 2h
seat 0 plays 5d takes 5c                 table: Qh 2h
seat 1 plays 4d trails                   table: Qh 2h 4d
seat 0 plays Ad trails                   table: Qh 2h 4d Ad
seat 1 plays Kd takes Ad Qh              table: 2h 4d
seat 0 plays 3d trails                   table: 2h 4d 3d
seat 1 plays 2d takes 2h                 table: 4d 3d
deal: seat 0: Ah 6h Kh | seat 1: 5h Jh 2s | table: 4d 3d
seat 0 plays 6h trails                   table: 4d 3d 6h
seat 1 plays 5h trails                   table: 4d 3d 6h 5h
seat 0 plays Ah trails                   table: 4d 3d 6h 5h Ah
seat 1 plays Jh takes 3d 5h              table: 4d 6h Ah
seat 0 plays Kh takes 4d 6h              table: Ah
seat 1 plays 2s trails                   table: Ah 2s
deal: seat 0: 3s 7s Ks | seat 1: 4s Qs Ac | table: Ah 2s
seat 0 plays 3s takes Ah 2s SCOPA        table: (empty)
seat 1 plays Qs trails                   table: Qs
seat 0 plays Ks trails                   table: Qs Ks
seat 1 plays 4s trails                   table: Qs Ks 4s
seat 0 plays 7s trails                   table: Qs Ks 4s 7s
seat 1 plays Ac trails                   table: Qs Ks 4s 7s Ac
deal: seat 0: 3c 6c Jc | seat 1: 4c 7c Qc | table: Qs Ks 4s 7s Ac
seat 0 plays Jc takes 7s Ac              table: Qs Ks 4s
seat 1 plays 7c trails                   table: Qs Ks 4s 7c
seat 0 plays 6c trails                   table: Qs Ks 4s 7c 6c
seat 1 plays Qc takes Qs                 table: Ks 4s 7c 6c
seat 0 plays 3c trails                   table: Ks 4s 7c 6c 3c
seat 1 plays 4c takes 4s                 table: Ks 7c 6c 3c
seat 1 takes the last cards: Ks 7c 6c 3c
side 0: cards 19, coins 4, settebello 1, primiera 79, scopas 2, points 4
side 1: cards 21, coins 6, settebello 0, primiera 72, scopas 0, points 2"""
GOLDEN_4P = """\
dealer: seat 2
deal: seat 0: 5d Qd 3h | seat 1: 6d Kd 4h | seat 2: 7d Ah 5h | seat 3: 4d Jd 2h | table: Ad 2d 3d Kc
seat 3 plays 4d takes Ad 3d              table: 2d Kc
seat 0 plays 5d trails                   table: 2d Kc 5d
seat 1 plays 6d trails                   table: 2d Kc 5d 6d
seat 2 plays Ah trails                   table: 2d Kc 5d 6d Ah
seat 3 plays Jd takes 2d 6d              table: Kc 5d Ah
seat 0 plays 3h trails                   table: Kc 5d Ah 3h
seat 1 plays 4h takes Ah 3h              table: Kc 5d
seat 2 plays 7d trails                   table: Kc 5d 7d
seat 3 plays 2h trails                   table: Kc 5d 7d 2h
seat 0 plays Qd takes 7d 2h              table: Kc 5d
seat 1 plays Kd takes Kc                 table: 5d
seat 2 plays 5h takes 5d SCOPA           table: (empty)
deal: seat 0: 2s 6s Ks | seat 1: 3s 7s Ac | seat 2: 4s Js 2c | seat 3: As 5s Qs | table:\x20
seat 3 plays Qs trails                   table: Qs
seat 0 plays Ks trails                   table: Qs Ks
seat 1 plays 7s trails                   table: Qs Ks 7s
seat 2 plays 2c trails                   table: Qs Ks 7s 2c
seat 3 plays 5s trails                   table: Qs Ks 7s 2c 5s
seat 0 plays 6s trails                   table: Qs Ks 7s 2c 5s 6s
seat 1 plays 3s trails                   table: Qs Ks 7s 2c 5s 6s 3s
seat 2 plays 4s trails                   table: Qs Ks 7s 2c 5s 6s 3s 4s
seat 3 plays As trails                   table: Qs Ks 7s 2c 5s 6s 3s 4s As
seat 0 plays 2s takes 2c                 table: Qs Ks 7s 5s 6s 3s 4s As
seat 1 plays Ac takes As                 table: Qs Ks 7s 5s 6s 3s 4s
seat 2 plays Js takes 3s 5s              table: Qs Ks 7s 6s 4s
seat 2 takes the last cards: Qs Ks 7s 6s 4s
side 0: cards 15, coins 3, settebello 1, primiera 69, scopas 1, points 4
side 1: cards 13, coins 7, settebello 0, primiera 66, scopas 0, points 1"""
MOVE = re.compile(r"seat \d plays (\S+) (?:takes (.+?)(?: SCOPA)?|trails)\s+table:")


def replay_log(game: Round, golden: str) -> Round:
    """Play the moves a golden log names."""
    for line in golden.splitlines():
        m = MOVE.match(line)
        if m:
            game.play(m[1], parse_cards(m[2] or ""))
    return game


def test_the_log_is_the_golden_transcript():
    deck = parse_cards(SEED_003)
    game = replay_log(Round("scopa", deck=deck + [c for c in range(40) if c not in deck],
                            dealer=1), GOLDEN_2P)
    assert game.log() == GOLDEN_2P
    game = Round.from_position(hands=["", "", "", ""], table="Ad 2d 3d Kc",
                               deck=list(range(3, 15)) + list(range(20, 32)), rules="scopa-4",
                               dealer=2)
    assert replay_log(game, GOLDEN_4P).log() == GOLDEN_4P


# ---- the position: copies, checks --------------------------------------------
def test_kernel_position_and_copy_are_independent_of_the_round():
    game = Round(deck=list(range(40)))
    pos, deck = game.kernel_position()
    pos[:], deck[:] = 0, 0
    assert game.kernel_position()[0][P.TABLE] == sum(1 << c for c in range(4))
    child = game.copy()
    child.play(*child.legal_moves()[-1])
    assert len(game.moves) == 0 and len(child.moves) == 1
    assert game.log() != child.log() and game.hands != child.hands
    assert game.kernel_position()[0][P.PLAYS] == 0


def test_suggest_leaves_the_position_as_it_was():
    rng = random.Random(1)
    for rules_id in ("scopa", "scopa-4", "scopa-4-nine"):
        rules = Rules.preset(rules_id)
        deck = list(range(40))
        rng.shuffle(deck)
        game = Round(rules, deck=deck)
        for _ in range(rng.randrange(20)):
            game.play(*rng.choice(game.legal_moves()))
        pos, order = game.kernel_position()
        moves = game.legal_moves()
        for strategy in EVERY:
            assert game.suggest(strategy, seed=3) in moves
            now, now_order = game.kernel_position()
            assert (now == pos).all() and (now_order == order).all(), strategy


CORRUPT = [
    ("a card in two places", lambda pos, deck: pos.__setitem__(P.TABLE, pos[P.TABLE] | pos[P.HAND + 1])),
    ("a card missing", lambda pos, deck: pos.__setitem__(P.TABLE, np.uint64(0))),
    ("the wrong seat to play", lambda pos, deck: pos.__setitem__(P.TURN, np.uint64(0))),
    ("plays that do not add up", lambda pos, deck: pos.__setitem__(P.TOTAL, pos[P.TOTAL] + np.uint64(3))),
    ("a deck order that is not the 40 cards", lambda pos, deck: deck.__setitem__(39, 0)),
    ("a seat the rules do not have", lambda pos, deck: pos.__setitem__(
        P.HAND + 4, pos[P.HAND + 1]) or pos.__setitem__(P.HAND + 1, np.uint64(0))),
    ("a deck index out of range", lambda pos, deck: pos.__setitem__(P.DECK, np.uint64(41))),
]


@pytest.mark.parametrize("what, corrupt", CORRUPT, ids=[c[0] for c in CORRUPT])
def test_a_corrupted_kernel_position_is_refused(what, corrupt):
    game = Round(deck=list(range(40)))                # seat 1 to play
    pos, deck = game.kernel_position()
    face._check_kernel_position(game.rules, pos, deck)      # as dealt: fine
    corrupt(pos, deck)
    with pytest.raises(ValueError, match="internal: bad kernel position"):
        face._check_kernel_position(game.rules, pos, deck)


def test_a_round_changed_by_hand_is_checked_before_a_kernel_plays_it():
    game = Round(deck=list(range(40)))
    game.turn = 0                                     # seat 1 leads
    with pytest.raises(ValueError, match="internal: bad kernel position: seat 0 is not"):
        game.play(*game.legal_moves()[0])
    game = Round(deck=list(range(40)))
    hand, deck = game.hands[1], game.deck             # swap a hand card and a deck card
    hand[0], deck[0] = deck[0], hand[0]
    new = hand[0]
    assert new in {c for c, _ in game.legal_moves()}  # a reachable position: taken
    assert game.suggest("greedy") in game.legal_moves()
    game.play(new, next(take for c, take in game.legal_moves() if c == new))
    assert new not in game.hands[1] and game.turn == 0
    game = Round(deck=list(range(40)))
    game.deck.append(game.deck[0])                    # a card twice
    with pytest.raises(ValueError, match="internal: bad kernel position"):
        game.suggest("random")
    game.hands[0].append("7d")
    with pytest.raises(ValueError, match="not a card 0..39"):
        game.legal_moves()


# ---- the overhead, without timing it -----------------------------------------
def test_stepping_makes_no_scratch_arrays_packs_no_rules_and_checks_once(monkeypatch):
    """One set of kernel scratch arrays per thread, one rules vector per rule
    set, and the position check only where a position comes from outside
    (`from_position`) or was changed by hand."""
    calls = {"scratch": 0, "pack": 0, "check": 0}

    def counting(name, f):
        def counted(*args, **kwargs):
            calls[name] += 1
            return f(*args, **kwargs)
        return counted

    monkeypatch.setattr(batch, "scratch", counting("scratch", batch.scratch))
    monkeypatch.setattr(Rules, "pack", counting("pack", Rules.pack))
    monkeypatch.setattr(face, "_check_kernel_position",
                        counting("check", face._check_kernel_position))
    rules = Rules.preset("scopa").with_options(target=97)    # a rule set not packed yet
    scratches = []

    def step():
        rng = random.Random(2)
        for k in range(3):
            game = Round(rules, deck=rng.sample(range(40), 40), dealer=k % 2)
            while not game.done:
                game.legal_moves()
                game.suggest("random", seed=k)
                game.suggest("greedy")
                game.copy()
                game.play(*game.legal_moves()[0])
            scopa_sim.legal_moves("7d 2c", "5s 2h", rules)
        scratches.append(face._scratch())

    thread = threading.Thread(target=step)
    thread.start()
    thread.join()
    assert calls == {"scratch": 1, "pack": 1, "check": 0}
    assert scratches[0] is not face._scratch()              # each thread its own
    game = Round.from_position(hands=["7d 2c", "Kc 3d"], table="3s 4h", dealer=1, rules=rules)
    game.suggest("random")
    game.play("7d", "3s 4h")
    assert calls["check"] == 1
    game.turn = 0                                     # seat 1's turn
    with pytest.raises(ValueError, match="seat 0 is not the seat to play"):
        game.suggest("random")
    assert calls["check"] == 2
