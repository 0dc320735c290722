"""The `net` strategy's networks: weights files, the shipped one, the
kernel's record of a run's networks, and their input (`features`).

A weights file is a NumPy `.npz` (read without pickles) of six float32 arrays
and a JSON text::

    w1 [F, H1]   b1 [H1]   w2 [H1, H2]   b2 [H2]   w3 [H2]   b3 [1]
    meta         {"format": FORMAT, "features": F, "preset": ..., ...}

F is the kernel's input width (`kernels.net.F_SIZE`), or an earlier
version's (`EARLIER_F_SIZES`: a prefix of today's fields), whose w1 is read
with zero rows for the fields added since, so it plays as it always did.
`scopa-sim train` writes them (`study.train`). A file is known by the
sha256 of its bytes: a stored run records the sha256 of every network that
played, and resuming it with a changed file is refused.
"""
from __future__ import annotations

import functools
import hashlib
import io
import json
import math
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .. import data
from ..kernels.layout import RANK
from ..kernels.net import (A_NEXT_PARTNER, A_TABLE, A_UNSEEN, AFTER_FIELDS, EARLIER_F_SIZES,
                           F_DECK_LEFT, F_HAND, F_HAND_SIZE, F_LAST, F_MINE, F_NEXT_HAND,
                           F_NEXT_PARTNER, F_SCOPAS_MINE, F_SCOPAS_THEIRS, F_SIZE, F_TABLE,
                           F_TABLE_SUM, F_TAKES, F_THEIRS, F_UNSEEN_RANK, WIDTH, net_record)

FORMAT = "scopa-sim-net/1"
SHIPPED = "net-scopa.npz"       # the package's network (`data`) for 2-player scopa, and for
                                # every preset without one of its own (`net-PRESET.npz`)
EARLIER = {"v1": "net-scopa-v1.npz",                # the networks shipped before, by name:
           "scopa-3-v1": "net-scopa-3-v1.npz",        # 2-player scopa's (v1), then the
           "scopa-4-v1": "net-scopa-4-v1.npz"}        # other presets' (PRESET-v1)
NAMES = ("w1", "b1", "w2", "b2", "w3", "b3")
MAX_WIDTH = 2048
MAX_FILE = 2**26            # bytes: a file (or a member's declared size) beyond any network's


class WeightsError(ValueError):
    """A weights file that cannot be read, or is not a network of ours."""


@dataclass(frozen=True)
class Weights:
    """A network: as written (`text`: "" for the shipped one, `v1` for one
    shipped before), its file's sha256, its arrays and what its file says of
    it (`meta`)."""
    text: str
    sha256: str
    arrays: tuple = field(compare=False, repr=False)
    meta: dict = field(compare=False, repr=False, hash=False)

    @property
    def shape(self) -> tuple[int, int]:
        """The hidden widths (H1, H2)."""
        return self.arrays[0].shape[1], self.arrays[2].shape[1]


def load(text: str | Path) -> Weights:
    """The network in file `text` (a path); WeightsError in one line."""
    path = Path(str(text)).expanduser()
    if path.is_dir():
        raise WeightsError(f"network weights {text}: a folder, not a weights file")
    if not path.is_file():
        raise WeightsError(f"network weights {text}: no such file")
    if path.stat().st_size > MAX_FILE:
        raise WeightsError(f"network weights {text}: {path.stat().st_size:,} bytes, more than "
                           f"a network of widths up to {MAX_WIDTH} ({MAX_FILE:,})")
    raw = path.read_bytes()
    return _parse(str(text), raw, path)


def shipped_path(preset: str = "scopa") -> Path:
    """Where the shipped network for `preset` is: the package's network of
    its own (`net-PRESET.npz`) if it has one, else 2-player scopa's."""
    own = data.path(f"net-{preset}.npz")
    return own if own.is_file() else data.path(SHIPPED)


@functools.lru_cache(maxsize=None)
def shipped(preset: str = "scopa") -> Weights:
    """The network shipped inside the package for `preset` (`shipped_path`)."""
    path = shipped_path(preset)
    return _parse("", path.read_bytes(), path)


@functools.lru_cache(maxsize=None)
def earlier(name: str) -> Weights:
    """A network shipped before (`EARLIER`), as `weights=NAME` names it."""
    path = data.path(EARLIER[name])
    return _parse(name, path.read_bytes(), path)


