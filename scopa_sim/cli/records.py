"""`scopa-sim record` (write a game record from a run, or check one) and
`scopa-sim review` (every decision of a record rated). Thin: the work is in
`scopa_sim.engine.records` and `scopa_sim.study.review`."""
from __future__ import annotations

from pathlib import Path

import click

from ..defaults import (DEEP_SAMPLES, DEEP_STRATEGY, REVIEW_ROLLOUTS, REVIEW_STRATEGY,
                        THRESHOLDS)
from .options import (FORMAT, OVERWRITE, QUIET, check_out, cluster_options, compile_note, emit,
                      note, OutPath, parse_seed, progress, results, seed_option, where,
                      workers_option, symbols as suit_symbols)



@click.command()
@click.argument("source", metavar="RUN|RECORD", type=click.Path(path_type=Path))
@click.option("--game", "game", type=click.IntRange(0), help="Game G of a run of games.")
@click.option("--round", "round_", type=click.IntRange(0), help="Round I of a run of rounds.")
@click.option("--names", metavar="NAME,NAME,..",
              help="The seats' names, in seat order (default seat0, seat1, ...).")
@click.option("--strategy-file", "strategy_files", multiple=True, metavar="TEXT=PATH",
              help="A run's user strategy, loaded from PATH once its sha256 is the run's "
                   "(replaying the game runs its code); once per user strategy.")
@click.option("--out", type=OutPath(example="game.scopa"), help="Write the record to this file "
              "(default: stdout).")
@OVERWRITE
@click.option("--format", "fmt", type=click.Choice(["check", "record"]),
              help="check: one line, 'ok: ROUNDS, PLAYS, final score'; record: the record in "
                   "the standard form (default: check for a record file without --out or "
                   "--names, record otherwise).")
def record(source, game, round_, names, strategy_files, out, overwrite, fmt=None):
    """Write a game record, or check one.

    With a run folder: game G (--game) of a run of games, or round I
    (--round) of a run of rounds, played again move by move from the run's
    seed, written as a record (docs/RECORDS.md). With a record file: read,
    check and replay it, and say it is fine in one line ("ok: 1 round, 12
    plays, final score 1–5"); with --format record (or --out, or --names)
    write it again in the standard form. A bad record is one error line
    naming its line number.

    \b
    Examples:
      scopa-sim record runs/games --game 3 --names Ada,You --out game3.scopa
      scopa-sim record game3.scopa
      scopa-sim record game3.scopa --format record
    """
    # imported when the command runs: help and listings stay light
    from ..engine.records import read_record
    if out is not None:
        check_out([out], overwrite)
    seat_names = [n.strip() for n in names.split(",")] if names else None
    if source.is_dir():
        from ..runs.export import from_run         # the store (pyarrow): only for a run
        played = from_run(source, game, round_, strategy_files)
    else:
        if game is not None or round_ is not None or strategy_files:
            raise click.UsageError("--game, --round and --strategy-file go with a run folder")
        played = read_record(source)
        if fmt == "check" or fmt is None and out is None and names is None:
            click.echo(checked(played), file=results())
            if out is None:
                return
    text = played.record(seat_names)
    if out is None:
        click.echo(text, nl=False, file=results())
    else:
        from ..runs.parts import write_whole
        write_whole(text.encode(), out)
        note(f"wrote {out}")


def checked(game) -> str:
    """A record read and replayed without fault, in one line.

        >>> from scopa_sim.engine.records import read_record
        >>> print(checked(read_record("docs/examples/seed-003.scopa")))
        ok: 1 round, 12 plays, final score 1–5
    """
    rounds, plays = len(game.rounds), sum(len(r.moves) for r in game.rounds)
    return (f"ok: {rounds} round{'s' * (rounds != 1)}, {plays} play{'s' * (plays != 1)}, "
            f"final score {'–'.join(map(str, game.scores))}")


def review_view(data: dict, symbols: bool | None = None):
    """The summary per seat, then every rated decision with its verdict;
    cards with suit symbols, the red suits red, when `symbols` (default: on
    a terminal; else as the record writes them, `7d`)."""
    # imported when the command runs: help and listings stay light
    from ..analysis.output import Section
    from ..analysis.review_page import (RATED, RED_CARD, interval, judged, legend,
                                        verdict_words, with_suits)

    def ci(d: dict, key: str, fmt: str = ".2f") -> str:
        return interval(d[key], d.get(key + "_low"), d.get(key + "_high"), fmt)
    symbols = suit_symbols() if symbols is None else symbols
    cards = with_suits if symbols else str
    h = data["headers"]
    win = data["sides"] == 2
    summary = Section(f"review: {' vs '.join(h['seats'])} ({h['rules']}); cost: round points "
                      f"lost against the best move", ["seat", "decisions", "mean cost (95% CI)",
                                                       *data["thresholds"], "luck a round"])
    for s in data["summary"]:
        summary.add(s["name"], s["decisions"], ci(s, "mean_cost", ".3f"),
                    *(s["labels"][k] for k in data["thresholds"]), ci(s, "luck", "+.2f"))
    rated = [(r, judged(r)) for r in data["plays"] if r["level"] in RATED]
    whys = any(isinstance(j["why"], str) and j["why"] for _, j in rated)
    plays = Section("decisions (forced plays left out)",
                    ["round", "play", "seat", "played", "verdict", "against",
                     "played − against (95% CI)", *(["P(win game) lost"] if win else []),
                     *(["why"] if whys else [])],
                    styles={RED_CARD.pattern: "red"} if symbols else {})
    for r, j in rated:
        word, _ = verdict_words(r, j)
        plays.add(r["round"], r["play"], r["name"], cards(r["played"]), word,
                  cards(j["versus"] or ""), ci(j, "edge", "+.2f"),
                  *([ci(r, "win_cost", ".3f")] if win else []),
                  *([j["why"] if isinstance(j["why"], str) else ""] if whys else []))
    known = f" (or its edge known to ±{data['precision']:g})" if data.get("precision") else ""
    plays.caption = (f"rollouts by {data['strategy']}, at most {data['rollouts']:,} a move"
                     f"{known}, seed {data['seed']}. " + "; ".join(f"{', '.join(words)}: {meaning}"
                                                         for words, meaning in legend(data)))
    return [summary, plays], [{k: v for k, v in r.items() if k != "alternatives"}
                              for r in data["plays"]]        # CSV: one flat row a play


