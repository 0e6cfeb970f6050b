"""The layout's rules, read off the import graph of every module (lazy imports included).

Data flows one way — text → ``parser`` → formal objects (``oracle``) → ``entry`` →
solvers and checkers → CLI / server / library / plug-ins — so:

* no cycle between the top-level units (packages and top-level modules);
* ``oracle/`` (the domain: models, solvers, checkers) imports nothing from ``parser/``,
  ``entry/`` or ``clients/``: solvers never see text;
* ``clients/``, ``server.py``, ``serve_options.py``, ``api.py``, ``proto/``, the
  plug-ins, ``rewards/`` and ``environments/`` import no ``oracle/`` or ``parser/``
  module: they reach benchmarks only through the entry layer;
* no import circle between files, lazy and ``TYPE_CHECKING`` imports included (a lazy
  import only hides a circle: the two files still cannot be understood apart);
* no module is over ``MAX_LINES`` lines (generated ``*_pb2*.py`` aside): a module holds
  one concept, split by concept, not by line count;
* a family lives in one place: its checker sits in its ``oracle/<family>/`` folder and
  takes nothing of its family but the formal objects (``model``), and no surface
  imports a family's module (``entry/families/``): surfaces reach families through the
  registry and the hooks a family declares (``Family.resources`` for its files);
* nothing above the family layer (the surfaces, the facade, ``entry/*.py``) names a
  family in a string literal: a family is found through the registry and its declared
  hooks (``Family.labels_pairs``, ``served_remotely``, ``quick_audit`` …).  A profile
  name that is also a family's name (``corr2cause``) may appear where it is a profile.
"""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx
import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "causal_oracle"
SURFACES = ("clients", "server", "server_batch", "server_pool", "server_config",
            "serve_options", "api", "proto", "plugins", "rewards", "environments")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join([PACKAGE, *parts])


def _modules() -> dict[str, Path]:
    out = {}
    for path in ROOT.rglob("*.py"):
        rel = path.relative_to(ROOT)
        if rel.parts[0] in ("tests", "bench", "examples", "scripts", "build") or \
                rel.parts[0].startswith(".") or "_pb2" in path.name:
            continue
        out[_module_name(path)] = path
    return out


def _imports(name: str, path: Path, known: set[str]) -> set[str]:
    """The project modules ``name`` imports (``from causal_oracle import x`` names the
    submodule ``x`` when there is one)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names if a.name.startswith(PACKAGE)}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")
                parent = parent[:len(parent) - node.level + 1]
                base = ".".join([*parent, base] if base else parent)
            if not base.startswith(PACKAGE):
                continue
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                out.add(sub if sub in known else base)
    return out


def _unit(module: str) -> str:
    """The top-level unit of a module: ``causal_oracle.oracle.dsep`` → ``oracle``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "(root)"


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    modules = _modules()
    known = set(modules)
    return {name: _imports(name, path, known) for name, path in modules.items()}


def test_the_walk_sees_the_layout(graph: dict[str, set[str]]) -> None:
    units = {_unit(m) for m in graph}
    assert {"oracle", "parser", "entry", "clients", "proto", "server", "api"} <= units
    assert "causal_oracle.entry.service" in graph["causal_oracle.clients.audit"] | \
        {m for i in graph["causal_oracle.clients.audit"] for m in graph.get(i, ())}


def test_no_cycle_between_top_level_units(graph: dict[str, set[str]]) -> None:
    units = nx.DiGraph()
    for module, imported in graph.items():
        if _unit(module) == "(root)":
            continue  # the public facade re-exports the API; nothing inside imports it
        for other in imported:
            if _unit(other) not in ("(root)", _unit(module)):
                units.add_edge(_unit(module), _unit(other))
    assert not list(nx.simple_cycles(units)), sorted(units.edges)


def test_nothing_inside_imports_the_facade(graph: dict[str, set[str]]) -> None:
    offenders = {m for m, imported in graph.items() if PACKAGE in imported
                 and _unit(m) != "(root)"}
    assert not offenders


def test_solvers_never_see_text_or_surfaces(graph: dict[str, set[str]]) -> None:
    bad = {(m, i) for m, imported in graph.items() if _unit(m) == "oracle"
           for i in imported if _unit(i) in ("parser", "entry", "clients", *SURFACES)}
    assert not bad, sorted(bad)


def test_surfaces_reach_benchmarks_only_through_the_entry_layer(
        graph: dict[str, set[str]]) -> None:
    bad = {(m, i) for m, imported in graph.items() if _unit(m) in SURFACES
           for i in imported if _unit(i) in ("oracle", "parser")}
    assert not bad, sorted(bad)


# --- a family lives in one place ------------------------------------------------------

ORACLE = ROOT / "oracle"
# what a family's checker may take from its own package: the formal objects it checks
CHECKER_MAY_USE = {"model"}


def _family_packages() -> list[Path]:
    return sorted(p.parent for p in ORACLE.glob("*/__init__.py"))


