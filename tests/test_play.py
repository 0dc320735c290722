"""`scopa-sim play` (scopa_sim.study.play, scopa_sim.cli.play): a game against
the engine, driven through a pipe. The moves fed are computed by a twin
`Table` of the same seed (the engine's moves are a function of it), so no
option of the command is needed to play it."""
from __future__ import annotations

import inspect
import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from scopa_sim.cli import main
from scopa_sim.defaults import PLAY_OPPONENT
from scopa_sim.engine.cards import Move, card_name, names, parse_cards
from scopa_sim.engine.game import legal_moves
from scopa_sim.engine.records import read_record
from scopa_sim.engine.strategies import parse_strategy
from scopa_sim.study.play import Table, parse_move
from scopa_sim.study.review import review

SEED, OPPONENT = 7, "greedy"                    # a fast engine: the tests play whole rounds
SYMBOLS = dict(zip("dhsc", "♦♥♠♣"))
SCOPA_SIM = str(Path(sys.executable).parent / "scopa-sim")


def cli(*args, input=None):
    return CliRunner().invoke(main, ["play", *map(str, args)], input=input,
                              catch_exceptions=False)


def typed(move: Move, legal: list[Move], k: int) -> str:
    """A move as a person might type it, in turn: the card alone when it has
    one legal move (now and then with its suit's symbol), else with the
    capture, with or without `takes`."""
    name = card_name(move.card)
    if sum(m.card == move.card for m in legal) == 1:
        return name[:-1] + SYMBOLS[name[-1]] if k % 3 == 0 else name
    return f"{name} {'takes ' * (k % 2)}{' '.join(card_name(c) for c in reversed(move.captured))}"


def entries(rounds: int = 1, stop_after: int | None = None, **table) -> tuple[list[str], Table]:
    """The lines that play the person's side of the game (each decision's
    last legal move), from a twin table; at most `stop_after` of them."""
    twin = Table(opponent=OPPONENT, seed=SEED, rounds=rounds, **table)
    lines = []
    while not twin.over and (stop_after is None or len(lines) < stop_after):
        if twin.your_turn:
            legal = twin.legal()
            lines.append(typed(legal[-1], legal, len(lines)))
            twin.play(twin.parse(lines[-1]))
        else:
            twin.engine_move()
    return lines, twin


def not_held() -> str:
    """A card the person does not hold at their first decision."""
    fresh = Table(opponent=OPPONENT, seed=SEED)
    while not fresh.your_turn:
        fresh.engine_move()
    return card_name(next(c for c in range(40) if c not in fresh.game.round.hands[0]))


# ---- reading a move ---------------------------------------------------------------------
LEGAL = legal_moves("7d As Kc", "4h 3s 5s 2c")


@pytest.mark.parametrize("text, move", [
    ("7d takes 4h 3s", ("7d", "4h 3s")), ("7d 3s 4h", ("7d", "4h 3s")),
    ("7♦ 5s,2c", ("7d", "5s 2c")), ("7D TAKES 2c 5s", ("7d", "5s 2c")),
    ("As", ("As", "")), ("As trails", ("As", "")), ("Kc", ("Kc", "3s 5s 2c")),
    ("10c", ("Kc", "3s 5s 2c"))])
def test_a_move_is_read_as_typed(text, move):
    card, take = move
    assert parse_move(text, LEGAL) == Move(parse_cards(card)[0], tuple(sorted(parse_cards(take))))


@pytest.mark.parametrize("text, why", [
    ("7d", "7d can take 4h 3s or 5s 2c: say which, e.g. 7d takes"),
    ("9c", "Qc (also written 9c) is not in your hand"),
    ("7d takes 4h", "7d cannot take 4h: it can take 4h 3s or 5s 2c"),
    ("As takes 4h 3s", "As cannot take 4h 3s: it can only trail"),
    ("7d trails", "7d cannot be trailed: it can take"), ("7d takes", "takes what?"),
    ("zz", "bad card 'zz'"), ("", "write a card")])
def test_a_bad_move_says_why(text, why):
    with pytest.raises(ValueError, match=re.escape(why)):
        parse_move(text, LEGAL)


def test_a_refusal_lists_the_legal_moves():
    table = Table(opponent=OPPONENT, seed=SEED)
    while not table.your_turn:
        table.engine_move()
    with pytest.raises(ValueError) as e:
        table.parse("zz")
    assert str(e.value).endswith("; legal: " + ", ".join(str(m) for m in table.legal()))


