"""The analysis commands (compare, tournament, report, ask, plot). Thin: the
work is in `scopa_sim.analysis`; results go to stdout (`--format
table|json|csv`), progress to stderr."""
from __future__ import annotations

import json
import re
import warnings
from pathlib import Path

import click

from .options import (FORMAT, OVERWRITE, QUIET, check_out, emit, isolate_options, isolation,
                      new_files, note, OutPath, parse_rules, parse_seed, progress,
                      rules_options, run_options, trusted_note, where)


def _open(run_dir):
    """The run in RUN_DIR, to read (nothing it names is loaded); a run of an
    older store format is read with one warning line on stderr."""

    from ..runs.store import Run, StoreWarning
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", StoreWarning)
        run = Run.open(run_dir)
    for w in caught:
        note(f"warning: {w.message}")
    return run


# ---- compare ---------------------------------------------------------------
@click.command()
@click.argument("a")
@click.argument("b")
@click.option("--deals", type=click.IntRange(min=2),
              help="Duplicate deals (or game seeds, with --games) to play, each twice "
                   "(three times with three sides; default 100,000).")
@click.option("--until-halfwidth", type=float, metavar="X",
              help="Instead of --deals: play batches until the paired 95% interval of the "
                   "margin per round (with --games: of the match win rate) is at most ±X.")
@click.option("--max-deals", type=click.IntRange(min=2), default=10_000_000, show_default=True,
              help="The cap for --until-halfwidth.")
@click.option("--games", is_flag=True,
              help="Play whole games to the target (paired by game seed) and report the match "
                   "win rate too.")
@rules_options
@run_options
@isolate_options
@FORMAT
@QUIET
def compare(a, b, deals, until_halfwidth, max_deals, games, rules_name, rule_options, seed,
            workers, scheduler, cluster, batch_size, isolate, move_timeout, strict_isolation, fmt,
            quiet):
    """Compare strategy A with B on duplicate deals.

    Each deck is played twice with the seats swapped (round i's deck depends
    only on the seed and i), so the luck of the deal largely cancels. Prints
    the paired point margin per round (A minus B) with a 95% interval beside
    the interval the same data would give unpaired, the correlation of the
    two plays, and round win/draw/loss rates with Wilson intervals; with
    --games, the match win rate. With three sides (scopa-3, scopa-6) each
    deck is played three times, A at each side in turn and B at the others,
    and the margin is A's points minus the others' mean.

    \b
    Examples:
      scopa-sim compare greedy random --deals 100000 --seed 1
      scopa-sim compare greedy greedy:scopa=2000 --until-halfwidth 0.01
      scopa-sim compare greedy random --games --deals 20000 --format json
      scopa-sim compare reply counter --rules scopa-3 --deals 20000
      scopa-sim compare mine.py:f theirs.py:g --isolate --deals 20000
    """
    # imported when the command runs: help and listings stay light
    from ..study.matches import DEFAULT_DEALS
    from ..study.matches import compare as run_compare
    from ..analysis.views import compare_view
    if deals is not None and until_halfwidth is not None:
        raise click.UsageError("--deals and --until-halfwidth exclude each other")
    scheduler = where(scheduler, cluster)
    given, seed = seed, parse_seed(seed, isolate)
    move_timeout = isolation(isolate, move_timeout, given, scheduler, strict_isolation)
    rules = parse_rules(rules_name, rule_options)
    with progress(quiet, f"compare {a} vs {b}") as bar:
        total = deals or (max_deals if until_halfwidth else DEFAULT_DEALS)
        task = bar.add_task("", total=total, note="")

        def update(c):
            note = f"±{c.headline_halfwidth():.4f}" if until_halfwidth else ""
            bar.update(task, completed=c.units, note=note)
        result = run_compare(a, b, rules, seed, deals=deals, until_halfwidth=until_halfwidth,
                             games=games, max_deals=max_deals, batch_size=batch_size,
                             workers=workers, scheduler=scheduler, progress=update,
                             isolate=isolate, move_timeout=move_timeout)
    emit(result, compare_view, fmt)
    trusted_note(isolate, (a, b), quiet)


# ---- tournament --------------------------------------------------------------
@click.command()
@click.argument("strategies", nargs=-1, required=True)
@click.option("--deals", type=click.IntRange(min=2), default=20_000, show_default=True,
              help="Duplicate deals (or game seeds) per pair of strategies.")
