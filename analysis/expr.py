"""The expression language of `scopa-sim ask`: parsed with `ast`, checked
node by node, and evaluated by a small tree walker over numpy arrays (never
by Python's or pandas' eval).

An expression is at most 1,000 characters and 100 levels of nesting, made of:
column names (`points_0`, `winner`, ...); numbers (`3`, `-1`, `0.5`), `True`,
`False`, and quoted text only in `==`, `!=` and `in` comparisons
(`strategy_0 == 'greedy'`); arithmetic `+ - * / // % **` and unary `-`, `+`,
where every column is read as int64 (true/false as 1/0) or float64, so
nothing wraps around, `/` divides as float64, and the exponent of `**` is a
number written out, from -64 to 64; comparisons `== != < <= > >=`, chained as
in `0 < margin <= 2`; `x in [1, 2]`, `x not in (1, 2)` with a list of numbers
or texts written out (not chained); `and`, `or`, `not` (or `&`, `|`, `~`) on
true/false values, both sides computed for every row; and the functions
`abs(x)`, `round(x)` (half to even) and `floor(x)` (integers), `sqrt(x)`,
`min(a, b, ...)`, `max(a, b, ...)`, row by row.

Card sets are values too: the deal columns (`hand_0`, `dealt_0`, `table`,
uint64 bit sets, bit `suit*10 + rank - 1`), the named sets (`CARD_SETS`:
`sevens`, `coins`, `faces`, `settebello`, ...) and cards written as quoted
text where a set is expected (`'7d'`, `'7d 7c'`). `a & b`, `a | b` and
`a - b` are their intersection, union and difference; `x in s` (`not in`)
says whether the card or set x lies in s; `==` and `!=` compare sets;
`count(s)` is how many cards s holds and `ranks(s)` the sum of their ranks
(A=1 .. K=10). A set is never a number or true/false: comparing one with a
number, or adding to it, is an error. A division (`/`, `//`, `%`) by
zero in any row, an integer outside int64 and a float that is not finite are
errors, never wrapped values, inf or nan: leave such rows out with a
condition. Anything else (attributes, subscripts, other calls, keyword
arguments, lambdas, comprehensions, f-strings, `:=`, `if`/`else`, dunder
names, pandas' `@name` and backticks) is refused. Every error is a one-line
ValueError naming the offending part.
"""
from __future__ import annotations

import ast
import operator
import re
import warnings
from collections.abc import Mapping
from functools import reduce

import numpy as np

from ..engine.cards import SUIT_NAMES, mask_of, parse_cards

MAX_CHARS = 1000
MAX_DEPTH = 100
MAX_EXPONENT = 64
INT64 = 2 ** 63

# name -> (fewest, most arguments), None for no limit
FUNCTIONS = {"abs": (1, 1), "round": (1, 1), "floor": (1, 1), "sqrt": (1, 1),
             "min": (2, None), "max": (2, None), "count": (1, 1), "ranks": (1, 1)}
SET_FUNCTIONS = ("count", "ranks")
_SET_OPS = {ast.BitAnd: np.bitwise_and, ast.BitOr: np.bitwise_or,
            ast.Sub: lambda a, b: a & ~b}


RANK_SETS = ("aces", "twos", "threes", "fours", "fives", "sixes", "sevens", "jacks",
             "queens", "kings")                         # rank 1..10


def _named_sets() -> dict[str, int]:
    """The named card sets: each rank (plural), each suit, the face cards,
    the settebello and re bello, every card."""
    sets = {name: mask_of(s * 10 + r for s in range(4)) for r, name in enumerate(RANK_SETS)}
    sets.update({name: mask_of(s * 10 + r for r in range(10))
                 for s, name in enumerate(SUIT_NAMES)})
    sets.update(faces=sets["jacks"] | sets["queens"] | sets["kings"], settebello=1 << 6,
                re_bello=1 << 9, deck=(1 << 40) - 1)
    return sets


CARD_SETS = _named_sets()

_ARITH = {ast.Add: np.add, ast.Sub: np.subtract, ast.Mult: np.multiply,
          ast.Div: np.true_divide, ast.FloorDiv: np.floor_divide, ast.Mod: np.remainder,
          ast.Pow: np.power}
_LOGIC = {ast.BitAnd: np.logical_and, ast.BitOr: np.logical_or}
_COMPARE = {ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt,
            ast.LtE: operator.le, ast.Gt: operator.gt, ast.GtE: operator.ge}
