"""`scopa-sim ask` expressions (analysis/expr.py): hostile input is refused
before anything runs or is read, arithmetic is int64/float64 and never wraps,
and evaluation equals an independent row-by-row Python evaluation."""
import json
import math
import operator

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scopa_sim.analysis import query
from scopa_sim.analysis.expr import evaluate, names
from scopa_sim.cli import main
from scopa_sim.runs.store import Run


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("ask") / "r"
    res = CliRunner().invoke(main, ["simulate", "--rounds", "2000", "--batch-size", "1000",
                                    "--seed", "1", "--out", str(out), "--quiet"])
    assert res.exit_code == 0, res.output
    return out


@pytest.fixture(scope="module")
def frame(run_dir):
    return Run.open(run_dir).read()


def ask_json(run_dir, *args) -> dict:
    res = CliRunner().invoke(main, ["ask", str(run_dir), *args, "--format", "json"],
                             catch_exceptions=False)
    assert res.exit_code == 0, res.output
    return json.loads(res.output)


def ask_error(capsys, run_dir, *args) -> str:
    """The one `error:` line of a refused `ask`, which must exit 2."""
    with pytest.raises(SystemExit) as e:
        main(["ask", str(run_dir), *args])
    assert e.value.code == 2
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), captured.err
    assert captured.out == ""
    return lines[0]


# ---- hostile expressions ----------------------------------------------------------
HOSTILE = [     # (expression, the part the error names); SENT is a sentinel file
    ("points_0.__class__.__init__.__globals__['os'].system('touch SENT')", "attribute access"),
    ("__import__('os').system('touch SENT')", "attribute access (.system)"),
    ("__import__('os')", "function __import__"),
    ("exec(\"open('SENT', 'w')\")", "function exec"),
    ("open('SENT', 'w')", "function open"),
    ("getattr(points_0, 'to_csv')('SENT')", "function getattr"),
    ("points_0.to_csv('SENT')", "attribute access (.to_csv)"),
    ("points_0.values.tofile('SENT')", "attribute access (.tofile)"),
    ("points_0.sum()", "attribute access (.sum)"),
    ("@pd.io.common.os.system('touch SENT')", "local variables (@pd)"),
    ("`points_0`.to_csv('SENT')", "backticks (`points_0`)"),
    ("(lambda: __import__('os').system('touch SENT'))()", "lambda"),
    ("[__import__('os').system('touch SENT') for x in [1]] == 0", "comprehension"),
    ("{x: 1 for x in [1]}", "comprehension"),
    ("points_0[0] == 1", "subscript (points_0[0])"),
    ("f\"{__import__('os').system('touch SENT')}\" == strategy_0", "f-string"),
    ("(x := 1) == 1", "assignment (:=)"),
    ("abs(points_0, key=print) > 0", "keyword argument (key=print)"),
    ("max(*points_0) > 0", "starred argument (*points_0)"),
    ("__builtins__ == 1", "dunder name (__builtins__)"),
    ("points_0 if True else 1", "if/else"),
    ("points_0 ** 10 ** 10 > 0", "exponent of **"),
    ("points_0 ** points_1 > 0", "exponent of **"),
    ("'S' * 1000000000 == strategy_0", "text ('S')"),
    ("points_0 is 1", "'is' (points_0 is 1)"),
    ("points_0 in 3", "'in' needs a list"),
    ("None == points_0", "None"),
    ("points_0 + " * 200 + "1", "longer than 1,000 characters"),
    ("+" * 500 + "points_0", "nested more than 100 levels"),
    ("(" * 300 + "1" + ")" * 300, "too many nested parentheses"),
    ("points_0 ==", "invalid syntax"),
]


@pytest.mark.parametrize("as_condition", [False, True], ids=["event", "given"])
@pytest.mark.parametrize("text, part", HOSTILE, ids=[h[1] for h in HOSTILE])
def test_hostile_expressions_are_refused(run_dir, tmp_path, capsys, text, part, as_condition):
    sentinel = tmp_path / "pwned"
    text = text.replace("SENT", str(sentinel))
    args = ["winner == 0", "--given", text] if as_condition else [text]
    line = ask_error(capsys, run_dir, *args)
    assert "bad expression" in line and part in line
    assert not sentinel.exists()


