"""The service owns every cache: what solvers, checkers and parsers remember lives in its
``Memory`` (``oracle.memo``), bounded by ``Limits.cache_items`` and emptied by one call."""

from __future__ import annotations

import ast
from pathlib import Path

from conftest import load_rows

from causal_oracle.entry import Limits, Service
from causal_oracle.oracle import memo
from causal_oracle.oracle.equivalence import analyse
from causal_oracle.parser import parse_premise

ROOT = Path(__file__).resolve().parent.parent
#: caches of constants, not of anything read from input: compiled grammars, the finite
#: table of readings per (relation, form), the tests' all-DAGs reference tables, and the
#: shipped CLadder vocabulary and its per-story phrase tables
CONSTANT_CACHES = {("parser/grammar.py", "load_grammar"),
                   ("entry/families/corr2cause_bulk.py", "_readings"),
                   ("oracle/bruteforce.py", "all_dags"), ("oracle/bruteforce.py", "_signatures"),
                   ("parser/cladder_slots.py", "grammar"),
                   ("parser/cladder_vocabulary.py", "_phrase_table"),
                   ("parser/cladder_vocabulary.py", "vocabulary"),
                   # the claim grammar, its LALR automaton and CaLM's grammars and fixed
                   # answer openings: built once from the shipped files
                   ("parser/claims.py", "_parser"), ("parser/claims.py", "_automaton"),
                   ("parser/calm_effects.py", "_parser"),
                   ("parser/calm_rules.py", "_yes_no_openings"),
                   # the Chinese claim grammar, its automaton and word lengths; CaLM's
                   # Chinese CLadder grammar: built once from the shipped files
                   ("parser/claims_zh.py", "_parser"), ("parser/claims_zh.py", "_automaton"),
                   ("parser/claims_zh.py", "_lengths"),
                   ("parser/calm_cladder_zh_grammar.py", "grammar"),
                   # a yes/no grammar's opening pattern, keyed by the shipped grammar's
                   # parser (a handful of constants), never by input
                   ("parser/task_answers.py", "_opening")}


def test_no_module_keeps_results_of_its_own() -> None:
    found = set()
    for folder in ("oracle", "parser", "entry"):
        for path in (ROOT / folder).rglob("*.py"):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                if isinstance(node, ast.FunctionDef):
                    for d in node.decorator_list:
                        name = ast.unparse(d)
                        if "lru_cache" in name or name in ("cache", "functools.cache"):
                            found.add((str(path.relative_to(ROOT)), node.name))
    assert found <= CONSTANT_CACHES, found - CONSTANT_CACHES


def test_the_service_memory_fills_bounds_and_clears() -> None:
    rows = load_rows("n4")[:180]
    service = Service(Limits(cache_items=8))
    for row in rows:
        service.verify(row["premise"], row["hypothesis"])
    memory = service.caches.memory
    assert len(memory) > 0
    assert all(len(memory.map(name)) <= 8 * 8 for name in memory._maps)
    service.clear_caches()
    assert len(memory) == 0 and len(service.pairs().caches.checked) == 0  # type: ignore[attr-defined]


def test_outside_a_service_nothing_is_remembered() -> None:
    premise = parse_premise(load_rows("n3")[0]["premise"])
    assert memo.current() is None
    assert analyse(premise) is not analyse(premise)  # computed twice: no hidden cache
    memory = memo.Memory(16)
    with memo.using(memory):
        assert analyse(premise) is analyse(premise)
    assert len(memory) > 0


def test_two_services_do_not_share_memory() -> None:
    row = load_rows("n3")[0]
    one, two = Service(), Service()
    one.verify(row["premise"], row["hypothesis"])
    assert len(one.caches.memory) > 0 and len(two.caches.memory) == 0
