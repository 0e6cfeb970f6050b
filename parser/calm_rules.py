"""Reading and scoring a reply the way CaLM's own scorer does ("the benchmark's rule").

CaLM (the causal suite OpenCompass runs) scores a model's reply in two steps: its
*labeling* reads a label out of the reply, and its *accuracy* compares that label with
the record's gold.  OpenCompass's ``CaLMEvaluator`` runs the same code, so a score that
follows these rules is the score OpenCompass reports.  This module reimplements them —
for every formal task, English and Chinese alike (the rules do not depend on the
language; the phrase lists hold both) — so that the certified grade can be shown beside
the benchmark's own.  Four readings:

``YES_NO`` (AR, CA-FA/FP, CEI, and the CLadder-derived BAS-B, CB, CORR, EAE, CR-B)
    The reply, stripped and lower-cased, is **yes (1)** when it opens with a tail of one
    of the yes answer lines (``calm_rules_phrases.YES_OPENINGS``: each ``(k, lines)``
    offers every tail of at least ``k`` characters), else **no (0)** when it opens with a
    tail of a no line; else, when some phrase of the task's yes list occurs (or the
    task's own yes cue does — e.g. AR: "yes" and "causes"), it is yes unless a no phrase
    occurs *before the first yes phrase found in list order* (CaLM stops at the first
    phrase of its list that occurs, not at the earliest one in the reply); else no when
    a no phrase or cue occurs; else **-1** (unread).  AR and CA pair their yes and no
    answer lines group by group and line by line and drop the unpaired ones (Python's
    ``zip``), CEI and the CLadder tasks take them all: kept so.
``OPTION`` (BAS-C min/max/mix, FAS-C, IV-C)
    -1 when the reply repeats the question's option list ("option 1 or option 2", all
    three options named, …) or is empty; else option *i* (1, 2, 3 in turn) when it opens
    with a tail of an option-*i* answer line — including the record's own option text
    less its last character, whose group replaces a common group of the same length —
    or *is* the option's text, or is a part of it; else by phrases as for yes/no: the
    first option-1 phrase found, overridden by an option-2 phrase before it, in turn by an
    option-3 phrase before it; else option 2 (3 when an option-3 phrase occurs); else 3.
``JSON_ANSWER`` (ATE/CDE/ETT/NDE/NIE ``-B`` natural stories)
    The ``answer`` field of the reply's JSON object (``calm_rules_json``), compared with
    the gold word stripped and lower-cased ("yes"/"no", "是"/"否").
``JSON_PROB`` (ATE/CDE/ETT/NDE/NIE ``-P``, PN, PS)
    The ``prob`` field as a number, right when ``round(pred, 4) == round(gold, 4)``.

A yes/no or option label is right when it equals the gold (``gt_answer``; CLadder's
"yes"/"no" read as 1/0).  ``calm_correct`` gives that per item; a record CaLM's scorer
would crash on (a missing gold or option) is an ``InputError`` saying what is missing.
Every step is a bounded scan: ``str.startswith``/``str.find`` over fixed phrase lists and
the linear JSON scans of ``calm_rules_json`` — no regular expression runs on a reply.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from functools import cache
from typing import Any

from causal_oracle.oracle.errors import InputError
from causal_oracle.oracle.memo import memoised
from causal_oracle.parser import calm_rules_phrases as ph
from causal_oracle.parser.calm_rules_json import (
    COT_ANSWER_TYPES,
    json_field,
    probability,
)

Groups = Sequence[tuple[int, Sequence[str]]]


class CalmReading(Enum):
    """How CaLM reads a task's replies (see the module docstring)."""

    YES_NO = "yes/no"
    OPTION = "option"
    JSON_ANSWER = "json answer"
    JSON_PROB = "json prob"


# ---- opening lines: the tails a reply may open with --------------------------------------

def _tails(line: str, shortest: int) -> Iterable[str]:
    """CaLM's tails of an answer line: ``line[-i:]`` for ``i`` from ``shortest`` to its
    length (``i`` = 0 gives the whole line, as in CaLM)."""
    return (line[-i:] for i in range(shortest, len(line) + 1))


@dataclass(frozen=True)
class Openings:
    """A set of tails and their lengths: ``opens(reply)`` is ``reply.startswith(any)``
    checked by one slice per distinct length."""

    tails: frozenset[str]
    lengths: tuple[int, ...]

    @classmethod
    def of(cls, tails: Iterable[str]) -> Openings:
        found = frozenset(tails)
        return cls(found, tuple(sorted({len(t) for t in found})))

    def opens(self, reply: str) -> bool:
        size = len(reply)
        return any(reply[:n] in self.tails for n in self.lengths if n <= size)