def test_expressions_are_checked_before_anything_is_read(run_dir, monkeypatch):
    run = Run.open(run_dir)
    monkeypatch.setattr(Run, "read", lambda *a, **k: pytest.fail("data was read"))
    for event, given_ in [("points_0.sum()", None), ("winner == 0", "points_0[0] == 1"),
                          ("winner == 0", "nonsense == 1")]:
        with pytest.raises(ValueError, match="bad expression|unknown column"):
            query.ask(run, event, given_)


def test_names_are_columns_not_functions():
    assert names("round == 0 and round(points_0 / 2) > min(a, b)") == {"round", "points_0",
                                                                       "a", "b"}


# ---- arithmetic in int64 ----------------------------------------------------------
@pytest.mark.parametrize("event, compute", [
    ("captures * 10", lambda d: d.captures.astype(np.int64) * 10),
    ("points_0 * 1000000", lambda d: d.points_0.astype(np.int64) * 1000000),
    ("points_0 * points_1 * 100000 - cards_0 * 1000000",
     lambda d: d.points_0.astype(np.int64) * d.points_1 * 100000
     - d.cards_0.astype(np.int64) * 1000000),
    ("(cards_0 * 1000) ** 3", lambda d: (d.cards_0.astype(np.int64) * 1000) ** 3),
    ("abs(points_0 - points_1) * 100000", lambda d: (d.points_0.astype(np.int64)
                                                     - d.points_1).abs() * 100000),
    ("points_0 / 3", lambda d: d.points_0 / 3),
])
def test_arithmetic_does_not_wrap(run_dir, frame, event, compute):
    r = ask_json(run_dir, event)
    assert r["kind"] == "mean" and r["n"] == len(frame)
    assert r["estimate"] == pytest.approx(compute(frame).mean(), rel=1e-12)
    if event.startswith("captures"):
        assert r["estimate"] > 0


def test_large_products_compare_exactly(run_dir, frame):
    r = ask_json(run_dir, "captures * 100 > 500", "--given", "points_0 * 1000 >= 2000")
    sub = frame[frame.points_0.astype(np.int64) * 1000 >= 2000]
    assert (r["k"], r["n"]) == (int((sub.captures.astype(np.int64) * 100 > 500).sum()),
                                len(sub))


def test_division_by_zero_and_overflow_are_errors(run_dir, frame, capsys):
    line = ask_error(capsys, run_dir, "points_0 / pt_settebello_0")
    assert "division by zero in points_0 / pt_settebello_0" in line
    assert "pt_settebello_0 != 0" in line
    r = ask_json(run_dir, "points_0 / pt_settebello_0", "--given", "pt_settebello_0 != 0")
    assert r["estimate"] == pytest.approx(frame.points_0[frame.pt_settebello_0 != 0].mean())
    line = ask_error(capsys, run_dir, "(points_0 + 1) * 9223372036854775807")
    assert "outside the 64-bit integers" in line
    assert "too large" in ask_error(capsys, run_dir, "points_0 * 99999999999999999999")


def test_an_errors_row_count_says_which_part_it_counts(run_dir, capsys):
    """Issue 49: on a run of several parts, the count was the first part's alone,
    and read as the run's."""
    line = ask_error(capsys, run_dir, "margin / (cards_0 - cards_0)")
    assert "(1,000 rows)" in line and line.endswith("(in part 1 of 2, the first it happens in)")


@pytest.mark.parametrize("event", ["1e308", "margin * 1e300"])
def test_a_mean_beyond_floating_point_is_an_error(run_dir, capsys, event):
    """Every row finite, but their sum overflows: one line, no nan, no warning."""
    assert "too large to average" in ask_error(capsys, run_dir, event)


