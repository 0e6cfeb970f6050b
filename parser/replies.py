"""Reading a model's reply: one clean-up for every family, then a linear search for the answer.

A reply is free text, often long: reasoning (in a ``<think>`` block or not), perhaps a chat
template's wrapper, markdown, LaTeX, and somewhere an answer.  Every family reads it in
the same two steps, and only the second depends on the family:

1. ``prepare`` cleans the reply once and returns a ``Reply`` (a ``str``: the cleaned
   text) that remembers what is located in it:

   * a chat wrapper is unwrapped: the text after the last ``<|im_start|>assistant`` /
     ``<|start_header_id|>assistant<|end_header_id|>`` / ``<|assistant|>`` is kept, and
     special tokens (``<|im_end|>``, ``<|eot_id|>``, ``</s>`` …) are dropped;
   * reasoning blocks are dropped: ``<think>…</think>`` and ``<thinking>…</thinking>``,
     an unclosed trailing ``<think>…`` and everything before a ``</think>`` that closes a
     block the prompt opened;
   * markdown code-fence lines (```` ``` ````, ```` ```json ````, ``~~~``) are dropped,
     as are ``**`` and backticks;
   * ``\\boxed{X}`` (also inside ``$…$``, with ``\\text{X}`` inside) becomes ``X``.

2. The family reads a *span* of the cleaned reply, located by a linear scan (``str.find``
   and ``str.rfind`` on an ASCII-folded copy; no regular expression that can backtrack):

   * ``Reply.tagged`` — the inside of the last ``<answer>…</answer>`` pair (pairs read
     left to right, each ``<answer>`` closed by the first ``</answer>`` after it);
   * ``Reply.answer`` — the tagged span (or the whole reply), from its last line that
     opens with ``Answer:`` / ``Final answer:`` on, that marker removed;
   * ``Reply.after_final`` — what follows the last ``answer:`` / ``answer is:`` /
     ``final answer:`` anywhere in the reply (CLEAR's reading);
   * ``Reply.last_line`` — the last non-empty line.

   A span longer than ``MAX_SPAN`` characters is never handed to a grammar:
   ``too_long(span)`` is the ``ParseError`` that says so, and the reply is UNREADABLE
   unless another span reads.

Every step is linear in the reply's length, so a 256 KiB reply is read in milliseconds
whatever its shape, and each step calls ``oracle.budget.checkpoint()``: a reply read under
a spent budget raises ``BudgetExceeded``.

    >>> r = prepare("<think>Is it yes? No…</think>\\n**Answer:** `No`<|im_end|>")
    >>> str(r), r.answer
    ('Answer: No', 'No')
    >>> prepare("reasoning\\n<answer>A, B</answer>").tagged
    'A, B'
    >>> prepare("So the final answer is: \\\\boxed{C}.").after_final
    'C.'

Public: ``MAX_SPAN``, ``Reply``, ``prepare``, ``too_long``.
"""

from __future__ import annotations

import re
from functools import cached_property

from causal_oracle.oracle.budget import checkpoint
from causal_oracle.parser.errors import ParseError

MAX_SPAN = 8192  #: the most characters of a located answer handed to a grammar

_ASSISTANT = ("<|im_start|>assistant", "<|start_header_id|>assistant<|end_header_id|>",
              "<|assistant|>")
_SPECIAL = re.compile(r"<\|[A-Za-z0-9_]{1,40}\|>|</s>")
_THINK = re.compile(r"<(/?)think(?:ing)?>", re.IGNORECASE)
_FENCE = re.compile(r"^[ \t]*(?:```|~~~)[A-Za-z0-9_+.-]{0,20}[ \t]*$", re.MULTILINE)
_BOXED = "\\boxed{"
_TEXT_COMMANDS = ("\\text{", "\\textbf{", "\\mathrm{", "\\mathbf{")
_OPEN, _CLOSE = "<answer>", "</answer>"
_WORD = "answer"


def fold(text: str) -> str:
    """``text`` lower-cased in ASCII only, every other character ``?``: the same length,
    so positions found in it are positions in ``text``."""
    return text.encode("ascii", "replace").decode("ascii").lower()