def test_the_default_opponent_is_a_registered_strategy():
    assert str(parse_strategy(PLAY_OPPONENT)) == PLAY_OPPONENT


# ---- the record -------------------------------------------------------------------------
def test_the_record_holds_only_what_the_person_saw(tmp_path):
    path = tmp_path / "g.scopa"
    lines, twin = entries(rules="scopa-4", stop_after=4, record=path)
    twin.stop()
    text = path.read_text()
    hands = [line for line in text.splitlines() if line.startswith("Hand ")]
    assert hands and all(line.startswith("Hand You: ") for line in hands)
    assert "Seats: You Engine1 Engine2 Engine3" in text and "...\n" in text
    game = read_record(path)
    assert game.rounds[0].moves == twin.game.round.moves
    assert not game.round.done and game.notes.names[0] == "You"


# ---- the command, through a pipe --------------------------------------------------------
def test_a_piped_round_refuses_an_illegal_entry_and_its_record_reviews(tmp_path):
    lines, twin = entries()
    bad = not_held()
    path = tmp_path / "mine.scopa"
    result = cli("--seed", SEED, "--opponent", OPPONENT, "--rounds", 1, "--no-review",
                 "--record", path, input="\n".join([bad, *lines]) + "\n")
    assert result.exit_code == 0, result.stderr
    out = result.stdout
    assert out.count("refused:") == 1
    refusal = next(line for line in out.splitlines() if "refused:" in line)
    assert f"{bad} is not in your hand" in refusal and "; legal: " in refusal
    assert "round 1 over" in out and "stopped after 1 round, as asked" in out
    assert out.count("your move> ") == len(lines) + 1
    assert "  your hand " in out and "  captured  You: " in out

    game = read_record(path)
    played = game.rounds[0]
    assert len(game.rounds) == 1 and played.done
    assert played.moves == twin.game.rounds[0].moves
    assert game.scores == twin.game.scores
    text = path.read_text()
    assert "Hand Engine" not in text and text.count("Hand You: ") == 6
    df = review(path, seats=["You"], rollouts=50, check=False)
    mine = df[df["name"] == "You"]
    assert len(mine) == 18 and set(mine["level"]) <= {"exact", "rollouts", "forced"}
    assert (df[df["name"] == "Engine"]["level"] == "not reviewed").all()


def test_a_whole_game_is_played_to_its_target(tmp_path):
    lines, twin = entries(rounds=None)
    path = tmp_path / "game.scopa"
    result = cli("--seed", SEED, "--opponent", OPPONENT, "--record", path, "--no-review",
                 input="\n".join(lines) + "\n")
    assert result.exit_code == 0, result.stderr
    assert twin.game.done and f"game over: {twin.result().split(': ', 1)[1]}" in result.stdout
    game = read_record(path)
    assert game.done and game.scores == twin.game.scores
    assert len(game.rounds) == len(twin.game.rounds) > 1


def test_the_input_ending_early_keeps_a_readable_record(tmp_path):
    """The program itself, a real pipe on its standard input."""
    lines, _ = entries(stop_after=3)
    path = tmp_path / "cut.scopa"
    result = subprocess.run([SCOPA_SIM, "play", "--seed", str(SEED), "--opponent", OPPONENT,
                             "--record", str(path)], input="\n".join(lines) + "\n",
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        f"error: the input ended before the game did: the game so far is in {path}"]
    assert result.stdout.count("your move> ") == 4 and f"your move> {lines[0]}\n" in result.stdout
    game = read_record(path)
    assert not game.round.done and sum(s == 0 for s, _, _ in game.round.moves) == 3
    assert "...\n" in path.read_text()
    assert len(review(path, seats=["You"], rollouts=50, check=False)) == len(game.round.moves)


def test_quit_keeps_the_record_and_says_how_to_review_it(tmp_path):
    lines, _ = entries(stop_after=1)
    path = tmp_path / "q.scopa"
    result = cli("--seed", SEED, "--opponent", OPPONENT, "--record", path, "--hint",
                 input=f"?\n{lines[0]}\nquit\n")            # EOF at the review question
    assert result.exit_code == 0, result.stderr
    out = result.stdout
    assert "hint: " in out and "legal: " in out
    assert f"stopped: the game so far is in {path}" in out
    assert "Review this game now? [y/N]" in out
    assert f"review it later: scopa-sim review {path} --seat You" in out
    assert read_record(path).round.moves