@click.option("--games", is_flag=True, help="Play whole games (paired by game seed).")
@rules_options
@run_options
@isolate_options
@FORMAT
@QUIET
def tournament(strategies, deals, games, rules_name, rule_options, seed, workers, scheduler,
               cluster, batch_size, isolate, move_timeout, strict_isolation, fmt,
               quiet):
    """A round robin of STRATEGIES on duplicate deals.

    Every pair plays the same decks, each twice with the seats swapped.
    Prints the matrix of mean margins per round (row minus column) with 95%
    intervals, and Bradley-Terry ratings (from round wins, a draw counting
    half) with 95% intervals, also on an Elo scale. Save the JSON for
    `scopa-sim plot FILE.json --kind heatmap`.

    \b
    Examples:
      scopa-sim tournament random greedy greedy:scopa=0 --deals 20000 --seed 1
      scopa-sim tournament random greedy greedy:coin=300 --format json > tour.json
      scopa-sim tournament a.py:f b.py:g c.py:h greedy --isolate --deals 5000
    """
    # imported when the command runs: help and listings stay light
    from ..study.matches import tournament as run_tournament
    from ..analysis.views import tournament_view
    scheduler = where(scheduler, cluster)
    given, seed = seed, parse_seed(seed, isolate)
    move_timeout = isolation(isolate, move_timeout, given, scheduler, strict_isolation)
    rules = parse_rules(rules_name, rule_options)
    n_pairs = len(strategies) * (len(strategies) - 1) // 2
    with progress(quiet, "tournament") as bar:
        task = bar.add_task("", total=n_pairs * deals, note="")

        def update(p, pairs, c):
            bar.update(task, completed=p * deals + c.units, note=f"{c.a} vs {c.b}")
        result = run_tournament(strategies, rules, seed, deals=deals, games=games,
                                batch_size=batch_size, workers=workers,
                                scheduler=scheduler, progress=update, isolate=isolate,
                                move_timeout=move_timeout)
    emit(result, tournament_view, fmt)
    trusted_note(isolate, strategies, quiet)


# ---- report ------------------------------------------------------------------
def _stats(run, quiet: bool, bootstrap: int = 200, values: bool = True) -> dict:
    # imported when the command runs: help and listings stay light
    from ..analysis.runstats import run_stats
    with progress(quiet, "read") as bar:
        task = bar.add_task("", total=len(run.done_batches()), note="batches")
        return run_stats(run, bootstrap=bootstrap, progress=lambda b: bar.advance(task),
                         values=values)


@click.command()
@click.argument("run_dir", metavar="RUN", type=click.Path(path_type=Path))
@click.option("--out", "out_file", type=OutPath(),
              help="Also write a report: FILE.md (charts as PNG beside it) or FILE.html "
                   "(charts embedded).")
@OVERWRITE
@click.option("--bootstrap", type=click.IntRange(min=0), default=200, show_default=True,
              help="Resamplings for the interval of the exact match probability.")
@FORMAT
@QUIET
def report(run_dir, out_file, overwrite, bootstrap, fmt, quiet):
    """Tables (and a Markdown or HTML report) for the run in folder RUN.

    Round and game win rates with Wilson intervals; the match win
    probability computed exactly from the per-round score distribution (a
    Markov chain to the target) beside the simulated one; points per
    category; scopas per round; dealer versus leader; rounds per game; what
    each card in the first hand is worth (`scopa-sim values`); the run's
    throughput.

    \b
    Examples:
      scopa-sim report runs/demo
      scopa-sim report runs/demo --out report.md
      scopa-sim report runs/games --out report.html --format json
    """
    # imported when the command runs: help and listings stay light
    from ..analysis.views import report_view
    if out_file is not None and out_file.suffix.lower() not in (".md", ".html", ".htm"):
        raise click.BadParameter(f"{str(out_file)!r} must end in .md or .html",
                                 param_hint="--out")
    if out_file is not None:
        check_out([out_file])
    run = _open(run_dir)
    if out_file is not None:
        # with the report's charts (matplotlib): only to write one
        from ..analysis.report import report_files, write_report
        from ..engine.deals import dealt_again
        new_files(report_files(out_file, run.spec, dealt_again(run.manifest)), overwrite)
    st = _stats(run, quiet, bootstrap)
    if out_file is not None:
        files = write_report(st, out_file)
        if not quiet:
            note(f"wrote {', '.join(map(str, files))}")
    emit(st, report_view, fmt)


