"""A batch as Parquet part files: its tables (the rounds, with their rules and
strategy labels; the games), their bytes (the run spec in every part's
metadata, key `META_KEY`), the columns and labels a part must hold, and the
whole-or-nothing write and the hash every part is stored and checked with
(`store`)."""
from __future__ import annotations

import errno
import hashlib
import json
import os
import stat
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from ..engine import schema
from .plan import RunSpec, spec_dict

META_KEY = b"scopa_sim"


def part_name(b: int) -> str:
    return f"part-{b:06d}.parquet"


# Columns go between numpy and Arrow by their buffers: `pa.array` and
# `to_numpy` import pandas (to look for its types; to convert), which would
# cost a small run's command more than its work.
def as_arrow(values: np.ndarray) -> pa.Array:
    """A numpy column as an Arrow array."""
    values = np.ascontiguousarray(values)
    return pa.Array.from_buffers(pa.from_numpy_dtype(values.dtype), len(values),
                                 [None, pa.py_buffer(values)])


def as_numpy(column: pa.ChunkedArray) -> np.ndarray:
    """An Arrow column as numpy, as pandas gives it (`to_numpy`): numbers,
    or labels (dictionary-encoded) as str. No nulls: the store refuses them."""
    values = column.combine_chunks()
    if pa.types.is_dictionary(values.type):
        return np.array(values.dictionary.to_pylist(), object)[_from_buffer(values.indices)]
    return _from_buffer(values)


def _from_buffer(values: pa.Array) -> np.ndarray:
    dtype = np.dtype(values.type.to_pandas_dtype())
    if not len(values):
        return np.empty(0, dtype)
    return np.frombuffer(values.buffers()[1], dtype, len(values), values.offset * dtype.itemsize)


def _labels(value: str, n: int) -> pa.DictionaryArray:
    """A dictionary column holding one label on every row (stored once)."""
    text = value.encode()
    offsets = pa.py_buffer(np.array([0, len(text)], np.int32))
    name = pa.Array.from_buffers(pa.string(), 1, [None, offsets, pa.py_buffer(text)])
    indices = pa.py_buffer(np.zeros(n, np.int8))
    return pa.DictionaryArray.from_buffers(LABEL, n, [None, indices], name)


def rounds_table(spec: RunSpec, cols: dict[str, np.ndarray]) -> pa.Table:
    """A batch's columns (`runner.columns`) with the rules and strategy labels."""
    n = len(cols["round"])
    cols = {"rules": _labels(spec.rules.name, n), **{k: as_arrow(v) for k, v in cols.items()}}
    for t in range(spec.rules.n_sides):
        cols[f"strategy_{t}"] = _labels(side_strategy(spec, t), n)
    return pa.table(cols)


def side_strategy(spec: RunSpec, side: int) -> str:
    """The strategies of a side's seats, as one label ("greedy" or "greedy+random")."""
    seats = [str(s) for s, t in zip(spec.strategies, spec.rules.teams) if t == side]
    if len(spec.strategies) == spec.rules.n_sides:
        return str(spec.strategies[side])
    return "+".join(dict.fromkeys(seats))


def games_table(spec: RunSpec, cols: dict[str, np.ndarray]) -> pa.Table:
    """One row per game of a batch's columns: the games table's columns
    (`schema.game_fields`)."""
    game = cols["game"]
    last = np.append(game[1:] != game[:-1], True)
    first = np.insert(last[:-1], 0, True)
    starts, ends = np.flatnonzero(first), np.flatnonzero(last)
    scores = np.stack([cols[f"score_{t}"][ends] for t in range(spec.rules.n_sides)], 1)
    values = {"game": game[ends], "rounds": ends - starts + 1,
              "first_dealer": cols["dealer"][starts],
              "winner": scores.argmax(1),
              **{f"score_{t}": scores[:, t] for t in range(spec.rules.n_sides)}}
    return pa.table({c: as_arrow(values[c].astype(f.dtype, copy=False))   # the schema's columns
                     for c, f in schema.game_fields(spec.rules).items()})


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


def encode_batch(spec: RunSpec, cols: dict[str, np.ndarray], meta: bytes | None = None) -> Part:
    """A batch's columns (`runner.columns`) as part files' bytes, with `meta`
    (default: the spec's JSON; a resumed run's: its stored spec's) in their
    metadata; runs wherever the batch ran, so a cluster's workers do the
    compressing."""
    meta = spec_json(spec) if meta is None else meta
    return Part(encode(rounds_table(spec, cols), meta),
                encode(games_table(spec, cols), meta) if spec.games else None)


def spec_json(spec: RunSpec) -> bytes:
    """The run spec as stored in every part's metadata."""
    return json.dumps(spec_dict(spec), sort_keys=True).encode()


def write_whole(data: bytes, path: Path) -> None:
    """Write a file whole or not at all: a temporary name, then a rename
    (interrupted: the temporary file is removed, the old file kept). An
    OSError names `path`, never the temporary file."""
    tmp = path.with_name("." + path.name + ".tmp")
    try:
        tmp.write_bytes(data)
        os.replace(tmp, path)
    except OSError as e:
        raise OSError(e.errno, e.strerror, str(path)) from None
    finally:
        tmp.unlink(missing_ok=True)


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def read_regular(path: Path) -> bytes:
    """A regular file's bytes, never through a symbolic link."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError as e:
        if e.errno == errno.ELOOP:
            raise OSError(e.errno, "it is a symbolic link (a run's files are its own)") from None
        raise
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(0, "not a regular file")
        with os.fdopen(fd, "rb", closefd=False) as f:
            return f.read()
    finally:
        os.close(fd)


LABEL = pa.dictionary(pa.int8(), pa.string())


def expected_columns(spec, table: str) -> dict[str, pa.DataType]:
    """Column name -> Arrow type of a table's parts, in order (the labels
    first and last, as `rounds_table` and `games_table` write them)."""
    if table == "games":
        return {c: pa.from_numpy_dtype(np.dtype(f.dtype))
                for c, f in schema.game_fields(spec.rules).items()}
    cols = {"rules": LABEL}
    cols.update({c: pa.from_numpy_dtype(np.dtype(f.dtype))
                 for c, f in schema.round_fields(spec.rules, spec.games).items()})
    if getattr(spec, "keep_taken", False):
        cols.update({c: pa.uint64() for c in schema.taken_fields(spec.rules)})
    cols.update({f"strategy_{t}": LABEL for t in range(spec.rules.n_sides)})
    return cols


def labels_of(spec) -> dict[str, str]:
    """The one text each label column holds."""
    return {"rules": spec.rules.name, **{f"strategy_{t}": side_strategy(spec, t)
                                        for t in range(spec.rules.n_sides)}}
