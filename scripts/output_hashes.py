"""Hashes of what the commands output for fixed seeds, for checking that a
change of structure changes no result: simulate (rounds and games, three
presets: the Parquet parts' bytes), compare, tournament, odds, advise and review
(their JSON, the run's path and timings left out).

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
VOLATILE = {"run", "seconds", "elapsed", "elapsed_seconds", "rounds_per_second"}


def _stable(x):
    if isinstance(x, dict):
        return {k: _stable(v) for k, v in x.items() if k not in VOLATILE}
    if isinstance(x, list):
        return [_stable(v) for v in x]
    return x


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
    for name, args in JSON_COMMANDS.items():
        done = subprocess.run([*CLI, *args, "--format", "json", "--quiet"], check=True,
                              capture_output=True, text=True)
        data = json.dumps(_stable(json.loads(done.stdout)), sort_keys=True)
        print(f"{name:25} {hashlib.sha256(data.encode()).hexdigest()[:16]}")


if __name__ == "__main__":
    main()
