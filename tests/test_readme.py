"""Every example in README.md runs, so the README cannot drift from the code
(issue 28: its `Round(deck="...40 cards...")` raised, and nothing said so),
and so does every example of the docs the README's manual moved to (issue
25: `PAGES`, read as one text after the README).

- Every fenced ```python block runs, statement by statement, in this
  process, with the counts cut small (`SMALL`: `rounds=100_000` runs 2,000);
  an expression whose comment starts with a Python value (`# [(20, 35)]: ...`)
  must give that value.
- Every shell command in an indented block (a line starting `.venv/bin/`,
  `$ ` or `bash `) runs in a temporary folder (the runs the README reads,
  `runs/demo` and `runs/endgame-10m`, are made there first by the simulate
  commands of scripts/*.sh, small), with the counts cut small (`SMALL_CLI`: `--rounds 1000000` runs 2,000, a run folder
  named after its count too), and must exit 0, and write the file its `--out`
  names. Where the README shows the output (`$ scopa-sim ...` and the lines
  under it), each table row's first cell that is not a number (the moves of
  `advise`, the cards of `values`) must be in the real output; numbers are
  not compared (they change with the random
  streams). The commands run in this process, through `scopa_sim.cli.main`
  (what this venv's `scopa-sim` script calls): a process each loads numpy,
  pandas and the kernels again, some 3 s of CPU (the sixteen took 130 s one
  by one on 2 busy cores, load 5; 15 s here). `rules` and `strategies`,
  which load none of that, run through the script itself.
- Skipped, each with its reason (`SKIPPED`): the set-up scripts
  (scripts/demo.sh, scripts/test.sh), a cluster's scheduler and workers and
  the runs that need one, the benchmarks, and `play` (it reads moves typed
  in). A README command that matches no skip runs.
"""
from __future__ import annotations

import ast
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

import scopa_sim
from scopa_sim.cli import main

ROOT = Path(__file__).parents[1]
PAGES = ["README.md", "docs/CLI.md", "docs/STRENGTH.md", "docs/CLUSTER.md", "docs/DEVELOPING.md"]
README = "\n\n".join((ROOT / page).read_text() for page in PAGES)
SCOPA_SIM = str(Path(sys.executable).parent / "scopa-sim")

SKIPPED = [
    (r"^bash scripts/demo\.sh", "sets up .venv (pip) and simulates 1,000,000 rounds: its "
                                "simulate command runs here, small, to make runs/demo"),
    (r"^bash scripts/test\.sh", "the whole test suite, of which this test is a part"),
    (r"^\.venv/bin/dask ", "a Dask scheduler or worker: runs until stopped"),
    (r"tcp://HOST", "needs a Dask cluster at HOST"),
    (r"--cluster local:", "starts Dask worker processes (half a minute or more); "
                          "tests/test_dask.py runs local clusters"),
    (r"^\.venv/bin/python benchmarks/", "a benchmark: minutes"),
    (r"^\.venv/bin/scopa-sim almanac ", "the almanac: half an hour, written into docs/; "
                                        "tests/test_almanac.py builds a small one"),
    (r"^(\.venv/bin/)?scopa-sim train ", "trains a network: minutes to an hour; "
                                        "tests/test_train.py trains tiny ones"),
    (r"net:weights=mynet/", "plays the network the training above writes"),
    (r"scopa-sim play\b", "a game against the engine: reads your moves from the terminal; "
                          "tests/test_play.py plays one through a pipe"),
]

# Python: a keyword argument's value at most this (and set so when missing)
SMALL = {"simulate": {"rounds": 2_000, "games": 50}, "compare": {"deals": 200},
         "tournament": {"deals": 100}, "odds": {"rounds": 2_000, "bootstrap": 20},
         "advise": {"rollouts": 2_000}}
MISSING = {"compare": ("deals",), "tournament": ("deals",), "odds": ("rounds", "bootstrap")}
# the command line: the same, by command and option
SMALL_CLI = {"simulate": {"--rounds": 2_000, "--games": 50}, "compare": {"--deals": 200},
             "tournament": {"--deals": 100}, "odds": {"--rounds": 2_000, "--bootstrap": 20},
             "advise": {"--rollouts": 2_000}, "review": {"--rollouts": 2_000}}
