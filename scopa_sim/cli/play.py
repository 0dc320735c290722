"""`scopa-sim play`: a game against the engine, typed in a terminal or fed
through a pipe. Thin: the game, the moves and the record are
`scopa_sim.study.play.Table`; this module reads lines and prints."""
from __future__ import annotations

import shlex
import sys
from pathlib import Path

import click

from ..defaults import HINT_ROLLOUTS, PLAY_OPPONENT
from ..engine.checks import shown
from .options import (check_out, Interrupted, OutPath, parse_rules, parse_seed, results, symbols,
                      rules_options, seed_option)
from .records import review as review_command

QUIT = {"quit", "q", "exit"}
HELP = {"?", "help", "h"}
USAGE = ("write a card (7d, 7♦), with its capture when it has a choice (7d takes 4h 3s, or "
         "7d 4h 3s); hint: advise's best move; quit: stop here (the record is kept)")


class Stop(Exception):
    """The person stopped (quit) or the input ended (`ended`)."""

    def __init__(self, ended: bool):
        super().__init__()
        self.ended = ended


def say(text: str = "") -> None:
    click.echo(text, file=results())


def show(text: str) -> None:
    """A line of the game (cards in it): with suit symbols where the review
    shows them (`options.symbols`), so that a session has one notation."""
    if symbols():
        from ..analysis.review_page import with_suits
        text = with_suits(text)
    say(text)


MAX_LINE = 1_000        # characters of a typed line that are read; the rest is dropped


def read_line(prompt: str) -> str | None:
    """A line of standard input after `prompt` (None at its end), its first
    MAX_LINE characters; echoed (cut, `shown`) when the input is not a
    terminal, so that a piped game reads whole."""
    stream = results()
    stream.write(prompt)
    stream.flush()
    try:
        line = sys.stdin.readline(MAX_LINE)
        long = line
        while len(long) == MAX_LINE and not long.endswith("\n"):    # the rest: read, not kept
            long = sys.stdin.readline(MAX_LINE)
    except UnicodeDecodeError:
        line = "\ufffd\n"                          # refused below as a bad card
    if not line:
        say()
        return None
    if not sys.stdin.isatty():
        say(shown(line.rstrip("\n")))
    return line.strip()


def hint_text(hint: dict) -> str:
    """Advise's answer in a line: the best move, its margin, the next best."""
    best, nxt = hint["best"], hint["next"]
    if hint["exact"]:
        margin, how = f"{best['margin']:+.2f}", "exact"
    else:
        margin = f"{best['margin']:+.2f} [{best['margin_low']:+.2f}, {best['margin_high']:+.2f}]"
        how = f"advise, {hint['rollouts']:,} rollouts"
    text = f"hint: {best['move']}, margin {margin}"
    if nxt is not None:
        text += f"; next {nxt['move']}, {nxt['vs_best']:+.2f}"
        if not hint["exact"]:
            text += f" [{nxt['vs_best_low']:+.2f}, {nxt['vs_best_high']:+.2f}]"
    return f"{text} ({how})"


def decide(table, hint: bool):
    """The person's move: the board, a hint if asked, then lines until one
    is a legal move (Stop on quit or the input's end)."""
    say()
    show(table.board())
    legal = table.legal()
    if hint:
        show(hint_text(table.hint(HINT_ROLLOUTS)) if len(legal) > 1 else
             f"hint: your only legal move is {legal[0]}")
    while True:
        line = read_line("your move> ")
        if line is None or line.lower() in QUIT:
            raise Stop(ended=line is None)
        if line.lower() in HELP:
            show("legal: " + ", ".join(str(m) for m in legal))
            say(USAGE)
        elif line.lower() == "hint":
            show(hint_text(table.hint(HINT_ROLLOUTS)))
        elif line:
            try:
                return table.parse(line)
            except ValueError as e:
                show(f"refused: {e}")


def play_out(table, hint: bool) -> None:
    """Play until the game (or the rounds asked for) ends, printing each play
    and each round's end; Stop if the person stops."""
    while not table.over:
        played = table.play(decide(table, hint)) if table.your_turn else table.engine_move()
        show(str(played))
        if played.ended is not None:
            show(table.round_summary(played.ended))


