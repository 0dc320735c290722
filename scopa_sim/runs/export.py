"""A run's game or round as a game record: played again from the run's seed
with its strategies, to write with `Game.record`."""
from __future__ import annotations

import warnings

from ..engine.checks import whole
from ..engine.deals import check_run
from ..engine.game import Game
from ..engine.record_format import RecordNotes
from .sources import parse_files, runnable
from .store import Run, StoreWarning
from .traces import trace_game, trace_round


def from_run(root, game: int | None = None, round_: int | None = None,
             strategy_files=()) -> Game:
    """Game `game` of a games run, or round `round_` of a rounds run, in
    folder `root`, played again move by move from the run's seed with its
    strategies (`traces.trace_game`, `trace_round`): a Game to write as a
    record. A run playing user strategies runs their code, so each is
    loaded only from a file named in `strategy_files` ("TEXT=PATH", as
    `simulate --resume` takes them) whose sha256 is the run's."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", StoreWarning)      # format 1 is refused just below
        run = Run.open(root)
    check_run(run.root, run.manifest)
    stored = run.stored
    games = bool(stored.games)
    unit, what = (game, "game") if games else (round_, "round")
    if (game if not games else round_) is not None or unit is None:
        kind = "games" if games else "rounds"
        raise ValueError(f"{root} is a run of {kind}: name a {what} with --{what} "
                         f"(0..{stored.units - 1})")
    unit = whole(unit, f"{what} index", 0, stored.units - 1,
                 f"0..{stored.units - 1}, the run's {what}s")
    if stored.sources:
        spec = runnable(stored, run.root, parse_files(list(strategy_files), stored), "replay")
        rules, strategies = spec.rules, spec.strategies
    else:
        if strategy_files:
            raise ValueError(f"--strategy-file: {root} plays no user strategy")
        rules, strategies = stored.rules, stored.strategies
    if games:
        played = trace_game(stored.seed, unit, strategies, rules)
    else:
        rnd = trace_round(stored.seed, unit, strategies, rules)
        played = Game(rules, first_dealer=rnd.dealer, decks=[rnd.deck_order])
        for _, c, take in rnd.moves:
            played.play(c, take)
    played.notes = RecordNotes(
        [f"seat{s}" for s in range(rules.players)],
        {"Run": str(root).replace("#", "%23"), "Seed": str(stored.seed), "Index": f"{what} {unit}",
         "Strategies": " ".join(map(str, stored.strategies))})
    return played