def too_long(span: str, what: str = "answer") -> ParseError:
    """The error for a located answer too long to hand to a grammar."""
    return ParseError(f"cannot parse {what}: the answer is {len(span):,} characters long; "
                      f"at most {MAX_SPAN:,} are read (give it after 'Answer:' or inside "
                      "<answer></answer> tags)", what=what)


class Reply(str):
    """A reply after ``prepare``: the cleaned text, with its answer spans located once."""

    length: int  #: characters in the reply as given

    @cached_property
    def folded(self) -> str:
        return fold(self)

    @cached_property
    def tagged(self) -> str | None:
        """The inside of the last ``<answer>…</answer>`` pair, or None."""
        return _last_tagged(self, self.folded)

    @cached_property
    def answer(self) -> str:
        """The tagged span (or the whole reply) from its last line opening with
        ``Answer:`` on, marker and surrounding blanks removed."""
        body = self.tagged
        if body is None:
            body, folded = str(self), self.folded
        else:
            folded = fold(body)
        found = _last_marker(body, folded, line_start=True)
        if found is not None:
            body = body[found:]
            folded = folded[found:]
        return _strip_marker(body, folded).strip()

    @cached_property
    def after_final(self) -> str | None:
        """What follows the last ``answer:`` / ``answer is:`` / ``final answer:`` (colon
        ``:`` or ``：``) anywhere in the reply, stripped; None without one."""
        found = _last_marker(self, self.folded, line_start=False)
        return None if found is None else self[found:].strip()

    @cached_property
    def last_line(self) -> str:
        """The last non-empty line, stripped ('' for an empty reply)."""
        end = len(self.rstrip())
        return self[self.rfind("\n", 0, end) + 1:end].strip()


def prepare(text: str) -> Reply:
    """The reply cleaned once (see the module docstring); a ``Reply`` is returned as is."""
    if isinstance(text, Reply):
        return text
    checkpoint()
    clean = _unwrap_chat(text)
    clean = _drop_thinking(clean)
    checkpoint()
    clean = _FENCE.sub("", clean)
    clean = _unbox(clean).replace("**", "").replace("`", "").strip()
    checkpoint()
    reply = Reply(clean)
    reply.length = len(text)
    return reply


# ---- clean-up ---------------------------------------------------------------------------
def _unwrap_chat(text: str) -> str:
    """The assistant's turn of a chat-templated text, special tokens dropped."""
    if "<|" not in text and "</s>" not in text:
        return text
    start = -1
    for head in _ASSISTANT:
        at = text.rfind(head)
        if at != -1 and at + len(head) > start:
            start = at + len(head)
    if start != -1:
        text = text[start:]
    return _SPECIAL.sub("\n", text)


def _drop_thinking(text: str) -> str:
    """``text`` without its reasoning blocks (nested opens count as text of the block)."""
    kept: list[str] = []
    start, inside = 0, False
    for count, tag in enumerate(_THINK.finditer(text)):
        if count % 4096 == 0:
            checkpoint()
        closing = bool(tag.group(1))
        if inside and closing:
            inside, start = False, tag.end()
        elif not inside and closing:  # the prompt opened the block: all so far was reasoning
            kept, start = [], tag.end()
        elif not inside:
            kept.append(text[start:tag.start()])
            inside = True
    if not inside:
        kept.append(text[start:])
    return "\n".join(kept)


def _unbox(text: str) -> str:
    r"""Every ``\boxed{X}`` (and ``$\boxed{X}$``, ``\boxed{\text{X}}``) as ``X``; one level
    of braces inside; a box left open stays as written."""
    at = text.find(_BOXED)
    if at == -1:
        return text
    out: list[str] = []
    done = 0
    while at != -1:
        checkpoint()
        begin = at + len(_BOXED)
        following = text.find(_BOXED, begin)
        limit = len(text) if following == -1 else following
        limit = min(limit, begin + MAX_SPAN)
        end = text.find("}", begin, limit)
        if end != -1 and "{" in text[begin:end]:
            end = text.find("}", end + 1, limit)  # one nested level: \text{…}
        if end == -1:
            at = following
            continue
        inner = text[begin:end].strip()
        for command in _TEXT_COMMANDS:
            if inner.startswith(command) and inner.endswith("}"):
                inner = inner[len(command):-1].strip()
        head, tail = at, end + 1
        if text[head - 1:head] == "$" and text[tail:tail + 1] == "$":
            head, tail = head - 1, tail + 1
        out += [text[done:head], inner]
        done = tail
        at = text.find(_BOXED, done)
    out.append(text[done:])
    return "".join(out)


