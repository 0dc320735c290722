"""The user strategies of a stored run, loaded to resume it, and only then.

A run received from someone else is data: its manifest may name any file or
module, and a file shipped inside the run folder, with its sha256. So a
name in a manifest is never enough to run code. Resume loads each user
strategy from a file the user names (`--strategy-file TEXT=PATH`, PATH may
be the recorded one), and only after the sha256 of that file's bytes is the
run's; the bytes hashed are the bytes that run (`user.load`). A strategy
recorded without a sha256 is refused.

A module strategy (`package.module:NAME`; a name without a dot is a
built-in) is refused: importing it, or only finding its file
(`importlib.util.find_spec`), runs `package/__init__.py`, which no sha256
covers, and a module loaded from its file alone is not the module that
played (its relative imports differ). Such a run is simulated again, or
its strategy written as a file (`PATH.py:NAME`) from the start.
"""
from __future__ import annotations

import shlex
from pathlib import Path

from .plan import RunSpec
from .plan import Source, StoredSpec, revised, shipped_before, spec_dict
from .store import Run, StoreError, recorded_file
from ..engine.strategies import parse_strategy
from ..engine.user import UserSpec, UserStrategyError, digest_of, is_file_text, load


class _Recorded(dict):
    """The run's user strategies, loaded (text -> UserSpec); a strategy text
    naming any other is refused here, never loaded by `parse_strategy`."""

    def __contains__(self, text) -> bool:
        return True

    def __bool__(self) -> bool:
        return True

    def __missing__(self, text):
        raise StoreError(f"the run's strategies name {text}, which its manifest's sources "
                         f"do not record: the manifest is corrupt")


def parse_files(values, stored: StoredSpec) -> dict[str, str]:
    """`--strategy-file TEXT=PATH` values as {text: path}, TEXT one of the run's
    user strategies (a path may hold "=": TEXT is matched whole)."""
    out = {}
    for value in values:
        text = next((s.text for s in stored.sources if value.startswith(s.text + "=")), None)
        if text is None:
            known = ", ".join(s.text for s in stored.sources) or "none"
            raise ValueError(f"--strategy-file {value}: write TEXT=PATH, TEXT a user strategy "
                             f"of the run as it records it ({known})")
        if text in out:
            raise ValueError(f"--strategy-file names {text} twice: give it once")
        out[text] = value[len(text) + 1:]
    return out


def open_to_resume(root, strategy_files=(), finish_with: str | None = None) -> Run:
    """The interrupted run in `root`, opened to be finished: its lock taken,
    its parts checked (`Run.open` with `write`), then its user strategies
    loaded from `strategy_files`, {TEXT: PATH} or "TEXT=PATH" strings (TEXT
    as the run records it, as `--strategy-file`), each refused before any
    of it runs unless its sha256 is the run's (`runnable`); `finish_with` as
    `Run.open`'s."""
    if isinstance(strategy_files, dict):
        strategy_files = [f"{text}={path}" for text, path in strategy_files.items()]
    run = Run.open(root, write=True, finish_with=finish_with)
    try:
        run.spec = runnable(run.stored, run.root, parse_files(list(strategy_files or ()),
                                                              run.stored))
    except BaseException:
        run.close()
        raise
    return run


# what errors say the run's strategies are loaded for: (command, verb, doing it, what
# other weights would do)
PURPOSES = {"resume": ("resume", "resume", "resuming it", "mix two players"),
            "replay": ("record", "replay", "replaying it", "not replay what the run played")}


def runnable(stored: StoredSpec, root: Path, files: dict[str, str],
             purpose: str = "resume") -> RunSpec:
    """The RunSpec that resumes (`purpose` "resume") or replays ("replay",
    `record`) the run in `root`: its user strategies loaded from `files`
    (text -> path), each refused before any of its code runs unless its
    sha256 is the run's. Errors advise only what that command does."""
    command, verb, doing, mixed = PURPOSES[purpose]
    unknown = sorted(set(files) - {s.text for s in stored.sources})
    if unknown:
        raise ValueError(f"--strategy-file names {unknown[0]}, not a user strategy of {root}")
    unchecked = [s.text for s in stored.sources if s.sha256 is None]
    if unchecked:
        raise StoreError(f"{root} records no sha256 for strategy {unchecked[0]}: {command} cannot "
                         f"check that its code is what played; simulate the run again")
    modules = [s.text for s in stored.sources if not is_file_text(s.text)]
    if modules:
        where = modules[0].rpartition(":")[0]
        raise StoreError(f"{root} plays the module strategy {modules[0]}: {command} imports no "
                         f"module a run names (importing {where} first runs "
                         f"{where.split('.')[0]}'s code, which no sha256 covers); simulate the "
                         f"run again, with the strategy written PATH.py:NAME to {verb} it")
    missing = [s for s in stored.sources if s.text not in files]
    if missing:
        flags = " ".join(f"--strategy-file {shlex.quote(f'{s.text}={recorded_file(s)}')}"
                         for s in missing)
        raise StoreError(f"{root} plays user strategies, and {doing} runs their code: "
                         f"name each file you trust ({flags}); each is checked against the "
                         f"run's sha256 before any of it runs")
    known = _Recorded({s.text: _load(s, Path(files[s.text]).expanduser()) for s in stored.sources})
    try:
        spec = RunSpec(stored.rules, tuple(parse_strategy(t, known) for t in stored.strategies),
                       stored.seed, stored.units, stored.games, stored.batch_size,
                       stored.keep_taken)
    except UserStrategyError:
        raise
    except ValueError as e:
        raise StoreError(f"{root}: the run's strategies do not read back ({e}): "
                         f"this scopa-sim cannot {verb} it") from None
    played = dict(stored.nets)
    for label, sha in spec_dict(spec).get("nets", {}).items():
        if played.get(label, sha) != sha:
            raise StoreError(f"{root}: network {label} is not the one the run played (sha256 "
                             f"{sha[:12]}, the run's {played[label][:12]}): {doing} with "
                             f"other weights would {mixed}{shipped_before(stored.nets)}")
    why = revised(stored, spec)
    if why:
        raise StoreError(f"{root}: {why}: {doing} would {mixed}; simulate the run again")
    if _without_references(spec_dict(spec)) != _without_references(stored.as_dict()):
        raise StoreError(f"{root}: the run's strategies read back as "
                         f"{', '.join(map(str, spec.strategies))}, not as recorded "
                         f"({', '.join(stored.strategies)}): this scopa-sim cannot {verb} it")
    return spec


def _load(s: Source, path: Path) -> UserSpec:
    """Strategy `s` from the file the user named, its sha256 checked first."""
    try:
        found = digest_of(path) if path.is_file() else None
    except OSError:
        found = None
    if found is None:
        raise UserStrategyError(f"strategy {s.text}: no file {path}")
    if found != s.sha256:
        raise UserStrategyError(f"strategy {s.text}: {path} is not the file the run played "
                                f"(sha256 {found[:12]}, the run's {s.sha256[:12]}); nothing "
                                f"of it was run")
    name = s.text.rpartition(":")[2]
    spec = load(f"{path.resolve()}:{name}", digest=s.sha256, label=s.text)   # these bytes, checked
    return UserSpec(s.text, spec.function, spec.params, spec.source, spec.digest)


def _without_references(d: dict) -> dict:
    """A spec's plain data without where each user strategy's file was (a
    resumed run may load it from elsewhere; its sha256 is what counts)."""
    sources = {t: {"sha256": s["sha256"]} for t, s in d.get("sources", {}).items()}
    return {**d, "sources": sources}

