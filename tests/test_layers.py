"""Import layers: the package's modules import one way only, and never in a cycle.

Layers, lowest first (a module may import its own layer or a lower one):

0. rules core: ``nochmal/*.py`` (board, bitsets, sheet, placements, dice, move, game,
   record, rules, errors, fileio, agents, play, sheetview, svg, ...) and Clever 4ever's engine
   (``nochmal/clever``); it imports none of the
   heavy libraries (OR-Tools, numpy, networkx, scipy): the missions' graph measures
   (``missions/measures/``) and the planner bring OR-Tools and numpy; networkx and scipy are
   test dependencies (pyproject.toml) that no library module imports at all;
1. bots: ``nochmal/bots``;
2. missions: ``missions/`` (``nochmal.missions``), may use the bots;
3. planner: ``solver/`` (``nochmal.solver``), may use bots and missions (team planning);
4. front ends: the table session (``nochmal/table``: one game without input or output, and
   a record's states turn by turn) and the front ends built on it: ``nochmal/terminal``,
   the web app (``nochmal/web``), the batch runner (``nochmal/batch``) and the command line
   (``nochmal/cli``), which starts the others.

Every folder is in exactly one layer: ``FOLDER_LAYERS`` names each package once, and a
module is in the layer of the nearest listed package holding it (a folder not listed, such
as ``missions/measures``, is in its parent's layer); no module is listed by name.

Bots, missions and the planner form the middle of the house; they are ordered among
themselves so that no two of them can import each other. Imports are read from the source
by AST, top-level and lazy ones (inside functions) alike: a lazy import is still a
dependency. Cycles are checked between modules on top of the layer order (two modules of
one layer must not import each other either).
"""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx
import pytest

ROOT = Path(__file__).resolve().parent.parent
# installed names -> folders (pyproject.toml [tool.setuptools.package-dir])
PACKAGE_DIRS = {"nochmal": "nochmal", "nochmal.missions": "missions", "nochmal.solver": "solver",
                "nochmal.boards": "boards"}

CORE, BOTS, MISSIONS, PLANNER, FRONT = range(5)
LAYER_NAMES = ["rules core", "bots", "missions", "planner", "front ends"]
# one entry per folder (an installed package); the nearest listed package decides
FOLDER_LAYERS = {
    "nochmal": CORE, "nochmal.clever": CORE, "nochmal.bots": BOTS, "nochmal.missions": MISSIONS, "nochmal.solver": PLANNER,
    "nochmal.table": FRONT, "nochmal.terminal": FRONT, "nochmal.web": FRONT, "nochmal.batch": FRONT,
    "nochmal.cli": FRONT,
}
# within the front ends: the front-end folders each one may import besides its own
FRONT_END_USES = {
    "nochmal.table": (),
    "nochmal.terminal": ("nochmal.table",),
    "nochmal.web": ("nochmal.table",),
    "nochmal.batch": ("nochmal.table",),
    "nochmal.cli": ("nochmal.table", "nochmal.terminal", "nochmal.web", "nochmal.batch"),
}

# Known violations, (importer, imported) -> who removes it. This list only shrinks: an entry
# that no longer occurs fails the test so that it is deleted; the lead empties it.
KNOWN_VIOLATIONS: dict[tuple[str, str], str] = {}


def folder_of(module: str) -> str:
    """The nearest package of ``FOLDER_LAYERS`` that holds ``module`` (or is it)."""
    parts = module.split(".")
    for k in range(len(parts), 0, -1):
        if ".".join(parts[:k]) in FOLDER_LAYERS:
            return ".".join(parts[:k])
    raise ValueError(f"{module} is in no layer")


def layer_of(module: str) -> int:
    return FOLDER_LAYERS[folder_of(module)]


def module_files(root: Path) -> dict[str, Path]:
    """Installed module name -> source file, for every .py file of the package folders."""
    out = {}
    for package, folder in PACKAGE_DIRS.items():
        base = root / folder
        if not base.is_dir():
            continue
        for path in base.rglob("*.py"):
            parts = list(path.relative_to(base).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join([package, *parts])] = path
    return out