def _all_tails(groups: Groups) -> Openings:
    return Openings.of(t for shortest, lines in groups for line in lines
                       for t in _tails(line, shortest))


def _zipped_tails(*sides: Groups) -> tuple[Openings, ...]:
    """Each side's tails when CaLM walks the sides together: group by group and line by
    line, each walk stopping at the shortest side."""
    found: list[list[str]] = [[] for _ in sides]
    for groups in zip(*sides, strict=False):
        for lines in zip(*(g[1] for g in groups), strict=False):
            for out, (shortest, _), line in zip(found, groups, lines, strict=True):
                out.extend(_tails(line, shortest))
    return tuple(Openings.of(tails) for tails in found)


def _with_group(groups: Groups, shortest: int, lines: Sequence[str]) -> Groups:
    """``{**groups, shortest: lines}``: a group of that length is replaced in place, else
    the new one goes last."""
    if any(k == shortest for k, _ in groups):
        return tuple((k, lines if k == shortest else v) for k, v in groups)
    return (*groups, (shortest, lines))


# ---- yes / no ------------------------------------------------------------------------------

def _never(_reply: str) -> bool:
    return False


def _ar_yes(r: str) -> bool:
    return ("yes" in r and ("causes" in r or "does cause" in r)) or ("是" in r and "会导致" in r)


def _ar_no(r: str) -> bool:
    return "否" in r and "不会导致" in r


_ANCESTOR_WORDS = ("is the ancestor of", "is an ancestor of", "serves as the ancestor node of",
                   "serves as an ancestor node of")


def _fa_yes(r: str) -> bool:
    return ("yes" in r and any(w in r for w in _ANCESTOR_WORDS)) or ("是" in r and "祖先节点" in r)


def _fa_no(r: str) -> bool:
    return "不是" in r and "祖先节点" in r


def _fp_yes(r: str) -> bool:
    return ("yes" in r and "is the parent of" in r) or ("是" in r and "父节点" in r)


def _fp_no(r: str) -> bool:
    return "不是" in r and "父节点" in r


@dataclass(frozen=True)
class YesNoRule:
    """One task group's yes/no reading: its phrase lists, whether its answer lines are
    walked in pairs (AR, CA) or all taken (CEI, CLadder), and its own cues."""

    name: str
    yes: tuple[str, ...]
    no: tuple[str, ...]
    paired: bool
    yes_cue: Callable[[str], bool] = _never
    no_cue: Callable[[str], bool] = _never

    def openings(self) -> tuple[Openings, Openings]:
        return _yes_no_openings(self.paired)


@cache
def _yes_no_openings(paired: bool) -> tuple[Openings, Openings]:
    if paired:
        yes, no = _zipped_tails(ph.YES_OPENINGS, ph.NO_OPENINGS)
        return yes, no
    return _all_tails(ph.YES_OPENINGS), _all_tails(ph.NO_OPENINGS)


# a task's own phrases come first, then the common ones
_CA_YES = (*ph.CA_YES_PHRASES, *ph.YES_PHRASES)
AR = YesNoRule("AR", ph.YES_PHRASES, ph.NO_PHRASES, True, _ar_yes, _ar_no)
CA_FA = YesNoRule("CA-FA", _CA_YES, ph.NO_PHRASES, True, _fa_yes, _fa_no)
CA_FP = YesNoRule("CA-FP", _CA_YES, ph.NO_PHRASES, True, _fp_yes, _fp_no)
CEI = YesNoRule("CEI", (*ph.CEI_YES_PHRASES, *ph.YES_PHRASES),
                (*ph.CEI_NO_PHRASES, *ph.NO_PHRASES), False)
CLADDER = YesNoRule("CLadder", (*ph.CLADDER_YES_PHRASES, *ph.YES_PHRASES),
                    (*ph.CLADDER_NO_PHRASES, *ph.NO_PHRASES), False)


def _first_found(reply: str, phrases: Iterable[str]) -> int | None:
    """Where the first phrase *in list order* that occurs in ``reply`` occurs."""
    for phrase in phrases:
        at = reply.find(phrase)
        if at >= 0:
            return at
    return None


def _any_before(reply: str, phrases: Iterable[str], limit: int) -> bool:
    return any(0 <= reply.find(p) < limit for p in phrases)


def _occurs(reply: str, phrases: Iterable[str]) -> bool:
    return any(p in reply for p in phrases)