def preset_of(rules) -> str:
    """The preset a rule set is changed from (`scopa-4+target=21` ->
    `scopa-4`): its shipped network is the preset's; no rules: scopa."""
    return "scopa" if rules is None else rules.name.partition("+")[0]


def resolve(value, rules=None) -> Weights:
    """A `weights` parameter's value as a network: 0 is the one shipped for
    the preset of `rules`."""
    return value if isinstance(value, Weights) else shipped(preset_of(rules))


def _parse(text: str, raw: bytes, path: Path) -> Weights:
    where = f"network weights {text or path}"
    try:                                # the bytes hashed are the bytes read
        shapes = _declared(raw, where)
    except WeightsError:
        raise
    except (OSError, ValueError, zipfile.BadZipFile, EOFError) as e:
        raise WeightsError(f"{where}: not a weights file (.npz) of scopa-sim train "
                           f"({type(e).__name__})") from None
    missing = [k for k in (*NAMES, "meta") if k not in shapes]
    if missing:
        raise WeightsError(f"{where}: no {', '.join(missing)}: not a weights file of "
                           f"scopa-sim train")
    check_shape_of([shapes[k] for k in NAMES], where)     # before a byte is decompressed
    with np.load(io.BytesIO(raw), allow_pickle=False) as f:
        try:
            meta = json.loads(str(f["meta"]))
        except ValueError:
            meta = None
        if not isinstance(meta, dict) or meta.get("format") != FORMAT:
            raise WeightsError(f"{where}: its meta is not {FORMAT}'s (written by another "
                               f"scopa-sim?)")
        found = {k: f[k] for k in NAMES}
    for k in NAMES:
        if found[k].dtype.kind != "f":
            raise WeightsError(f"{where}: {k} is not all finite numbers (floating point)")
    with np.errstate(over="ignore"):
        arrays = tuple(np.ascontiguousarray(found[k], np.float32) for k in NAMES)
    check_shapes(arrays, where)
    w1 = arrays[0]
    if len(w1) < F_SIZE:                            # an earlier version's: the rest unread
        arrays = (np.concatenate([w1, np.zeros((F_SIZE - len(w1), w1.shape[1]), np.float32)]),
                  *arrays[1:])
    return Weights(text, hashlib.sha256(raw).hexdigest(), arrays, meta)


def _declared(raw: bytes, where: str) -> dict[str, tuple]:
    """The shape of each array of an .npz (`NAMES` and meta), read from the
    `.npy` headers inside it: nothing else is decompressed. WeightsError for
    a member whose declared size (in the zip, or by its shape) is absurd."""
    shapes = {}
    with zipfile.ZipFile(io.BytesIO(raw)) as z:
        for info in z.infolist():
            name = info.filename.removesuffix(".npy")
            if name not in (*NAMES, "meta") or name in shapes:
                continue
            if info.file_size > MAX_FILE:
                raise WeightsError(f"{where}: {name} declares {info.file_size:,} bytes, more "
                                   f"than any network's ({MAX_FILE:,})")
            with z.open(info) as member:
                version = np.lib.format.read_magic(member)
                read = {(1, 0): np.lib.format.read_array_header_1_0,
                        (2, 0): np.lib.format.read_array_header_2_0}.get(version)
                if read is None:
                    raise ValueError(f"{name}: .npy format {version}")
                shape, _, dtype = read(member)
            if dtype.hasobject or dtype.itemsize * math.prod(shape) > MAX_FILE:
                raise WeightsError(f"{where}: {name} declares shape {shape} of {dtype}, more "
                                   f"than any network's {MAX_FILE:,} bytes")
            shapes[name] = shape
    return shapes


def check_shape_of(shapes, where: str) -> None:
    """Refuse shapes (of w1..b3, in order) that are not a network of the kernel's."""
    w1, b1, w2, b2, w3, b3 = map(tuple, shapes)
    if len(w1) != 2 or w1[0] not in (F_SIZE, *EARLIER_F_SIZES) or not 0 < w1[1] <= MAX_WIDTH:
        raise WeightsError(f"{where}: w1 has shape {w1}, not ({F_SIZE}, H1) "
                           f"(a network of another version?)")
    h1 = w1[1]
    if len(w2) != 2 or w2[0] != h1 or not 0 < w2[1] <= MAX_WIDTH:
        raise WeightsError(f"{where}: w2 has shape {w2}, not ({h1}, H2)")
    h2 = w2[1]
    for name, shape, want in (("b1", b1, (h1,)), ("b2", b2, (h2,)), ("w3", w3, (h2,)),
                              ("b3", b3, (1,))):
        if shape != want:
            raise WeightsError(f"{where}: {name} has shape {shape}, not {want}")


