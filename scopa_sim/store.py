"""The run dataset on disk: Parquet part files and a manifest.

    RUN/
      manifest.json             the run spec, versions, finished or not
      rounds/part-000000.parquet  one file per batch (rows of rounds)
      games/part-000000.parquet   with --games: one row per game

A part file is written to a temporary name and renamed when complete, so a
killed run leaves only whole parts; the run spec is also in every part's
key-value metadata (key `scopa_sim`), with nothing that depends on workers or
time, so the same seed gives byte-identical parts.
"""
from __future__ import annotations

import fcntl
import json
import os
import platform
import re
import shutil
import time
from collections.abc import Iterator
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from .rules import Rules
from .runner import RunSpec
from .strategies import parse_strategy, user_slots
from .user import UserStrategyError, reload

FORMAT = 2                # 2: every deck a function of the seed (dealing's own stream)
MANIFEST = "manifest.json"
META_KEY = b"scopa_sim"


class StoreError(ValueError):
    """A run folder that is missing, not a run, corrupt, or in the way."""


def spec_dict(spec: RunSpec) -> dict:
    """The run spec as plain data (what the manifest and part metadata hold)."""
    sources = _sources(spec)
    return {"format": FORMAT, "kind": "games" if spec.games else "rounds",
            "units": spec.units, "seed": spec.seed, "batch_size": spec.batch_size,
            "n_batches": spec.n_batches, "rules": _plain(spec.rules.settings()),
            "strategies": [str(s) for s in spec.strategies],
            **({"sources": sources} if sources else {})}


def _sources(spec: RunSpec) -> dict:
    """Where each user strategy of the run is loaded from, and its file's
    sha256: what played, exactly (empty without user strategies)."""
    out = {}
    for u in user_slots(spec.strategies):
        if u.reference() is None:
            raise ValueError(f"strategy {u.text} is a function passed in Python: a stored "
                             f"run needs strategies written PATH.py:NAME or module:NAME")
        out[u.text] = {"reference": u.reference(), "sha256": u.digest}
    return out


def spec_from_dict(d: dict) -> RunSpec:
    rules = Rules(**{k: tuple(v) if isinstance(v, list) else v for k, v in d["rules"].items()})
    if d["kind"] not in ("rounds", "games"):
        raise ValueError(f"kind must be rounds or games, not {d['kind']!r}")
    known = {text: reload(text, s["reference"], s["sha256"])
             for text, s in d.get("sources", {}).items()}
    return RunSpec(rules, tuple(parse_strategy(s, known) for s in d["strategies"]), d["seed"],
                   d["units"], d["kind"] == "games", d["batch_size"])


def _plain(x):
    if isinstance(x, dict):
        return {k: _plain(v) for k, v in x.items()}
    if isinstance(x, (tuple, list)):
        return [_plain(v) for v in x]
    if isinstance(x, np.integer):
        return int(x)
    return x


def versions() -> dict:
    out = {"python": platform.python_version()}
    for pkg in ("scopa-sim", "numba", "numpy", "pyarrow", "pandas"):
        try:
            out[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            pass
    return out


def part_name(b: int) -> str:
    return f"part-{b:06d}.parquet"


def _labels(values: list[str], n: int) -> pa.DictionaryArray:
    """A dictionary column holding one label per row (names stored once)."""
    return pa.DictionaryArray.from_arrays(np.zeros(n, np.int8), pa.array(values))


def rounds_table(spec: RunSpec, cols: dict[str, np.ndarray]) -> pa.Table:
    """A batch's columns (`runner.columns`) with the rules and strategy labels."""
    n = len(cols["round"])
    cols = {"rules": _labels([spec.rules.name], n), **{k: pa.array(v) for k, v in cols.items()}}
    for t in range(spec.rules.n_sides):
        cols[f"strategy_{t}"] = _labels([side_strategy(spec, t)], n)
    return pa.table(cols)


def side_strategy(spec: RunSpec, side: int) -> str:
    """The strategies of a side's seats, as one label ("greedy" or "greedy+random")."""
    seats = [str(s) for s, t in zip(spec.strategies, spec.rules.teams) if t == side]
    if len(spec.strategies) == spec.rules.n_sides:
        return str(spec.strategies[side])
    return "+".join(dict.fromkeys(seats))


def games_table(spec: RunSpec, rounds_tab: pa.Table) -> pa.Table:
    """One row per game: id, rounds played, first dealer, final scores, winner."""
    game = rounds_tab["game"].to_numpy()
    last = np.append(game[1:] != game[:-1], True)
    first = np.insert(last[:-1], 0, True)
    starts, ends = np.flatnonzero(first), np.flatnonzero(last)
    scores = np.stack([rounds_tab[f"score_{t}"].to_numpy()[ends]
                       for t in range(spec.rules.n_sides)], 1)
    cols = {"game": game[ends], "rounds": (ends - starts + 1).astype(np.int16),
            "first_dealer": rounds_tab["dealer"].to_numpy()[starts],
            "winner": scores.argmax(1).astype(np.int8)}
    for t in range(spec.rules.n_sides):
        cols[f"score_{t}"] = scores[:, t]
    return pa.table(cols)


def encode(table: pa.Table, meta: bytes) -> bytes:
    """A Parquet file's bytes, the run spec in its metadata.

    Labels are dictionary-encoded, the running round and game numbers
    delta-encoded, and the small counts byte-stream-split (fast to write,
    and zstd packs them as tightly as a dictionary would).
    """
    table = table.replace_schema_metadata({META_KEY: meta})
    labels = [c for c in table.column_names if pa.types.is_dictionary(table.schema.field(c).type)]
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink, compression="zstd", write_statistics=False,
                   use_dictionary=labels,
                   column_encoding={c: "DELTA_BINARY_PACKED" if c in ("round", "game")
                                    else "BYTE_STREAM_SPLIT"
                                    for c in table.column_names if c not in labels})
    return sink.getvalue().to_pybytes()