def yes_no_label(rule: YesNoRule, reply: str) -> int:
    """1 (yes), 0 (no) or -1 (unread), as CaLM labels ``reply`` under ``rule``."""
    r = reply.strip().lower()
    yes_openings, no_openings = rule.openings()
    if yes_openings.opens(r):
        return 1
    if no_openings.opens(r):
        return 0
    first = _first_found(r, rule.yes)
    if first is not None or rule.yes_cue(r):
        return 0 if _any_before(r, rule.no, len(r) if first is None else first) else 1
    if _occurs(r, rule.no) or rule.no_cue(r):
        return 0
    return -1


# ---- options -------------------------------------------------------------------------------

_ECHOES = ("选项一或选项二", "选项二或选项三", "option 1 or option 2", "option2 or option 3")
_OPTION_OPENINGS = (ph.OPTION_1_OPENINGS, ph.OPTION_2_OPENINGS, ph.OPTION_3_OPENINGS)
_OPTION_PHRASES = (ph.OPTION_1_PHRASES, ph.OPTION_2_PHRASES, ph.OPTION_3_PHRASES)
_CN_NAMES = ("选项一", "选项二", "选项三")


@memoised(limit=512)
def _option_rule(texts: tuple[str, str, str]
                 ) -> tuple[tuple[Openings, ...], tuple[tuple[str, ...], ...]]:
    """The opening tails and phrase lists of an item whose options read ``texts``
    (stripped, lower-cased): each option's own answer lines join the common ones."""
    sides = []
    phrases = []
    for text, common, listed in zip(texts, _OPTION_OPENINGS, _OPTION_PHRASES, strict=True):
        cut = text[:-1]
        own = (f"答案（选项一或选项二或选项三？）：{cut}",
               f"答案（选项一或选项二或选项三？）： {cut}",
               f"answer (option 1 or 2 or 3?):{cut}", f"answer (option 1 or 2 or 3?): {cut}")
        sides.append(_with_group(common, len(text) - 1, own))
        # CaLM formats its second phrase from a set: "{'text'}"
        phrases.append((f"answer (option 1 or 2 or 3 ?): {cut}",
                        f"(option 1 or 2 or 3?): {{{cut!r}}}", *listed))
    return _zipped_tails(*sides), tuple(phrases)


def option_texts(record: Mapping[str, Any]) -> tuple[str, str, str]:
    """The record's three options, stripped and lower-cased (``InputError`` when one is
    missing or not text)."""
    out = []
    for i in (1, 2, 3):
        text = record.get(f"option{i}")
        if not isinstance(text, str):
            raise InputError(f"a CaLM option record needs text in 'option{i}' "
                             f"(found {type(text).__name__})")
        out.append(text.strip().lower())
    return out[0], out[1], out[2]


def option_label(reply: str, texts: tuple[str, str, str]) -> int:
    """1, 2, 3 or -1 (unread), as CaLM labels ``reply`` to an item with these options."""
    r = reply.strip().lower()
    if (_occurs(r, _ECHOES) or all(f"option {i}" in r for i in (1, 2, 3))
            or all(name in r for name in _CN_NAMES) or not r):
        return -1
    openings, phrases = _option_rule(texts)
    for label, (opens, text) in enumerate(zip(openings, texts, strict=True), start=1):
        if opens.opens(r) or r == text or (len(text) > 1 and r in text):
            return label
    marked = "正确答案" in r
    first = _first_found(r, phrases[0])
    if first is not None or (marked and "选项一" in r):
        limit = len(r) if first is None else first
        if not _any_before(r, phrases[1], limit):
            return 1
        return 3 if _any_before(r, phrases[2], limit) else 2
    if _occurs(r, phrases[1]) or (marked and "选项二" in r):
        return 3 if _occurs(r, phrases[2]) else 2
    if _occurs(r, phrases[2]) or (marked and "选项三" in r):
        return 3
    return -1


# ---- tasks ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class CalmTask:
    """A CaLM task as its scorer treats it: ``key`` is CaLM's name without the language
    suffix (``AR-B_CaLM-AR``), ``kind`` the part before the first hyphen (``AR``)."""

    key: str
    reading: CalmReading
    yes_no: YesNoRule | None = None

    @property
    def kind(self) -> str:
        return self.key.split("-", 1)[0]


