"""Benchmark families and the registry through which every surface reaches them.

A *family* is one benchmark's way into the oracle (Corr2Cause, Corr2Cause++, CI-Bench,
the intervention-effect questions, CLEAR, …).  It is one object with one typed
interface (``Family``):

* ``detect(text)`` — does this text look like one of its questions;
* ``row(raw)`` — is this dataset row one of its items, and what is its gold (``Item``);
* ``file_row(raw, file_name)`` — the row completed from the name of the file it was read
  from, when that name says what the rows leave out (optional: a family whose files are
  named after their task; the readers offer every row read from a file);
* ``parse(text, options)`` — text → formal objects, through its grammar in ``parser/``;
* ``solve(question)`` — the answer, by its solvers (which never see text);
* ``check(question, solution)`` — the independent checker's verdict on that answer
  (``CertificateRejected`` when it disagrees: a bug, never an answer);
* ``render`` / ``explain`` — the answer as data and as a model would write it, and why;
* ``dot`` / ``derivation`` — the graph in DOT and the explanation as data (optional:
  None where the family has none; ``explain --dot`` / ``--json`` show them);
* ``read_reply(question, text)`` / ``judge(...)`` — read a model's reply, grade it;
* ``reasoning_facts(question, solution)`` — what the claims of a model's reasoning are
  checked against (``oracle.reasoning``; None: the family does not support it);
* ``judge_gold(...)`` — compare a dataset row's gold with the certified answer;
* ``benchmark_rule(item, reply)`` — the benchmark's own scoring of a reply (optional:
  None where the family has none; ``grade FILE`` shows it beside the certified grade);
* ``audit_fields`` / ``facets`` / ``facet_values`` / ``outcome_words`` /
  ``audit_drawing`` — what its audit records hold (``entry.audit_record``): the fields
  of an audited row, the facets a report breaks it down by, the words its legend uses
  for each outcome, and the drawing of a finding in its own form;
* ``generators`` — the procedural item generators it offers (``Generator``: the
  certified datasets of ``environments`` find theirs by name, ``Registry.generator``);
* ``resources`` / ``load_resource`` — the files it reads beside its rows (CLadder's
  model file): each ``Resource`` is offered by the CLI as ``--<option>``, and the path
  given is handed to the family that declared it (``Registry.load_resource``), so no
  surface names a family to load its data.

The ``Registry`` maps names and task names to families and picks the family of a
text (the first registered one whose ``detect`` accepts it) or of a row.  Surfaces
never call a family themselves: the service (``entry.service``) does, under its
limits, budget and caches, so a family that registers is answerable by the library,
the CLI, ``audit``, ``eval``, the harness plug-ins and the gRPC ``Answer`` call alike.

    >>> from causal_oracle.entry import REGISTRY
    >>> [f.name for f in REGISTRY]
    ['calm', 'corr2cause++', 'cladder', 'corr2cause', 'clear', 'ie', 'cibench']
    >>> REGISTRY.get("ba").name, REGISTRY.get("CLEAR").name
    ('cibench', 'clear')
    >>> REGISTRY.select("Premise: …\\nHypothesis: A directly causes B.").name
    'corr2cause'

Adding a family: write its grammar and parser (``parser/<family>.lark``,
``parser/<family>.py``), its model, solver and checker (``oracle/``), a ``Family``
subclass in ``entry/families/<family>.py``, and add it to the tuple in
``entry/families/__init__.py`` — or call ``register(MyFamily())`` from a module of
your own: worker processes (the server's pool, ``audit --workers``) import the
module a family was defined in, so it is registered there too.
"""

from __future__ import annotations

import importlib
import sys
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar, Generic, Protocol, TypeVar

from causal_oracle.entry.audit_quick import QuickAudit
from causal_oracle.entry.audit_record import (
    ALWAYS,
    OUTCOME_WORDS,
    Drawing,
    Facet,
    Outcome,
)
from causal_oracle.entry.family_records import (
    Generator,
    GoldJudgement,
    Item,
    Judgement,
    Options,
    Rendered,
    Resource,
)
from causal_oracle.entry.limits import Limits
from causal_oracle.oracle.errors import InputError
from causal_oracle.oracle.reasoning.model import Facts
from causal_oracle.oracle.relations import Profile

Q = TypeVar("Q")  # a family's question (formal objects)
S = TypeVar("S")  # a family's solution (answer + certificate)


