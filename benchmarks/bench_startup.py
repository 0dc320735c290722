"""Start-up: what a command costs before it answers, each in a fresh process.

    .venv/bin/python benchmarks/bench_startup.py [--repeat K] [--cold-repeat K]

Prints the medians of K runs (default 5) of the CPU time (user + system) and
the wall time of, each in a fresh process:

- `scopa-sim --help`;
- warm (Numba's cache filled by an untimed run first): `ask RUN "winner ==
  0"` and `report RUN` on a 1,000-round run made in a temporary folder, and
  `simulate --rounds 1000`;
- cold first runs, Numba's cache empty (NUMBA_CACHE_DIR a new temporary
  folder each time), of `simulate --rounds 1000` for random/greedy,
  endgame/endgame and spimc/endgame: each compiles the kernels its run
  names, tens of seconds (minutes for spimc), so these run `--cold-repeat`
  times (default 1; 0 skips them);

with the goal beside each warm figure (CPU seconds: at most, and the aim).
CPU time varies little on a shared machine; wall time grows with its load.
"""
import argparse
import os
import statistics
import tempfile

from bench_kernel import seconds

COLD = ("random,greedy", "endgame,endgame", "spimc,endgame")


def simulate(out: str, strategies: str = "random,greedy") -> list[str]:
    return ["simulate", "--rounds", "1000", "--strategies", strategies, "--seed", "1",
            "--quiet", "--out", out]


def row(label: str, times: list[tuple[float, float]], goal: str = "") -> None:
    """One line: the label, the median CPU and wall seconds, the goal."""
    wall = statistics.median(w for w, _ in times)
    cpu = statistics.median(c for _, c in times)
    print(f"{label:<44} {cpu:7.2f} {wall:8.2f}   {goal}", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5, help="runs of each warm figure (median)")
    ap.add_argument("--cold-repeat", type=int, default=1,
                    help="runs of each cold figure (median; 0: none)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        def out() -> str:                               # a new folder each time
            return tempfile.mkdtemp(dir=tmp)

        run = os.path.join(out(), "run")
        seconds(simulate(run))                          # the run to read; the cache warm
        print(f"{'command (medians of ' + str(args.repeat) + ')':<44} {'CPU s':>7} "
              f"{'wall s':>8}   goal: CPU s at most (aim)")
        for label, command, goal in (
                ("scopa-sim --help", lambda: ["--help"], ""),
                ('ask RUN "winner == 0" (1,000 rounds)', lambda: ["ask", run, "winner == 0"],
                 "0.5 (0.3)"),
                ("report RUN (1,000 rounds)", lambda: ["report", run, "--quiet"], "0.8"),
                ("simulate --rounds 1000", lambda: simulate(os.path.join(out(), "run")), "1.0")):
            seconds(command())                          # warm: whatever loads first, once
            row(label, [seconds(command()) for _ in range(args.repeat)], goal)
        for strategies in COLD if args.cold_repeat else ():
            row(f"cold simulate --rounds 1000, {strategies.replace(',', '/')}",
                [seconds(simulate(os.path.join(out(), "run"), strategies),
                         {"NUMBA_CACHE_DIR": out()}) for _ in range(args.cold_repeat)])


if __name__ == "__main__":
    main()