def _table() -> dict[str, CalmTask]:
    out: dict[str, CalmTask] = {}

    def add(key: str, reading: CalmReading, rule: YesNoRule | None = None) -> None:
        out[key.casefold()] = CalmTask(key, reading, rule)

    add("AR-B_CaLM-AR", CalmReading.YES_NO, AR)
    add("CA-B_FA", CalmReading.YES_NO, CA_FA)
    add("CA-B_FP", CalmReading.YES_NO, CA_FP)
    for density in ("0.2", "0.4", "0.6", "0.8"):
        add(f"CEI-B_{density}-UC", CalmReading.YES_NO, CEI)
    for key in ("BAS-B_backadj", "CB-B_collider-bias", "CORR-B_correlation",
                "EAE-B_exp-away", "CR-B_det-counterfactual"):
        add(key, CalmReading.YES_NO, CLADDER)
    for key in ("BAS-C_max-BAS", "BAS-C_min-BAS", "BAS-C_mix-BAS", "FAS-C_FAS",
                "IV-C_CaLM-IV"):
        add(key, CalmReading.OPTION)
    for effect in COT_ANSWER_TYPES:
        add(f"{effect}-B_{effect}-natural", CalmReading.JSON_ANSWER)
    for effect in (*COT_ANSWER_TYPES, "PN", "PS"):
        for level in ("basic", "hard"):
            add(f"{effect}-P_{effect}-{level}", CalmReading.JSON_PROB)
    return out


TASKS: dict[str, CalmTask] = _table()
"""CaLM's formal tasks by key (case-folded), each with its reading."""


def calm_task(name: str) -> CalmTask:
    """The task a CaLM task name names: ``AR-B_CaLM-AR_EN``, ``AR-B_CaLM-AR`` or a name
    that contains one (``calm_AR-B_CaLM-AR_CN``); ``InputError`` for any other."""
    folded = name.strip().casefold()
    for suffix in ("_en", "_cn"):
        folded = folded.removesuffix(suffix)
    if folded in TASKS:
        return TASKS[folded]
    hits = [task for key, task in TASKS.items() if key in folded]
    if hits:
        return max(hits, key=lambda t: len(t.key))
    raise InputError(f"not a formal CaLM task: {name[:200]!r}")


def calm_gold(task: CalmTask, record: Mapping[str, Any]) -> Any:
    """The record's gold as CaLM's scorer compares it (``InputError`` when absent)."""
    gold = record.get("gt_answer")
    if gold is None:
        raise InputError(f"the CaLM {task.key} record has no 'gt_answer'")
    if task.reading is CalmReading.YES_NO and task.yes_no is CLADDER:
        if gold not in ("yes", "no"):
            raise InputError(f"a CLadder-derived CaLM gold is 'yes' or 'no', not {gold!r:.200}")
        return int(gold == "yes")
    if task.reading is CalmReading.OPTION:
        try:
            return int(gold)
        except (TypeError, ValueError):
            raise InputError(f"a CaLM option gold is 1, 2 or 3, not {gold!r:.200}") from None
    if task.reading is CalmReading.JSON_ANSWER:
        if not isinstance(gold, str):
            raise InputError(f"a CaLM story gold is a word, not {gold!r:.200}")
        return gold.strip().lower()
    if task.reading is CalmReading.JSON_PROB and (
            isinstance(gold, bool) or not isinstance(gold, int | float)):
        raise InputError(f"a CaLM numeric gold is a number, not {gold!r:.200}")
    return gold


def calm_label(task: CalmTask, reply: str, record: Mapping[str, Any],
               prompt_style: str = "basic") -> Any:
    """What CaLM's scorer reads ``reply`` as: 1/0/-1 (yes/no), 1/2/3/-1 (options), the
    ``answer`` value (stories) or the ``prob`` number, None when absent (numeric)."""
    if task.reading is CalmReading.YES_NO:
        assert task.yes_no is not None
        return yes_no_label(task.yes_no, reply)
    if task.reading is CalmReading.OPTION:
        return option_label(reply, option_texts(record))
    cot = "CoT" in prompt_style and any(t in task.kind for t in COT_ANSWER_TYPES)
    text = reply.strip().lower()
    if task.reading is CalmReading.JSON_ANSWER:
        return json_field(text, "answer", answer_objects_only=cot)
    return probability(json_field(text, "prob", answer_objects_only=cot))


def calm_correct(task: CalmTask | str, record: Mapping[str, Any], reply: str,
                 prompt_style: str = "basic") -> bool:
    """Whether CaLM's scorer counts ``reply`` right for ``record`` (its ``gt_answer``)
    under ``prompt_style`` (only chain-of-thought styles, those whose name holds "CoT",
    change a reading)."""
    task = calm_task(task) if isinstance(task, str) else task
    gold = calm_gold(task, record)
    label = calm_label(task, reply, record, prompt_style)
    if task.reading is CalmReading.JSON_PROB:
        return label is not None and round(label, 4) == round(gold, 4)
    return bool(label == gold)


__all__ = ["AR", "CA_FA", "CA_FP", "CEI", "CLADDER", "TASKS", "CalmReading", "CalmTask",
           "Openings", "YesNoRule", "calm_correct", "calm_gold", "calm_label", "calm_task",
           "option_label", "option_texts", "yes_no_label"]