# ---- ask -----------------------------------------------------------------------
class _DashArguments(click.Command):
    """A command whose arguments may start with `-`, as an EVENT such as
    "-(margin) > 2" does: a word that starts with `-` but is neither one of
    the command's options nor written like one (`--name`, `--name=value`) is
    an argument, wherever it stands. `--` marks only the word after it as an
    argument, so options after it still work."""

    def parse_args(self, ctx, args):
        params = self.get_params(ctx)
        names = {o for p in params for o in p.opts + p.secondary_opts}
        valued = {o for p in params if isinstance(p, click.Option) and not p.is_flag
                  and not p.count for o in p.opts}
        options, words, rest = [], [], list(args)
        while rest:
            word = rest.pop(0)
            if word == "--" and rest:
                words.append(rest.pop(0))
            elif word in names or re.fullmatch(r"--[A-Za-z][\w-]*(=.*)?", word):
                options.append(word)
                if word in valued:
                    if not rest:
                        raise click.BadOptionUsage(word, f"Option '{word}' requires an argument.",
                                                   ctx)
                    options.append(rest.pop(0))
            else:                        # RUN, EVENT: "-(margin) > 2" too
                words.append(word)
        return super().parse_args(ctx, options + ["--"] + words)


@click.command(cls=_DashArguments)
@click.argument("run_dir", metavar="RUN", type=click.Path(path_type=Path))
@click.argument("event")
@click.option("--given", metavar="CONDITION", help="Only the rows where this holds.")
@click.option("--table", type=click.Choice(["rounds", "games"]), default="rounds",
              show_default=True, help="Ask about rounds, or about games (runs of --games).")
@FORMAT
def ask(run_dir, event, given, table, fmt):
    """P(EVENT | CONDITION) over the rows of run RUN, with n and a 95% interval.

    EVENT and CONDITION are small expressions over the run's columns (see
    docs/COLUMNS.md: points_0, settebello_1, scopas_0, dealer, round, ...)
    and these derived ones: rounds table: winner (side with the most points,
    -1 on a tie), margin (points_0 - points_1), total_points, dealer_side,
    leader, leader_side, game_winner (runs of games); games table:
    dealer_side (of the first round), margin (final score_0 - score_1),
    besides game, rounds, first_dealer, winner, score_t. Card sets: hand_S,
    dealt_S, table (dealt again from the seed) and taken_T (what side T
    captured: stored with simulate --keep-taken, else played again from the
    seed), with sevens, coins, ... and count(). An EVENT that is a number,
    not true/false, gives its mean instead.

    Allowed: numbers, True/False, 'text' (only in ==, != and in); + - * / //
    % ** (the exponent a number from -64 to 64), in 64-bit integers so
    nothing wraps, / giving a float; == != < <= > >= (chained: 0 < margin
    <= 2); x in [1, 2], x not in [...]; and, or, not (also &, |, ~); abs, min,
    max, round, floor, sqrt. A division by zero or a result beyond 64 bits in
    any row is an error: leave those rows out with --given. Anything else
    (attributes, subscripts, other calls, lambdas, ...) is refused before any
    data is read. An EVENT or CONDITION may start with -, written as it is.

    \b
    Examples:
      # how often does the side that takes the settebello win the round?
      scopa-sim ask runs/demo "winner == 0" --given "settebello_0 == 1"
      # how often does the dealer win a game to 11? (a run of --games)
      scopa-sim ask runs/games "winner == dealer_side" --table games
      # how long is a game? (mean rounds per game)
      scopa-sim ask runs/games "rounds" --table games
      # two scopas or more in a round
      scopa-sim ask runs/demo "scopas_0 + scopas_1 >= 2"
      # how often does greedy, in seat 1, win a round by 3 points or more?
      scopa-sim ask runs/demo "margin <= -3" --given "strategy_1 == 'greedy'"
      # the same, an EVENT starting with -
      scopa-sim ask runs/demo "-margin >= 3" --given "strategy_1 == 'greedy'"
      # how often do I win the round when I capture three sevens?
      scopa-sim ask runs/demo "winner == 0" --given "count(taken_0 & sevens) >= 3"
    """
    # imported when the command runs: help and listings stay light
    from ..analysis.query import ask as run_ask
    from ..analysis.views import ask_view
    emit(run_ask(_open(run_dir), event, given, table), ask_view, fmt)