_TEXT_OPS = (ast.Eq, ast.NotEq, ast.In, ast.NotIn)
_SYMBOLS = {ast.MatMult: "@", ast.LShift: "<<", ast.RShift: ">>", ast.BitXor: "^",
            ast.Is: "is", ast.IsNot: "is not"}
_LABELS = {ast.Attribute: "attribute access", ast.Subscript: "subscript",
           ast.Lambda: "lambda", ast.ListComp: "comprehension", ast.SetComp: "comprehension",
           ast.DictComp: "comprehension", ast.GeneratorExp: "comprehension",
           ast.JoinedStr: "f-string", ast.Starred: "starred argument",
           ast.NamedExpr: "assignment (:=)", ast.IfExp: "if/else", ast.Await: "await",
           ast.List: "a list outside 'in [...]'", ast.Tuple: "a tuple outside 'in (...)'",
           ast.Dict: "dict", ast.Set: "set", ast.Slice: "slice"}


class _Source:
    """The expression text, for error messages that quote a part of it."""

    def __init__(self, expr: str):
        self.expr, self.text = expr, expr.strip()

    def part(self, node: ast.AST) -> str:
        if isinstance(node, ast.Attribute):
            return "." + node.attr
        seg = ast.get_source_segment(self.text, node) or type(node).__name__
        return seg if len(seg) <= 60 else seg[:57] + "..."

    def bad(self, why: str) -> ValueError:
        return ValueError(f"bad expression {_short(self.expr)}: {_one_line(why)}")

    def refuse(self, node: ast.AST, what: str) -> ValueError:
        return self.bad(f"{what} ({self.part(node)}) is not allowed")

    def fail(self, why: str) -> ValueError:
        return ValueError(f"cannot evaluate {_short(self.expr)}: {why}")


def _one_line(text: str) -> str:
    return " ".join(text.splitlines())


def _short(expr: str) -> str:
    return repr(expr if len(expr) <= 80 else expr[:77] + "...")


# ---- parsing and checking -------------------------------------------------------
def parse(expr: str) -> tuple[ast.expr, _Source]:
    """The checked syntax tree of `expr`; ValueError if it is not in the language."""
    src = _Source(expr)
    if len(src.text) > MAX_CHARS:
        raise src.bad(f"longer than {MAX_CHARS:,} characters")
    if m := re.search(r"@\w+|`[^`]*`?", src.text):
        raise src.bad(f"{'local variables' if m[0][0] == '@' else 'backticks'} ({m[0]}) "
                      f"are not allowed")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(src.text, mode="eval")
    except SyntaxError as e:
        raise src.bad(e.msg) from None
    except (ValueError, RecursionError, MemoryError):
        raise src.bad("it cannot be parsed") from None
    if _depth(tree) > MAX_DEPTH:
        raise src.bad(f"nested more than {MAX_DEPTH} levels deep")
    _check(tree.body, src)
    return tree.body, src


def names(expr: str) -> set[str]:
    """The column names `expr` uses (not function names nor named card
    sets), once it is checked."""
    tree, _ = parse(expr)
    funcs = {id(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)}
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and id(n) not in funcs
            and n.id not in CARD_SETS}


def _depth(tree: ast.AST) -> int:
    deepest, stack = 0, [(tree, 1)]
    while stack:
        node, d = stack.pop()
        deepest = max(deepest, d)
        stack.extend((c, d + 1) for c in ast.iter_child_nodes(node))
    return deepest


def _check(node: ast.expr, src: _Source, text_ok: bool = False) -> None:
    """Raise ValueError on the first part of `node` outside the language."""
    if isinstance(node, ast.Constant):
        _check_literal(node, src, text_ok)
    elif isinstance(node, ast.Name):
        if node.id.startswith("__"):
            raise src.refuse(node, "dunder name")
    elif isinstance(node, ast.BinOp):
        if type(node.op) not in _ARITH and type(node.op) not in _LOGIC:
            raise src.refuse(node, f"operator {_SYMBOLS[type(node.op)]}")
        if isinstance(node.op, ast.Pow):
            _check_exponent(node.right, src)
        cards_ok = type(node.op) in _SET_OPS                  # '7d 7c' & hand_0
        _check(node.left, src, cards_ok)
        _check(node.right, src, cards_ok)
    elif isinstance(node, ast.UnaryOp):
        _check(node.operand, src)
    elif isinstance(node, ast.BoolOp):
        for v in node.values:
            _check(v, src)
    elif isinstance(node, ast.Compare):
        _check_compare(node, src)
    elif isinstance(node, ast.Call):
        _check_call(node, src)
    else:
        raise src.refuse(node, _LABELS.get(type(node), type(node).__name__))