def check_shapes(arrays, where: str) -> None:
    """Refuse arrays that are not a network of the kernel's shape, or not finite."""
    check_shape_of([a.shape for a in arrays], where)
    for name, a in zip(NAMES, arrays):              # float32 by now: _parse, save
        if not np.isfinite(a).all():
            raise WeightsError(f"{where}: {name} is not all finite numbers")


def save(path: Path, arrays, meta: dict) -> str:
    """Write a weights file (float32 arrays w1..b3 and `meta`); its sha256."""
    arrays = tuple(np.ascontiguousarray(a, np.float32) for a in arrays)
    check_shapes(arrays, f"network weights {path}")
    path = Path(path)
    with path.open("wb") as f:
        np.savez(f, **dict(zip(NAMES, arrays)),
                 meta=np.array(json.dumps({**meta, "format": FORMAT, "features": F_SIZE},
                                          sort_keys=True)))
    return hashlib.sha256(path.read_bytes()).hexdigest()


def record(weights: list[Weights]):
    """The kernel's `Net` of these networks, in this order (a seat's
    `weights` parameter is the index; None for none). Narrower networks are
    padded with zero units to the widest: a zero unit is never positive, so
    the kernel skips it and each network's values keep their bits."""
    if not weights:
        return None
    h1, h2 = (max(w.shape[k] for w in weights) for k in (0, 1))

    def padded(w):
        w1, b1, w2, b2, w3, b3 = w.arrays
        more1, more2 = h1 - w1.shape[1], h2 - w2.shape[1]
        return (np.pad(w1, ((0, 0), (0, more1))), np.pad(b1, (0, more1)),
                np.pad(w2, ((0, more1), (0, more2))), np.pad(b2, (0, more2)),
                np.pad(w3, (0, more2)), b3)

    arrays = [padded(w) for w in weights]
    return net_record(*(np.stack([a[k] for a in arrays]) for k in range(5)),
                      np.concatenate([a[5] for a in arrays]))


def features(after: np.ndarray) -> np.ndarray:
    """The network's input (float32[rows, F_SIZE] of 0 and 1) of afterstates
    (int64[rows, A_SIZE], `kernels.net.after`)."""
    rows = after.shape[0]
    x = np.zeros((rows, F_SIZE), np.float32)
    bits = np.arange(40, dtype=np.uint64)
    for field, at in (("hand", F_HAND), ("table", F_TABLE), ("mine", F_MINE),
                      ("theirs", F_THEIRS)):
        sets = after[:, AFTER_FIELDS.index(field)].astype(np.uint64)
        x[:, at:at + 40] = (sets[:, None] >> bits) & np.uint64(1)
    r = np.arange(rows)
    for field, at in (("scopas_mine", F_SCOPAS_MINE), ("scopas_theirs", F_SCOPAS_THEIRS),
                      ("deck_left", F_DECK_LEFT), ("hand_size", F_HAND_SIZE),
                      ("next_hand", F_NEXT_HAND), ("last", F_LAST),
                      ("table_sum", F_TABLE_SUM)):
        x[r, at + np.minimum(after[:, AFTER_FIELDS.index(field)], WIDTH[field] - 1)] = 1
    x[:, F_NEXT_PARTNER] = after[:, A_NEXT_PARTNER]
    hidden = after[:, A_UNSEEN].astype(np.uint64)
    for rank in range(1, 11):
        held = (hidden[:, None] >> (bits[rank - 1::10])) & np.uint64(1)     # its 4 cards
        x[r, F_UNSEEN_RANK + 5 * (rank - 1) + held.sum(1).astype(np.int64)] = 1
    table = after[:, A_TABLE].astype(np.uint64)
    reach = np.ones(rows, np.int64)                 # bit s: some cards of the table sum to s
    for card in range(40):
        on = ((table >> np.uint64(card)) & np.uint64(1)).astype(bool)
        reach[on] |= (reach[on] << RANK[card]) & 0x7FF
    x[:, F_TAKES:F_TAKES + 10] = (reach[:, None] >> np.arange(1, 11)) & 1
    return x