# ---- plot ------------------------------------------------------------------------
@click.command()
@click.argument("source", metavar="[RUN]", required=False, type=click.Path(path_type=Path))
@click.option("--kind", "-k", default=None,
              type=click.Choice(["winrates", "categories", "margin", "convergence", "rounds",
                                 "values", "heatmap", "all"]),
              help="Chart: winrates, categories (points by category), margin (histogram), "
                   "convergence (estimate against rounds played), rounds (per game), values "
                   "(what each card is worth), heatmap (tournament), all (every chart of the "
                   "run). Default: winrates, or heatmap for a tournament.")
@click.option("--out", "out_file", type=OutPath(example="chart.png"),
              help="Chart file, .png, .svg or .pdf (default: <RUN name>-<kind>.png here). "
                   "With --kind all, one file per chart: <stem>-<kind><ext>.")
@click.option("--strategies", "-s", help="heatmap without RUN: run a tournament of these "
                                         "(comma-separated).")
@click.option("--deals", type=click.IntRange(min=2), default=20_000, show_default=True,
              help="heatmap without RUN: duplicate deals per pair.")
@OVERWRITE
@rules_options
@run_options
@FORMAT
@QUIET
def plot(source, kind, out_file, strategies, deals, overwrite, rules_name, rule_options, seed,
         workers, scheduler, cluster, batch_size, fmt, quiet):
    """Charts of run RUN, or a tournament heatmap (RUN a tournament's JSON
    output, or --strategies to run one). PNG, or SVG/PDF by --out's extension.

    \b
    Examples:
      scopa-sim plot runs/demo --kind convergence --out convergence.png
      scopa-sim plot runs/games --kind all --out charts/games.svg
      scopa-sim tournament random greedy greedy:scopa=0 --format json > tour.json
      scopa-sim plot tour.json --out tour.png
      scopa-sim plot --kind heatmap --strategies random,greedy,greedy:scopa=0 --deals 5000
    """
    # imported when the command runs: help and listings stay light
    from ..analysis import charts
    from ..analysis.output import Section
    if out_file is not None:
        charts.check_format(out_file)
        check_out([out_file])
    if source is not None and source.suffix.lower() == ".json":
        if kind not in (None, "heatmap"):
            raise click.UsageError(f"{source} is a tournament: its chart is --kind heatmap")
        data = _tournament_json(source)
        jobs = [("heatmap", data, out_file or Path(source.stem + ".png"))]
        check_out([jobs[0][2]], overwrite)
    elif source is None:
        if kind != "heatmap" or not strategies:
            raise click.UsageError("give a RUN folder (or a tournament's JSON), or "
                                   "--kind heatmap --strategies A,B,C to run a tournament")
        check_out([out_file or Path("tournament.png")], overwrite)
        # imported when the command runs: help and listings stay light
        from ..study.matches import tournament as run_tournament
        from ..engine.strategies import split_strategies
        names = [str(s) for s in split_strategies(strategies)]
        with progress(quiet, "tournament") as bar:
            pairs = len(names) * (len(names) - 1) // 2
            task = bar.add_task("", total=pairs * deals, note="")
            data = run_tournament(names, parse_rules(rules_name, rule_options), parse_seed(seed),
                                  deals=deals, batch_size=batch_size, workers=workers,
                                  scheduler=where(scheduler, cluster), progress=lambda p, n, c: bar.update(
                                      task, completed=p * deals + c.units, note=f"{c.a} vs {c.b}"))
        jobs = [("heatmap", data, out_file or Path("tournament.png"))]
    else:
        if kind == "heatmap":
            raise click.UsageError("a heatmap is of a tournament: give its JSON file or "
                                   "--strategies")
        # imported when the command runs: help and listings stay light
        from ..engine.deals import dealt_again
        run = _open(source)
        kinds = (charts.spec_kinds(run.spec, dealt_again(run.manifest)) if kind == "all"
                 else [kind or "winrates"])
        name = Path(source).resolve().name
        if kind == "all":
            base = out_file or Path(f"{name}.png")
            paths = [base.with_name(f"{base.stem}-{k}{base.suffix}") for k in kinds]
        else:
            paths = [out_file or Path(f"{name}-{kinds[0]}.png")]
        check_out(paths, overwrite)
        st = _stats(run, quiet, bootstrap=0,               # no interval needed for charts
                    values="values" in kinds)
        jobs = [(k, st, path) for k, path in zip(kinds, paths)]
    files = [str(charts.draw(k, d, p)) for k, d, p in jobs]
    result = {"files": files, "kinds": [k for k, _, _ in jobs]}

    def view(r):
        s = Section("charts written", ["kind", "file"])
        for k, f in zip(r["kinds"], r["files"]):
            s.add(k, f)
        return [s], [{"kind": k, "file": f} for k, f in zip(r["kinds"], r["files"])]
    emit(result, view, fmt)