def _check_literal(node: ast.Constant, src: _Source, text_ok: bool) -> None:
    v = node.value
    if isinstance(v, str):
        if not text_ok:
            raise src.bad(f"text ({src.part(node)}) is allowed only in ==, != and in "
                          f"comparisons, and as cards with card sets ('7d' in hand_0)")
    elif isinstance(v, bool):
        pass
    elif isinstance(v, int):
        if not -INT64 <= v < INT64:
            raise src.bad(f"the number {src.part(node)} is too large")
    elif isinstance(v, float):
        if not np.isfinite(v):
            raise src.bad(f"the number {src.part(node)} is too large")
    else:
        raise src.refuse(node, "this literal")


def _number_literal(node: ast.expr) -> float | None:
    """The value of a number written out (with an optional sign), else None."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        v = _number_literal(node.operand)
        return None if v is None else (-v if isinstance(node.op, ast.USub) else v)
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return node.value
    return None


def _check_exponent(node: ast.expr, src: _Source) -> None:
    v = _number_literal(node)
    if v is None or abs(v) > MAX_EXPONENT:
        raise src.bad(f"the exponent of ** must be a number from -{MAX_EXPONENT} to "
                      f"{MAX_EXPONENT}, not {src.part(node)}")


def _check_compare(node: ast.Compare, src: _Source) -> None:
    if len(node.ops) > 1 and any(isinstance(op, (ast.In, ast.NotIn)) for op in node.ops):
        raise src.bad(f"'in' cannot be chained with other comparisons ({src.part(node)}); "
                      f"join them with 'and'")
    text_ok = all(isinstance(op, _TEXT_OPS) for op in node.ops)
    _check(node.left, src, text_ok)
    for op, right in zip(node.ops, node.comparators):
        if isinstance(op, (ast.Is, ast.IsNot)):
            raise src.bad(f"'{_SYMBOLS[type(op)]}' ({src.part(node)}) is not allowed; "
                          f"write == or !=")
        if isinstance(op, (ast.In, ast.NotIn)):
            if isinstance(right, (ast.List, ast.Tuple)):
                _check_members(right, src)
            elif _number_literal(right) is not None or isinstance(right, ast.UnaryOp):
                raise src.bad(f"'in' needs a list written out, e.g. dealer in [0, 1], or a "
                              f"card set, e.g. '7d' in hand_0; not {src.part(right)}")
            else:
                _check(right, src, text_ok=True)             # a card set: hand_0, 'Kd Kc'
        else:
            _check(right, src, text_ok)


def _check_members(node: ast.expr, src: _Source) -> None:
    for elt in node.elts:
        if _number_literal(elt) is None and not (isinstance(elt, ast.Constant)
                                                  and isinstance(elt.value, (str, bool))):
            raise src.bad(f"the list after 'in' may hold only numbers, True/False and "
                          f"quoted text, not {src.part(elt)}")
        _check(elt, src, text_ok=True)


def _check_call(node: ast.Call, src: _Source) -> None:
    if not isinstance(node.func, ast.Name):
        _check(node.func, src)                  # attribute access, lambda, ...
        raise src.refuse(node, "this call")
    name = node.func.id
    if name not in FUNCTIONS:
        raise src.bad(f"the function {name} is not allowed (the functions are "
                      f"{', '.join(FUNCTIONS)})")
    if node.keywords:
        raise src.refuse(node.keywords[0], "keyword argument")
    for a in node.args:
        _check(a, src, text_ok=name in SET_FUNCTIONS)
    fewest, most = FUNCTIONS[name]
    if not fewest <= len(node.args) <= (most or len(node.args)):
        want = f"{fewest} argument" + ("s or more" if most is None else "")
        raise src.bad(f"{name} takes {want}, not {len(node.args)} ({src.part(node)})")


# ---- evaluation -----------------------------------------------------------------
def _int_float_sign(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The sign of a - b (-1, 0, 1; nan where b is nan), computed exactly for
    integers `a` and floats `b`, as Python compares an int with a float:
    numpy would turn 9007199254740993 into 9007199254740992.0 first. A float
    inside the int64 range is split exactly into its floor (an int64) and a
    fraction in [0, 1)."""
    a, b = np.broadcast_arrays(a.astype(np.int64), b.astype(np.float64))
    inside = (b >= -float(INT64)) & (b < float(INT64))
    floor = np.floor(np.where(inside, b, 0.0))
    whole = floor.astype(np.int64)
    above = np.where(b > 0, -1.0, 1.0)                   # b beyond int64: its own sign decides
    sign = np.where(a < whole, -1.0, np.where(a > whole, 1.0,
                                              np.where(b - floor > 0, -1.0, 0.0)))
    return np.where(np.isnan(b), np.nan, np.where(inside, sign, above))