def test_yes_reviews_the_game_as_review_does(tmp_path, monkeypatch):
    import scopa_sim.study.review as reviewing
    full = reviewing.review

    def quick(*args, **kwargs):                 # the review command's path, at a small budget
        bound = inspect.signature(full).bind(*args, **kwargs)
        bound.arguments.update(rollouts=50, check=False)
        return full(*bound.args, **bound.kwargs)

    monkeypatch.setattr(reviewing, "review", quick)
    lines, _ = entries(stop_after=1)
    path = tmp_path / "y.scopa"
    result = cli("--seed", SEED, "--opponent", OPPONENT, "--record", path,
                 input=f"{lines[0]}\nquit\ny\n")
    assert result.exit_code == 0, result.stderr
    assert "review: You vs Engine (scopa)" in result.stdout
    assert "decisions (forced plays left out)" in result.stdout


def test_ctrl_c_keeps_the_record(tmp_path, monkeypatch):
    import scopa_sim.cli.play as playing
    lines, _ = entries(stop_after=1)
    typed_in = iter(lines)

    def read_line(prompt):
        line = next(typed_in, None)
        if line is None:
            raise KeyboardInterrupt
        return line

    monkeypatch.setattr(playing, "read_line", read_line)
    path = tmp_path / "c.scopa"
    result = cli("--seed", SEED, "--opponent", OPPONENT, "--record", path)
    assert result.exit_code == 130
    assert result.stderr.strip().splitlines() == [
        f"interrupted: the game so far is in {path}"]
    assert "...\n" in path.read_text() and read_record(path).round.moves


def test_the_default_record_is_named_after_the_seed(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = cli("--seed", SEED, "--opponent", OPPONENT, "--no-review", input="quit\n")
    assert result.exit_code == 0, result.stderr
    assert read_record(tmp_path / f"game-{SEED}.scopa").notes.headers == {
        "Event": "scopa-sim play", "Opponent": OPPONENT}


def test_an_existing_record_or_a_folder_is_refused(tmp_path):
    path = tmp_path / "there.scopa"
    path.write_text("mine")
    result = cli("--seed", SEED, "--opponent", OPPONENT, "--record", path, input="quit\n")
    assert result.exit_code == 2 and path.read_text() == "mine"
    assert result.stderr.strip().splitlines() == [
        f"error: {path} already exists: choose another --record, or pass --overwrite"]
    result = cli("--seed", SEED, "--opponent", OPPONENT, "--record", tmp_path, input="quit\n")
    assert result.exit_code == 2
    assert result.stderr.strip().splitlines() == [f"error: cannot write {tmp_path}: it is a folder"]
    result = cli("--seed", SEED, "--opponent", OPPONENT, "--record", path, "--overwrite",
                 "--no-review", input="quit\n")
    assert result.exit_code == 0 and read_record(path).notes.names == ["You", "Engine"]


@pytest.mark.parametrize("args, why", [
    (["--opponent", "nope"], "error: unknown strategy 'nope'"),
    (["--seat-name", "Round"], "error: a seat name is one word"),
    (["--seat-name", "Engine"], "error: two seats have the same name"),
    (["--rules", "nope"], "error: ")])
def test_bad_options_are_one_line_and_write_nothing(tmp_path, args, why):
    path = tmp_path / "never.scopa"
    result = cli("--seed", SEED, "--record", path, *args, input="quit\n")
    assert result.exit_code == 2
    assert len(result.stderr.strip().splitlines()) == 1
    assert result.stderr.startswith(why) and not path.exists()


def test_a_huge_line_is_echoed_and_refused_in_a_few_characters(tmp_path):
    """Issue 49: one 10 MB line printed 20 MB (echoed, then quoted by the refusal)."""
    path = tmp_path / "big.scopa"
    result = subprocess.run([SCOPA_SIM, "play", "--seed", str(SEED), "--opponent", OPPONENT,
                             "--record", str(path)], input="Z" * 3_000_000 + "\nquit\n",
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert len(result.stdout) < 5_000
    assert "refused: bad card 'ZZZZ" in result.stdout and "Z…'" in result.stdout
    assert "stopped: the game so far is in" in result.stdout