MAX_HEATMAP = 64          # strategies in a heatmap (a cell each pair, drawn one by one)


def _tournament_json(source: Path) -> dict:
    """A tournament's JSON output read and checked for what the heatmap
    draws (names, square tables of numbers, the deal count), or one
    ValueError saying what is wrong."""
    def bad(why: str) -> ValueError:
        return ValueError(f"{source} is not a tournament's JSON output (scopa-sim tournament "
                          f"... --format json): {why}")
    try:
        data = json.loads(source.read_text())
    except OSError as e:
        raise bad(e.strerror or str(e)) from None
    except (ValueError, RecursionError) as e:       # not JSON, not UTF-8, nested too deep
        raise bad(f"not JSON ({type(e).__name__})") from None
    if not isinstance(data, dict):
        raise bad(f"a JSON {type(data).__name__}, not an object")
    names = data.get("strategies")
    if (not isinstance(names, list) or not 2 <= len(names) <= MAX_HEATMAP
            or not all(isinstance(n, str) for n in names)):
        raise bad(f"'strategies' must list 2 to {MAX_HEATMAP} names")
    n = len(names)
    for key in ("margin", "low", "high"):
        table = data.get(key)
        if (not isinstance(table, list) or len(table) != n
                or not all(isinstance(row, list) and len(row) == n for row in table)
                or not all(v is None or (isinstance(v, (int, float)) and not isinstance(v, bool))
                           for row in table for v in row)):
            raise bad(f"'{key}' must be a {n} × {n} table of numbers")
    if not isinstance(data.get("pairs_per_match"), int) or isinstance(
            data.get("pairs_per_match"), bool) or data["pairs_per_match"] < 0:
        raise bad("'pairs_per_match' must be a whole number")
    if not isinstance(data.get("unit"), str) or not isinstance(data.get("rules", ""), str):
        raise bad("'unit' and 'rules' must be text")
    return data


# ---- odds ------------------------------------------------------------------------
@click.command()
@click.option("--score", metavar="MINE-THEIRS", help="The score now, side 0's first, e.g. 7-9.")
@click.option("--dealer", type=int, help="The seat that deals the next round (default: the "
                                         "average over the seats).")
@click.option("--strategies", "-s", default="counter,counter", show_default=True,
              help="The strategies of side 0 and side 1, comma-separated.")
@click.option("--rounds", type=click.IntRange(1_000, 10**9), default=200_000, show_default=True,
              help="Rounds to simulate for the per-round score distribution.")
@click.option("--bootstrap", type=click.IntRange(0, 10_000), default=200, show_default=True,
              help="Resamplings for the 95% intervals.")
@click.option("--out", "out_file", type=OutPath(example="chart.png"),
              help="Also draw the heat map of every score pair (.png, .svg or .pdf).")
@OVERWRITE
@rules_options
@run_options
@FORMAT
@QUIET
def odds(score, dealer, strategies, rounds, bootstrap, out_file, overwrite, rules_name,
         rule_options, seed, workers, scheduler, cluster, batch_size, fmt, quiet):
    """The probability of winning the game from a score.

    Simulates rounds of the strategies, takes their per-round score
    distribution for each dealer seat, and solves the game to the target as
    a Markov chain (the deal passing, a tie at the top playing on) from every
    score below the target, with 95% bootstrap intervals. Two sides only;
    targets up to 301 (the chain grows with the target squared; at 301 it
    takes some 15 s for the 200 resamplings).

    \b
    Examples:
      scopa-sim odds --score 7-9
      scopa-sim odds --score 9-9 --dealer 0 --strategies pimc,counter --rounds 20000
      scopa-sim odds --rule target=21 --out odds.png
    """
    # imported when the command runs: help and listings stay light
    from ..analysis import charts
    from ..study.odds import odds as run_odds
    from ..analysis.views import odds_view
    if out_file is not None:
        charts.check_format(out_file)
        check_out([out_file], overwrite)
    rules = parse_rules(rules_name, rule_options)
    with progress(quiet, "odds") as bar:
        task = bar.add_task("", total=rounds, note="rounds")
        resample = bar.add_task("", total=bootstrap, note="resamplings of the chain",
                                visible=bootstrap > 0)
        result = run_odds(strategies, rules, score=score, dealer=dealer, seed=parse_seed(seed),
                          rounds=rounds, bootstrap=bootstrap, workers=workers,
                          scheduler=where(scheduler, cluster),
                          progress=lambda n: bar.advance(task, n),
                          bootstrap_progress=lambda k: bar.advance(resample, k))
    if out_file is not None:
        path = charts.draw("odds", result, out_file)
        if not quiet:
            note(f"wrote {path}")
    emit(result, odds_view, fmt)