def test_each_checker_lives_in_its_familys_folder() -> None:
    families = {p.name for p in _family_packages()}
    assert {"cladder", "clear", "tasks"} <= families
    stray = sorted(p.name for p in ORACLE.glob("check_*.py")
                   if p.stem.removeprefix("check_") in families)
    assert not stray, f"checkers outside their family's folder: {stray}"
    for family in ("cladder", "clear", "tasks"):
        assert (ORACLE / family / "check.py").is_file() or \
            (ORACLE / family / "check" / "__init__.py").is_file(), family


def test_a_familys_checker_shares_no_code_with_its_solvers(graph: dict[str, set[str]]) -> None:
    """The checker of ``oracle/<family>/`` (a module or a package) takes only the formal
    objects (``model``) from its family, and no solver module of the family imports it."""
    for folder in _family_packages():
        package = f"{PACKAGE}.oracle.{folder.name}"
        checker = f"{package}.check"
        if checker not in graph:
            continue

        def is_checker(module: str, checker: str = checker) -> bool:
            return module == checker or module.startswith(checker + ".")

        for part in filter(is_checker, graph):
            own = {m.removeprefix(package + ".") for m in graph[part]
                   if m.startswith(package + ".") and not is_checker(m)}
            assert own <= CHECKER_MAY_USE, (part, sorted(own - CHECKER_MAY_USE))
        users = sorted(m for m, imported in graph.items() if m.startswith(package + ".")
                       and not is_checker(m) and any(map(is_checker, imported)))
        assert not users, (checker, users)


# --- files, not only units ------------------------------------------------------------

MAX_LINES = 500
#: folders whose files are not modules of the package (their own rules apply)
NOT_MODULES = ("tests", "bench", "scripts", "build")
#: import circles known and owned elsewhere, each with the change that resolves it (none)
KNOWN_CIRCLES: set[frozenset[str]] = set()


def test_no_import_circle_between_files(graph: dict[str, set[str]]) -> None:
    files = nx.DiGraph()
    files.add_nodes_from(graph)
    files.add_edges_from((m, i) for m, imported in graph.items() for i in imported
                         if i in graph and i != m)
    circles = {frozenset(c) for c in nx.strongly_connected_components(files) if len(c) > 1}
    new = circles - KNOWN_CIRCLES
    shown = [sorted(c) for c in new]
    assert not new, f"import circles between files (lazy imports included): {shown}"
    gone = [sorted(c) for c in KNOWN_CIRCLES - circles]
    assert not gone, f"these allowed circles are gone: remove them from KNOWN_CIRCLES: {gone}"


def test_an_import_circle_is_found_through_a_lazy_import(tmp_path: Path) -> None:
    """The walk sees an import inside a function and under ``TYPE_CHECKING``."""
    a = tmp_path / "a.py"
    b = tmp_path / "b.py"
    a.write_text("def f():\n    from causal_oracle.b import g\n", encoding="utf-8")
    b.write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                 "    import causal_oracle.a\n", encoding="utf-8")
    known = {f"{PACKAGE}.a", f"{PACKAGE}.b"}
    assert _imports(f"{PACKAGE}.a", a, known) == {f"{PACKAGE}.b"}
    assert _imports(f"{PACKAGE}.b", b, known) == {f"{PACKAGE}.a"}


def _source_files() -> list[Path]:
    out = []
    for path in ROOT.rglob("*.py"):
        rel = path.relative_to(ROOT)
        if rel.parts[0] in NOT_MODULES or rel.parts[0].startswith(".") or "_pb2" in path.name:
            continue
        out.append(path)
    return out


