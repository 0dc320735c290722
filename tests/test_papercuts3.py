"""Issue 49, what a new user trips on (third round): words. A test per item."""
import pytest
from click.testing import CliRunner

from scopa_sim.cli import main
from scopa_sim.engine.checks import plural, shown


def error(*args) -> str:
    res = CliRunner().invoke(main, [str(a) for a in args])
    assert res.exit_code == 2, res.output
    return res.stderr.strip()


@pytest.mark.parametrize("args, isolate", [
    (["simulate", "--rounds", 10], True), (["compare", "greedy", "random"], True),
    (["play"], False), (["odds", "--rounds", 1000], False), (["train", "--out", "x"], False)])
def test_a_seed_error_names_only_the_commands_own_options(args, isolate):
    line = error(*args, "--seed", 2**64)
    assert "0..2**64-1" in line and ("--isolate" in line) == isolate


def test_counts_are_written_in_words():
    assert [plural(k, "card") for k in (0, 1, 2, 12_000)] == [
        "0 cards", "1 card", "2 cards", "12,000 cards"]
    line = error("advise", "--hand", "7d", "--table", "As")
    assert "1 card is on the table" in line


def test_outside_text_is_shown_cut():
    assert shown("x" * 80) == "x" * 80 and shown("x" * 81) == "x" * 79 + "…"
    assert shown("a\nb") == "a b"


def test_play_and_its_review_write_cards_alike(monkeypatch):
    """Issue 49: play showed "2s" where the review it offers shows "2♠". Both
    follow `options.symbols`: symbols on a UTF-8 terminal, letters in a pipe."""
    from scopa_sim.cli import options, play
    lines = []
    monkeypatch.setattr(play, "say", lines.append)
    monkeypatch.setattr(play, "symbols", lambda: True)
    play.show("Engine: 2s takes 2c")
    monkeypatch.setattr(play, "symbols", lambda: False)
    play.show("Engine: 2s takes 2c")
    assert lines == ["Engine: 2♠ takes 2♣", "Engine: 2s takes 2c"]
    assert options.symbols() is False                       # CliRunner's output is no terminal


def test_entrant_labels_are_cut_to_the_shortest_unique_form():
    from scopa_sim.analysis.output import short_labels
    assert short_labels(["/tmp/x/a/entrant.py:f", "/tmp/x/b/entrant.py:f", "greedy"]) == [
        "a/entrant.py:f", "b/entrant.py:f", "greedy"]
    assert short_labels(["/tmp/long/mine.py:f:depth=2", "/tmp/long/theirs.py:g"]) == [
        "mine.py:f:depth=2", "theirs.py:g"]
    assert short_labels(["/a/x.py:f", "/a/x.py:f"]) == ["x.py:f", "x.py:f"]   # one entrant twice


def test_a_narrow_column_wraps_its_words_never_cuts_them():
    import io

    from rich.console import Console

    from scopa_sim.analysis.output import Section, print_tables
    s = Section("decisions", ["play", "played", "verdict", "why"])
    s.add(4, "Kc takes Qd As", "mistake", "exposes the settebello: the other side takes it")
    out = io.StringIO()
    print_tables([s], Console(file=out, width=40))
    assert "…" not in out.getvalue() and "settebel" in out.getvalue()