def imported_modules(path: Path, module: str, known: set[str]) -> set[str]:
    """The package modules ``path`` imports anywhere in its body (lazy imports included).

    ``from a.b import c`` counts as importing ``a.b.c`` when that is a module, else ``a.b``.
    """
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    is_package = path.name == "__init__.py"
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = module.split(".")
                keep = len(parts) - node.level + (1 if is_package else 0)
                base = ".".join(parts[:keep] + ([base] if base else []))
            names = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base for alias in node.names]
        else:
            continue
        for name in names:
            # "import nochmal.bots.hints" names a module; trim to the longest known prefix
            while name and name not in known:
                name = name.rpartition(".")[0]
            if name and name != module:
                out.add(name)
    return out


def import_graph(root: Path) -> nx.DiGraph:
    files = module_files(root)
    known = set(files)
    g = nx.DiGraph()
    g.add_nodes_from(known)
    for module, path in files.items():
        for target in imported_modules(path, module, known):
            g.add_edge(module, target)
    return g


def violations(graph: nx.DiGraph, known: dict[tuple[str, str], str] | None = None) -> list[str]:
    """Upward imports and import cycles, one line each; edges in ``known`` are left out."""
    known = known or {}
    g = graph.copy()
    g.remove_edges_from([e for e in known if g.has_edge(*e)])
    out = []
    for a, b in sorted(g.edges):
        if layer_of(b) > layer_of(a):
            out.append(f"upward import: {a} ({LAYER_NAMES[layer_of(a)]}) imports {b} ({LAYER_NAMES[layer_of(b)]})")
    for comp in nx.strongly_connected_components(g):
        if len(comp) > 1:
            cycle = nx.find_cycle(g.subgraph(comp))
            out.append("import cycle: " + " -> ".join([a for a, _ in cycle] + [cycle[0][0]]))
    return sorted(out)


# --- the real tree --------------------------------------------------------------------------
def test_no_upward_imports_or_cycles():
    found = violations(import_graph(ROOT), KNOWN_VIOLATIONS)
    assert not found, "\n".join(found)


def sideways_imports(graph: nx.DiGraph) -> list[str]:
    """Imports between front-end folders that ``FRONT_END_USES`` does not allow, one line each."""
    out = []
    for a, b in sorted(graph.edges):
        if layer_of(a) == FRONT == layer_of(b) and folder_of(a) != folder_of(b):
            if folder_of(b) not in FRONT_END_USES[folder_of(a)]:
                out.append(f"sideways import: {a} imports {b}")
    return out


def test_front_ends_share_only_the_table():
    """The web app, the terminal and the batch runner share code through the table session
    and the layers below, never through one another or the CLI (review finding: the web
    imported the CLI's board_data and build_hint_game, later the terminal's Session)."""
    found = sideways_imports(import_graph(ROOT))
    assert not found, "\n".join(found)
    assert set(FRONT_END_USES) == {f for f, layer in FOLDER_LAYERS.items() if layer == FRONT}


def test_the_table_session_is_shared_and_prints_nothing():
    """The terminal and the web drive one table session (nochmal.table.session), which
    reaches no console library (rich) and no reader; a co-op record's turns replay through
    the mission layer's game (nochmal.table.stepper)."""
    graph = import_graph(ROOT)
    assert graph.has_edge("nochmal.terminal.session", "nochmal.table.session")
    assert graph.has_edge("nochmal.web.games", "nochmal.table.session")
    assert graph.has_edge("nochmal.terminal.replay", "nochmal.table.stepper")
    assert graph.has_edge("nochmal.table.stepper", "nochmal.missions.coop")
    files = module_files(ROOT)
    table = {m for m in graph if folder_of(m) == "nochmal.table"}
    reached = table.union(*(nx.descendants(graph, m) for m in table))
    printing = sorted(m for m in reached if "rich" in external_imports(files[m]))
    assert not printing, printing


