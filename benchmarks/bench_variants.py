"""The Scopa family: speed of every preset, and what every rule option does.

    .venv/bin/python benchmarks/bench_variants.py [--rounds N] [--stat-rounds M] [--games G]

1. Speed, one core, after warm-up: rounds/s of each preset (kernel batches,
   no DataFrame), and cards played/s, compared with the two-player `scopa`
   per card played (a preset slower than half of it is marked SLOW).
2. Effects, greedy on every seat, `scopa` with one option changed (and
   primiera_forfeit on scopa-3 and scopa-6 too): mean points per round (all
   sides), scopas per round, and the dealer's advantage (the dealer's side's
   points minus the mean of the others'), each with a 95% t interval, and
   its change from the plain preset as a paired difference (the same seed
   deals the same decks, so the pairs share their deals), and the share of
   rounds whose points change at all (95% Wilson interval).
   `target` changes games, not rounds: rounds per game and the first
   dealer's game win rate (95% Wilson interval).
Every preset and option: docs/VARIANTS.md.
"""
import argparse
import time

import numpy as np
from scipy import stats

import scopa_sim
from scopa_sim import PRESETS, Rules
from scopa_sim.stats import wilson_ends
from scopa_sim.runs.plan import RunSpec
from scopa_sim.runs.runner import run_batch

# (label, preset, changes): each option on scopa, and primiera_forfeit also
# where sides often miss a suit (three or more sides).
OPTIONS = [
    ("fewest_cards", "scopa", dict(fewest_cards=True)),
    ("ace_takes_all", "scopa", dict(ace_takes_all=True)),
    ("scopa_on_last_play", "scopa", dict(scopa_on_last_play=True)),
    ("primiera_forfeit", "scopa", dict(primiera_forfeit=True)),
    ("primiera_scale=1..10 (face value)", "scopa", dict(primiera_scale=tuple(range(1, 11)))),
    ("re_bello", "scopa", dict(re_bello=True)),
    ("napola", "scopa", dict(napola=True)),
    ("primiera_forfeit", "scopa-3", dict(primiera_forfeit=True)),
    ("primiera_forfeit", "scopa-6", dict(primiera_forfeit=True)),
]


def rounds_per_second(rules, strategy, rounds):
    """Kernel rounds/s on one thread for `rules`, every seat playing `strategy`."""
    spec = RunSpec.make(rounds=rounds, strategies=(strategy,) * rules.players, rules=rules,
                        seed=1, batch_size=rounds)
    run_batch(RunSpec.make(rounds=200, strategies=(strategy,) * rules.players, rules=rules,
                           seed=0, batch_size=200), 0)                      # warm up
    best = 0.0
    for _ in range(3):                                                      # best of 3
        t = time.perf_counter()
        run_batch(spec, 0)
        best = max(best, rounds / (time.perf_counter() - t))
    return best


def speed(rounds):
    print(f"1. speed: one core, {rounds:,} rounds a batch, best of 3\n")
    print(f"{'preset':22}{'strategy':>9}{'rounds/s':>12}{'cards/s':>14}{'per card vs scopa':>19}")
    base = {}
    worst = 1.0
    for strategy in ("random", "greedy"):
        for name, rules in PRESETS.items():
            rate = rounds_per_second(rules, strategy, rounds)
            cards = rate * (40 - rules.table_size)
            base.setdefault(strategy, cards)
            ratio = cards / base[strategy]
            worst = min(worst, ratio)
            flag = "" if ratio >= 0.5 else "  SLOW"
            print(f"{name:22}{strategy:>9}{rate:12,.0f}{cards:14,.0f}{ratio:18.2f}x{flag}")
    print(f"\nslowest preset per card played: {worst:.2f}x the two-player speed "
          f"({'meets' if worst >= 0.5 else 'MISSES'} the 0.5x floor)\n")


def t_interval(x):
    x = np.asarray(x, np.float64)
    mean = x.mean()
    half = stats.t.ppf(0.975, len(x) - 1) * x.std(ddof=1) / np.sqrt(len(x))
    return mean, mean - half, mean + half


