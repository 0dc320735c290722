"""Hashes of what the commands output for fixed seeds, for checking that a
change of structure changes no result: simulate (rounds and games, three
presets: the Parquet parts' bytes), compare, tournament, odds, advise and review
(their JSON, the run's path and timings left out), and the reading commands
over the runs: ask (JSON and table), report (JSON) and values (JSON and table),
the run's folder written RUN.

    .venv/bin/python scripts/output_hashes.py > before.txt
    ... change the code ...
    .venv/bin/python scripts/output_hashes.py | diff before.txt -
"""
import hashlib
import json
import subprocess
import sys
import tempfile
from pathlib import Path

CLI = [sys.executable, "-m", "scopa_sim.cli"]
EXAMPLE = Path(__file__).resolve().parent.parent / "docs" / "examples" / "seed-003.scopa"
JSON_COMMANDS = {
    "compare": ["compare", "counter", "greedy", "--deals", "4000", "--seed", "3"],
    "compare-games": ["compare", "heuristic", "greedy", "--games", "--deals", "300", "--seed", "3"],
    "compare-3": ["compare", "reply", "counter", "--rules", "scopa-3", "--deals", "2000",
                  "--seed", "3"],
    "tournament": ["tournament", "random", "greedy", "counter", "--deals", "2000", "--seed", "3"],
    "odds": ["odds", "--score", "7-9", "--rounds", "20000", "--bootstrap", "20", "--seed", "3"],
    "advise": ["advise", "--hand", "7d 7h As", "--table", "2c 4h 5s Qd", "--rollouts", "2000",
               "--seed", "3"],
    "advise-counter": ["advise", "--hand", "7d Kc As", "--table", "3s 4h 2c 5d", "--strategy",
                       "counter", "--score", "5-7", "--rollouts", "1000", "--seed", "3"],
    "advise-deep": ["advise", "--hand", "7d 7h As", "--table", "2c 4h 5s Qd", "--deep",
                    "--rollouts", "20", "--seed", "3"],
    "review": ["review", str(EXAMPLE), "--rollouts", "400", "--deep-samples", "10", "--seed", "3"],
}
RUNS = {
    "scopa-rounds": ["--rounds", "30000", "--strategies", "random,greedy"],
    "scopa-games": ["--games", "2000", "--strategies", "counter,heuristic"],
    "scopa-4-rounds": ["--rules", "scopa-4", "--rounds", "20000", "--strategies", "greedy,reply"],
    "scopone-games": ["--rules", "scopone-scientifico", "--games", "500",
                      "--strategies", "endgame,counter"],
    "scopa-3-rounds": ["--rules", "scopa-3", "--rounds", "5000",
                       "--strategies", "pimc:samples=4,greedy,counter"],
}
READS = {                         # over each run; "table": the table output too
    "ask": (["ask", "RUN", "winner == 0", "--given", "settebello_0 == 1"], True),
    "ask-mean": (["ask", "RUN", "margin"], True),
    "ask-deal": (["ask", "RUN", "count(hand_0 & sevens) >= 2"], True),
    "ask-taken": (["ask", "RUN", "winner == 0", "--given", "count(taken_0 & sevens) >= 3"], False),
    "report": (["report", "RUN"], False),
    "values": (["values", "RUN"], True),
}
VOLATILE = {"run", "seconds", "elapsed", "elapsed_seconds", "rounds_per_second", "created"}


def _stable(x):
    if isinstance(x, dict):
        return {k: _stable(v) for k, v in x.items() if k not in VOLATILE}
    if isinstance(x, list):
        return [_stable(v) for v in x]
    return x


def _hash(args: list[str], folder: str | None = None) -> str:
    """The hash of a command's output: its JSON (stable keys), or with
    `folder` its text with that folder written RUN."""
    out = subprocess.run([*CLI, *args, *(["--quiet"] * (args[0] != "ask"))], check=True,
                         capture_output=True, text=True).stdout
    data = (out.replace(folder, "RUN") if folder else
            json.dumps(_stable(json.loads(out)), sort_keys=True))
    return hashlib.sha256(data.encode()).hexdigest()[:16]


def main():
    with tempfile.TemporaryDirectory() as folder:
        for name, args in RUNS.items():
            out = Path(folder) / name
            subprocess.run([*CLI, "simulate", *args, "--seed", "5", "--batch-size", "1000",
                            "--out", str(out), "--quiet"], check=True, stdout=subprocess.DEVNULL)
            h = hashlib.sha256()
            for part in sorted(out.glob("*/part-*.parquet")):
                h.update(part.relative_to(out).as_posix().encode() + part.read_bytes())
            print(f"simulate {name:16} {h.hexdigest()[:16]}")
            for read, (args, table) in READS.items():
                args = [str(out) if a == "RUN" else a for a in args]
                print(f"{read:8} {name:16} {_hash(args + ['--format', 'json'])}"
                      + (f" {_hash(args, str(out))}" if table else ""))
    for name, args in JSON_COMMANDS.items():
        print(f"{name:25} {_hash([*args, '--format', 'json'])}")


if __name__ == "__main__":
    main()