def test_known_violations_still_exist():
    """A fixed violation must leave the list (so the list only shrinks)."""
    graph = import_graph(ROOT)
    stale = [f"{a} -> {b} ({who})" for (a, b), who in KNOWN_VIOLATIONS.items() if not graph.has_edge(a, b)]
    assert not stale, "fixed, remove from KNOWN_VIOLATIONS: " + "; ".join(stale)


def test_every_listed_folder_is_a_package():
    """FOLDER_LAYERS lists folders, never a module by name."""
    files = module_files(ROOT)
    not_folders = [name for name in FOLDER_LAYERS if files.get(name, ROOT).name != "__init__.py"]
    assert not not_folders, not_folders


def test_every_module_has_a_layer_and_the_graph_is_read():
    graph = import_graph(ROOT)
    assert {"nochmal.board", "nochmal.missions.coop", "nochmal.solver.cpsat", "nochmal.cli"} <= set(graph)
    for module in graph:
        layer_of(module)
    assert graph.has_edge("nochmal.solver.cpsat", "nochmal.solver.instance")


HEAVY_LIBRARIES = ("ortools", "numpy", "networkx", "scipy")


def external_imports(path: Path) -> set[str]:
    """The top-level names of the absolute imports ``path`` makes anywhere (lazy ones included)."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            out.update(alias.name.partition(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            out.add(node.module.partition(".")[0])
    return out


def heavy_core_imports(root: Path) -> list[str]:
    """``module imports library`` for every rules-core module importing a heavy library."""
    return sorted(f"{module} imports {lib}" for module, path in module_files(root).items() if layer_of(module) == CORE
                  for lib in sorted(external_imports(path) & set(HEAVY_LIBRARIES)))


def test_the_rules_core_imports_no_heavy_library():
    found = heavy_core_imports(ROOT)
    assert not found, "\n".join(found)
    assert {"nochmal.missions.measures.steiner", "nochmal.missions.measures.crosses"} <= set(import_graph(ROOT))


# the test extra's libraries (pyproject.toml) that the tests use as oracles and no library module needs
TEST_ONLY_LIBRARIES = ("networkx", "scipy", "hypothesis", "pytest")


def imports_of_test_libraries(root: Path) -> list[str]:
    """``module imports library`` for every library module importing a test-only library."""
    return sorted(f"{module} imports {lib}" for module, path in module_files(root).items()
                  for lib in sorted(external_imports(path) & set(TEST_ONLY_LIBRARIES)))


def test_the_library_imports_no_test_only_library():
    found = imports_of_test_libraries(ROOT)
    assert not found, "\n".join(found)


# --- the checker itself must be able to fail ------------------------------------------------
def _tree(root: Path, files: dict[str, str]) -> None:
    """A fake source tree for the checker: each file (a path below ``root``) with its text."""
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


def test_checker_flags_a_heavy_import_in_the_core(tmp_path):
    _tree(tmp_path, {"nochmal/__init__.py": "", "nochmal/board.py": "def f():\n    import numpy as np\n    return np\n",
                     "nochmal/sheet.py": "from ortools.sat.python import cp_model\nfrom . import board\n",
                     "missions/__init__.py": "import networkx\n"})
    assert heavy_core_imports(tmp_path) == ["nochmal.board imports numpy", "nochmal.sheet imports ortools"]
    assert imports_of_test_libraries(tmp_path) == ["nochmal.missions imports networkx"]


def _fake(edges: list[tuple[str, str]]) -> nx.DiGraph:
    g = nx.DiGraph()
    g.add_edges_from(edges)
    return g


def test_checker_flags_an_upward_import():
    found = violations(_fake([("nochmal.sheet", "nochmal.solver.cpsat")]))
    assert found == ["upward import: nochmal.sheet (rules core) imports nochmal.solver.cpsat (planner)"]


@pytest.mark.parametrize("checker, importer, imported", [
    (violations, "nochmal.missions.coop", "nochmal.solver.graph"),  # missions below the planner
    (violations, "nochmal.bots.hints", "nochmal.missions.objectives"),
    (violations, "nochmal.solver.team", "nochmal.cli.common"),
    (sideways_imports, "nochmal.table.stepper", "nochmal.cli.common"),
    (sideways_imports, "nochmal.terminal.session", "nochmal.web.games"),
])
def test_checker_flags_a_wrong_import(checker, importer: str, imported: str):
    assert checker(_fake([(importer, imported)]))


@pytest.mark.parametrize("checker, edges", [
    (violations, [("nochmal.cli.common", "nochmal.solver.team"), ("nochmal.solver.team", "nochmal.missions.coop"),
                  ("nochmal.missions.coop", "nochmal.bots.heuristic"), ("nochmal.table.session", "nochmal.game")]),
    (sideways_imports, [("nochmal.cli.play_cmds", "nochmal.terminal.session"),
                        ("nochmal.terminal.session", "nochmal.table.session"),
                        ("nochmal.web.games", "nochmal.table.session"), ("nochmal.web.games", "nochmal.web.errors")]),
])
def test_checker_passes_the_allowed_imports(checker, edges: list[tuple[str, str]]):
    assert not checker(_fake(edges))


def test_checker_flags_a_cycle_within_a_layer():
    found = violations(_fake([("nochmal.board", "nochmal.sheet"), ("nochmal.sheet", "nochmal.dice"),
                              ("nochmal.dice", "nochmal.board")]))
    assert len(found) == 1 and found[0].startswith("import cycle: ")
    assert {"nochmal.board", "nochmal.sheet", "nochmal.dice"} <= set(found[0][len("import cycle: "):].split(" -> "))


def test_checker_leaves_out_known_edges():
    g = _fake([("nochmal.agents", "nochmal.bots"), ("nochmal.bots", "nochmal.agents")])
    assert len(violations(g)) == 2  # the upward import and the cycle it closes
    assert violations(g, {("nochmal.agents", "nochmal.bots"): "core"}) == []


def test_reader_counts_lazy_and_relative_imports(tmp_path):
    _tree(tmp_path, {"nochmal/__init__.py": "", "nochmal/board.py": "from . import errors\n", "nochmal/errors.py": "",
                     "nochmal/sheet.py": "import nochmal.board\n\ndef f():\n    from nochmal.solver import graph\n"
                                         "    return graph\n",
                     "solver/__init__.py": "", "solver/graph.py": "from nochmal.sheet import f\n"})
    g = import_graph(tmp_path)
    assert set(g.edges) == {("nochmal.board", "nochmal.errors"), ("nochmal.sheet", "nochmal.board"),
                            ("nochmal.sheet", "nochmal.solver.graph"), ("nochmal.solver.graph", "nochmal.sheet")}
    found = violations(g)
    assert any(v.startswith("upward import: nochmal.sheet") for v in found)
    assert any(v.startswith("import cycle:") for v in found)


@pytest.mark.parametrize("module, layer", [
    ("nochmal", CORE), ("nochmal.agents", CORE), ("nochmal.clever.game", CORE), ("nochmal.bots", BOTS), ("nochmal.bots.hints", BOTS),
    ("nochmal.missions.coop", MISSIONS), ("nochmal.missions.measures.steiner", MISSIONS),
    ("nochmal.solver", PLANNER), ("nochmal.cli.common", FRONT), ("nochmal.web.app", FRONT),
    ("nochmal.web.rooms.store", FRONT), ("nochmal.table", FRONT), ("nochmal.table.stepper", FRONT),
    ("nochmal.terminal.replay", FRONT), ("nochmal.batch.runner", FRONT),
])
def test_layer_of(module, layer):
    assert layer_of(module) == layer


def test_checker_flags_a_sideways_import():
    assert sideways_imports(_fake([("nochmal.web.games", "nochmal.terminal.session")])) == [
        "sideways import: nochmal.web.games imports nochmal.terminal.session"]
