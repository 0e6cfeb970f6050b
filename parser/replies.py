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
   * ``\\boxed{X}`` (also inside ``$…$``, with ``\\text{X}`` inside) becomes ``X`` (the
     last ``_BOXES`` boxes: the answer is boxed at the end).

2. The family reads a *span* of the cleaned reply, located by a linear scan: ``str.find``
   and ``str.rfind`` on an ASCII-folded copy for the tags; for the markers, one search of
   the *reversed* reply for the marker reversed, whose first match is the last marker and
   whose every attempt starts at a colon and crosses only the blanks before it (no
   ``(.*?)`` between tags, no blank runs scanned again from every position):

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

MAX_SPAN = 4096  #: the most characters of a located answer handed to a grammar

_ASSISTANT = ("<|im_start|>assistant", "<|start_header_id|>assistant<|end_header_id|>",
              "<|assistant|>")
_SPECIAL = re.compile(r"<\|[A-Za-z0-9_]{1,40}\|>|</s>")
_FENCE = re.compile(r"^[ \t]*(?:```|~~~)[A-Za-z0-9_+.-]{0,20}[ \t]*$", re.MULTILINE)
_THINK = re.compile(r"<(/?)think(?:ing)?>", re.IGNORECASE)
_BOXED = "\\boxed{"
_BOXES = 16  #: the most boxes unwrapped (the last ones: the answer is boxed at the end)
_SPACES = re.compile(r"\s*")
_PREFIX = re.compile(r"\s*(?:final\s+)?answer\s*:\s*", re.IGNORECASE)
# the answer markers, reversed ("answer:" is ":rewsna"); every match starts at a colon
_MARKER_REVERSED = re.compile(r"[:：]\s*(?:si\s*)?rewsna", re.IGNORECASE)
_LINE_MARKER_REVERSED = re.compile(r":\s*rewsna(?:\s+lanif)?([ \t*]*)(?:\n|\Z)", re.IGNORECASE)
_TEXT_COMMANDS = ("\\text{", "\\textbf{", "\\mathrm{", "\\mathbf{")
_OPEN, _CLOSE = "<answer>", "</answer>"


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
        body = str(self) if self.tagged is None else self.tagged
        found = _last_marker(body, line_start=True)
        if found is not None:
            body = body[found:]
        prefix = _PREFIX.match(body)  # one anchored attempt: linear
        return body[prefix.end():].strip() if prefix else body.strip()

    @cached_property
    def after_final(self) -> str | None:
        """What follows the last ``answer:`` / ``answer is:`` / ``final answer:`` (colon
        ``:`` or ``：``) anywhere in the reply, stripped; None without one."""
        found = _last_marker(self, line_start=False)
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
    if "```" in clean or "~~~" in clean:
        clean = _FENCE.sub("", clean)
    clean = _unbox(clean).replace("**", "").replace("`", "").strip()
    checkpoint()
    return Reply(clean)


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
    """``text`` without its reasoning blocks: one split at every think tag, then one walk
    over the tags (an open inside a block is the block's text; a close outside any block
    ends reasoning the prompt opened, so everything before it is dropped)."""
    if "think" not in text.lower():
        return text
    parts = _THINK.split(text)  # text, "/" or "", text, …
    kept = [parts[0]]
    inside = False
    for i in range(1, len(parts), 2):
        if parts[i]:  # a close
            if not inside:
                kept.clear()
            inside = False
        else:
            inside = True
        if not inside:
            kept.append(parts[i + 1])
    return "\n".join(kept)


def _unbox(text: str) -> str:
    r"""The last ``_BOXES`` ``\boxed{X}`` (and ``$\boxed{X}$``, ``\boxed{\text{X}}``) as
    ``X``; one level of braces inside; a box left open stays as written."""
    at = text.rfind(_BOXED)
    if at == -1:
        return text
    pieces: list[str] = []
    done = len(text)
    for _ in range(_BOXES):
        begin = at + len(_BOXED)
        limit = min(done, begin + MAX_SPAN)
        end = text.find("}", begin, limit)
        if end != -1 and "{" in text[begin:end]:
            end = text.find("}", end + 1, limit)  # one nested level: \text{…}
        if end != -1:
            inner = text[begin:end].strip()
            for command in _TEXT_COMMANDS:
                if inner.startswith(command) and inner.endswith("}"):
                    inner = inner[len(command):-1].strip()
            head, tail = at, end + 1
            if text[head - 1:head] == "$" and text[tail:tail + 1] == "$":
                head, tail = head - 1, tail + 1
            pieces += [text[tail:done], inner]
            done = head
        at = text.rfind(_BOXED, 0, at)
        if at == -1:
            break
    pieces.append(text[:done])
    return "".join(reversed(pieces))


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
    return _SPACES.match(text, at).end()  # type: ignore[union-attr]


def _last_marker(text: str, *, line_start: bool) -> int | None:
    """With ``line_start``, the start of the last line opening with ``(final) answer:``
    (after spaces, tabs or ``*``); otherwise the end of the last ``answer(\\s*is)?\\s*[:：]``
    and the blanks after it.  One search of the reversed text for the marker reversed:
    the first match there is the last one here, and every attempt starts at a colon and
    crosses only the blanks before it, so the search is linear."""
    checkpoint()
    backwards = text[::-1]
    if line_start:
        found = _LINE_MARKER_REVERSED.search(backwards)
        return None if found is None else len(text) - found.end(1)
    found = _MARKER_REVERSED.search(backwards)
    return None if found is None else _skip_space(text, len(text) - found.start())


__all__ = ["MAX_SPAN", "Reply", "fold", "prepare", "too_long"]