class FamilyMemory(Protocol):
    """What a family keeps in a service beyond the service's own caches
    (``Family.memory``): emptied by ``clear``."""

    def clear(self) -> None: ...


class Family(ABC, Generic[Q, S]):
    """One benchmark family (see the module docstring).

    ``name`` is unique; ``tasks`` are the task names a caller may give (``--task``,
    the gRPC ``task`` field, a row's ``task`` column), compared case-insensitively;
    ``binary`` families are answered yes/no (``eval`` may score them by logits);
    ``instruction`` is what harnesses append to the question.
    """

    name: ClassVar[str]
    tasks: ClassVar[tuple[str, ...]]
    binary: ClassVar[bool] = False
    #: what a harness appends to the question to ask for an answer ("" : nothing)
    instruction: ClassVar[str] = ""
    #: profiles whose reading another family implements (e.g. ``compelled`` → the
    #: Corr2Cause++ family): a question asked under that profile goes there
    profile_families: ClassVar[dict[Profile, str]] = {}

    #: the files it reads beside its rows, offered by surfaces (``load_resource``)
    resources: ClassVar[tuple[Resource, ...]] = ()

    def load_resource(self, option: str, path: str | Path) -> int:
        """Read the resource declared as ``option`` (one of ``resources``) from
        ``path``; returns how many entries it holds, ``InputError`` saying why it cannot
        be read.  Default: a family that declares no resources reads none."""
        raise InputError(f"the {self.name} family reads no --{option}")

    @abstractmethod
    def detect(self, text: str) -> bool:
        """Whether ``text`` reads as one of this family's questions (cheap: no parsing)."""

    @abstractmethod
    def parse(self, text: str, options: Options) -> Q:
        """The question in ``text``; ``ParseError``/``InputError`` saying where and why."""

    @abstractmethod
    def solve(self, question: Q) -> S:
        """Derive the answer with its certificate."""

    @abstractmethod
    def check(self, question: Q, solution: S) -> S:
        """Re-verify ``solution`` with the independent checker; return it as checked,
        or raise ``CertificateRejected``."""

    @abstractmethod
    def render(self, question: Q, solution: S) -> Rendered:
        """The answer as data and as text."""

    @abstractmethod
    def explain(self, question: Q, solution: S) -> str:
        """Why the answer is right, in words."""

    @abstractmethod
    def read_reply(self, question: Q, text: str) -> Any:
        """A model's reply as a claim; ``InputError`` (where and why) when unreadable."""

    @abstractmethod
    def judge(self, question: Q, solution: S, claim: Any) -> Judgement:
        """Grade a claim against the certified answer."""

    def dot(self, question: Q, solution: S) -> str | None:
        """The question's graph in Graphviz DOT with what decides the answer marked, or
        None (the default) for a family whose questions have no graph to draw."""
        return None

    def derivation(self, question: Q, solution: S) -> Any:
        """The explanation as data (JSON-ready: what ``explain --json`` adds under
        ``derivation``), or None (the default) when the family explains in words only."""
        return None

    def reasoning_facts(self, question: Q, solution: S) -> Facts | None:
        """What a reasoning text about ``question`` is checked against (the graph or
        class, the numbers, the right yes/no; ``oracle.reasoning``), or None (the
        default): the family does not support reasoning checks."""
        return None

    def task_of(self, question: Q) -> str:
        """The task name of a parsed question (families with one task: ``tasks[0]``)."""
        return self.tasks[0]

    def row(self, raw: Mapping[str, Any]) -> Item | None:
        """The ``Item`` of a dataset row of this family, None for any other row; a row
        that is this family's but unusable raises ``InputError`` saying why."""
        return None

    def file_row(self, raw: Mapping[str, Any], file_name: str) -> Mapping[str, Any] | None:
        """``raw`` completed from ``file_name`` (the base name of the file it was read
        from) when the name says what the row leaves out and this family reads it (a
        benchmark whose files are named after the task of the records they hold); None
        (the default) when the name says nothing to this family.  Cheap: it is offered
        every row of every file read, before ``row``."""
        return None

    def generators(self) -> tuple[Generator, ...]:
        """The procedural item generators it offers (``Registry.generator`` finds one by
        its ``dataset`` name for ``environments``), loaded on first use; default: none."""
        return ()

    def template_row(self, raw: Mapping[str, Any]) -> Mapping[str, Any] | None:
        """``raw``, a row of a delimited text file, as this family's dataset row when its
        columns are the family's template layout (a benchmark shipped as template files,
        e.g. IE's ``dag|prompt|question|label``); None (the default) for any other row.
        Cheap: it is offered every row of every delimited file read, before ``file_row``."""
        return None

    def benchmark_rule(self, item: Item, reply: str) -> bool | None:
        """Whether the benchmark's *own* scorer counts ``reply`` right for ``item`` (its
        answer extraction and comparison with the row's gold, e.g. the rules OpenCompass
        runs for CaLM): a second grade shown beside the certified one.  None (the
        default): the family has no such rule, or the row lacks what it needs."""
        return None

    def judge_gold(self, question: Q, solution: S, item: Item) -> GoldJudgement:
        """Compare ``item.gold`` with the certified answer (default: read the gold as a
        reply and judge it)."""
        derived = self.render(question, solution).text
        try:
            claim = self.read_reply(question, str(item.gold))
        except InputError as error:
            return GoldJudgement(None, item.gold, derived, reason=error.describe())
        verdict = self.judge(question, solution, claim)
        return GoldJudgement(verdict.correct, item.gold, derived, reason=verdict.reason)

    # -- audit records (``entry.audit_record``)
    #: the facets its audit records carry; the default breaks a report down by task
    facets: ClassVar[tuple[Facet, ...]] = (Facet("task", "by_task"),)
    #: the outcomes its audits can give beyond agree, disagree, unreadable and internal
    #: error, each in its own words (the report's legend); a word given for one of those
    #: four replaces the default wording
    outcome_words: ClassVar[Mapping[Outcome, str]] = {}

    def legend(self) -> dict[Outcome, str]:
        """Every outcome its audits can give, in its words (``OUTCOME_WORDS`` where it
        has none), in ``Outcome`` order."""
        kinds = set(ALWAYS) | set(self.outcome_words)
        return {o: self.outcome_words.get(o, OUTCOME_WORDS[o]) for o in Outcome if o in kinds}

    def audit_fields(self, service: Any, item: Item, profile: Profile,
                     verifier: Any = None) -> dict[str, Any]:
        """The fields of the audit record of ``item`` (``entry.audit_record.record_of``
        reads them; never raises on bad input: ``error`` says why).  ``service`` is the
        ``entry.service.Service`` auditing it; ``verifier`` a remote service, for the
        families it can label.  Default: the service's generic task record."""
        return service.task_record(item, profile)  # type: ignore[no-any-return]

    def facet_values(self, fields: Mapping[str, Any]) -> dict[str, str]:
        """The value of each of its ``facets`` for an audited row (``fields``:
        ``audit_fields``'s, without an ``error``)."""
        return {"task": str(fields.get("task") or self.tasks[0])}

    def record_drawing(self, fields: Mapping[str, Any]) -> Drawing:
        """A finding drawn from its record's fields alone, without re-deriving it (what a
        report shows beyond the findings it re-derives; default: nothing)."""
        return Drawing()

    def audit_drawing(self, service: Any, item: Item, fields: Mapping[str, Any],
                      profile: Profile = Profile.CORR2CAUSE) -> Drawing:
        """A finding drawn in its own form for a report (default: the explanation of the
        certified answer, no picture); ``fields`` are the row's ``audit_fields``."""
        question, solution = service.solved(self, item.prompt, Options(item.task, profile))
        with service.scope():
            return Drawing(explanation=self.explain(question, solution))

    # -- what the service and the audit ask of a family, so that they name none
    # (issue 26, item 4: the Service is family-agnostic; every hook has a default here)
    #: whether a remote verifier (``audit --server``) labels its rows; every other
    #: family's rows are computed in-process (``clients.remote_audit``)
    served_remotely: ClassVar[bool] = False
    #: whether it answers the service's premise–hypothesis verbs (``Service.verify``,
    #: ``verify_input``, ``grade_result``): the first registered family that does
    #: (``Registry.pair_family``) holds them in its ``memory``
    labels_pairs: ClassVar[bool] = False
    #: the semantics profiles under which ``quick_audit`` may answer rows
    quick_profiles: ClassVar[frozenset[Profile]] = frozenset()

    def check_limits(self, question: Q, limits: Limits) -> None:
        """``BudgetExceeded`` when a parsed question is over ``limits`` beyond its text's
        size (the service checks that first); default: no further limit."""

    def memory(self, service: Any) -> FamilyMemory | None:
        """The family's own memory in ``service`` (its caches, tables and the verbs that
        use them), made once per service (``Service.memory_of``), bounded by
        ``service.limits.cache_items`` and emptied by ``Service.clear_caches``; default:
        None (the service's generic caches suffice)."""
        return None

    def quick_audit(self, service: Any, rows: Sequence[tuple[int, Any]],
                    columns: Mapping[str, str], profile: Profile) -> QuickAudit:
        """The rows it can audit faster than one by one, by position in ``rows``
        ((file line, row mapping or an error text) pairs; ``columns``: the dataset's
        column name for each role — ``premise``, ``hypothesis``, ``input``, ``label``,
        ``relation``, ``id``): agreeing rows counted in blocks, others as records, each
        the record ``Service.audit_record`` would give (``entry.audit_quick``); any row
        left out takes the full path.  Called only under one of its
        ``quick_profiles``.  Default: none."""
        return QuickAudit()