MISSING_CLI = {"compare": ("--deals",), "tournament": ("--deals",),
               "odds": ("--rounds", "--bootstrap"), "review": ("--rollouts",)}


# ---- Python ---------------------------------------------------------------------------
def python_blocks() -> list[str]:
    return re.findall(r"^```python\n(.*?)^```", README, re.S | re.M)


class Small:
    """`scopa_sim` with the counts of `SMALL`."""

    def __getattr__(self, name):
        f = getattr(scopa_sim, name)
        if name not in SMALL:
            return f

        def small(*args, **kw):
            for key, cap in SMALL[name].items():
                if key in kw:
                    kw[key] = min(kw[key], cap)
                elif key in MISSING.get(name, ()):
                    kw[key] = cap
            return f(*args, **kw)
        return small


def stated(line: str):
    """The value a line's comment states (`# [(20, 35)]: 7s takes As + 6c`),
    or None when the comment is words."""
    if "#" not in line:
        return None
    comment = line.split("#", 1)[1].split(":")[0].strip()
    try:
        return (ast.literal_eval(comment),)
    except (ValueError, SyntaxError):
        return None


def test_the_readme_has_its_examples():
    assert len(python_blocks()) >= 3 and len(shell_commands()) >= 20


@pytest.mark.parametrize("block", python_blocks(),
                         ids=lambda b: b.strip().splitlines()[0][:40])
def test_every_python_example_runs(block):
    lines = block.splitlines()
    namespace = {"scopa_sim": Small()}
    for stmt in ast.parse(block).body:
        if isinstance(stmt, ast.Import) and [a.name for a in stmt.names] == ["scopa_sim"]:
            continue                                   # the Small one
        value = stated(lines[stmt.end_lineno - 1])
        if isinstance(stmt, ast.Expr) and value is not None:
            got = eval(compile(ast.Expression(stmt.value), "README.md", "eval"), namespace)
            assert got == value[0], ast.get_source_segment(block, stmt)
        else:
            exec(compile(ast.Module([stmt], []), "README.md", "exec"), namespace)


# ---- the command line -----------------------------------------------------------------
def shell_commands() -> list[tuple[str, list[str]]]:
    """(command, the output lines the README shows under it) of every
    indented block, outside fenced ones; a command shown on several pages
    once, with every page's lines."""
    text = re.sub(r"^```.*?^```", "", README, flags=re.S | re.M)
    out, lines = [], text.splitlines()
    for i, line in enumerate(lines):
        m = re.match(r"^    (\$ |\.venv/bin/|bash )(.*)$", line)
        if m:
            shown = []
            for after in lines[i + 1:]:
                if not after.startswith("    ") or re.match(r"^    (\$ |\.venv/bin/|bash )",
                                                           after):
                    break
                shown.append(after[4:])
            out.append(((m[1] if m[1] != "$ " else "") + m[2], shown))
    merged: dict[str, tuple[str, list[str]]] = {}
    for command, shown in out:                         # the same words, however written
        words = shlex.split(re.sub(r"^(\.venv/bin/)?scopa-sim", "", command), comments=True)
        merged.setdefault(shlex.join(words), (command, []))[1].extend(shown)
    return list(merged.values())


def skip_reason(command: str) -> str | None:
    return next((why for pattern, why in SKIPPED if re.search(pattern, command)), None)


def small(command: str) -> tuple[list[str], dict[str, str]]:
    """The command's words with this venv's scopa-sim and small counts, and
    the run folder names that change with them."""
    words = shlex.split(re.sub(r"^(\.venv/bin/)?scopa-sim", "", command), comments=True)
    name, renamed = words[0], {}
    caps = SMALL_CLI.get(name, {})
    for i, word in enumerate(words[:-1]):
        if word in caps and int(words[i + 1]) > caps[word]:
            if name == "simulate":                     # runs/...-r1000000-s1
                renamed[f"-{word[2]}{words[i + 1]}-"] = f"-{word[2]}{caps[word]}-"
            words[i + 1] = str(caps[word])
    for option in MISSING_CLI.get(name, ()):
        if option not in words and "--until-halfwidth" not in words:
            words += [option, str(SMALL_CLI[name][option])]
    return [SCOPA_SIM, *words], renamed