# ---- locating ---------------------------------------------------------------------------
def _last_tagged(text: str, folded: str) -> str | None:
    """The last ``<answer>…</answer>`` pair's inside, by a constant number of scans.

    Pairs are read left to right (an ``<answer>`` is closed by the first ``</answer>``
    after it; further ``<answer>`` tags before that close are part of its inside).  The
    last pair closes at the first close after the last open that has a close after it,
    and opens at the first open after the last close before that open.
    """
    last_close = folded.rfind(_CLOSE)
    if last_close == -1:
        return None
    last_open = folded.rfind(_OPEN, 0, last_close)
    if last_open == -1:
        return None
    close = folded.find(_CLOSE, last_open)
    before = folded.rfind(_CLOSE, 0, last_open)
    opened = folded.find(_OPEN, 0 if before == -1 else before + len(_CLOSE))
    return text[opened + len(_OPEN):close]


def _skip_space(text: str, at: int) -> int:
    while at < len(text) and text[at].isspace():
        at += 1
    return at


def _line_start(folded: str, at: int) -> int | None:
    """Where the line holding ``at`` starts when only spaces, tabs and ``*`` come before
    ``at`` on it (None otherwise)."""
    while at > 0 and folded[at - 1] in " \t*":
        at -= 1
    return at if at == 0 or folded[at - 1] == "\n" else None


def _marker_start(text: str, folded: str, at: int) -> int | None:
    """The start of a line-opening marker whose ``answer`` is at ``at``: ``answer`` or
    ``final answer`` after nothing but spaces, tabs and ``*`` on its line."""
    plain = _line_start(folded, at)
    if plain is not None:
        return plain
    back = at
    while back > 0 and text[back - 1].isspace():
        back -= 1
    if back == at or not folded.endswith("final", 0, back):
        return None
    return _line_start(folded, back - len("final"))


def _last_marker(text: str, folded: str, *, line_start: bool) -> int | None:
    """Scanning ``answer`` occurrences from the end: with ``line_start``, the start of the
    last line opening with ``(final) answer:``; otherwise the end of the last
    ``answer(\\s*is)?\\s*[:：]`` and the blanks after it.  Each blank run is crossed at
    most a few times, so the scan is linear."""
    hi = len(folded)
    count = 0
    while True:
        count += 1
        if count % 4096 == 0:
            checkpoint()
        at = folded.rfind(_WORD, 0, hi)
        if at == -1:
            return None
        hi = at
        after = _skip_space(text, at + len(_WORD))
        if not line_start and folded.startswith("is", after):
            spaced = _skip_space(text, after + 2)
            if spaced < len(text) and text[spaced] in ":：":
                after = spaced
        if after >= len(text) or text[after] not in (":" if line_start else ":："):
            continue
        if not line_start:
            return _skip_space(text, after + 1)
        start = _marker_start(text, folded, at)
        if start is not None:
            return start


def _strip_marker(text: str, folded: str) -> str:
    """``text`` without a leading ``(final) answer:`` marker (blanks first)."""
    at = _skip_space(text, 0)
    if folded.startswith("final", at):
        spaced = _skip_space(text, at + len("final"))
        if spaced > at + len("final") and folded.startswith(_WORD, spaced):
            at = spaced
    if not folded.startswith(_WORD, at):
        return text
    colon = _skip_space(text, at + len(_WORD))
    if colon < len(text) and text[colon] == ":":
        return text[_skip_space(text, colon + 1):]
    return text


__all__ = ["MAX_SPAN", "Reply", "fold", "prepare", "too_long"]