def record_path(path: Path | None, seed: int, overwrite: bool) -> Path:
    """Where the record goes, checked before the game: not a folder, not a
    file that exists (unless `overwrite`), not inside a run."""
    path = path or Path(f"game-{seed}.scopa")
    check_out([path], overwrite, option="--record")
    return path


def offer_review(table, path: Path) -> None:
    """Ask whether to review the person's play now; run `scopa-sim review` if so."""
    later = f"review it later: scopa-sim review {shlex.quote(str(path))} --seat {table.name}"
    answer = read_line("Review this game now? [y/N] ")
    if answer is None or answer.lower() not in ("y", "yes"):
        say(later)
        return
    click.get_current_context().invoke(review_command, record_path=path,
                                       seats=(table.name,), seed=str(table.seed))


@click.command()
@click.option("--opponent", "-o", default=PLAY_OPPONENT, show_default=True, metavar="STRATEGY",
              help="The engine's strategy at every other seat (see `scopa-sim strategies`).")
@rules_options
@seed_option
@click.option("--seat-name", default="You", show_default=True, metavar="NAME",
              help="Your seat's name in the record (one word).")
@click.option("--record", "record", type=OutPath(example="game.scopa"), metavar="PATH",
              help="Where the game record is written, after every play (default "
                   "game-SEED.scopa here).")
@click.option("--overwrite", is_flag=True, help="Replace the --record file if it exists.")
@click.option("--hint", is_flag=True,
              help=f"Before each of your decisions, show advise's best move and its margin "
                   f"({HINT_ROLLOUTS:,} rollouts at most).")
@click.option("--rounds", type=click.IntRange(1), metavar="N",
              help="Stop after N rounds (default: play the game to its target).")
@click.option("--review/--no-review", default=True, show_default=True,
              help="At the end, offer to review your play.")
def play(opponent, rules_name, rule_options, seed, seat_name, record, overwrite, hint, rounds,
         review):
    """Play a game against the engine, in the terminal or through a pipe.

    You hold seat 0; the engine (--opponent) plays every other seat, seeing
    only what its seat sees. Before each of your decisions the table, your
    hand, each side's captures and the score are shown; type your move as a
    card (7d, 7♦), with its capture when the card has a choice (7d takes 4h
    3s, or 7d 4h 3s). An illegal move is refused with the legal ones; ? lists
    them, hint asks advise, quit stops. The game record (docs/RECORDS.md) is
    written after every play with only what you could see: your hands, the
    tables, every play. At the end it offers to review your play. The input
    ending before the game does keeps the record and exits 2.

    \b
    Examples:
      scopa-sim play --seed 7
      scopa-sim play --opponent endgame --hint --rounds 1 --record mine.scopa
      scopa-sim play --seed 7 --rounds 1 --no-review < moves.txt
    """
    # imported when the command runs: help and listings stay light
    from ..study.play import Table
    seed = parse_seed(seed)
    path = record_path(record, seed, overwrite)
    table = Table(parse_rules(rules_name, rule_options), opponent, seed, seat_name, rounds,
                  record=path)
    path.parent.mkdir(parents=True, exist_ok=True)
    table.save()
    say(f"scopa-sim play: {table.name} against {table.opponent} "
        f"({table.rules.name}, to {table.rules.target}), seed {seed}")
    say(f"record: {path}, written after every play; type ? for your legal moves")
    try:
        play_out(table, hint)
    except Stop as stop:
        table.stop()
        if stop.ended:
            raise click.ClickException(f"the input ended before the game did: the game so far "
                                       f"is in {path}") from None
        say(f"stopped: the game so far is in {path}")
    except KeyboardInterrupt:
        table.stop()
        raise Interrupted(f"interrupted: the game so far is in {path}") from None
    say(table.result())
    if review and table.decisions:
        offer_review(table, path)
    else:
        say(f"record: {path}")


COMMANDS = (play,)
