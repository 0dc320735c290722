"""Every result field, declared once.

The round kernel writes one row of round fields and, per side, one row of
side fields (`kernels.layout` names them in the kernel's order: the index of
each field in the kernel's arrays, numpy only). `ROUND` and `SIDE` take that
order, and the import fails if the names here are not the layout's. This
table says the rest of what each field is: its column type,
when it is present, and its title in tables and charts. Columns, the
Arrow types, the summary's point categories and their titles are derived
from it, never listed again.

    rounds table   ROUND fields, then each SIDE field per side: points_0, points_1, ...
    games table    GAME fields, then final score per side: score_0, score_1, ...

Each field also says which values it holds (`VALUES`): a count (never
negative), a seat, a seat or -1, or a side; a stored run's parts are
checked against it when read (`store`).
"""
from __future__ import annotations

from dataclasses import dataclass

from ..kernels import layout as L


VALUES = ("count", "seat", "seat or -1", "side", "cards")


@dataclass(frozen=True)
class Field:
    """A result field: column name (per side: `name_t`), numpy dtype, the
    rule that must be on for it to exist, whether only games have it, its
    title, whether it is a points category of the summary, and which
    values it holds (one of `VALUES`)."""
    name: str
    dtype: str
    title: str
    rule: str | None = None
    games_only: bool = False
    category: bool = False
    values: str = "count"

    def value_range(self, rules) -> tuple[int, int | None]:
        """(lowest, highest) value under these rules; None: only the dtype's bound."""
        return {"count": (0, None), "seat": (0, rules.players - 1),
                "seat or -1": (-1, rules.players - 1),
                "side": (0, rules.n_sides - 1), "cards": (0, 2**40 - 1)}[self.values]


def in_kernel_order(names: tuple[str, ...], fields) -> tuple[Field, ...]:
    """These fields in the kernel layout's order (`names`); ValueError if
    they are not the layout's fields."""
    by_name = {f.name: f for f in fields}
    if sorted(by_name) != sorted(names) or len(by_name) != len(fields):
        raise ValueError(f"schema fields {sorted(by_name)} are not the kernel layout's "
                         f"{sorted(names)}")
    return tuple(by_name[n] for n in names)


ROUND = in_kernel_order(L.ROUND_FIELDS, (
    Field("round", "int64", "round index in the run (with games: within its game, from 0)"),
    Field("game", "int64", "game index", games_only=True),
    Field("dealer", "int8", "seat that dealt", values="seat"),
    Field("last_capturer", "int8", "seat that captured last, -1 if nobody captured",
          values="seat or -1"),
    Field("leftover", "int8", "cards left on the table at the end"),
    Field("captures", "int8", "capturing plays in the round"),
))
SIDE = in_kernel_order(L.SIDE_FIELDS, (
    Field("cards", "int16", "cards in the side's pile"),
    Field("coins", "int16", "coins in the pile"),
    Field("settebello", "int16", "1 if the side took the 7 of coins"),
    Field("primiera", "int16", "primiera total (best card per suit)"),
    Field("scopas", "int16", "scopas", category=True),
    Field("pt_cards", "int16", "most cards", category=True),
    Field("pt_coins", "int16", "most coins", category=True),
    Field("pt_settebello", "int16", "settebello", category=True),
    Field("pt_primiera", "int16", "primiera", category=True),
    Field("pt_re_bello", "int16", "re bello", rule="re_bello", category=True),
    Field("pt_napola", "int16", "napola", rule="napola", category=True),
    Field("points", "int16", "points per round", category=True),
    Field("score", "int16", "the side's game total after this round", games_only=True),
))
TAKEN = Field("taken", "uint64", "the cards the side captured, the table's leftover to the "
              "last capturer (a card set; with simulate --keep-taken)", values="cards")
GAME = (
    Field("game", "int64", "game index"),
    Field("rounds", "int16", "rounds played"),
    Field("first_dealer", "int8", "seat that dealt the first round", values="seat"),
    Field("winner", "int8", "side with the higher final score", values="side"),
)
GAME_SIDE = (Field("score", "int16", "final score"),)

assert all(f.values in VALUES for f in ROUND + SIDE + GAME + GAME_SIDE + (TAKEN,))


def present(fields, rules, games: bool) -> list[Field]:
    """The fields a run under these rules (of games or not) has."""
    return [f for f in fields if (games or not f.games_only)
            and (f.rule is None or getattr(rules, f.rule))]


def side_fields(rules, games: bool = False) -> list[str]:
    """Names of the per-side fields of a round (`points`, ...; `score` in games)."""
    return [f.name for f in present(SIDE, rules, games)]


def categories(rules) -> list[tuple[str, str]]:
    """(field, title) of the summary's point categories: the points, then
    scopas, then all points last (the summary's tally finds a round's
    winner from its last category)."""
    fields = [f for f in present(SIDE, rules, False) if f.category]
    return [(f.name, f.title) for f in sorted(fields, key=lambda f: (f.name == "points",
                                                                     f.name == "scopas"))]


def round_fields(rules, games: bool) -> dict[str, Field]:
    """Column name -> field of the rounds table, in order."""
    cols = {f.name: f for f in present(ROUND, rules, games)}
    for t in range(rules.n_sides):
        cols.update({f"{f.name}_{t}": f for f in present(SIDE, rules, games)})
    return cols


def taken_fields(rules) -> dict[str, Field]:
    """Column name -> field of the taken columns (`taken_0`, ...) a run keeps
    with `keep_taken`, after the round fields (see `scopa_sim.runs.taken`)."""
    return {f"{TAKEN.name}_{t}": TAKEN for t in range(rules.n_sides)}


def game_fields(rules) -> dict[str, Field]:
    """Column name -> field of the games table, in order."""
    cols = {f.name: f for f in GAME}
    cols.update({f"{f.name}_{t}": f for t in range(rules.n_sides) for f in GAME_SIDE})
    return cols


def round_columns(rules, games: bool) -> dict[str, str]:
    """Column name -> dtype of the rounds table, in order."""
    return {c: f.dtype for c, f in round_fields(rules, games).items()}


def game_columns(rules) -> dict[str, str]:
    """Column name -> dtype of the games table, in order."""
    return {c: f.dtype for c, f in game_fields(rules).items()}