def script_runs() -> list[list[str]]:
    """The simulate commands of scripts/*.sh (they make the runs the README
    reads: runs/demo, runs/endgame-10m), small: a script's `NAME=value`
    variables put in, `exec`, `[ ... ] ||` and `"$@"` left out."""
    commands = []
    for script in sorted((ROOT / "scripts").glob("*.sh")):
        text = script.read_text().replace("\\\n", " ")
        names = dict(re.findall(r"^(\w+)=(\S+)$", text, re.M))
        for line in text.splitlines():
            line = line.split("|| ")[-1].strip().removeprefix("exec ").replace('"$@"', "")
            for name, value in names.items():
                line = line.replace(f'"${name}"', value).replace(f"${name}", value)
            if re.match(r"(\.venv/bin/)?scopa-sim simulate ", line):
                commands.append(small(line)[0])
    return commands


def run(words: list[str], cwd: Path) -> subprocess.CompletedProcess:
    """A command in folder `cwd`: by the script for the listings, else in this
    process (module docstring). Its output as a finished process's."""
    env = {**os.environ, "COLUMNS": "200"}
    if words[1] in ("rules", "strategies"):
        return subprocess.run(words, cwd=cwd, capture_output=True, text=True, timeout=300,
                              env=env)
    here = Path.cwd()
    os.chdir(cwd)
    try:
        r = CliRunner().invoke(main, words[1:], env={"COLUMNS": "200"}, catch_exceptions=False)
    finally:
        os.chdir(here)
    return subprocess.CompletedProcess(words, r.exit_code, r.stdout, r.stderr)


@pytest.mark.slow                  # every shell example of the docs, run
def test_every_shell_example_runs_or_is_skipped_for_a_reason(tmp_path):
    (tmp_path / "docs").symlink_to(ROOT / "docs")      # the example strategies (user.py resolves)
    for words in script_runs():
        made = run(words, tmp_path)
        assert made.returncode == 0, (words, made.stderr)
    assert {"demo", "endgame-10m"} <= {p.name for p in (tmp_path / "runs").iterdir()}
    commands, skipped = [], []
    for command, shown in shell_commands():
        why = skip_reason(command)
        if why:
            skipped.append((command, why))
        elif not command.startswith((".venv/bin/scopa-sim ", "scopa-sim ")):
            pytest.fail(f"a README command neither run nor skipped: {command}")
        else:
            commands.append((command, shown, *small(command)))
    renamed = {k: v for *_, r in commands for k, v in r.items()}
    for i, (command, shown, words, _) in enumerate(commands):
        for old, new in renamed.items():
            words = [w.replace(old, new) for w in words]
        commands[i] = (command, shown, words)
    # a resumed run is made by an earlier command: resumes last
    commands.sort(key=lambda c: "--resume" in c[2])
    results = [run(words, tmp_path) for _, _, words in commands]
    failed = []
    for (command, shown, words), result in zip(commands, results):
        if result.returncode != 0:
            failed.append(f"{command}\n  ran: {shlex.join(words[1:])}\n  {result.stderr.strip()}")
            continue
        if "--out" in words and Path(words[words.index("--out") + 1]).suffix:
            assert (tmp_path / words[words.index("--out") + 1]).is_file(), command
        for row in shown:
            cell = re.match(r"^│ (.+?) +│", row)
            if cell and re.search(r"[A-Za-z]", cell[1]):     # a move, a card: not a number
                assert cell[1] in result.stdout, f"{command}: {cell[1]!r} not in\n{result.stdout}"
    assert not failed, "\n".join(failed)
    # what is skipped, and why (pytest -rA shows it)
    print("\n".join(f"skipped: {c}  ({why})" for c, why in skipped))
    assert {why for _, why in skipped} == {why for _, why in SKIPPED}