def test_no_module_is_over_the_line_limit() -> None:
    files = _source_files()
    assert len(files) > 100, "the walk found too few modules"
    long = {str(p.relative_to(ROOT)): n for p in files
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert not long, f"modules over {MAX_LINES} lines (split them by concept): {long}"


#: surface → family imports known and owned elsewhere, each with the change that ends it
KNOWN_FAMILY_IMPORTS: set[tuple[str, str]] = set()


def test_no_surface_imports_a_family(graph: dict[str, set[str]]) -> None:
    families = f"{PACKAGE}.entry.families"
    found = {(m, i) for m, imported in graph.items() if _unit(m) in SURFACES
             for i in imported if i == families or i.startswith(families + ".")}
    assert not found - KNOWN_FAMILY_IMPORTS, sorted(found - KNOWN_FAMILY_IMPORTS)
    gone = KNOWN_FAMILY_IMPORTS - found
    assert not gone, f"these allowed imports are gone: remove them from the list: {gone}"


#: entry-layer modules (``entry/*.py``) that import a family's module, each with why
KNOWN_ENTRY_FAMILY_IMPORTS = {
    # the library API re-exports the pair family's result types (``co.FastVerdict``, …)
    (f"{PACKAGE}.entry", f"{PACKAGE}.entry.families.corr2cause_bulk"),
    (f"{PACKAGE}.entry", f"{PACKAGE}.entry.families.corr2cause_result"),
    # the service registers the built-in families (``entry.families.BUILT_IN``)
    (f"{PACKAGE}.entry.service", f"{PACKAGE}.entry.families"),
}


def test_the_entry_layer_imports_no_family(graph: dict[str, set[str]]) -> None:
    """Above the family layer, ``entry/*.py`` reaches families through the registry and
    their declared hooks (``Family.generators`` for the item generators) too."""
    families = f"{PACKAGE}.entry.families"
    found = {(m, i) for m, imported in graph.items()
             if m == f"{PACKAGE}.entry" or (m.startswith(f"{PACKAGE}.entry.")
                                            and not m.startswith(families))
             for i in imported if i == families or i.startswith(families + ".")}
    assert found == KNOWN_ENTRY_FAMILY_IMPORTS, sorted(found ^ KNOWN_ENTRY_FAMILY_IMPORTS)


# --- no family named above the family layer -------------------------------------------

#: (module, literal) pairs known and owned elsewhere, each with the change that ends it
KNOWN_FAMILY_LITERALS: set[tuple[str, str]] = set()


def _above_the_family_layer() -> list[Path]:
    out = []
    for path in _source_files():
        rel = path.relative_to(ROOT)
        if rel.parts[0] in SURFACES or path.stem in SURFACES or len(rel.parts) == 1 or \
                (rel.parts[0] == "entry" and len(rel.parts) == 2):
            out.append(path)
    return out


def _parents(tree: ast.AST) -> dict[ast.AST, ast.AST]:
    return {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}


def _is_profile(node: ast.Constant, parents: dict[ast.AST, ast.AST]) -> bool:
    """Whether the literal stands where a profile goes: a parameter, field or keyword
    named ``profile`` (or its default), ``--profile``'s default, ``.get("profile", …)``,
    or a comparison with something named profile."""
    parent = parents.get(node)
    if isinstance(parent, ast.arguments):
        args = [*parent.posonlyargs, *parent.args]
        named = dict(zip([a.arg for a in args[len(args) - len(parent.defaults):]],
                         parent.defaults, strict=True))
        named |= {a.arg: d for a, d in zip(parent.kwonlyargs, parent.kw_defaults,
                                           strict=True) if d is not None}
        return any(d is node and "profile" in name for name, d in named.items())
    if isinstance(parent, ast.AnnAssign | ast.Assign):
        targets = [parent.target] if isinstance(parent, ast.AnnAssign) else parent.targets
        return any("profile" in ast.unparse(t).lower() for t in targets)
    if isinstance(parent, ast.keyword):
        call = parents.get(parent)
        flags = [a.value for a in getattr(call, "args", ()) if isinstance(a, ast.Constant)]
        return parent.arg == "profile" or (parent.arg == "default" and "--profile" in flags)
    if isinstance(parent, ast.Call):
        return any(isinstance(a, ast.Constant) and a.value == "profile" for a in parent.args)
    if isinstance(parent, ast.Compare):
        return "profile" in ast.unparse(parent).lower()
    return False


def family_literals(path: Path, names: set[str], profiles: set[str]
                    ) -> list[tuple[int, str]]:
    """(line, literal) of each string literal in ``path`` that is a family's name (any
    case), but a profile name standing where a profile goes."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    parents = _parents(tree)
    return [(node.lineno, node.value) for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str)
            and node.value.casefold() in names
            and not (node.value in profiles and _is_profile(node, parents))]


def test_no_family_is_named_above_the_family_layer() -> None:
    from causal_oracle.entry import REGISTRY, Profile

    names = {name.casefold() for name in REGISTRY.names()}
    profiles = {p.value for p in Profile}
    files = _above_the_family_layer()
    assert any(p.name == "api.py" for p in files) and \
        any(p.parts[-2:] == ("entry", "service.py") for p in files)
    found = {(str(p.relative_to(ROOT)), literal, line) for p in files
             for line, literal in family_literals(p, names, profiles)}
    new = sorted(f for f in found if f[:2] not in KNOWN_FAMILY_LITERALS)
    assert not new, f"family names as literals above the family layer (use the registry): {new}"
    gone = KNOWN_FAMILY_LITERALS - {f[:2] for f in found}
    assert not gone, f"these allowed literals are gone: remove them from the list: {gone}"


def test_a_family_literal_is_found_but_not_a_profile(tmp_path: Path) -> None:
    source = tmp_path / "m.py"
    source.write_text('def f(profile="corr2cause"):\n'
                      '    return item.family == "corr2cause" or profile != "corr2cause"\n',
                      encoding="utf-8")
    assert family_literals(source, {"corr2cause"}, {"corr2cause"}) == [(2, "corr2cause")]


def test_the_item_verbs_depend_on_the_entry_layer_only(graph: dict[str, set[str]]) -> None:
    """``api`` (the item verbs) needs the entry layer only: the file verbs sit with their
    engine in ``clients`` (``clients.library_files``), and the facade exports both."""
    api = f"{PACKAGE}.api"
    assert {_unit(m) for m in graph[api]} <= {"entry"}, sorted(graph[api])
