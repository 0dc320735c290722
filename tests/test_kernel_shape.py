"""The kernels' shape (issue 33 items 3 and 4): kernels called by record, with
few parameters; one play-out loop; layouts numbered from one declaration."""
import ast
from pathlib import Path

import numpy as np
import pytest

import scopa_sim
from scopa_sim import kernels
# the kernel modules read below as attributes (kernels.<module>.<name>)
import scopa_sim.kernels.batch
import scopa_sim.kernels.play
import scopa_sim.kernels.round
from scopa_sim.engine.seats import Seats
from scopa_sim.kernels import layout as L, position as P, registry

KERNELS = Path(kernels.__file__).resolve().parent
DECORATORS = {"kernel", "spliced", "outlined", "njit", "jit"}
MOST_PARAMS = 10


def _compiled_functions():
    """(file, function node) of every function in kernels/ decorated as compiled code."""
    for path in sorted(KERNELS.glob("*.py")):
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            if not isinstance(node, ast.FunctionDef):
                continue
            for d in node.decorator_list:
                d = d.func if isinstance(d, ast.Call) else d
                name = d.attr if isinstance(d, ast.Attribute) else getattr(d, "id", "")
                if name in DECORATORS:
                    yield path.name, node
                    break


def test_there_are_compiled_functions_to_check():
    names = {node.name for _, node in _compiled_functions()}
    assert {"play_out", "play_units", "minimax", "advise_batch", "exact_values"} <= names


def test_no_kernel_takes_more_than_ten_parameters():
    """Kernels take records (named tuples of arrays), not long lists of arrays."""
    long = [f"{file}:{node.name} ({len(node.args.args)})" for file, node in _compiled_functions()
            if len(node.args.args) + len(node.args.kwonlyargs) > MOST_PARAMS
            or node.args.vararg or node.args.kwarg]
    assert not long, f"kernels with more than {MOST_PARAMS} parameters: {long}"


def _plays_to_the_end(loop: ast.While) -> bool:
    """Whether a while loop is "play until the round is over": its test is
    exactly `not is_over(...)`. (ISMCTS's descent, `while not is_over(pos)
    and not expanded`, stops where it adds a node: it is the tree's part.)"""
    test = loop.test
    return (isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not)
            and isinstance(test.operand, ast.Call)
            and getattr(test.operand.func, "id", getattr(test.operand.func, "attr", None))
            == "is_over")


def test_one_play_out_loop():
    """Playing a position to the end of the round is written once, in
    play.play_out: the round kernel, rollouts, the exact line and the Python
    round loop all call it."""
    loops = []
    for path in sorted(KERNELS.glob("*.py")):
        tree = ast.parse(path.read_text(), str(path))
        for func in ast.walk(tree):
            if isinstance(func, ast.FunctionDef) and any(
                    isinstance(n, ast.While) and _plays_to_the_end(n) for n in ast.walk(func)):
                loops.append(f"{path.name}:{func.name}")
    assert loops == ["play.py:play_out"]
    seats = (KERNELS.parent / "scopa_sim" / "engine" / "seats.py").read_text()
    assert "is_over" not in seats and "play_out" in seats


def _offsets(fields):
    at, out = 0, {}
    for name, size in fields:
        out[name] = at
        at += size
    return out, at


@pytest.mark.parametrize("fields, prefix, module, size", [
    (P.POS_FIELDS, "", P, "POS_SIZE"),
    (L.RULE_FIELDS, "R_", L, "R_SIZE"),
])
def test_numbered_slots_come_from_their_declaration(fields, prefix, module, size):
    at, total = _offsets(fields)
    assert getattr(module, size) == total
    for name, offset in at.items():
        constant = prefix + name.upper()
        if hasattr(module, constant):
            assert getattr(module, constant) == offset, constant


def test_the_other_layouts_come_from_their_declarations():
    from scopa_sim.kernels import moves, observe, search, users
    at, total = _offsets(observe.OBS_FIELDS)
    assert observe.O_SIZE == total and all(getattr(observe, "O_" + k.upper()) == v
                                           for k, v in at.items())
    at, total = _offsets(moves.WORK_FIELDS)
    assert moves.W_SIZE == total and all(getattr(moves, "W_" + k.upper()) == v
                                         for k, v in at.items())
    assert [users.F_STRATEGY, users.F_ROUND] == [0, len(users.FAULT_FIELDS) - 1]
    assert search.PLY_MAX == search.PLY_FIELDS.index("max")


def test_the_play_out_loop_plays_rounds_as_the_round_kernel():
    """Rounds played by stepping play.play_out from Python (its step kernel,
    as the Python round loop does) end where the batch kernel's do."""
    rules = scopa_sim.Rules()
    seats = Seats(rules, ("counter", "random"))
    rows = 6
    sides = np.zeros((rows, rules.n_sides, L.N_SIDE), np.int16)
    rounds = np.zeros((rows, L.N_ROUND), np.int64)
    assert seats.play(False, 3, 0, rows, sides, rounds) == rows
    scratch = seats.scratch()
    board, kit = scratch.board(), scratch.kit(seats.packed)
    step = kernels.batch.step_for(seats.ids[:2])
    for r in range(rows):
        kernels.round.deal_round(np.uint64(3), r, 0, scratch.deck, scratch.rng)
        P.start_round(scratch.pos, scratch.deck, r % 2, seats.packed)
        lineup = registry.Lineup(seats.ids, seats.params)
        assert step(lineup, board, kit) == kernels.play.OVER
        out = np.zeros((L.MAX_PLAYERS, L.N_SIDE), np.int16)
        info = np.zeros(L.N_ROUND, np.int64)
        kernels.round.end_round(scratch.pos, seats.packed, r % 2, out, info)
        assert (out[:2] == sides[r]).all()


@pytest.mark.parametrize("pair", [("random", "random"), ("random", "greedy")])
def test_the_default_presets_rules_compiled_in_give_the_general_kernels_rows(pair):
    """Under the "scopa" preset's rules (whatever their name) random and
    greedy play in a twin of simple_units with the rules vector compiled in
    (batch.preset_units), which gives the general kernel's rows, rounds and
    games; other rules, and other strategies, play in the general kernels."""
    rules = scopa_sim.Rules(name="mine")
    twin, general = Seats(rules, pair), Seats(rules, pair)
    general.preset = False
    assert twin.preset
    assert kernels.batch.kernel_for(twin.ids, twin.packed) not in kernels.batch.KERNELS
    for games in (False, True):
        ours, theirs = twin.play_rows(games, 11, 0, 300), general.play_rows(games, 11, 0, 300)
        assert all((a == b).all() for a, b in zip(ours[:2], theirs[:2]))
    assert not Seats(scopa_sim.Rules.preset("scopa+re_bello"), pair).preset
    counter = Seats(rules, ("counter", "random"))
    assert kernels.batch.kernel_for(counter.ids, counter.packed) is kernels.batch.fast_units