@click.command()
@click.argument("record_path", metavar="RECORD", type=click.Path(path_type=Path))
@click.option("--seat", "seats", multiple=True, metavar="NAME",
              help="A seat to review (repeat for more; default every seat whose hands the "
                   "record knows).")
@click.option("--strategy", "-s", default=REVIEW_STRATEGY, show_default=True,
              help="The strategy that plays the rollouts out for every seat, as advise's "
                   "--strategy.")
@click.option("--rollouts", type=click.IntRange(2, 10_000_000), default=REVIEW_ROLLOUTS,
              show_default=True, help="The most rollouts per decision (each stops once the "
                                      "played move's verdict is decided, or its edge is "
                                      "known to --precision).")
@click.option("--precision", type=click.FloatRange(0, 100, max_open=True), default=None,
              help="Stop a decision's rollouts once the played move's edge is known to "
                   "+- this many round points  [default: a quarter of --inaccuracy, 0.025; 0: "
                   "only once its verdict is decided]")
@click.option("--inaccuracy", type=click.FloatRange(0, 100, min_open=True),
              default=THRESHOLDS["inaccuracy"], show_default=True,
              help="The cost (round points) from which a play is an inaccuracy.")
@click.option("--mistake", type=click.FloatRange(0, 100, min_open=True),
              default=THRESHOLDS["mistake"], show_default=True, help="... a mistake.")
@click.option("--blunder", type=click.FloatRange(0, 100, min_open=True),
              default=THRESHOLDS["blunder"], show_default=True, help="... a blunder.")
@click.option("--check", is_flag=True,
              help="Value each labelled play again by the deep evaluator (--deep-strategy "
                   "for every seat, on --deep-samples deals), whose values then give its "
                   "verdict and label.")
@click.option("--deep-strategy", default=DEEP_STRATEGY, show_default=True,
              help="The strategy that plays the deep check's rollouts out for every seat.")
@click.option("--deep-samples", type=click.IntRange(2, 10_000_000), default=DEEP_SAMPLES,
              show_default=True, help="The most deals of the hidden cards a deep check plays.")
@click.option("--out", type=OutPath(example="review.html"),
              help="Also write the review: a page (.html) or the evaluation chart alone "
                   "(.png, .svg, .pdf).")
@OVERWRITE
@seed_option
@workers_option
@cluster_options
@FORMAT
@QUIET
def review(record_path, seats, strategy, rollouts, precision, inaccuracy, mistake, blunder,
           check, deep_strategy, deep_samples, out, overwrite, seed, workers, scheduler, cluster,
           fmt, quiet):
    """Rate every decision of a game record, like a chess analysis.

    Each decision of the seats reviewed is valued from what that seat knew
    then (its hand, the table, the plays so far) by advise's rollouts (every
    move played on the same deals of the unseen cards, then by --strategy
    for every seat), or exactly when nothing is hidden. Rollouts go on until
    the played move's verdict is decided, its edge is known to --precision,
    or --rollouts: best (above every other move), worse (below the best), or
    level (the rollouts cannot tell it from the best, or from its closest
    rival). A worse play is labelled
    inaccuracy, mistake or blunder by the largest threshold its cost's
    interval lies above. Every verdict says why: the difference split into
    scopas, settebello, cards, coins and primiera, the largest in words.
    The summary gives each seat's mean cost and its luck: its side's round
    margin less what the dealing position is worth and what play explains
    (docs/RECORDS.md).

    \b
    Examples:
      scopa-sim review docs/examples/seed-003.scopa --seed 1
      scopa-sim review game.scopa --seat You --out review.html
    """
    # imported when the command runs: help and listings stay light
    from ..analysis import review_page
    from ..engine.records import read_record
    from ..study.advise import rollout_strategy, self_play
    from ..study.review import review as run_review
    if out is not None:
        review_page.check_path(out)
        check_out([out], overwrite)
    game = read_record(record_path)
    plays = sum(len(r.moves) for r in game.rounds)
    baseline = self_play(rollout_strategy(strategy))         # the kernel a review runs first
    with progress(quiet, "review") as bar:
        first = compile_note((baseline,) * game.rules.players, game.rules) or "plays"
        task = bar.add_task("", total=plays, note=first)
        df = run_review(game, list(seats) or None, strategy, rollouts, parse_seed(seed),
                        {"inaccuracy": inaccuracy, "mistake": mistake, "blunder": blunder},
                        check, deep_strategy, deep_samples, workers,
                        where(scheduler, cluster),
                        lambda k: bar.update(task, advance=k, note="plays"),
                        precision=precision)
    if out is not None:
        review_page.write(df, out, overwrite=True)
        note(f"wrote {out}")
    emit({**df.attrs, "plays": df.to_dict("records")}, review_view, fmt)


COMMANDS = (record, review)