@dataclass(frozen=True)
class Part:
    """A batch ready to store: the bytes of its rounds (and games) part files."""
    rounds: bytes
    games: bytes | None


def encode_batch(spec: RunSpec, cols: dict[str, np.ndarray]) -> Part:
    """A batch's columns (`runner.columns`) as part files' bytes; runs
    wherever the batch ran, so a cluster's workers do the compressing."""
    meta = spec_json(spec)
    tab = rounds_table(spec, cols)
    return Part(encode(tab, meta), encode(games_table(spec, tab), meta) if spec.games else None)


def spec_json(spec: RunSpec) -> bytes:
    """The run spec as stored in every part's metadata."""
    return json.dumps(spec_dict(spec), sort_keys=True).encode()


def _write(data: bytes, path: Path) -> None:
    """Write a file atomically: a temporary name, then a rename."""
    tmp = path.with_name("." + path.name + ".tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)


class Run:
    """A run folder: create or resume one (holding its lock), write parts,
    read back. Every part is checked against the manifest when a run is opened."""

    def __init__(self, root: Path, spec: RunSpec, manifest: dict, lock: int | None = None):
        self.root, self.spec, self.manifest = Path(root), spec, manifest
        self._meta = spec_json(spec)
        self._lock = lock
        self._done = self._verify()

    # -- opening ----------------------------------------------------------
    @classmethod
    def create(cls, root: str | Path, spec: RunSpec, overwrite: bool = False) -> Run:
        """A new run in `root` (absent or empty; with `overwrite`, a run folder
        whose run files are removed). The returned run holds the folder's lock;
        if anything fails (Ctrl-C too), a folder made here is removed again."""
        root = Path(root)
        made = not root.exists()
        lock = _claim(root, overwrite)
        try:
            for table in tables(spec):
                (root / table).mkdir(exist_ok=True)
            manifest = {**spec_dict(spec), "finished": False, "versions": versions(),
                        "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
                        "elapsed_seconds": 0.0}
            run = cls(root, spec, manifest, lock)
            run.save_manifest()
        except BaseException as e:
            os.close(lock)
            if made:
                shutil.rmtree(root, ignore_errors=True)
            if isinstance(e, OSError):
                raise StoreError(f"cannot write {root}: {e.strerror}") from None
            raise
        return run

    @classmethod
    def open(cls, root: str | Path, write: bool = False) -> Run:
        """The run in `root`, every part checked against its manifest; with
        `write` (to resume it), holding the folder's lock."""
        root = Path(root)
        spec, manifest = _read_manifest(root)
        if write and manifest.get("format") != FORMAT:
            made = manifest.get("versions", {}).get("scopa-sim", "an older version")
            raise StoreError(f"{root} was made by scopa-sim {made} (run format "
                             f"{manifest.get('format')}), whose decks this version deals "
                             f"otherwise: it cannot be resumed; simulate it again")
        lock = _lock(root) if write else None
        try:
            return cls(root, spec, manifest, lock)
        except BaseException:
            if lock is not None:
                os.close(lock)
            raise

    def close(self) -> None:
        """Release the folder's lock (also released when the process ends)."""
        if self._lock is not None:
            os.close(self._lock)
            self._lock = None

    def __enter__(self) -> Run:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- checking ---------------------------------------------------------
    def _verify(self) -> set[int]:
        """The finished batches, after checking that every file
        under rounds/ and games/ is a part of this run with this run's spec
        and row count (temporaries of a killed run aside)."""
        found = {}
        for table in self.tables:
            folder = self.root / table
            if not folder.is_dir() or folder.is_symlink():
                raise StoreError(f"{folder} is missing: {self.root} is not a whole run")
            found[table] = _parts_in(folder, self.spec.n_batches)[0]
        for b, path in found["rounds"].items():
            self._check_part(path, self.spec.batch_range(b)[1], at_least=self.spec.games)
            if self.spec.games:
                if b not in found["games"]:
                    raise StoreError(f"{path} has no games part beside it: delete it and "
                                     f"finish the run with --resume")
                self._check_part(found["games"][b], self.spec.batch_range(b)[1])
        return set(found["rounds"])

    def _check_part(self, path: Path, rows: int, at_least: bool = False) -> None:
        repair = f"delete it and finish the run with: scopa-sim simulate --resume {self.root}"
        try:
            meta = pq.read_metadata(path)
        except (pa.ArrowException, OSError) as e:
            raise StoreError(f"{path} is not a readable part ({e}): {repair}") from None
        if (meta.metadata or {}).get(META_KEY) != self._meta:
            raise StoreError(f"{path} belongs to another run than {self.root / MANIFEST} "
                             f"describes: {repair}")
        if meta.num_rows < rows if at_least else meta.num_rows != rows:
            raise StoreError(f"{path} has {meta.num_rows:,} rows where the run spec has "
                             f"{rows:,}: {repair}")

    # -- writing ----------------------------------------------------------
    def save_manifest(self) -> None:
        tmp = self.root / (MANIFEST + ".tmp")
        tmp.write_text(json.dumps(self.manifest, indent=2, sort_keys=True) + "\n")
        os.replace(tmp, self.root / MANIFEST)

    def done_batches(self) -> list[int]:
        """The finished batches, in order (as checked when the run was opened,
        plus those written since)."""
        return sorted(self._done)

    def missing_batches(self) -> Iterator[int]:
        """The batches still to run, in order (lazily: a run may have billions)."""
        done = set(self._done)
        return (b for b in range(self.spec.n_batches) if b not in done)

    @property
    def n_missing(self) -> int:
        return self.spec.n_batches - len(self._done)

    def save(self, b: int, part: Part) -> None:
        """Store batch b's part files (games first, then rounds: a rounds part
        marks the batch done). A batch already stored is left as it is."""
        if self._lock is None:
            raise StoreError(f"{self.root} was opened for reading only")
        if b in self._done:
            return
        if part.games is not None:
            _write(part.games, self.root / "games" / part_name(b))
        _write(part.rounds, self.root / "rounds" / part_name(b))
        self._done.add(b)

    def clean_temporaries(self) -> None:
        for p in self.root.glob("*/.part-*.tmp"):
            p.unlink(missing_ok=True)

    def finish(self, elapsed: float, workers: int) -> None:
        """Mark the run finished, adding this session's time to earlier ones'."""
        total = self.manifest.get("elapsed_seconds", 0.0) + elapsed
        self.manifest.update(finished=True, elapsed_seconds=round(total, 3), workers=workers)
        self.save_manifest()

    # -- reading ----------------------------------------------------------
    def part_paths(self, table: str = "rounds") -> list[Path]:
        """The checked part files of a table, in batch order."""
        if table not in self.tables:
            raise StoreError(f"{self.root} has no {table} table")
        return [self.root / table / part_name(b) for b in self.done_batches()]

    def read(self, table: str = "rounds", columns: list[str] | None = None):
        """The dataset as a pandas DataFrame (only `columns`, if given)."""
        import pyarrow.dataset as ds
        paths = self.part_paths(table)
        if not paths:
            raise StoreError(f"{self.root} has no finished batch yet")
        try:
            data = ds.dataset([str(p) for p in paths], format="parquet")
            return data.to_table(columns=columns).to_pandas()
        except (pa.ArrowException, OSError) as e:
            raise StoreError(f"cannot read {self.root / table}: {e}") from None

    def read_batch(self, b: int, table: str = "rounds", columns: list[str] | None = None):
        """One finished batch of a table as a pandas DataFrame (only `columns`)."""
        path = self.root / table / part_name(b)
        if b not in self._done or table not in self.tables:
            raise StoreError(f"{path} is not a finished part of {self.root}")
        try:
            return pq.read_table(path, columns=columns).to_pandas()
        except (pa.ArrowException, OSError) as e:
            raise StoreError(f"{path} is corrupt: {e}") from None

    @property
    def tables(self) -> tuple[str, ...]:
        return tables(self.spec)

    def batches(self, columns: list[str] | None = None):
        """(batch index, DataFrame) for each part file of the rounds table, in order."""
        for b in self.done_batches():
            yield b, self.read_batch(b, columns=columns)


def tables(spec: RunSpec) -> tuple[str, ...]:
    """The tables (folders of part files) of a run."""
    return ("rounds", "games") if spec.games else ("rounds",)


PART = re.compile(r"part-(\d{6,})\.parquet")
TEMPORARY = re.compile(r"\.part-\d{6,}\.parquet\.tmp")
LOCK = ".lock"


def _batch_of(name: str, n_batches: int) -> int | None:
    m = PART.fullmatch(name)
    if m is None or part_name(int(m[1])) != name or int(m[1]) >= n_batches:
        return None
    return int(m[1])


def _read_manifest(root: Path, strategies: bool = True) -> tuple[RunSpec, dict]:
    """The run spec and manifest of the run in `root`; without `strategies`,
    its strategies are not loaded (their places hold random): enough to
    know the run's files, even when a user strategy's file is gone."""
    path = root / MANIFEST
    if root.exists() and not root.is_dir():
        raise StoreError(f"{root} is a file, not a run folder")
    if not path.exists():
        raise StoreError(f"{root} is not a scopa-sim run (no {MANIFEST})")
    try:
        manifest = json.loads(path.read_text())
        if not strategies:
            return spec_from_dict({**manifest, "sources": {}, "strategies": [
                "random"] * len(manifest["strategies"])}), manifest
        return spec_from_dict(manifest), manifest
    except OSError as e:
        raise StoreError(f"cannot read {path}: {e.strerror}") from None
    except UserStrategyError:
        raise
    except (ValueError, KeyError, TypeError, AttributeError, OverflowError) as e:
        raise StoreError(f"{path} is corrupt: {e}") from None


def _run_files(root: Path) -> list[Path]:
    """What removing the run in `root` removes (folders before their files),
    after checking that the folder holds a run and nothing else; the lock
    file stays. StoreError names the first thing that is not a run's."""
    not_run = f"{root} is not a scopa-sim run: not overwriting it"
    try:
        spec, _ = _read_manifest(root, strategies=False)
    except StoreError as e:
        raise StoreError(f"{not_run} ({e})") from None
    files = [root / MANIFEST]
    for entry in sorted(root.iterdir()):
        if entry.name in (MANIFEST, LOCK, MANIFEST + ".tmp") and entry.is_file() \
                and not entry.is_symlink():
            files += [entry] if entry.name.endswith(".tmp") else []
        elif entry.name in ("rounds", "games") and entry.is_dir() and not entry.is_symlink():
            try:
                parts, temporaries = _parts_in(entry, spec.n_batches)
            except StoreError as e:
                raise StoreError(f"{not_run}: {e}") from None
            files += [entry, *sorted(parts.values()), *temporaries]
        else:
            raise StoreError(f"{not_run}: {entry} is not part of a run")
    return files


def _parts_in(folder: Path, n_batches: int) -> tuple[dict[int, Path], list[Path]]:
    """The part files of a table folder by batch, and the temporaries a killed
    run left; StoreError for anything else in it (a link, a folder, a stray file)."""
    parts, temporaries = {}, []
    for path in folder.iterdir():
        b = _batch_of(path.name, n_batches)
        if b is None and not TEMPORARY.fullmatch(path.name):
            raise StoreError(f"{path} is not a part of this run: remove it")
        if path.is_symlink() or not path.is_file():
            raise StoreError(f"{path} is not a regular file: remove it")
        if b is None:
            temporaries.append(path)
        else:
            parts[b] = path
    return parts, temporaries


def _claim(root: Path, overwrite: bool) -> int:
    """Make `root` ready for a new run and take its lock: a new or empty
    folder, or (with `overwrite`) a run folder whose run files are removed,
    after checking it holds nothing else; a writer at work is named first."""
    if root.is_symlink():
        raise StoreError(f"{root} is a symbolic link: give the folder it points to")
    if root.exists() and not root.is_dir():
        raise StoreError(f"{root} is a file, not a folder")
    replacing = root.exists() and any(root.iterdir())
    if replacing and not overwrite:
        raise StoreError(f"{root} already exists: choose another --out, --resume it, "
                         f"or pass --overwrite")
    if not (root / LOCK).is_file():
        if replacing:
            _run_files(root)                    # refuses anything not a run, before writing
        try:
            root.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise StoreError(f"cannot create {root}: {e.strerror}") from None
    lock = _lock(root)
    try:
        if replacing:
            for path in reversed(_run_files(root)):      # files first, then folders
                path.rmdir() if path.is_dir() else path.unlink()
    except BaseException as e:
        os.close(lock)
        if isinstance(e, OSError):
            raise StoreError(f"cannot remove the run in {root}: {e.strerror}") from None
        raise
    return lock


def _lock(root: Path) -> int:
    """Take the run folder's lock (its `.lock` file), or StoreError if another
    process writes to the run. The lock goes with the process."""
    try:
        fd = os.open(root / LOCK, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as e:
        raise StoreError(f"cannot write {root}: {e.strerror}") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        raise StoreError(f"{root} is being written by another scopa-sim process: "
                         f"wait for it to finish, or stop it") from None
    return fd