def test_a_huge_mean_prints_in_exponent_form(run_dir, frame):
    res = CliRunner().invoke(main, ["ask", str(run_dir), "margin * 1e150"])
    mean = (frame.points_0.astype(float) - frame.points_1).mean() * 1e150
    assert res.exit_code == 0 and f"{mean:.5e}" in res.output, res.output


def test_text_comparisons_and_lists(run_dir, frame):
    s0 = frame.strategy_0.iloc[0]
    r = ask_json(run_dir, f"strategy_0 == '{s0}'")
    assert (r["k"], r["n"]) == (len(frame), len(frame))
    r = ask_json(run_dir, "dealer in [1] and strategy_0 not in ('nobody',)")
    assert r["k"] == int((frame.dealer == 1).sum())
    r = ask_json(run_dir, "0 < points_0 - points_1 <= 2")
    d = frame.points_0.astype(int) - frame.points_1
    assert r["k"] == int(((d > 0) & (d <= 2)).sum())


def test_small_functions():
    cols = {"a": np.array([-3, 0, 5], np.int8), "b": np.array([2, 7, -1], np.int16)}
    ev = lambda e: evaluate(e, cols, 3).tolist()      # noqa: E731
    assert ev("min(a, b, 1)") == [-3, 0, -1] and ev("max(a, b / 2)") == [1.0, 3.5, 5.0]
    assert ev("round(a / 2)") == [-2, 0, 2] and ev("floor(a / 2)") == [-2, 0, 2]
    assert ev("abs(a)") == [3, 0, 5] and ev("sqrt(abs(b))") == [math.sqrt(2), math.sqrt(7), 1]
    assert ev("b ** -1") == [0.5, 1 / 7, -1.0] and ev("7") == [7, 7, 7]
    assert ev("(a > 0) | ~(b > 0)") == [False, False, True]
    with pytest.raises(ValueError, match="not a finite number"):
        evaluate("sqrt(a)", cols, 3)
    with pytest.raises(ValueError, match="is not true/false"):
        evaluate("a and b > 0", cols, 3)
    with pytest.raises(ValueError, match="'in' cannot be chained"):
        evaluate("a in [1] == a", cols, 3)


# ---- property: evaluate equals an independent row-by-row evaluation --------------
COLS = {"a": np.int8, "b": np.int8, "c": np.int16, "d": np.int16}
FRAMES = [                     # one with zeros (division by zero) and one without
    {"a": [0, 1, -1, 127, -128, 5], "b": [3, 0, -7, 2, 100, -1],
     "c": [0, 32767, -32768, 1000, -5, 42], "d": [1, 2, 3, -4, 0, 9]},
    {"a": [1, -1, 127, -128, 5, 13], "b": [3, -7, 2, 100, -1, 64],
     "c": [32767, -32768, 1000, -5, 42, 7], "d": [1, 2, 3, -4, 11, 9]},
]
CMPS = ["==", "!=", "<", "<=", ">", ">="]
FUNCS1 = ["abs", "round", "floor", "sqrt"]

leaf = st.one_of(st.sampled_from(sorted(COLS)).map(lambda c: ("col", c)),
                 st.integers(-300, 300).map(lambda v: ("lit", v)),
                 st.sampled_from([0.5, -1.25, 2.5, 0.1]).map(lambda v: ("lit", v)))
int_leaf = st.one_of(st.sampled_from(sorted(COLS)).map(lambda c: ("col", c)),
                     st.integers(-20, 20).map(lambda v: ("lit", v)))
ints = st.recursive(int_leaf, lambda i: st.one_of(
    st.tuples(st.just("bin"), st.sampled_from(["+", "-", "*", "//", "%"]), i, i),
    st.tuples(st.sampled_from(["neg", "abs"]), i)), max_leaves=4)


