"""The CaLM family: the causal-evaluation suite shipped in OpenCompass (Chen et al. 2024).

CaLM's formally generated tasks are answered by *parts* (``entry.families.calm_part``):
each owns a group of task ids and is listed once in ``PARTS``; every ``Family`` method is
dispatched to the part that owns the question's task (the question is a
``CalmQuestion``: task id, language, prompt style, the part's formal question).

* ``detect(text)``: a rendered CaLM prompt that some part recognises;
* ``file_row(raw, file_name)``: a record read from a file named as CaLM ships it
  (``AR-B_CaLM-AR_EN.json``) gets the task and language of the name, which its
  fields leave out (the readers offer every row its file's name);
* ``row(raw)``: a CaLM record as shipped, with ``task`` (a task id, or the data file's
  name ``CEI-B_0.2-UC_EN``) and, unless the task name carries it, ``lang``; a record
  without ``task`` is claimed only when a part can tell its task from its fields
  (``CalmPart.task_of_record``).  Its prompt is the record in CaLM's ``basic`` style,
  its gold ``gt_answer`` (None in the full set, whose gold CaLM withholds);
* ``parse(text, options)``: the prompt in any style and language; the task is
  ``options.task`` or the one a part recognises.

    >>> from causal_oracle.entry import default
    >>> a = default().answer("You will be presented with a causal graph in the following "
    ...     "form: A causes B, and B causes C.\\nQuestion: Does A serve as the ancestor node "
    ...     "of C?\\nAnswer (Yes or No ?):")
    >>> a.task, a.answer_text
    ('CA-B_FA', 'Yes')
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, ClassVar

from causal_oracle.entry.audit_record import Drawing, Facet
from causal_oracle.entry.audit_record import Outcome as Audit
from causal_oracle.entry.families.calm_cladder import PART as CLADDER
from causal_oracle.entry.families.calm_effects import PART as EFFECTS
from causal_oracle.entry.families.calm_graph import PART as GRAPH
from causal_oracle.entry.families.calm_part import (
    DEGENERATE,
    NO_VALID,
    SEVERAL_VALID,
    CalmPart,
    CalmQuestion,
)
from causal_oracle.entry.families.calm_rules import CalmBenchmarkRule
from causal_oracle.entry.registry import (
    Family,
    Generator,
    GoldJudgement,
    Item,
    Judgement,
    Options,
    Rendered,
)
from causal_oracle.oracle.calm.model import Lang
from causal_oracle.oracle.errors import InputError
from causal_oracle.oracle.reasoning.model import Facts
from causal_oracle.parser.calm_prompt import language_of, split_prompt

NAME = "calm"

#: the parts, one line each; a task id belongs to exactly one
PARTS: tuple[CalmPart[Any, Any], ...] = (
    GRAPH,
    EFFECTS,
    CLADDER,
)

_SUFFIXES = {"_EN": Lang.EN, "_CN": Lang.CN}
#: the reason of a gold-less record whose options are at fault (by: none is valid)
_NO_GOLD_AMBIGUOUS = {True: "no option meets the criterion",
                      False: "several options meet the criterion"}


def part_of(task: str) -> CalmPart[Any, Any]:
    """The part that owns ``task`` (``InputError`` when none does)."""
    for part in PARTS:
        if part.owns(task):
            return part
    raise InputError(f"no CaLM part answers task {task!r}")


def split_task(name: str) -> tuple[str, Lang | None]:
    """A task id and the language its name carries (``CEI-B_0.2-UC_EN`` → the id, EN)."""
    for suffix, lang in _SUFFIXES.items():
        if name.upper().endswith(suffix):
            return name[:-len(suffix)], lang
    return name, None


def record_row(record: Mapping[str, Any], file_name: str) -> dict[str, Any]:
    """A record of ``<task>_<lang>.json`` as a row the family claims (``task``, ``lang``)."""
    stem = file_name.rsplit("/", 1)[-1].removesuffix(".json").removesuffix(".jsonl")
    task, lang = split_task(stem)
    return {**record, "task": task, "lang": lang.value if lang else None}


class Calm(CalmBenchmarkRule, Family[CalmQuestion, Any]):
    """CaLM's formal tasks, English and Chinese (see the module docstring)."""

    name = NAME
    tasks = tuple(t for part in PARTS for t in part.tasks)

    def detect(self, text: str) -> bool:
        lang = language_of(text)
        return any(part.recognise(text, lang) is not None for part in PARTS)

    def generators(self) -> tuple[Generator, ...]:
        from causal_oracle.entry.families.calm_generator import GENERATOR  # on first use
        return (GENERATOR,)

    def _task(self, text: str, options: Options, lang: Lang) -> tuple[str, CalmPart[Any, Any]]:
        if options.task and options.task.casefold() != NAME:
            task, _ = split_task(options.task)
            return task, part_of(task)
        for part in PARTS:
            found = part.recognise(text, lang)
            if found is not None:
                return found, part
        raise InputError("no CaLM task recognises this prompt; give the task",
                         context=text[:80])

    def parse(self, text: str, options: Options) -> CalmQuestion:
        lang = language_of(text)
        task, part = self._task(text, options, lang)
        task = part.canonical(task)
        formal = part.from_prompt(task, text, lang)
        try:
            style = split_prompt(text, part.openers[lang], lang).style
        except InputError:
            style = None
        return CalmQuestion(task, lang, style, formal)

    def task_of(self, question: CalmQuestion) -> str:
        return question.task

    def solve(self, question: CalmQuestion) -> Any:
        return part_of(question.task).solve(question)

    def check(self, question: CalmQuestion, solution: Any) -> Any:
        return part_of(question.task).check(question, solution)

    def render(self, question: CalmQuestion, solution: Any) -> Rendered:
        return part_of(question.task).render(question, solution)

    def explain(self, question: CalmQuestion, solution: Any) -> str:
        return part_of(question.task).explain(question, solution)

    def dot(self, question: CalmQuestion, solution: Any) -> str | None:
        return part_of(question.task).dot(question, solution)

    def derivation(self, question: CalmQuestion, solution: Any) -> Any:
        return part_of(question.task).derivation(question, solution)

    def reasoning_facts(self, question: CalmQuestion, solution: Any) -> Facts | None:
        return part_of(question.task).reasoning_facts(question, solution)

    def read_reply(self, question: CalmQuestion, text: str) -> Any:
        return part_of(question.task).read_reply(question, text)

    def judge(self, question: CalmQuestion, solution: Any, claim: Any) -> Judgement:
        return part_of(question.task).judge(question, solution, claim)

    # -- rows --------------------------------------------------------------------------
    def file_row(self, raw: Mapping[str, Any], file_name: str) -> Mapping[str, Any] | None:
        """A record of a file named as CaLM ships it (``<task>_<EN|CN>.json``), which
        carries no task of its own: the record with the task and language of the name.
        None for a row that names its task, one that is no CaLM record (CaLM's records
        carry their ``index``: a file of prompts and replies saved under a task's name is
        read by its columns), or a file no part's task names."""
        if "task" in raw or "index" not in raw:
            return None
        task, lang = split_task(file_name.rsplit(".", 1)[0] if "." in file_name
                                else file_name)
        if lang is None or not any(part.owns(task) for part in PARTS):
            return None
        return {**raw, "task": task, "lang": lang.value}

    def row(self, raw: Mapping[str, Any]) -> Item | None:
        named = raw.get("task")
        if isinstance(named, str):
            task, lang = split_task(named)
            part = next((p for p in PARTS if p.owns(task)), None)
            if part is None:
                return None
        elif "index" in raw:
            found = next(((p, t) for p in PARTS
                          if (t := p.task_of_record(raw)) is not None), None)
            if found is None:
                return None
            part, task, lang = found[0], found[1], None
        else:
            return None
        task = part.canonical(task)
        lang = lang or self._lang_of(raw)
        gold = part.gold(task, raw)
        binary = gold if _is_yes_no(part, task) and gold in (0, 1) else None
        key = f"{task}_{lang.value}:{raw.get('index')}"
        return Item(self.name, task, part.prompt(task, raw, lang), gold, binary, key, raw)

    @staticmethod
    def _lang_of(raw: Mapping[str, Any]) -> Lang:
        value = raw.get("lang")
        if isinstance(value, str) and value.upper() in ("EN", "CN"):
            return Lang(value.upper())
        return language_of(" ".join(str(v) for v in raw.values() if isinstance(v, str)))

    def judge_gold(self, question: CalmQuestion, solution: Any, item: Item) -> GoldJudgement:
        return part_of(question.task).judge_gold(question, solution, item.gold)

    # -- audit records -----------------------------------------------------------------
    facets: ClassVar[tuple[Facet, ...]] = (Facet("task", "by_task"), Facet("language"),
                                           Facet("cause"))
    outcome_words: ClassVar[Mapping[Audit, str]] = {
        Audit.AMBIGUOUS: "several options meet the criterion, or none does",
        Audit.UNDETERMINED: "the question is degenerate or its text does not decide it",
    }

    def audit_fields(self, service: Any, item: Item, profile: Any, verifier: Any = None
                     ) -> dict[str, Any]:
        """The generic task record, with the language and the part's audit cause classes
        (``causes``: ``{"kind", "detail"}`` each, as the audit summary counts them)."""
        out: dict[str, Any] = service.task_record(item, profile)
        lang = self._lang_of({**item.raw, "prompt": item.prompt})
        out.update(id=item.key, language=lang.value, causes=[])
        if "error" in out:
            return out
        question, solution = service.solved(self, item.prompt, Options(item.task))
        part = part_of(question.task)
        with service.scope():
            causes = part.causes(question, solution, item.gold)
        if item.gold is None and (NO_VALID in causes or SEVERAL_VALID in causes):
            # a defect of the question itself, found without its (withheld) gold
            out.update(ambiguous=True, reason=_NO_GOLD_AMBIGUOUS[NO_VALID in causes])
        elif item.gold is None and DEGENERATE in causes and not _answerable(
                part, question, solution):
            out["undetermined"] = "degenerate question"  # as a Lite item's would be
        out["causes"] = [{"kind": c, "detail": out.get("reason") or ""} for c in causes]
        if out.get("agree") is None and not out.get("ambiguous") and item.gold is not None:
            out["undetermined"] = ("degenerate question" if DEGENERATE in causes
                                   else out.get("reason") or "not decided")
        return out

    def audit_drawing(self, service: Any, item: Item, fields: Mapping[str, Any],
                      profile: Any = None) -> Drawing:
        """The question's graph (what decides the answer marked), the derivation's facts
        and the explanation."""
        question, solution = service.solved(self, item.prompt, Options(item.task))
        part = part_of(question.task)
        with service.scope():
            picture = part.picture(question, solution)
            derivation = part.derivation(question, solution)
            explanation = part.explain(question, solution)
        facts = tuple((str(k), v if isinstance(v, str) else json.dumps(v, ensure_ascii=False))
                      for k, v in (derivation or {}).items()) \
            if isinstance(derivation, Mapping) else ()
        return Drawing((picture,) if picture is not None else (), facts, explanation)

    def facet_values(self, fields: Mapping[str, Any]) -> dict[str, str]:
        causes = [str(c["kind"]) for c in fields.get("causes") or ()]
        return {"task": str(fields.get("task")), "language": str(fields.get("language")),
                "cause": ",".join(causes) or "none"}


def _answerable(part: CalmPart[Any, Any], question: CalmQuestion, solution: Any) -> bool:
    """Whether the certified answer, written out, grades as right (a degenerate choice
    question has no option that could)."""
    try:
        claim = part.read_reply(question, part.render(question, solution).text)
    except InputError:
        return False
    return part.judge(question, solution, claim).correct is True


def _is_yes_no(part: CalmPart[Any, Any], task: str) -> bool:
    """Whether ``task`` is answered yes/no (CaLM's ``-B`` tasks; a part may say so)."""
    return part.binary or task.split("_", 1)[0].endswith("-B")


FAMILY = Calm()

__all__ = ["FAMILY", "NAME", "PARTS", "Calm", "part_of", "record_row", "split_task"]