def measures(df, n_sides):
    """Per round: points of all sides, scopas of all sides, and the dealer's
    side's points minus the mean of the other sides' (two players: dealer
    minus leader)."""
    p = df[[f"points_{t}" for t in range(n_sides)]].to_numpy(np.int64)
    s = df[[f"scopas_{t}" for t in range(n_sides)]].to_numpy(np.int64)
    dealer_side = df["dealer"].to_numpy() % n_sides       # seats s and s + n_sides are partners
    mine = p[np.arange(len(df)), dealer_side]
    return {"points/round": p.sum(1), "scopas/round": s.sum(1),
            "dealer adv.": mine - (p.sum(1) - mine) / (n_sides - 1), "points": p}


def changed(got, base):
    """Share of rounds whose points (any side) differ from the preset's, 95% Wilson CI."""
    k = int((got["points"] != base["points"]).any(axis=1).sum())
    n = len(got["points"])
    lo, hi = map(float, wilson_ends(k, n))
    return f"{k / n:.4f} [{lo:.4f}, {hi:.4f}]"


def fmt(mean, lo, hi, sign=""):
    return f"{mean:{sign}.3f} [{lo:{sign}.3f}, {hi:{sign}.3f}]"


def effects(rounds, games, seed):
    print(f"2. effects: greedy on every seat, {rounds:,} rounds each (seed {seed}); "
          f"value [95% CI], and its change from the preset (paired: same seed, same decks)\n")
    names = ["points/round", "scopas/round", "dealer adv."]
    print(f"{'rules':40}" + "".join(f"{n:>30}" for n in names) + f"{'rounds changed':>28}")
    plain = {}
    for label, preset, change in OPTIONS:
        base = Rules.preset(preset)
        if preset not in plain:
            plain[preset] = measures(scopa_sim.simulate(
                rounds=rounds, strategies=("greedy",) * base.players, rules=base, seed=seed,
                workers=2), base.n_sides)
            print(f"{preset:40}" + "".join(f"{fmt(*t_interval(plain[preset][n]), '+'):>30}"
                                           for n in names))
        rules = base.with_options(**change)
        got = measures(scopa_sim.simulate(rounds=rounds, strategies=("greedy",) * base.players,
                                          rules=rules, seed=seed, workers=2), base.n_sides)
        print(f"{'  +' + label:40}" + "".join(f"{fmt(*t_interval(got[n]), '+'):>30}" for n in names))
        print(f"{'     change':40}" + "".join(
            f"{fmt(*t_interval(got[n] - plain[preset][n]), '+'):>30}" for n in names)
            + f"{changed(got, plain[preset]):>28}")
    strategies = ("greedy", "greedy")
    print(f"\n   target: {games:,} games each, greedy vs greedy; rounds per game [95% CI], "
          f"first dealer's game win rate [95% Wilson CI]")
    for target in (11, 16, 21):
        rules = Rules.preset("scopa").with_options(target=target)
        df = scopa_sim.simulate(games=games, strategies=strategies, rules=rules, seed=seed,
                                workers=2)
        last = df.groupby("game").tail(1)
        first_dealer = (last["game"].to_numpy() % 2)
        winner = (last["score_1"].to_numpy() > last["score_0"].to_numpy()).astype(int)
        wins = int((winner == first_dealer).sum())
        lo, hi = map(float, wilson_ends(wins, len(last)))
        per_game = df.groupby("game").size().to_numpy()
        print(f"   target={target:<3} rounds/game {fmt(*t_interval(per_game))}   "
              f"first dealer wins {wins / len(last):.3f} [{lo:.3f}, {hi:.3f}]")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=100_000, help="rounds per speed batch")
    ap.add_argument("--stat-rounds", type=int, default=200_000, help="rounds per option")
    ap.add_argument("--games", type=int, default=20_000, help="games per target")
    ap.add_argument("--seed", type=int, default=2026)
    args = ap.parse_args()
    speed(args.rounds)
    effects(args.stat_rounds, args.games, args.seed)


if __name__ == "__main__":
    main()