_FOUND_KEPT = 256


class Registry:
    """The registered families, in order: ``select`` tries them in this order."""

    def __init__(self) -> None:
        self._families: dict[str, Family[Any, Any]] = {}
        self._found: dict[str, Family[Any, Any]] = {}  # ``get``'s answers, as asked

    def register(self, family: Family[Any, Any], *, first: bool = False) -> None:
        """Add ``family`` (``first``: ahead of the others when detecting); a family of
        the same name is replaced."""
        if not getattr(family, "name", "") or not getattr(family, "tasks", ()):
            raise TypeError(f"{type(family).__name__} needs a name and at least one task")
        taken = {r.option for other in self if other.name != family.name
                 for r in other.resources}
        clash = sorted(r.option for r in family.resources if r.option in taken)
        if clash:
            raise TypeError(f"{family.name}: another family already reads --{clash[0]}")
        self._families.pop(family.name, None)
        self._found = {}
        if first:
            self._families = {family.name: family, **self._families}
        else:
            self._families[family.name] = family

    def unregister(self, name: str) -> None:
        self._families.pop(name, None)
        self._found = {}

    def __iter__(self) -> Iterator[Family[Any, Any]]:
        return iter(tuple(self._families.values()))

    def __contains__(self, name: str) -> bool:
        return name in self._families

    def names(self) -> tuple[str, ...]:
        return tuple(self._families)

    def tasks(self) -> tuple[str, ...]:
        """Every task name a caller may give, families' own names first."""
        out: list[str] = []
        for family in self:
            for task in (family.name, *family.tasks):
                if task not in out:
                    out.append(task)
        return tuple(out)

    def get(self, task: str) -> Family[Any, Any]:
        """The family of a family or task name (any case), also as ``task_of`` writes it
        ("CLEAR d-separation" names CLEAR's family); ``InputError`` otherwise.
        Answers are remembered by the name as given (a few hundred at most; every
        answer on a hot path asks), until a family is registered or removed."""
        found = self._found.get(task)
        if found is not None:
            return found
        words = task.strip().casefold().split(maxsplit=1)
        for wanted in (" ".join(words), *words[:1]):
            for family in self:
                if wanted == family.name.casefold() or any(
                        wanted == t.casefold() for t in family.tasks):
                    if len(self._found) < _FOUND_KEPT:
                        self._found[task] = family
                    return family
        raise InputError(f"unknown task {task!r}; expected one of {', '.join(self.tasks())}")

    def select(self, text: str, task: str | None = None) -> Family[Any, Any]:
        """The family that answers ``text``: the one ``task`` names, else the first whose
        ``detect`` accepts the text; ``InputError`` when none does."""
        if task:
            return self.get(task)
        for family in self:
            if family.detect(text):
                return family
        raise InputError("no benchmark recognises this text; give the task explicitly "
                         f"(one of {', '.join(self.tasks())})", context=text[:80])

    def row(self, raw: Mapping[str, Any]) -> Item | None:
        """The ``Item`` of a dataset row (the first family that claims it), or None."""
        for family in self:
            item = family.row(raw)
            if item is not None:
                return item
        return None

    def pair_family(self) -> Family[Any, Any]:
        """The first family that answers the premise–hypothesis verbs
        (``Family.labels_pairs``); ``InputError`` when none is registered."""
        for family in self:
            if family.labels_pairs:
                return family
        raise InputError("no registered family labels a hypothesis against a premise")

    def file_row(self, raw: Mapping[str, Any], file_name: str) -> Mapping[str, Any]:
        """``raw`` as read from a file named ``file_name``: completed by the first family
        whose ``file_row`` reads something in the name, else ``raw`` itself."""
        name = file_name.replace("\\", "/").rsplit("/", 1)[-1]
        for family in self:
            done = family.file_row(raw, name)
            if done is not None:
                return done
        return raw

    def file_namer(self, file_name: str
                   ) -> Callable[[Mapping[str, Any]], Mapping[str, Any]] | None:
        """``file_row`` for every row of one file, with the families that could read
        something in a name found once (those that override ``Family.file_row``): None
        when no registered family does (every row is then read as it is), else a
        function of the row that answers as ``file_row(raw, file_name)`` does."""
        name = file_name.replace("\\", "/").rsplit("/", 1)[-1]
        readers = tuple(family.file_row for family in self
                        if getattr(family.file_row, "__func__", None) is not Family.file_row)
        if not readers:
            return None

        def named(raw: Mapping[str, Any]) -> Mapping[str, Any]:
            for read in readers:
                done = read(raw, name)
                if done is not None:
                    return done
            return raw
        return named

    def template_row(self, raw: Mapping[str, Any]) -> Mapping[str, Any]:
        """``raw`` (a delimited file's row) as read by the first family whose
        ``template_row`` reads its layout, else ``raw`` itself."""
        for family in self:
            done = family.template_row(raw)
            if done is not None:
                return done
        return raw

    def resources(self) -> tuple[Resource, ...]:
        """Every registered family's resources, in registration order."""
        return tuple(r for family in self for r in family.resources)

    def load_resource(self, option: str, path: str | Path) -> int:
        """Hand ``path`` to the family that declares the resource ``option``; returns
        how many entries it read (``InputError`` when no family declares it)."""
        for family in self:
            if any(r.option == option for r in family.resources):
                return family.load_resource(option, path)
        known = ", ".join("--" + r.option for r in self.resources()) or "none"
        raise InputError(f"no registered family reads --{option} (resources: {known})")

    def generator(self, dataset: str) -> Generator:
        """The generator some registered family offers under the name ``dataset``;
        ``InputError`` naming the ones offered otherwise."""
        offered = [g for family in self for g in family.generators()]
        for generator in offered:
            if generator.dataset == dataset:
                return generator
        names = ", ".join(g.dataset for g in offered) or "none"
        raise InputError(f"no registered family generates {dataset!r} (offered: {names})")

    def modules(self) -> tuple[str, ...]:
        """The modules the families are defined in, for worker processes to import."""
        return tuple(dict.fromkeys(type(f).__module__ for f in self))