def _numbers(num):
    return st.one_of(
        st.tuples(st.just("bin"), st.sampled_from(["+", "-", "*", "/", "//", "%"]), num, num),
        st.tuples(st.just("pow"), ints, st.integers(0, 6)),
        st.tuples(st.sampled_from(["neg", "pos"] + FUNCS1), num),
        st.tuples(st.sampled_from(["min", "max"]), st.lists(num, min_size=2, max_size=3)),
        st.tuples(st.just("cmp"), st.sampled_from(CMPS), num, num))     # true/false as 1/0


numbers = st.recursive(leaf, _numbers, max_leaves=8)
members = st.lists(st.one_of(st.integers(-5, 130), st.sampled_from([0.5, 2.0])), max_size=4)
truths = st.recursive(
    st.one_of(st.tuples(st.just("cmp"), st.sampled_from(CMPS), numbers, numbers),
              st.tuples(st.just("chain"), st.sampled_from(CMPS), st.sampled_from(CMPS),
                        numbers, numbers, numbers),
              st.tuples(st.just("in"), st.booleans(), numbers, members),
              st.booleans().map(lambda v: ("lit", v))),
    lambda t: st.one_of(st.tuples(st.sampled_from(["and", "or", "&", "|"]), t, t),
                        st.tuples(st.sampled_from(["not", "~"]), t)),
    max_leaves=5)


def render(t) -> str:
    k = t[0]
    if k == "col":
        return t[1]
    if k == "lit":
        return f"({t[1]!r})" if not isinstance(t[1], bool) and t[1] < 0 else repr(t[1])
    if k in ("bin", "cmp"):
        return f"({render(t[2])} {t[1]} {render(t[3])})"
    if k == "chain":
        return f"({render(t[3])} {t[1]} {render(t[4])} {t[2]} {render(t[5])})"
    if k == "pow":
        return f"({render(t[1])} ** {t[2]})"
    if k in ("neg", "pos", "not", "~"):
        return f"({ {'neg': '-', 'pos': '+', 'not': 'not '}.get(k, k)}{render(t[1])})"
    if k in FUNCS1:
        return f"{k}({render(t[1])})"
    if k in ("min", "max"):
        return f"{k}({', '.join(render(x) for x in t[1])})"
    if k == "in":
        return f"({render(t[2])} {'in' if t[1] else 'not in'} {list(t[3])!r})"
    return f"({render(t[1])} {k} {render(t[2])})"              # and or & |


class Refused(Exception):
    """The row's value is undefined (division by zero) or out of range."""


def fits(v):
    if isinstance(v, bool):
        return v
    if isinstance(v, int) and -2 ** 63 <= v < 2 ** 63:
        return v
    if isinstance(v, float) and math.isfinite(v):
        return v
    raise Refused


def num(v):
    return int(v) if isinstance(v, bool) else v


def compare(op, a, b) -> bool:
    if isinstance(a, float) or isinstance(b, float):   # as numpy compares int64 with float64
        a, b = float(a), float(b)
    return {"==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le,
            ">": operator.gt, ">=": operator.ge}[op](a, b)


ARITH = {"+": operator.add, "-": operator.sub, "*": operator.mul, "//": operator.floordiv,
         "%": operator.mod}


def value(t, row):
    """Python's value of tree `t` on one row; every operand is evaluated."""
    k = t[0]
    if k == "col":
        return int(row[t[1]])
    if k == "lit":
        return t[1]
    if k == "bin":
        a, b = num(value(t[2], row)), num(value(t[3], row))
        if b == 0 and t[1] in ("/", "//", "%"):
            raise Refused
        return fits(float(a) / float(b) if t[1] == "/" else ARITH[t[1]](a, b))
    if k == "pow":
        return fits(value(t[1], row) ** t[2])
    if k in ("neg", "pos", "abs", "round", "floor", "sqrt"):
        x = num(value(t[1], row))
        if k == "sqrt" and x < 0:
            raise Refused
        fn = {"neg": operator.neg, "pos": operator.pos, "abs": abs, "round": round,
              "floor": math.floor, "sqrt": math.sqrt}[k]
        return x if k in ("round", "floor") and isinstance(x, int) else fits(fn(x))
    if k in ("min", "max"):
        xs = [num(value(x, row)) for x in t[1]]
        if any(isinstance(x, float) for x in xs):
            xs = [float(x) for x in xs]
        return min(xs) if k == "min" else max(xs)
    if k == "cmp":
        return compare(t[1], value(t[2], row), value(t[3], row))
    if k == "chain":
        a, b, c = (value(x, row) for x in t[3:])
        return compare(t[1], a, b) and compare(t[2], b, c)
    if k == "in":
        x = value(t[2], row)
        return any(compare("==", x, m) for m in t[3]) == t[1]
    if k in ("not", "~"):
        return not value(t[1], row)
    a, b = value(t[1], row), value(t[2], row)
    return (a and b) if k in ("and", "&") else (a or b)


