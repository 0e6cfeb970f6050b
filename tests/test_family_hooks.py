"""The Service is family-agnostic: what it and the audit ask of a family goes through hooks
declared on ``entry.registry.Family``, each with a default there.

* a family that declares none of them (the toy family) gets the defaults: no memory of its
  own, no quick path, not served remotely, no premise–hypothesis verbs, no limit beyond
  its text's size;
* Corr2Cause declares them: its memory holds its caches (emptied by ``clear_caches``), its
  verbs are the service's ``verify``, and its quick path gives the records the full path
  gives;
* ``entry/service.py`` imports no family module.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import load_rows

from causal_oracle.clients.row_audit import DEFAULT_COLUMNS, audit_row, roles_of
from causal_oracle.entry import REGISTRY, InputError, Limits, Options, Profile, Service
from causal_oracle.entry.audit_quick import QuickAudit
from causal_oracle.entry.registry import Family

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def toy() -> Iterator[Family[Any, Any]]:
    import toy_family

    REGISTRY.register(toy_family.FAMILY)
    yield toy_family.FAMILY
    REGISTRY.unregister(toy_family.FAMILY.name)


def test_a_family_that_declares_no_hook_gets_the_defaults(toy: Family[Any, Any]) -> None:
    service = Service(Limits(budget_s=10.0))
    assert not toy.served_remotely and not toy.labels_pairs and not toy.quick_profiles
    assert toy.memory(service) is None
    with pytest.raises(InputError, match="keeps no memory"):
        service.memory_of(toy)
    question = toy.parse("Toy: is 3 + 4 even?", Options())
    assert toy.check_limits(question, Limits(variables=1, statements=1)) is None
    rows = [(1, {"task": "toy", "prompt": "Toy: is 3 + 4 even?", "label": "no"})]
    assert toy.quick_audit(service, rows, roles_of(DEFAULT_COLUMNS), Profile.CORR2CAUSE) == \
        QuickAudit()
    assert REGISTRY.pair_family() is not toy


def test_corr2cause_keeps_its_caches_in_its_memory_in_the_service() -> None:
    service = Service(Limits(budget_s=10.0))
    family = REGISTRY.pair_family()
    assert family.labels_pairs and family.served_remotely
    rows = load_rows("n3")[:20]
    for row in rows:
        assert service.verify(row["premise"], row["hypothesis"]).relation == \
            service.pairs().verify(row["premise"], row["hypothesis"]).relation
    memory = service.memory_of(family)
    assert memory is service.pairs()
    assert len(memory.caches.checked) > 0 and len(memory.caches.premises) > 0
    service.clear_caches()
    assert len(memory.caches.checked) == 0 and len(memory.caches.premises) == 0
    assert Service().memory_of(family) is not memory  # one per service


@pytest.mark.parametrize("profile", [Profile.CORR2CAUSE, Profile.STRICT])
def test_the_quick_path_gives_the_full_paths_records(profile: Profile) -> None:
    rows = list(enumerate(load_rows("n4")[:270], 1))
    service = Service(Limits(budget_s=None))
    answer = service.quick_audit(rows, roles_of(DEFAULT_COLUMNS), profile)
    assert answer.agreeing and all(len(block) for block in answer.agreeing)
    quick = answer.all_records()
    assert len(quick) > 200  # every premise's rows but its first, and the disagreements
    full = Service(Limits(budget_s=None))
    for position, record in quick.items():
        index, row = rows[position]
        expected = audit_row(index, row, DEFAULT_COLUMNS, profile.value, service=full)
        assert record == expected, (index, record, expected)
    assert service.quick_audit(rows, roles_of(DEFAULT_COLUMNS), Profile.COMPELLED) == \
        QuickAudit()


def test_the_service_module_imports_no_family() -> None:
    tree = ast.parse((ROOT / "entry" / "service.py").read_text(encoding="utf-8"))
    imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    imported |= {a.name for node in ast.walk(tree) if isinstance(node, ast.Import)
                 for a in node.names}
    families = {m for m in imported if m and m.startswith("causal_oracle.entry.families.")}
    assert not families, families
