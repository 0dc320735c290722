"""The house read from its source (AST, nothing imported): which module
imports which, circles, the layers' rules, kernel signatures, play-out loops,
long modules and imports inside functions. `tests/test_layers.py` asserts on
it; `benchmarks/house_figures.py` prints it.

Module names are the installed ones: `kernels/x.py` is `scopa_sim.kernels.x`
and `analysis/x.py` is `scopa_sim.analysis.x` (the package-dir mapping).
"""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = {"scopa_sim": ROOT / "scopa_sim", "scopa_sim.kernels": ROOT / "kernels",
           "scopa_sim.analysis": ROOT / "analysis"}
JIT_DECORATORS = {"kernel", "spliced", "outlined", "njit", "jit"}


def modules() -> dict[str, Path]:
    """Every module of the package: its dotted name and its file."""
    found = {}
    for package, folder in FOLDERS.items():
        for path in sorted(folder.rglob("*.py")):
            rel = path.relative_to(folder)
            if package == "scopa_sim" and rel.parts[0] in ("kernels", "analysis"):
                continue                                    # the links to the mapped folders
            parts = [package, *rel.with_suffix("").parts]
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), str(path))


def _absolute(name: str, path: Path, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    base = base[:len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _targets(name: str, path: Path, node, known) -> set[str]:
    """The package modules an import statement loads."""
    if isinstance(node, ast.Import):
        return {a.name for a in node.names if a.name in known}
    base = _absolute(name, path, node)
    out = {f"{base}.{a.name}" for a in node.names if f"{base}.{a.name}" in known}
    if base in known and len(out) < len(node.names):     # names of the package itself
        out.add(base)
    return out


def _is_type_checking(node) -> bool:
    return isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)


def imports(top_level_only: bool = False, typing: bool = False) -> dict[str, set[str]]:
    """module -> the package modules it imports (at the top level only, or
    anywhere, functions included); `if TYPE_CHECKING:` blocks only with
    `typing` (a circle of type-only imports is a circle too)."""
    known = modules()
    graph = {}
    for name, path in known.items():
        found: set[str] = set()
        tree = _tree(path)
        body = list(tree.body) if top_level_only else list(ast.walk(tree))
        skip = set() if typing else {id(n) for t in ast.walk(tree) if _is_type_checking(t)
                                     for n in ast.walk(t)}
        for node in body:
            if isinstance(node, (ast.Import, ast.ImportFrom)) and id(node) not in skip:
                found |= _targets(name, path, node, known)
        found.discard(name)
        graph[name] = found
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                out.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def reaches(graph: dict[str, set[str]], start: str) -> set[str]:
    """Every module `start` loads, directly or through others."""
    seen, todo = set(), [start]
    while todo:
        for w in graph.get(todo.pop(), ()):
            if w not in seen:
                seen.add(w)
                todo.append(w)
    return seen


def _decorated_jit(fn) -> bool:
    for d in fn.decorator_list:
        d = d.func if isinstance(d, ast.Call) else d
        if (d.attr if isinstance(d, ast.Attribute) else getattr(d, "id", "")) in JIT_DECORATORS:
            return True
    return False


def kernel_functions():
    """(module, function node) for every compiled function in kernels/."""
    for name, path in modules().items():
        if name.startswith("scopa_sim.kernels"):
            for node in ast.walk(_tree(path)):
                if isinstance(node, ast.FunctionDef) and _decorated_jit(node):
                    yield name, node


def parameters(fn: ast.FunctionDef) -> int:
    a = fn.args
    return len(a.posonlyargs) + len(a.args) + len(a.kwonlyargs)


def play_out_loops() -> list[str]:
    """Kernel functions holding a loop that plays until the round is over
    (`while not is_over(...)`)."""
    found = []
    for name, fn in kernel_functions():
        for node in ast.walk(fn):
            if (isinstance(node, ast.While) and isinstance(node.test, ast.UnaryOp)
                    and "is_over" in ast.unparse(node.test)):
                found.append(f"{name}.{fn.name}")
                break
    return found


def inner_imports() -> dict[str, int]:
    """module -> import statements inside function bodies (each counted once)."""
    counts = {}
    for name, path in modules().items():
        tree = _tree(path)
        inside = {id(inner) for node in ast.walk(tree)
                  if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
                  for inner in ast.walk(node) if isinstance(inner, (ast.Import, ast.ImportFrom))}
        if inside:
            counts[name] = len(inside)
    return counts


def long_modules(limit: int = 500) -> dict[str, int]:
    out = {}
    for name, path in modules().items():
        lines = len(path.read_text(encoding="utf-8").splitlines())
        if lines > limit:
            out[name] = lines
    return out


def assignments(names: set[str]) -> dict[str, list[str]]:
    """Constant name -> the modules that assign it at their top level."""
    out = {n: [] for n in names}
    for module, path in modules().items():
        for node in _tree(path).body:
            if isinstance(node, ast.Assign):
                for t in node.targets:
                    for el in (t.elts if isinstance(t, ast.Tuple) else [t]):
                        if isinstance(el, ast.Name) and el.id in names:
                            out[el.id].append(module)
    return out
