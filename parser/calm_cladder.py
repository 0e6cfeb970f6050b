"""Reading CaLM's CLadder-derived items: records and rendered prompts, English and Chinese.

Five CaLM tasks are CLadder questions (``BAS-B_backadj``, ``CB-B_collider-bias``,
``CORR-B_correlation``, ``EAE-B_exp-away``, ``CR-B_det-counterfactual``).  A record
carries ``given_info`` and ``question`` and, except in the English Lite files, a separate
``background`` (the graph in words: "Imagine a self-contained, hypothetical world …" /
"设想一个只有以下条件…").  CaLM renders every style with one template per language,

    Input Info: <given_info>\\nQuestion: <question>\\nAnswer (Yes or No ?):
    输入信息：<given_info>\\n问题：<question>\\n答案（是或否？）：

so the ``background`` never reaches the model: an English Lite prompt has its graph (the
Lite ``given_info`` begins with it), an English full-set or any Chinese prompt has none.
A prompt without its graph does not decide a CLadder question; ``CladderItem.missing``
says so (``graph_missing_from_prompt``) and the question is not guessed.

English text goes to the CLadder family's own reader (``parser.cladder``) as the CLadder
text a model would see: background, numbers and question joined by spaces.  A Chinese
record (which has its graph in ``background``) is read by ``parser.calm_cladder_zh``
from its three fields (``entry.families.calm_cladder`` calls it).  Every search is
``str.find`` on the item.

>>> item = item_of_prompt("Input Info: The overall probability of rixq is 78%.\\n"
...                       "Question: Is the chance of xevu larger when observing rixq?\\n"
...                       "Answer (Yes or No ?):", Lang.EN)
>>> item.missing, item.question
('graph_missing_from_prompt', 'Is the chance of xevu larger when observing rixq?')
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from causal_oracle.oracle.calm.model import Lang
from causal_oracle.parser.calm_prompt import item_text
from causal_oracle.parser.errors import ParseError

GRAPH_MISSING = "graph_missing_from_prompt"

#: the words every rendering of an item starts with, per language
OPENERS: Mapping[Lang, tuple[str, ...]] = {Lang.EN: ("Input Info:",), Lang.CN: ("输入信息：",)}
_QUESTION = {Lang.EN: "\nQuestion:", Lang.CN: "\n问题："}
_ANSWER = {Lang.EN: "\nAnswer (Yes or No ?):", Lang.CN: "\n答案（是或否？）："}
#: how a CLadder background (the graph in words) begins
BACKGROUND = {Lang.EN: "Imagine a self-contained, hypothetical world",
              Lang.CN: "设想一个只有以下条件"}
#: the template words that tell the five tasks apart (question and numbers), first match
MARKERS: Mapping[Lang, tuple[tuple[str, str], ...]] = {
    Lang.EN: (("Method 1", "BAS-B_backadj"), ("does it mean that", "CB-B_collider-bias"),
              ("instead of", "CR-B_det-counterfactual"),
              ("If we look at", "EAE-B_exp-away"),
              ("when observing", "CORR-B_correlation")),
    Lang.CN: (("方法1", "BAS-B_backadj"), ("这是否意味着", "CB-B_collider-bias"),
              ("而不是", "CR-B_det-counterfactual"), ("观察那些", "EAE-B_exp-away"),
              ("观察到", "CORR-B_correlation")),
}


@dataclass(frozen=True, slots=True)
class CladderItem:
    """One CaLM CLadder-derived item as text: ``given_info`` (with its background when
    the text has one) and ``question``; ``missing`` names what the text lacks."""

    lang: Lang
    given_info: str
    question: str
    missing: str | None = None

    def cladder_text(self) -> str:
        """The CLadder text (background, numbers, question) the CLadder reader reads."""
        return " ".join(" ".join(part.split()) for part in (self.given_info, self.question))


def _has_graph(given_info: str, lang: Lang) -> bool:
    return given_info.lstrip().startswith(BACKGROUND[lang])


def item_of_prompt(text: str, lang: Lang) -> CladderItem:
    """The item of a rendered prompt in any style (``parser.calm_prompt`` finds it)."""
    item = item_text(text, OPENERS[lang])
    opener = OPENERS[lang][0]
    q_at = item.find(_QUESTION[lang])
    if not item.startswith(opener) or q_at < 0:
        raise ParseError(f"expected '{opener} …{_QUESTION[lang].strip()} …'",
                         context=item[:200])
    end = item.find(_ANSWER[lang], q_at + 1)
    given = item[len(opener):q_at].strip()
    question = item[q_at + len(_QUESTION[lang]):end if end >= 0 else len(item)].strip()
    if not given or not question:
        raise ParseError("the item's input info or question is empty", context=item[:200])
    return CladderItem(lang, given, question, None if _has_graph(given, lang) else
                       GRAPH_MISSING)


def item_of_record(record: Mapping[str, Any], lang: Lang) -> CladderItem:
    """The item of a record as shipped: its ``background`` joined to ``given_info`` when
    the latter lacks it."""
    fields = {}
    for key in ("given_info", "question"):
        value = record.get(key)
        if not isinstance(value, str) or not value.strip():
            raise ParseError(f"the record's {key!r} is missing or not text")
        fields[key] = value
    given = fields["given_info"]
    background = record.get("background")
    if not _has_graph(given, lang) and isinstance(background, str) and \
            _has_graph(background, lang):
        given = background.strip() + " " + given
    return CladderItem(lang, given, fields["question"], None if _has_graph(given, lang)
                       else GRAPH_MISSING)


def task_of_text(text: str, lang: Lang) -> str | None:
    """The task a text's template words name (``MARKERS``), or None."""
    for words, task in MARKERS[lang]:
        if words in text:
            return task
    return None


def render(record: Mapping[str, Any], lang: Lang) -> str:
    """The record in CaLM's ``basic`` style (``CORR-B_correlation.py`` and its four
    twins: the same template)."""
    return (f"{OPENERS[lang][0]}{'' if lang is Lang.CN else ' '}{record.get('given_info', '')}"
            f"{_QUESTION[lang]}{'' if lang is Lang.CN else ' '}{record.get('question', '')}"
            f"{_ANSWER[lang]}")


__all__ = ["BACKGROUND", "GRAPH_MISSING", "MARKERS", "OPENERS", "CladderItem",
           "item_of_prompt", "item_of_record", "render", "task_of_text"]
