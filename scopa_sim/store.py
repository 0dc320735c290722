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

import json
import os
import platform
import shutil
import time
from importlib import metadata
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from .rules import Rules
from .runner import RunSpec
from .strategies import parse_strategy

FORMAT = 1
MANIFEST = "manifest.json"
META_KEY = b"scopa_sim"


class StoreError(ValueError):
    """A run folder that is missing, not a run, corrupt, or in the way."""


def spec_dict(spec: RunSpec) -> dict:
    """The run spec as plain data (what the manifest and part metadata hold)."""
    return {"format": FORMAT, "kind": "games" if spec.games else "rounds",
            "units": spec.units, "seed": spec.seed, "batch_size": spec.batch_size,
            "n_batches": spec.n_batches, "rules": _plain(spec.rules.settings()),
            "strategies": [str(s) for s in spec.strategies]}


def spec_from_dict(d: dict) -> RunSpec:
    rules = Rules(**{k: tuple(v) if isinstance(v, list) else v for k, v in d["rules"].items()})
    return RunSpec(rules, tuple(parse_strategy(s) for s in d["strategies"]), int(d["seed"]),
                   int(d["units"]), d["kind"] == "games", int(d["batch_size"]))


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


def _write(table: pa.Table, path: Path, meta: bytes) -> None:
    """Write a Parquet file atomically: a temporary name, then a rename.

    Labels are dictionary-encoded, the running round and game numbers
    delta-encoded, and the small counts byte-stream-split (fast to write,
    and zstd packs them as tightly as a dictionary would).
    """
    table = table.replace_schema_metadata({META_KEY: meta})
    tmp = path.with_name("." + path.name + ".tmp")
    labels = [c for c in table.column_names if pa.types.is_dictionary(table.schema.field(c).type)]
    pq.write_table(table, tmp, compression="zstd", write_statistics=False,
                   use_dictionary=labels,
                   column_encoding={c: "DELTA_BINARY_PACKED" if c in ("round", "game")
                                    else "BYTE_STREAM_SPLIT"
                                    for c in table.column_names if c not in labels})
    os.replace(tmp, path)


class Run:
    """A run folder: create, resume, write parts, read back."""

    def __init__(self, root: Path, spec: RunSpec, manifest: dict):
        self.root, self.spec, self.manifest = Path(root), spec, manifest
        self._meta = json.dumps(spec_dict(spec), sort_keys=True).encode()

    @classmethod
    def create(cls, root: str | Path, spec: RunSpec, overwrite: bool = False) -> Run:
        root = Path(root)
        if root.exists() and (not root.is_dir() or any(root.iterdir())):
            if not overwrite:
                raise StoreError(f"{root} already exists: choose another --out, --resume it, "
                                 f"or pass --overwrite")
            if not (root / MANIFEST).exists():
                raise StoreError(f"{root} is not a scopa-sim run: not overwriting it")
            shutil.rmtree(root)
        try:
            (root / "rounds").mkdir(parents=True, exist_ok=True)
            if spec.games:
                (root / "games").mkdir(exist_ok=True)
        except OSError as e:
            raise StoreError(f"cannot create {root}: {e.strerror}") from None
        manifest = {**spec_dict(spec), "finished": False, "versions": versions(),
                    "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "elapsed_seconds": 0.0}
        run = cls(root, spec, manifest)
        try:
            run.save_manifest()
        except OSError as e:
            shutil.rmtree(root, ignore_errors=True)
            raise StoreError(f"cannot write {root / MANIFEST}: {e.strerror}") from None
        return run

    @classmethod
    def open(cls, root: str | Path) -> Run:
        root = Path(root)
        try:
            manifest = json.loads((root / MANIFEST).read_text())
            spec = spec_from_dict(manifest)
        except FileNotFoundError:
            raise StoreError(f"{root} is not a scopa-sim run (no {MANIFEST})") from None
        except (ValueError, KeyError, TypeError) as e:
            raise StoreError(f"{root / MANIFEST} is corrupt: {e}") from None
        return cls(root, spec, manifest)

    def save_manifest(self) -> None:
        tmp = self.root / (MANIFEST + ".tmp")
        tmp.write_text(json.dumps(self.manifest, indent=2, sort_keys=True) + "\n")
        os.replace(tmp, self.root / MANIFEST)

    def done_batches(self) -> set[int]:
        return {int(p.name[5:11]) for p in (self.root / "rounds").glob("part-*.parquet")}

    def missing_batches(self) -> list[int]:
        done = self.done_batches()
        return [b for b in range(self.spec.n_batches) if b not in done]

    def write_batch(self, b: int, cols: dict[str, np.ndarray]) -> pa.Table:
        """Write batch b's part files from its columns (games first, then
        rounds: a rounds part marks the batch done). Returns the rounds table."""
        tab = rounds_table(self.spec, cols)
        if self.spec.games:
            _write(games_table(self.spec, tab), self.root / "games" / part_name(b), self._meta)
        _write(tab, self.root / "rounds" / part_name(b), self._meta)
        return tab

    def clean_temporaries(self) -> None:
        for p in self.root.glob("*/.part-*.tmp"):
            p.unlink(missing_ok=True)

    def finish(self, elapsed: float, workers: int) -> None:
        """Mark the run finished, adding this session's time to earlier ones'."""
        total = self.manifest.get("elapsed_seconds", 0.0) + elapsed
        self.manifest.update(finished=True, elapsed_seconds=round(total, 3), workers=workers)
        self.save_manifest()

    def read(self, table: str = "rounds", columns: list[str] | None = None):
        """The dataset as a pandas DataFrame (only `columns`, if given)."""
        import pyarrow.dataset as ds
        try:
            data = ds.dataset(self.root / table, format="parquet")
            return data.to_table(columns=columns).to_pandas()
        except (pa.ArrowInvalid, OSError) as e:
            raise StoreError(f"cannot read {self.root / table}: {e}") from None

    def batches(self, columns: list[str] | None = None):
        """(batch index, DataFrame) for each part file of the rounds table, in order."""
        for b in sorted(self.done_batches()):
            path = self.root / "rounds" / part_name(b)
            try:
                yield b, pq.read_table(path, columns=columns).to_pandas()
            except (pa.ArrowInvalid, OSError) as e:
                raise StoreError(f"{path} is corrupt: {e}") from None
