"""The intervention-effect (IE) benchmark's template files: read as rows, rendered as prompts.

Upstream ships IE questions as ``|``-separated template files.  A template row
(``dag|prompt|question|label``) has placeholders ``<T1>``…``<T3>`` (variable names),
``<vT1>``…``<vT3>`` (their intervention values) and ``<do>`` (the renamed do-operator of
the "substitution" variant).  Upstream draws distinct random capital letters for the
names with the lower-case letter as the value, and a random 3–5 letter lower-case word
for the operator; a model sees
``prompt + ". \\n" + question``.

A template row met in any delimited file a surface reads (columns ``prompt``,
``question``, ``label`` and no ``task``) is an IE row with the question appended to the
prompt as upstream joins them, placeholders kept (``template_task_row``: what the IE
family's ``Family.template_row`` hook answers, so the readers never name the family).

Public functions: ``read_templates``, ``render_ie_prompt``, ``template_task_row``.
"""

from __future__ import annotations

import random
import string
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

TASK = "IE"  #: the task column every IE row carries
#: the columns of an upstream template file's rows (besides ``dag``)
TEMPLATE_COLUMNS = frozenset({"prompt", "question", "label"})


def read_templates(path: str | Path) -> list[dict[str, str]]:
    """The rows of one ``|``-separated template file, each with its ``source`` and ``row``."""
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    header = lines[0].split("|")
    rows = []
    for number, line in enumerate(lines[1:], start=1):
        if not line.strip():
            continue
        row = dict(zip(header, line.split("|"), strict=True))
        row["source"] = f"{Path(path).parent.name}/{Path(path).name}"
        row["row"] = str(number)
        rows.append(row)
    return rows


def render_ie_prompt(template_row: dict[str, str], rng: random.Random,
                     names: Sequence[str] | None = None,
                     values: Sequence[str] | None = None,
                     operator: str | None = None) -> dict[str, str]:
    """Fill a template row: ``{"task": "IE", "prompt", "label", "names", "operator", ...}``.

    >>> row = {"prompt": "I'm going to describe a causal graphical model. There are two "
    ...        "variables: <T1> and <T2>. <T1> causes <T2>. These are all the causal "
    ...        "relationships in the graph", "question": "In this causal graphical model, "
    ...        "does <T1> cause <T2>?", "label": "yes"}
    >>> render_ie_prompt(row, random.Random(0), names=["Rain", "Mud"])["prompt"][-55:]
    '. \\nIn this causal graphical model, does Rain cause Mud?'
    """
    if names is None:
        letters = rng.sample(string.ascii_uppercase, 3)
        names = letters
        if values is None:
            values = [x.lower() for x in letters]
    if values is None:
        values = [f"v{i + 1}" for i in range(len(names))]
    if operator is None:
        operator = "".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randint(3, 5)))
    text = template_row["prompt"] + ". \n" + template_row["question"]
    text = text.replace("<do>", operator)
    for i in range(len(names) - 1, -1, -1):
        text = text.replace(f"<vT{i + 1}>", values[i]).replace(f"<T{i + 1}>", names[i])
    out = {"task": TASK, "prompt": text, "label": template_row["label"].strip(),
           "names": list(names), "values": list(values),
           "operator": operator if "<do>" in template_row["prompt"] else "do"}
    for key in ("source", "row"):
        if key in template_row:
            out[key] = template_row[key]
    return out


def template_task_row(row: Mapping[str, Any]) -> dict[str, Any] | None:
    """A template file's row as an IE task row (the question appended to the prompt as
    upstream joins them; the placeholders stay), or None for a row that names its task
    or lacks a template column.

    >>> template_task_row({"dag": "x", "prompt": "P", "question": "Q?", "label": " yes"})
    {'dag': 'x', 'label': 'yes', 'task': 'IE', 'prompt': 'P. \\nQ?'}
    >>> template_task_row({"task": "IE", "prompt": "P", "question": "Q?", "label": "yes"}) is None
    True
    """
    if "task" in row or not row.keys() >= TEMPLATE_COLUMNS:
        return None
    out = {k: v for k, v in row.items() if k not in ("prompt", "question")}
    out.update(task=TASK, prompt=f"{row['prompt']}. \n{row['question']}",
               label=str(row["label"]).strip())
    return out


__all__ = ["TASK", "TEMPLATE_COLUMNS", "read_templates", "render_ie_prompt", "template_task_row"]