def evaluate(expr: str, columns: Mapping[str, np.ndarray], n_rows: int) -> np.ndarray:
    """`expr` over `columns` (each n_rows long): one value per row, as a numpy
    array of bool, int64, float64, uint64 (a card set) or (text) object."""
    tree, src = parse(expr)
    with np.errstate(all="ignore"):
        value = _Evaluator(src, columns)(tree)
    return np.full(n_rows, value, dtype=value.dtype) if value.ndim == 0 else value


def _column(values) -> np.ndarray:
    a = np.asarray(values)
    if a.dtype.kind == "b" or a.dtype == np.uint64:           # uint64: a card set
        return a
    if a.dtype.kind in "iu":
        return a.astype(np.int64)
    if a.dtype.kind == "f":
        return a.astype(np.float64)
    return a.astype(object)


def _literal(v) -> np.ndarray:
    if isinstance(v, str):
        return np.array(v, dtype=object)
    return np.array(v, dtype=np.bool_ if isinstance(v, bool)
                    else np.int64 if isinstance(v, int) else np.float64)


class _Evaluator:
    """Evaluates a checked tree; every value is a numpy array (0-d for literals)."""

    def __init__(self, src: _Source, columns: Mapping[str, np.ndarray]):
        self.src, self.columns = src, columns

    def __call__(self, node: ast.expr) -> np.ndarray:
        return np.asarray(getattr(self, "on_" + type(node).__name__)(node))

    def fail(self, why: str) -> ValueError:
        return self.src.fail(why)

    # leaves
    def on_Constant(self, node):
        return _literal(node.value)

    def on_Name(self, node):
        if node.id in self.columns:
            return _column(self.columns[node.id])
        if node.id in CARD_SETS:
            return np.array(CARD_SETS[node.id], np.uint64)
        raise self.fail(f"unknown column {node.id}")

    # typed operands
    def number(self, node) -> np.ndarray:
        v = self(node)
        if v.dtype.kind == "O":
            raise self.fail(f"{self.src.part(node)} is text, not a number")
        if _is_set(v):
            raise self.fail(f"{self.src.part(node)} is a card set, not a number "
                            f"(count({self.src.part(node)}) is how many cards it holds)")
        return v.astype(np.int64) if v.dtype.kind == "b" else v

    def cards(self, node, v=None) -> np.ndarray:
        """A card set: a set value, or quoted cards ('7d 7c')."""
        v = self(node) if v is None else v
        if _is_set(v):
            return v
        if v.dtype.kind == "O" and v.ndim == 0:
            try:
                return np.array(mask_of(parse_cards(str(v))), np.uint64)
            except ValueError as e:
                raise self.fail(str(e)) from None
        raise self.fail(f"{self.src.part(node)} is not a card set (a deal column such as "
                        f"hand_0, a named set such as sevens, or cards such as '7d 7c')")

    def truth(self, node) -> np.ndarray:
        v = self(node)
        if _is_set(v):
            raise self.fail(f"{self.src.part(node)} is a card set, not true/false (write "
                            f"e.g. count({self.src.part(node)}) > 0)")
        if v.dtype.kind != "b":
            raise self.fail(f"{self.src.part(node)} is not true/false (and, or, not, &, |, ~ "
                            f"need comparisons, e.g. {self.src.part(node)} > 0)")
        return v

    # arithmetic, with every result checked
    def checked(self, node, fn, *args) -> np.ndarray:
        out = np.asarray(fn(*args))
        if out.dtype.kind == "i" and fn is not np.remainder:
            exact = fn(*(a.astype(np.float64) for a in args))
            if np.any(np.abs(exact - out) > 2.0 ** 62):
                raise self.fail(f"{self.src.part(node)} is outside the 64-bit integers")
        elif out.dtype.kind == "f" and not np.all(np.isfinite(out)):
            bad = int(np.sum(~np.isfinite(out)))
            raise self.fail(f"{self.src.part(node)} is not a finite number in {_rows(bad)}")
        return out

    def on_BinOp(self, node):
        op = type(node.op)
        if op in _SET_OPS:
            left, right = self(node.left), self(node.right)
            if _is_set(left) or _is_set(right):
                return _SET_OPS[op](self.cards(node.left, left), self.cards(node.right, right))
        if op in _LOGIC:
            return _LOGIC[op](self.truth(node.left), self.truth(node.right))
        a, b = self.number(node.left), self.number(node.right)
        if op in (ast.Div, ast.FloorDiv, ast.Mod) and np.any(b == 0):
            rows = _rows(int(np.sum(b == 0))) if b.ndim else "every row"
            raise self.fail(f"division by zero in {self.src.part(node)} ({rows}); leave those "
                            f"rows out with a condition such as {self.src.part(node.right)} != 0")
        if op is ast.Pow and (b.dtype.kind == "f" or b < 0 or a.dtype.kind == "f"):
            a, b = a.astype(np.float64), b.astype(np.float64)
        return self.checked(node, _ARITH[op], a, b)

    def on_UnaryOp(self, node):
        if isinstance(node.op, (ast.Not, ast.Invert)):
            return ~self.truth(node.operand)
        v = self.number(node.operand)
        return self.checked(node, np.negative, v) if isinstance(node.op, ast.USub) else v

    def on_BoolOp(self, node):
        fn = np.logical_and if isinstance(node.op, ast.And) else np.logical_or
        return reduce(fn, (self.truth(v) for v in node.values))

    # comparisons
    def on_Compare(self, node):
        left, op = self(node.left), node.ops[0]
        if isinstance(op, (ast.In, ast.NotIn)) and not isinstance(
                node.comparators[0], (ast.List, ast.Tuple)):  # x in a card set
            within = self.cards(node.left, left) & ~self.cards(node.comparators[0]) == 0
            return ~within if isinstance(op, ast.NotIn) else within
        if isinstance(op, (ast.In, ast.NotIn)):            # never chained
            hit = reduce(np.logical_or, (self.compare(node, ast.Eq(), left, self(e))
                                         for e in node.comparators[0].elts), np.bool_(False))
            return ~hit if isinstance(op, ast.NotIn) else hit
        result = np.bool_(True)
        for op, right in zip(node.ops, node.comparators):
            value = self(right)
            result = result & self.compare(node, op, left, value)
            left = value
        return result

    def compare(self, node, op, a, b) -> np.ndarray:
        if _is_set(a) or _is_set(b):
            if not isinstance(op, (ast.Eq, ast.NotEq)):
                raise self.fail(f"{self.src.part(node)}: card sets compare only with ==, != "
                                f"and in (count(...) compares their sizes)")
            if not (_is_set(a) or a.dtype.kind == "O") or not (_is_set(b) or b.dtype.kind == "O"):
                raise self.fail(f"{self.src.part(node)} compares a card set with a number")
            a, b = self.cards(node, a), self.cards(node, b)
        text = (a.dtype.kind == "O", b.dtype.kind == "O")
        if any(text):
            if not all(text):
                raise self.fail(f"{self.src.part(node)} compares text with a number")
            if not isinstance(op, _TEXT_OPS):
                raise self.fail(f"{self.src.part(node)}: text can be compared only with "
                                f"==, != and in")
        kinds = {a.dtype.kind, b.dtype.kind}
        if "f" in kinds and kinds & {"i", "b"}:            # exactly, not as floats
            sign = (_int_float_sign(a, b) if a.dtype.kind != "f"
                    else -_int_float_sign(b, a))
            return np.asarray(_COMPARE[type(op)](sign, 0.0), dtype=bool)
        return np.asarray(_COMPARE[type(op)](a, b), dtype=bool)

    # functions
    def on_Call(self, node):
        name = node.func.id
        if name in SET_FUNCTIONS:
            cards = self.cards(node.args[0])
            if name == "count":
                return np.bitwise_count(cards).astype(np.int64)
            return sum(np.bitwise_count(cards & np.uint64(CARD_SETS[plural])).astype(np.int64)
                       * rank for rank, plural in enumerate(RANK_SETS, 1))
        args = [self.number(a) for a in node.args]
        if name in ("min", "max"):
            return reduce(np.minimum if name == "min" else np.maximum, args)
        x = args[0]
        if name == "abs":
            return self.checked(node, np.abs, x)
        if name == "sqrt":
            return self.checked(node, np.sqrt, x.astype(np.float64))
        if x.dtype.kind == "i":
            return x
        whole = np.rint(x) if name == "round" else np.floor(x)
        if np.any(np.abs(whole) >= INT64):
            raise self.fail(f"{self.src.part(node)} is outside the 64-bit integers")
        return whole.astype(np.int64)


def _rows(n: int) -> str:
    return f"{n:,} row" + "s" * (n != 1)


def _is_set(v: np.ndarray) -> bool:
    return v.dtype == np.uint64
