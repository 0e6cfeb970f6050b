"""Prompts: the benchmark's own zero-shot text, or a template file.

* CI-Bench and IE items: the item's ``prompt``, exactly as the benchmark shows it.
* Corr2Cause: the published layout ("Premise: …\\nHypothesis: …", the dataset's
  ``input`` column) followed by the yes/no question, in the style of the zero-shot
  evaluation of the Corr2Cause paper — ``DEFAULT_CORR2CAUSE_TEMPLATE`` below, also
  shipped as ``examples/corr2cause_prompt_template.txt`` to copy and edit.

A template file is UTF-8 text (anything else is refused, naming the file) with
placeholders, substituted literally (no other
brace is special, nothing is evaluated):

``{prompt}``      the item's own text (for Corr2Cause, the published layout);
``{premise}``, ``{hypothesis}``  Corr2Cause only;
``{task}``        corr2cause, CP, BA, FI, CI or IE.

A template must contain ``{prompt}`` or both ``{premise}`` and ``{hypothesis}``;
``{premise}``/``{hypothesis}`` on a CI-Bench or IE item is an error.

Answer words for the logits mode: the positive word first (" Yes"), then the
negative (" No"); a Corr2Cause "yes" means the hypothesis is valid (label 1).
"""

from __future__ import annotations

from pathlib import Path

from causal_oracle.clients.evaluate.data import CORR2CAUSE, Item
from causal_oracle.entry import InputError

DEFAULT_CORR2CAUSE_TEMPLATE = (
    "{prompt}\n"
    "Question: Given the premise, is the hypothesis necessarily true? "
    "Answer with Yes or No.\n"
    "Answer:"
)
ANSWER_WORDS = ("Yes", "No")

class Prompter:
    """Renders items; ``template`` None means the benchmark's own prompt."""

    def __init__(self, template: str | None = None) -> None:
        if template is not None and "{prompt}" not in template and not (
                "{premise}" in template and "{hypothesis}" in template):
            raise InputError("a prompt template needs {prompt}, or {premise} and {hypothesis}")
        self.template = template

    @classmethod
    def from_file(cls, path: str | Path | None) -> Prompter:
        if path is None:
            return cls(None)
        p = Path(path)
        if not p.is_file():
            raise InputError(f"no such template file: {p}")
        try:
            text = p.read_text(encoding="utf-8")
        except UnicodeDecodeError as error:
            raise InputError(f"template file {p}: not UTF-8 text (byte {error.start}: "
                             f"{error.reason})") from None
        return cls(text.rstrip("\n"))

    def render(self, item: Item) -> str:
        if self.template is None:
            if item.task == CORR2CAUSE:
                return fill(DEFAULT_CORR2CAUSE_TEMPLATE, item)
            return item.prompt
        if item.task != CORR2CAUSE and ("{premise}" in self.template
                                        or "{hypothesis}" in self.template):
            raise InputError(f"item {item.key}: the template uses {{premise}}/{{hypothesis}}, "
                             f"but a {item.task} item has only {{prompt}}")
        return fill(self.template, item)


def fill(template: str, item: Item) -> str:
    """Substitute the placeholders literally, in one pass (a value is never re-read)."""
    values = {"{prompt}": item.prompt, "{premise}": item.premise,
              "{hypothesis}": item.hypothesis, "{task}": item.task}
    out, i = [], 0
    while i < len(template):
        for name, value in values.items():
            if template.startswith(name, i):
                out.append(value)
                i += len(name)
                break
        else:
            out.append(template[i])
            i += 1
    return "".join(out)
