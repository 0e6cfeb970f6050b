"""Reading a reply to a CaLM question: yes/no (English or Chinese) or an option number.

The certified grade reads an answer in any common form, after the project's one clean-up
(``parser.replies.prepare``: chat wrappers, ``<think>`` blocks, markdown, ``\\boxed``):

* a JSON object's ``"answer"`` field (``{"answer": "Yes"}``, ``{"answer": "Option 2"}``);
* the span after the last "Answer:" / "answer is:" (``Reply.after_final``), inside the
  last ``<answer>`` tags, or after the last ``答案`` (``答案：是``, ``答案为“否”``);
* the reply itself when it is short, or its last line (``parser.verdicts``: "So the answer
  is No.").

A span is a yes/no when its first word is one (``Yes``/``No``/``True``/``False``, ``是``/
``否``/``不``), an option when it names one (``Option 2``, ``option2``, ``选项二``, ``2``).
A span naming both Yes and No, or two different options, is not read (an unread answer
is UNREADABLE, never guessed).  Every search is ``str.find``/``str.rfind`` or an
anchored match over at most ``MAX_SPAN`` characters: linear in the reply.

>>> read_yes_no("Let's see… Therefore, the answer is: No."), read_yes_no("答案：是")
(False, True)
>>> read_option("The answer is Option 3."), read_option('{"answer": "选项二"}')
(3, 2)
"""

from __future__ import annotations

import re

from causal_oracle.parser.errors import ParseError
from causal_oracle.parser.replies import MAX_SPAN, Reply, prepare
from causal_oracle.parser.verdicts import closing_verdict

_YES = ("yes", "true", "是", "对", "可以")
_NO = ("no", "false", "否", "不", "不可以", "不能")
_CN_NUMBERS = {"一": 1, "二": 2, "三": 3, "四": 4}
_OPTION = re.compile(r"(?:option|选项|choice)\s*[:：]?\s*([0-9]|[一二三四])", re.IGNORECASE)
_LEAD = " \t\n\"'“”‘’「」*：:()（）[]【】.。,，"


def _json_answer(text: str) -> str | None:
    """The value of the last ``"answer"`` key of a JSON-like object, or None."""
    at = text.rfind('"answer"')
    if at < 0:
        return None
    colon = text.find(":", at + 8)
    if colon < 0:
        return None
    rest = text[colon + 1:colon + 1 + 200].strip()
    if rest.startswith('"'):
        end = rest.find('"', 1)
        return rest[1:end] if end > 0 else None
    stop = min((i for i in (rest.find(","), rest.find("}"), rest.find("\n")) if i >= 0),
               default=len(rest))
    return rest[:stop].strip()


def _after_cn_answer(text: str) -> str | None:
    at = text.rfind("答案")
    if at < 0:
        return None
    span = text[at + 2:at + 2 + 200]
    for lead in ("为", "是：", "是:", "是", "应为", "应该是"):
        body = span.lstrip(_LEAD)
        if body.startswith(lead) and body[len(lead):].lstrip(_LEAD):
            return body[len(lead):]
    return span


def _spans(reply: Reply) -> list[str]:
    """The places an answer may be, best first."""
    out: list[str] = []
    for span in (_json_answer(reply), reply.tagged, reply.after_final, _after_cn_answer(reply),
                 str(reply) if len(reply) <= 200 else None, reply.last_line):
        if span is not None and span.strip() and span.strip() not in out:
            out.append(span.strip())
    return out


def _yes_no_word(span: str) -> bool | None:
    body = span[:MAX_SPAN].lstrip(_LEAD).casefold()
    for words, value in ((_NO, False), (_YES, True)):  # "不" before "是": "不是" is no
        for word in words:
            if body.startswith(word):
                rest = body[len(word):len(word) + 1]
                if not word.isascii() or not rest or not rest.isalnum():
                    return value
    return None


def read_yes_no(text: str) -> bool:
    """The yes/no a reply gives (``ParseError`` saying why when it gives none)."""
    reply = prepare(text)
    for span in _spans(reply):
        value = _yes_no_word(span)
        if value is not None:
            return value
    verdict = closing_verdict(reply)
    if verdict in ("yes", "no"):
        return verdict == "yes"
    raise ParseError("cannot parse CaLM answer: expected Yes or No (是 or 否)",
                     context=str(reply)[-200:], what="CaLM answer")


def _option_in(span: str, count: int) -> int | None:
    body = span[:MAX_SPAN]
    found = {int(m) if m.isdigit() else _CN_NUMBERS[m] for m in _OPTION.findall(body)}
    if not found:
        bare = body.lstrip(_LEAD)
        if bare[:1].isdigit() and not bare[1:2].isdigit():
            found = {int(bare[0])}
        elif bare[:1] in _CN_NUMBERS:
            found = {_CN_NUMBERS[bare[0]]}
    if len(found) == 1:
        (value,) = found
        return value if 1 <= value <= count else None
    return None


def read_option(text: str, count: int = 3) -> int:
    """The option number (1-based, at most ``count``) a reply names."""
    reply = prepare(text)
    for span in _spans(reply):
        value = _option_in(span, count)
        if value is not None:
            return value
    raise ParseError(f"cannot parse CaLM answer: expected one option (Option 1 … {count}, "
                     "选项一 …)", context=str(reply)[-200:], what="CaLM answer")


__all__ = ["read_option", "read_yes_no"]