def import_modules(modules: tuple[str, ...], path: tuple[str, ...] = ()) -> None:
    """Import ``modules`` (e.g. ``Registry.modules()`` of a parent process) so that the
    families defined there register in this process; ``path`` entries are added to
    ``sys.path`` first."""
    for entry in path:
        if entry not in sys.path:
            sys.path.append(entry)
    for name in modules:
        if name not in sys.modules:
            importlib.import_module(name)


def profile_of(profile: str | Profile) -> Profile:
    """A semantics profile by name; ``InputError`` naming the choices for an unknown one."""
    if isinstance(profile, Profile):
        return profile
    try:
        return Profile(str(profile).strip().lower())
    except ValueError:
        names = ", ".join(p.value for p in Profile)
        raise InputError(f"unknown profile {profile!r}; expected one of {names}") from None


REGISTRY = Registry()
"""The process's families (``entry.families`` registers the built-in ones)."""


def register(family: Family[Any, Any], *, first: bool = False) -> Family[Any, Any]:
    """Register ``family`` with the process's registry and return it."""
    REGISTRY.register(family, first=first)
    return family


__all__ = ["REGISTRY", "Family", "FamilyMemory", "Generator", "GoldJudgement", "Item",
           "Judgement", "Options", "Registry", "Rendered", "Resource", "import_modules",
           "profile_of", "register"]
