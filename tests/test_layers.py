"""The layers, read from the source (`house`, AST): no import circle, of
modules or of layers, and each layer imports only those below it, the
kernels' code from the engine alone (docs/DEVELOPING.md, "Layout")."""
import pytest

import house

GRAPH = house.imports()                 # imports anywhere, inside functions too
TYPED = house.imports(typing=True)      # and under `if TYPE_CHECKING:`
CONSTANTS = ("scopa_sim.kernels.layout", "scopa_sim.kernels.registry")   # plain numpy data
BASE = ("scopa_sim.defaults", "scopa_sim.stats", "scopa_sim.data")       # import nothing of ours
LAYERS = {                              # a layer -> what it may import of the package
    "scopa_sim.kernels": ("scopa_sim.kernels",),
    "scopa_sim.engine": ("scopa_sim.engine", "scopa_sim.kernels", *BASE),
    "scopa_sim.runs": ("scopa_sim.runs", "scopa_sim.engine", *CONSTANTS, *BASE),
    "scopa_sim.analysis": ("scopa_sim.analysis", "scopa_sim.engine", "scopa_sim.runs.store",
                           "scopa_sim.runs.parts", "scopa_sim.runs.plan", "scopa_sim.runs.taken",
                           "scopa_sim.runs.summary", *CONSTANTS, *BASE),
    "scopa_sim.study": ("scopa_sim.study", "scopa_sim.analysis", "scopa_sim.runs",
                        "scopa_sim.engine", *CONSTANTS, *BASE),
    "scopa_sim.cli": ("scopa_sim.cli", "scopa_sim.study", "scopa_sim.analysis", "scopa_sim.runs",
                      "scopa_sim.engine", *CONSTANTS, *BASE),
    "scopa_sim.envs": ("scopa_sim.envs", "scopa_sim.engine", *CONSTANTS, *BASE),
    "scopa_sim.observation": ("scopa_sim.engine.observation",),    # the strategy author's face
    "scopa_sim.data.maxims": ("scopa_sim", "scopa_sim.observation"),  # a strategy, as data
    **{m: () for m in BASE},
}


def _unit(module):
    """The layer (or base module) a module is in: its longest prefix in LAYERS."""
    return max((p for p in LAYERS if _in(module, (p,))), key=len, default=module)


def _in(module, prefixes):
    return any(module == p or module.startswith(p + ".") for p in prefixes)


def test_the_house_reads_every_layer():
    for layer in LAYERS:
        assert any(_in(m, (layer,)) for m in GRAPH), layer
    assert not [m for m in GRAPH if m != "scopa_sim" and _unit(m) == m and m not in LAYERS]


def test_no_import_circle_of_modules_nor_of_layers():
    """Type-only imports included: a circle under `TYPE_CHECKING` is one too."""
    assert house.circles(TYPED) == []
    layers = {}
    for m, targets in TYPED.items():
        layers.setdefault(_unit(m), set()).update(_unit(t) for t in targets if _unit(t) != _unit(m))
    assert house.circles(layers) == []


def test_the_circle_finder_finds_one():
    assert house.circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


@pytest.mark.parametrize("layer", LAYERS)
def test_a_layer_imports_only_those_below_it(layer):
    wrong = {f"{m} -> {t}" for m, targets in TYPED.items() if _unit(m) == layer
             for t in targets if not _in(t, LAYERS[layer])}
    assert not wrong, sorted(wrong)


def test_only_the_engine_calls_the_kernels():
    """Outside kernels/ and engine/, a kernel module is imported only for
    the plain constants of `layout` and `registry` (the package's
    `TYPE_CHECKING` names included)."""
    wrong = {f"{m} -> {t}" for m, targets in TYPED.items()
             if _unit(m) not in ("scopa_sim.kernels", "scopa_sim.engine")
             for t in targets if _in(t, ("scopa_sim.kernels",)) and t not in CONSTANTS}
    assert not wrong, sorted(wrong)


def test_the_face_names_what_it_loads_lazily():
    """`scopa_sim`'s names are declared by its `TYPE_CHECKING` imports and
    resolve to what they name."""
    import scopa_sim
    assert scopa_sim.__all__ and TYPED["scopa_sim"] and not GRAPH["scopa_sim"]
    for name in ("Rules", "STRATEGIES", "Observation", "simulate", "advise"):
        module, attribute = scopa_sim._declared()[name]
        assert getattr(scopa_sim, name) is getattr(
            __import__(f"scopa_sim{module}", fromlist=["_"]), attribute)


def test_the_store_does_not_import_the_runner():
    assert "scopa_sim.runs.runner" not in house.reaches(GRAPH, "scopa_sim.runs.store")


def test_analysis_never_runs_games():
    for m in GRAPH:
        if _in(m, ("scopa_sim.analysis",)):
            loaded = house.reaches(GRAPH, m)
            assert not {"scopa_sim.runs.runner", "scopa_sim.runs.executors"} & loaded, m


def test_only_the_command_line_imports_the_command_line():
    assert not [m for m, t in GRAPH.items() if not _in(m, ("scopa_sim.cli",))
                and any(_in(x, ("scopa_sim.cli",)) for x in t)]


def test_the_defaults_are_set_once():
    names = {"DEEP_STRATEGY", "DEEP_SAMPLES", "DEEP_BATCH", "DEFAULT_ROLLOUTS",
             "DEFAULT_STRATEGY", "THRESHOLDS"}
    assert {k: v for k, v in house.assignments(names).items()} == {
        n: ["scopa_sim.defaults"] for n in names}
