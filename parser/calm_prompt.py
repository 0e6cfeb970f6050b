"""Reading a rendered CaLM prompt: the style wrapper, the in-context examples, the item.

CaLM (``calm/data_processing/prompt/*.py``) renders every item through one template per
task and *prompt style*; a style only wraps the item's own question text:

* ``basic`` — the item alone;
* ``adversarial-ignore`` / ``adversarial-doubt`` — the item with a lead-in naming a former
  answer: ``Your former answer is: …\\nIgnore the former answer and answer the question
  again.\\n`` (``… is wrong, please answer …``; CN ``之前的答案是：`` …) followed by the
  item (``generate_questions.create_adversarial_prompt``);
* ``zero-shot-IcL`` — a task description, then the item;
* ``one-shot-IcL`` / ``three-shot-IcL`` — the description, one or three solved examples
  written with the item's own template, then the item;
* ``zero-shot-CoT`` — the item with "Let's think step by step." (``请逐步思考。``) added to
  its question line;
* ``manual-CoT`` — a lead-in ("Here are …", ``如下为…``), worked examples, then the item;
* ``explicit-function`` — a role line ("You are a helpful assistant for …",
  ``你是一个…``), then the item;

each with a ``-CN`` twin.  Every example repeats the item template, so the item is what
follows the **last** occurrence of the template's opening (``openers``: the few words
every rendering of the task's item starts with, e.g. "You will be presented with a
causal graph in the following form:"); an example may differ from it in anything
(CaLM's own examples contain stray JSON), and the item is never read from them.

``split_prompt`` returns the parts; the CaLM parts call it (``item_text``) and read only
the item.  The search is a handful of ``str.rfind`` calls: linear in the text.

>>> p = split_prompt("Intro.\\nQ: x?\\nAnswer: Yes\\n\\nQ: y?\\nAnswer:", ("Q:",))
>>> p.item, p.examples, p.style
('Q: y?\\nAnswer:', ('Q: x?\\nAnswer: Yes',), <Style.ONE_SHOT_ICL: 'one-shot-IcL'>)
"""

from __future__ import annotations

import enum
import re
from collections.abc import Sequence
from dataclasses import dataclass

from causal_oracle.oracle.calm.model import Lang
from causal_oracle.parser.errors import ParseError

MAX_PROMPT = 200_000  #: the longest rendered prompt read (CaLM's longest is ~20,000)


class Style(enum.Enum):
    """CaLM's prompt styles (without the ``-CN`` suffix: the language is ``Lang``)."""

    BASIC = "basic"
    ADVERSARIAL_IGNORE = "adversarial-ignore"
    ADVERSARIAL_DOUBT = "adversarial-doubt"
    ZERO_SHOT_ICL = "zero-shot-IcL"
    ONE_SHOT_ICL = "one-shot-IcL"
    THREE_SHOT_ICL = "three-shot-IcL"
    ZERO_SHOT_COT = "zero-shot-CoT"
    MANUAL_COT = "manual-CoT"
    EXPLICIT_FUNCTION = "explicit-function"

    def key(self, lang: Lang) -> str:
        """CaLM's name of the style in ``lang`` (``basic-CN``)."""
        return self.value + ("-CN" if lang is Lang.CN else "")


#: the sentences a style adds to the item's own text (removed from ``item``)
COT_CUES = ("Let's think step by step.", "请逐步思考。")
_IGNORE = ("Ignore the former answer and answer the question again.\n",
           "忽略之前的答案，再次回答这个问题。\n")
_DOUBT = ("Your former answer is wrong, please answer the question again.\n",
          "之前的答案错误，再次回答这个问题。\n")
_HINTS = ("Your former answer is: ", "之前的答案是：")
_ROLES = ("You are a helpful assistant", "你是一个")
_MANUAL = ("Here are ", "Here we will provide", "如下为")
_CJK = re.compile("[\u4e00-\u9fff]")


def language_of(text: str) -> Lang:
    """CN when the text holds a CJK ideograph (CaLM's CN templates all do), else EN."""
    return Lang.CN if _CJK.search(text) else Lang.EN


@dataclass(frozen=True, slots=True)
class CalmPrompt:
    """A rendered prompt taken apart: ``preamble`` (the style's lead-in or task
    description), ``examples`` (each from its opener to the next), ``item`` (from the last
    opener to the end, the style's CoT cue removed) and the ``style`` these suggest."""

    style: Style
    lang: Lang
    preamble: str
    examples: tuple[str, ...]
    item: str


def _occurrences(text: str, openers: Sequence[str]) -> list[int]:
    """Start offsets of every opener occurrence, ascending (each opener scanned once)."""
    found: set[int] = set()
    for opener in openers:
        at = text.find(opener)
        while at >= 0:
            found.add(at)
            at = text.find(opener, at + len(opener))
    return sorted(found)


def split_prompt(text: str, openers: Sequence[str], lang: Lang | None = None) -> CalmPrompt:
    """``text`` taken apart around the item, whose rendering starts with one of
    ``openers``; ``ParseError`` when none occurs (the text is not this task's prompt)."""
    if len(text) > MAX_PROMPT:
        raise ParseError(f"cannot parse CaLM prompt: {len(text):,} characters, at most "
                         f"{MAX_PROMPT:,} are read", what="CaLM prompt")
    lang = lang or language_of(text)
    style, wrapper, body = _adversarial(text)
    starts = _occurrences(body, openers)
    if not starts:
        shown = " / ".join(repr(o) for o in openers[:3])
        raise ParseError(f"cannot parse CaLM prompt: it has no item opening with {shown}",
                         context=text[:200], what="CaLM prompt")
    item = body[starts[-1]:]
    for cue in COT_CUES:
        item = item.replace(" " + cue, "").replace(cue, "")
    examples = tuple(body[a:b].strip() for a, b in zip(starts, starts[1:], strict=False))
    preamble = wrapper + body[:starts[0]]
    style = style or _style(body, body[:starts[0]], examples)
    return CalmPrompt(style, lang, preamble.strip(), examples, item.strip())


def _adversarial(text: str) -> tuple[Style | None, str, str]:
    """An adversarial wrapper ("Your former answer is: <reply>\n<request>\n") split off:
    (its style, the wrapper, the prompt after the **last** request line — the former
    reply may repeat anything, the request closes it); else (None, "", text)."""
    if not text.lstrip().startswith(_HINTS):
        return None, "", text
    for requests, style in ((_DOUBT, Style.ADVERSARIAL_DOUBT),
                            (_IGNORE, Style.ADVERSARIAL_IGNORE)):
        for request in requests:
            at = text.rfind(request)
            if at >= 0:
                return style, text[:at + len(request)], text[at + len(request):]
    return None, "", text


def _style(text: str, preamble: str, examples: tuple[str, ...]) -> Style:
    """The style the wrapper suggests (CaLM's styles differ in these cues only)."""
    if any(cue in text for cue in COT_CUES):
        return Style.ZERO_SHOT_COT
    head = preamble.lstrip()
    if head.startswith(_ROLES):
        return Style.EXPLICIT_FUNCTION
    if head.startswith(_MANUAL):
        return Style.MANUAL_COT
    if len(examples) == 1:
        return Style.ONE_SHOT_ICL
    if examples:
        return Style.THREE_SHOT_ICL
    return Style.ZERO_SHOT_ICL if head else Style.BASIC


def item_text(text: str, openers: Sequence[str]) -> str:
    """The item's own text in a rendered prompt (``split_prompt(...).item``)."""
    return split_prompt(text, openers).item


__all__ = ["COT_CUES", "CalmPrompt", "Style", "item_text", "language_of", "split_prompt"]