# ---- values ------------------------------------------------------------------------
@click.command()
@click.argument("run_dir", metavar="RUN", type=click.Path(path_type=Path))
@click.option("--out", "out_file", type=OutPath(example="chart.png"),
              help="Also draw the suit x rank heat map and the hand-worth histogram "
                   "(.png, .svg or .pdf).")
@click.option("--by", type=click.Choice(["hand", "taken"]), default="hand", show_default=True,
              help="Price a card by the side whose first hand holds it (hand), or by the side "
                   "that captured it (taken: stored with simulate --keep-taken, or played "
                   "again from the seed).")
@OVERWRITE
@FORMAT
@QUIET
def values(run_dir, out_file, overwrite, fmt, quiet, by="hand"):
    """What each card is worth, from the rounds of run RUN.

    For each of the 40 cards: the mean round margin and the win edge
    (P(win) minus P(another side wins)) of the side whose first hand holds
    it, with 95% intervals; and the distribution of a first hand's worth,
    the sum of its cards' values. The deals are dealt again from the run's
    seed. The values hold under the run's strategies, which it names.

    \b
    Examples:
      scopa-sim values runs/demo
      scopa-sim values runs/demo --out values.png --format csv
      scopa-sim values runs/demo --by taken
    """
    # imported when the command runs: help and listings stay light
    from ..analysis import charts
    from ..analysis.values import card_values
    from ..analysis.views import values_view
    if out_file is not None:
        charts.check_format(out_file)
        check_out([out_file], overwrite)
    run = _open(run_dir)
    with progress(quiet, "values") as bar:
        twice = by == "hand"
        task = bar.add_task("", total=(1 + twice) * len(run.done_batches()),
                            note="batches, twice" if twice else "batches")
        result = card_values(run, progress=lambda b: bar.advance(task), by=by)
    if out_file is not None:
        charts.draw("values", result, out_file)
        if not quiet:
            note(f"wrote {out_file}")
    emit(result, values_view, fmt)


# ---- deals -------------------------------------------------------------------------
@click.command()
@click.argument("run_dir", metavar="RUN", type=click.Path(path_type=Path))
@click.option("--out", "out_dir", required=True, type=OutPath(folder=True),
              help="A new (or empty) folder for the Parquet files.")
@QUIET
def deals(run_dir, out_dir, quiet):
    """Write the deal columns of run RUN as Parquet, for outside tools.

    One file per batch, OUT/part-NNNNNN.parquet: round (and game, in a run
    of games), then hand_S (seat S's first hand), dealt_S (every card seat S
    was dealt) and table (the first table), each a card set as uint64, bit
    suit*10 + rank - 1 (suits: coins, cups, swords, clubs). They are dealt
    again from the run's seed; `ask` reads them without this.

    \b
    Examples:
      scopa-sim deals runs/demo --out runs/demo-deals
      python -c "import pandas as pd; print(pd.read_parquet('runs/demo-deals').head())"
    """
    # imported when the command runs: help and listings stay light
    from ..engine import deals as dealing
    check_out([out_dir], folder=True)               # not in this run's folder, or any other run's
    run = _open(run_dir)
    with progress(quiet, "deals") as bar:
        task = bar.add_task("", total=len(run.done_batches()), note="batches")
        files = dealing.write(run, out_dir, progress=lambda b: bar.advance(task))
    if not quiet:
        note(f"wrote {len(files)} file{'s' * (len(files) != 1)} to {out_dir}")


COMMANDS = (compare, tournament, report, ask, plot, odds, values, deals)