def used(t) -> set[str]:
    """The column names in tree `t`."""
    if t[0] == "col":
        return {t[1]}
    kids = [x for x in t[1:] if isinstance(x, tuple)]
    kids += [y for x in t[1:] if isinstance(x, list) for y in x if isinstance(y, tuple)]
    return set().union(*map(used, kids))


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tree=st.one_of(numbers, truths), data=st.sampled_from(FRAMES))
def test_evaluate_equals_row_by_row_python(tree, data):
    text = render(tree)
    columns = {c: np.array(v, COLS[c]) for c, v in data.items()}
    rows = [{c: v[i] for c, v in data.items()} for i in range(6)]
    try:
        want = [value(tree, row) for row in rows]
    except Refused:
        with pytest.raises(ValueError, match="cannot evaluate"):
            evaluate(text, columns, 6)
        return
    got = evaluate(text, columns, 6)
    dtype = {bool: bool, int: np.int64, float: np.float64}[type(want[0])]
    assert got.dtype == dtype, text
    assert got.tolist() == want, text
    assert names(text) == used(tree)


TOKENS = ["a", "b", "points_0", "strategy_0", "(", ")", "[", "]", ".", ",", ":", "=", ":=",
          "__class__", "__import__", "'x'", "'", '"', "1", "-1", "0.5", "1e999", "**", "*", "/",
          "//", "%", "+", "-", "~", "&", "|", "^", "<", "==", "!=", "in", "not", "and", "or",
          "is", "if", "else", "lambda", "for", "True", "None", "abs", "min", "max", "sqrt",
          "round", "open", "f'", "{", "}", "@", "`", "\\", "\n", "#", "\x00", "999999999999999"]


@settings(max_examples=400, deadline=None)
@given(st.one_of(st.text(max_size=60),
                 st.lists(st.sampled_from(TOKENS), max_size=25).map(" ".join),
                 st.lists(st.sampled_from(TOKENS), max_size=25).map("".join),
                 st.integers(900, 1100).map(lambda n: "(" * (n // 4) + "a" + ")" * (n // 4))))
def test_junk_raises_only_value_error(text):
    columns = {"a": np.array([1, 0, -3], np.int8), "b": np.array([2, 5, 0], np.int16),
               "points_0": np.array([0, 1, 2], np.int16),
               "strategy_0": np.array(["x", "y", "x"], dtype=object)}
    try:
        got = evaluate(text, columns, 3)
    except ValueError as e:
        assert "\n" not in str(e)
        return
    assert got.shape == (3,)
    assert got.dtype.kind in "bifO" or got.dtype == np.uint64     # uint64: a card set


def test_a_card_set_is_a_value_but_not_an_answer(run_dir, capsys):
    """The example Hypothesis once found: `sevens` evaluates to a card set (uint64),
    which `ask` refuses in one line that says how to count it."""
    got = evaluate("sevens", {"a": np.zeros(3, np.int8)}, 3)
    assert got.dtype == np.uint64 and got.shape == (3,)
    line = ask_error(capsys, run_dir, "sevens")
    assert "is a card set per row" in line and "count(sevens)" in line
    assert ask_json(run_dir, "count(sevens & hand_0)")["kind"] == "mean"
