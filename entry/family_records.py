"""The records a family and its callers exchange: the ``Options`` a text is read
with, a dataset row as its family reads it (``Item``), an answer rendered
(``Rendered``), a reply judged (``Judgement``), a row's gold judged
(``GoldJudgement``), a file a family reads beside its rows (``Resource``), a
procedural item generator it offers (``Generator``) and the reference dataset such a
generator may write whole (``Reference``).

They are plain frozen records with no behaviour beyond checking themselves; the
``Family`` interface (``entry.registry``) is written in their terms, and the registry
module re-exports them, so ``from causal_oracle.entry.registry import Item`` keeps
working.

    >>> item = Item("corr2cause", "corr2cause", "Premise: …", gold=1, binary=1)
    >>> item.binary, Options().task
    (1, None)
    >>> Resource("cladder-models", "FILE", "the model file").dest
    'cladder_models'
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from causal_oracle.oracle.relations import Profile


class Options(NamedTuple):
    """What a caller may say about how to read a text: the task (None: detect it) and the
    semantics profile (Corr2Cause families; others ignore it)."""

    task: str | None = None
    profile: Profile = Profile.CORR2CAUSE


@dataclass(frozen=True, slots=True)
class Item:
    """One dataset row as its family reads it.

    ``prompt`` is the text a model sees; ``gold`` the row's gold in the family's own
    form (what ``judge_gold`` compares); ``binary`` the gold as 1/0 for yes/no tasks
    (None when the row has none or the task is not yes/no); ``key`` a stable id.
    """

    family: str
    task: str
    prompt: str
    gold: Any = None
    binary: int | None = None
    key: str | None = None
    raw: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class Rendered:
    """An answer as data (JSON-ready) and as a model is expected to write it."""

    data: Any
    text: str


@dataclass(frozen=True, slots=True)
class Judgement:
    """A reply judged against the certified answer.

    ``correct`` None: no answer is right (e.g. an inconsistent Corr2Cause premise,
    ``gradable`` False) — an unreadable reply never reaches ``judge``.  ``expected``:
    the right answer in the form the reply took (None: the rendered answer).
    """

    correct: bool | None
    normalised: str
    reason: str
    gradable: bool = True
    expected: str | None = None


@dataclass(frozen=True, slots=True)
class GoldJudgement:
    """A row's gold compared with the certified answer (``agree`` None: no verdict)."""

    agree: bool | None
    gold: Any
    derived: Any
    ambiguous: bool = False
    reason: str | None = None


@dataclass(frozen=True)
class Resource:
    """A file a family reads beside its rows (e.g. CLadder's model file, whose
    backgrounds its question files' rows join by id).  Surfaces offer it as
    ``--<option> <metavar>`` with ``help``; ``option`` is lower-case words joined by
    hyphens, by convention after the family's name (``cladder-models``), and no two
    registered families declare the same one."""

    option: str
    metavar: str
    help: str

    def __post_init__(self) -> None:
        words = self.option.split("-")
        if not all(w.isascii() and w.isalnum() and w == w.lower() for w in words):
            raise TypeError(f"resource option {self.option!r}: lower-case words joined "
                            "by hyphens")

    @property
    def dest(self) -> str:
        """The option's attribute name in parsed arguments (``cladder-models`` →
        ``cladder_models``)."""
        return self.option.replace("-", "_")


@dataclass(frozen=True)
class Reference:
    """A reference dataset a generator writes whole, every item of it rather than one
    drawn at random (``causal-oracle generate``, which finds it through the registry:
    ``Generator.reference``).  Each verb takes the service that labels the items (an
    ``entry.oracle_protocol.SolvingOracle``) last:

    * ``options`` — its options dataclass (``options.n``: the number of variables, at
      most ``max_n``);
    * ``items(options, service)`` — every item, as a row of the generator layout;
    * ``signatures(path, service)`` — the classes of the premises in a written file;
    * ``compare(generated, upstream, service, theirs)`` — the classes of two files
      matched up to renaming (``theirs``: ``signatures(upstream)`` when already known);
    * ``keys(service)`` — a function giving an item's renaming-invariant key
      (``entry.freshness``) from its premise and hypothesis text."""

    options: type[Any]
    max_n: int
    items: Callable[[Any, Any], Iterator[dict[str, Any]]]
    signatures: Callable[[Path, Any], dict[str, Any]]
    compare: Callable[[Path, Path, Any, dict[str, Any] | None], dict[str, Any]]
    keys: Callable[[Any], Callable[[str, str], str]]


@dataclass(frozen=True)
class Generator:
    """A procedural item generator a family offers (``Family.generators``): the
    certified datasets (``environments``) find it by ``dataset``, the name they register
    (``Registry.generator``), so no surface imports or names a family.

    ``knobs`` is its knobs dataclass (a dataset's configuration extends it; its fields'
    defaults are every choice); ``draw(knobs, rng, service)`` is one item, deterministic
    in the state of ``rng``, answered by ``service`` (an ``entry.service.Service``: the
    generator hands its text to the oracle like any caller); ``probe(knobs, service)``
    raises ``InputError`` naming the knobs when no item meeting them can be drawn;
    ``reference``, when the family has one, the reference dataset it writes whole."""

    dataset: str
    knobs: type[Any]
    draw: Callable[[Any, random.Random, Any], dict[str, Any]]
    probe: Callable[[Any, Any], None]
    reference: Reference | None = None


__all__ = ["Generator", "GoldJudgement", "Item", "Judgement", "Options", "Reference",
           "Rendered", "Resource"]
