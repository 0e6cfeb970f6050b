"""Grading the answers people already have: a file of prompts and replies, graded.

A model ran elsewhere (an API, another cluster) and left a file of prompts and its
replies.  ``grade_file(path)`` reads it in any layout the readers take (JSONL, JSON,
CSV/TSV, Parquet, ``datasets`` folders), grades every reply exactly as
``causal_oracle.grade`` does one, and counts.

Per row:

* the **reply** is the column ``reply_column`` names, else the one of ``response``,
  ``completion``, ``output``, ``prediction``, ``answer`` present (several or none: an
  error naming them; ``clients.columns.reply_column``);
* the **question** is read as the audit reads a row — the first registered family that
  claims the row (without its reply column) gives its prompt, task and gold — or, for a
  row no family claims, the text of ``prompt_column`` (default: the first of
  ``prompt``, ``input``, ``question``, ``text``), its family detected from the text
  (``task`` forces one);
* a row that cannot be read, has no reply, or whose question the oracle cannot read is
  an **error** row: counted, never graded.

Counts (``Tally``), overall, by family and by task: ``items``; ``errors``;
``ungradable`` (no answer is right); ``scored`` (the rest); ``readable`` replies among
them; ``correct``.  Rates: ``accuracy`` = correct / scored (an unreadable reply is not
correct), ``unreadable_share`` = unreadable / scored, ``accuracy_readable`` = correct /
readable.  Where a row has a gold the family reads (a yes/no label, a CLEAR answer),
the reply is also graded against that gold, side by side on the same rows:
``gold_rows``, ``correct_on_gold_rows`` (by the oracle) and ``correct_gold`` (by the
file's gold: where the gold is right this is the oracle's grade; where the oracle finds
it wrong, the reply must read as the gold does).  Where the row's family has the
benchmark's own scoring rule (``Family.benchmark_rule``, e.g. CaLM's, as OpenCompass
scores it), the reply is graded by it too: ``benchmark_rule_rows`` and
``correct_benchmark_rule``, its rate ``accuracy_benchmark_rule`` (the table's
``acc.rule`` column, shown when some row has it).  A rate with nothing to divide is None.

With ``reasoning`` (``--reasoning``) each gradable reply's causal claims are also
checked against the certificate (``entry.reasoning``): each record gains
``reasoning`` (its claims with spans, verdicts and why; ``checkable``,
``false_claims``, ``score``, ``lucky``, ``unsupported``) and each tally ``reasoning``
(``clients.reasoning_columns``: claims, false claims, ``reasoning_score``, and
``lucky_share`` — the share of right answers that rest on a false claim); the table
gains the columns claims, false, score, lucky.  Without it nothing changes.

The replies are graded by any ``Oracle`` (``entry.oracle_protocol``: the in-process
service by default, or the gRPC client); rows are read by the family registry
(``Registry.row``).  Reasoning checks run in this process (they need the solved
question, which no remote oracle sends): with the oracle given when it is the
in-process ``Service``, else with the default one.

``--records OUT.jsonl`` streams one record per row; ``to_json()`` is the ``--json``
output and the ``--report`` file, and what ``--html`` renders through the audit page's
pieces (``clients.grade_html``).
"""

from __future__ import annotations

import argparse
import io
import json
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import IO, Any

from causal_oracle.clients import columns as roles
from causal_oracle.clients import readers, reasoning_columns
from causal_oracle.clients.outputs import atomic_output
from causal_oracle.clients.reasoning_columns import ReasoningTally, row_reasoning
from causal_oracle.entry import (
    REGISTRY,
    Grade,
    InputError,
    Item,
    OracleError,
    Profile,
    Service,
    binary_gold,
    default,
    profile_of,
)
from causal_oracle.entry.oracle_protocol import Oracle
from causal_oracle.entry.reasoning import check_reasoning


def add_file_options(p: argparse.ArgumentParser) -> None:
    """The options of ``grade FILE`` (beside ``--task``, ``--json`` and the limits)."""
    p.add_argument("--reply-column", metavar="NAME",
                   help="column of the model's replies (default: the one of "
                        f"{', '.join(roles.REPLY_CANDIDATES)} present)")
    p.add_argument("--prompt-column", metavar="NAME",
                   help="column of the question text, for rows no benchmark layout claims "
                        f"(default: the first of {', '.join(roles.PROMPT_CANDIDATES)})")
    p.add_argument("--records", metavar="OUT.jsonl",
                   help="write one JSON record per row (grade, reading, gold)")
    p.add_argument("--report", metavar="OUT.json", help="write the JSON report here")
    p.add_argument("--html", metavar="OUT.html",
                   help="write a self-contained HTML page: the summary and every row")
    p.add_argument("--reasoning", action="store_true",
                   help="also check every reply's causal claims against the certificate: "
                        "claims, false claims, score, and the right answers that rest on "
                        "a false claim (lucky)")


# ---- counts -------------------------------------------------------------------------------

def _rate(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None


@dataclass
class Tally:
    """Counts of graded rows (see the module docstring for each)."""

    items: int = 0
    errors: int = 0
    ungradable: int = 0
    scored: int = 0
    readable: int = 0
    correct: int = 0
    gold_rows: int = 0
    correct_on_gold_rows: int = 0
    correct_gold: int = 0
    benchmark_rule_rows: int = 0
    correct_benchmark_rule: int = 0
    #: the reasoning counts (None: the reasoning was not checked)
    reasoning: ReasoningTally | None = None

    def add(self, row: GradedRow) -> None:
        self.items += 1
        grade = row.grade
        if grade is None:
            self.errors += 1
            return
        if not grade.gradable:
            self.ungradable += 1
            return
        self.scored += 1
        self.readable += grade.readable
        self.correct += grade.correct
        if row.correct_gold is not None:
            self.gold_rows += 1
            self.correct_on_gold_rows += grade.correct
            self.correct_gold += row.correct_gold
        if row.benchmark_rule is not None:
            self.benchmark_rule_rows += 1
            self.correct_benchmark_rule += row.benchmark_rule
        if row.reasoning is not None:
            self.reasoning = self.reasoning or ReasoningTally()
            self.reasoning.add_row(row.reasoning, grade.correct)

    @property
    def accuracy(self) -> float | None:
        return _rate(self.correct, self.scored)

    @property
    def unreadable_share(self) -> float | None:
        return _rate(self.scored - self.readable, self.scored)

    @property
    def accuracy_readable(self) -> float | None:
        return _rate(self.correct, self.readable)

    @property
    def accuracy_gold(self) -> float | None:
        return _rate(self.correct_gold, self.gold_rows)

    @property
    def accuracy_oracle_on_gold_rows(self) -> float | None:
        return _rate(self.correct_on_gold_rows, self.gold_rows)

    @property
    def accuracy_benchmark_rule(self) -> float | None:
        return _rate(self.correct_benchmark_rule, self.benchmark_rule_rows)

    def to_json(self) -> dict[str, Any]:
        counts = {k: v for k, v in asdict(self).items() if k != "reasoning"}
        out = {**counts, "accuracy": self.accuracy,
               "unreadable_share": self.unreadable_share,
               "accuracy_readable": self.accuracy_readable,
               "accuracy_oracle_on_gold_rows": self.accuracy_oracle_on_gold_rows,
               "accuracy_gold": self.accuracy_gold,
               "accuracy_benchmark_rule": self.accuracy_benchmark_rule}
        if self.reasoning is not None:
            out["reasoning"] = self.reasoning.to_json()
        return out


@dataclass(frozen=True)
class GradedRow:
    """One row: its reference (file line or record number), id, family and task, the
    ``Grade`` (None for an error row, with ``error`` saying why), the gold the reply was
    also judged by and that verdict (None: the row has no gold the family reads), and the
    benchmark's own rule's verdict (None: its family has none for this row)."""

    row: int
    id: str | None
    family: str
    task: str
    grade: Grade | None
    error: str | None = None
    gold: str | None = None
    correct_gold: bool | None = None
    benchmark_rule: bool | None = None
    #: the reply's checked claims (``reasoning_columns.row_reasoning``; None: not checked)
    reasoning: dict[str, Any] | None = None

    @property
    def outcome(self) -> str:
        """``correct``, ``wrong``, ``UNREADABLE``, ``ungradable`` or ``error``."""
        return "error" if self.grade is None else self.grade.grade

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"row": self.row, "id": self.id, "family": self.family,
                               "task": self.task, "outcome": self.outcome}
        if self.grade is not None:
            g = self.grade
            out.update(correct=g.correct, readable=g.readable, gradable=g.gradable,
                       normalised=g.normalised, expected=g.expected, reason=g.reason)
        else:
            out["error"] = self.error
        out.update(gold=self.gold, correct_gold=self.correct_gold,
                   benchmark_rule=self.benchmark_rule)
        if self.reasoning is not None:
            out["reasoning"] = self.reasoning
        return out


@dataclass
class GradeFileResult:
    """What ``grade_file`` returns: the per-row grades and the counts."""

    source: dict[str, Any] = field(default_factory=dict)
    rows: list[GradedRow] = field(default_factory=list)
    summary: Tally = field(default_factory=Tally)
    by_family: dict[str, Tally] = field(default_factory=dict)
    by_task: dict[str, Tally] = field(default_factory=dict)

    def add(self, row: GradedRow) -> None:
        self.rows.append(row)
        self.summary.add(row)
        if row.grade is not None:
            self.by_family.setdefault(row.family, Tally()).add(row)
            self.by_task.setdefault(row.task, Tally()).add(row)

    def to_json(self) -> dict[str, Any]:
        return {"source": self.source, "summary": self.summary.to_json(),
                "by_family": {k: v.to_json() for k, v in sorted(self.by_family.items())},
                "by_task": {k: v.to_json() for k, v in sorted(self.by_task.items())},
                "records": [r.to_json() for r in self.rows]}


# ---- reading and grading ------------------------------------------------------------------

@dataclass(frozen=True)
class _Question:
    text: str
    task: str | None
    gold: Any  # the row's gold as the file has it (None: none)
    key: str | None
    item: Item | None = None  # the row as its family reads it (None: read from text)


def _gold_text(gold: Any, binary: bool) -> str | None:
    """The gold as a reply would say it: yes/no for a yes/no family's 0/1 label, the text
    otherwise (None: no gold a reply reader could read)."""
    if binary:
        label = binary_gold(gold)
        return None if label is None else "yes" if label else "no"
    if isinstance(gold, bool) or not isinstance(gold, str | int | float):
        return None
    return str(gold).strip() or None


def _question(row: dict[str, Any], prompt_column: str | None, task: str | None
              ) -> _Question:
    if prompt_column is None:
        item = REGISTRY.row(row)
        if item is not None:
            gold = ("yes" if item.binary else "no") if item.binary is not None else item.gold
            return _Question(item.prompt, task or item.task, gold, item.key, item)
    column = prompt_column or next((c for c in roles.PROMPT_CANDIDATES if c in row), None)
    if column is None or not isinstance(row.get(column), str):
        raise InputError(f"no question: no benchmark reads this row and it has no "
                         f"{' / '.join(roles.PROMPT_CANDIDATES)} text (columns: "
                         f"{', '.join(row) or 'none'})")
    label = next((row[c] for c in roles.ALIASES["label"] if c in row), None)
    own_task = row.get("task")
    key = next((str(row[c]) for c in roles.ALIASES["id"] if row.get(c) not in (None, "")),
               None)
    return _Question(row[column], task or (str(own_task) if own_task else None), label, key)


def grade_row(oracle: Oracle, ref: int, row: dict[str, Any], reply_column: str,
              prompt_column: str | None = None, task: str | None = None,
              profile: Profile = Profile.CORR2CAUSE, reasoning: bool = False) -> GradedRow:
    """Grade one row with ``oracle`` (never raises on bad input: an error row says why);
    ``reasoning``: also check the reply's claims (in this process: ``oracle`` when it is
    the in-process ``Service``, else the default one)."""
    reply = row.get(reply_column)
    rest = {k: v for k, v in row.items() if k != reply_column}
    try:
        question = _question(rest, prompt_column, task)
    except InputError as error:
        return GradedRow(ref, None, "", "", None, error.describe())
    if not isinstance(reply, str):
        return GradedRow(ref, question.key, "", question.task or "", None,
                         f"no reply: {reply_column!r} is "
                         f"{'missing' if reply is None else type(reply).__name__}")
    try:
        grade = oracle.grade(question.text, reply, question.task, profile=profile)
        said = _gold_text(question.gold, REGISTRY.get(grade.family).binary)
        gold = None if said is None else \
            oracle.grade(question.text, said, question.task, profile=profile)
        checked = None
        if reasoning and grade.gradable:
            local = oracle if isinstance(oracle, Service) else default()
            checked = row_reasoning(check_reasoning(local, question.text, reply,
                                                    question.task, profile=profile), reply)
    except OracleError as error:
        message = error.describe() if isinstance(error, InputError) else str(error)
        return GradedRow(ref, question.key, "", question.task or "", None, message)
    correct_gold = None
    if gold is not None and gold.readable and gold.gradable and grade.gradable:
        correct_gold = grade.correct if gold.correct else \
            grade.readable and grade.normalised == gold.normalised
    return GradedRow(ref, question.key, grade.family, grade.task, grade,
                     gold=said if correct_gold is not None else None,
                     correct_gold=correct_gold,
                     benchmark_rule=_benchmark_rule(question.item, reply), reasoning=checked)


def _benchmark_rule(item: Item | None, reply: str) -> bool | None:
    """The benchmark's own verdict on ``reply`` (``Family.benchmark_rule``), None when the
    row was not read as a family's item or its family has no rule for it."""
    if item is None:
        return None
    try:
        return REGISTRY.get(item.family).benchmark_rule(item, reply)
    except InputError:
        return None


def _rows(source: readers.Source) -> Iterator[tuple[int, dict[str, Any] | None, str | None]]:
    for record in source.records():
        yield record.ref, record.row, record.error


def grade_file(path: str | Path, *, reply_column: str | None = None,
               prompt_column: str | None = None, task: str | None = None,
               profile: str | Profile = Profile.CORR2CAUSE,
               records: str | Path | None = None,
               service: Oracle | None = None, reasoning: bool = False) -> GradeFileResult:
    """Grade every reply in ``path`` (see the module docstring).

    Parameters
    ----------
    path : str or Path
        A JSONL, JSON, CSV/TSV or Parquet file, or a ``datasets`` folder.
    reply_column : str, optional
        The column of the replies (default: detected; an error when ambiguous).
    prompt_column : str, optional
        The column of the question text, for rows no benchmark layout claims.
    task : str, optional
        A family or task name that every row's question is read as.
    profile : str or Profile
        The semantics profile of Corr2Cause items.
    records : path, optional
        Write one JSON record per row here (streamed; replaced only when complete).
    service : Oracle, optional
        What grades the replies (default: the in-process service; the gRPC client's
        ``RemoteOracle`` too).
    reasoning : bool
        Also check each reply's causal claims (the module docstring).

    Returns
    -------
    GradeFileResult
        ``rows`` (``GradedRow``), ``summary``/``by_family``/``by_task`` (``Tally``),
        ``to_json()``.

    Raises
    ------
    InputError
        The file is missing or unreadable, a named column is absent (the message lists
        the columns present), the reply column is ambiguous, or no row could be read.
    """
    oracle: Oracle = service or default()
    prof = profile_of(profile)
    source = readers.open_source(path)
    columns = source.columns()
    if reply_column is not None and not source.has_column(reply_column):
        raise roles.missing_column("--reply-column", reply_column, columns)
    reply = roles.reply_column(columns, reply_column) if reply_column is None else reply_column
    if prompt_column is not None and not source.has_column(prompt_column):
        raise roles.missing_column("--prompt-column", prompt_column, columns)
    result = GradeFileResult(source={"path": str(path), "format": source.describe(),
                                     "unit": source.unit, "columns": columns,
                                     "reply_column": reply, "prompt_column": prompt_column})
    with ExitStack() as stack:
        out: IO[str] | None = None
        if records is not None:
            out = stack.enter_context(atomic_output(records, "w"))
        for ref, row, error in _rows(source):
            graded = GradedRow(ref, None, "", "", None, readers.at_row(source.unit, ref, error)) \
                if row is None else grade_row(oracle, ref, row, reply, prompt_column, task, prof,
                                              reasoning)
            result.add(graded)
            if out is not None:
                out.write(json.dumps(graded.to_json(), ensure_ascii=False) + "\n")
    if result.summary.items == 0:
        raise InputError(f"{path}: no rows; columns found: {', '.join(columns) or 'none'}")
    if result.summary.errors == result.summary.items:
        first = result.rows[0]
        raise InputError(f"{path}: none of the {result.summary.items} rows could be graded; "
                         f"first: {readers.at_row(source.unit, first.row, first.error)}")
    return result


# ---- the table ----------------------------------------------------------------------------

def _pct(rate: float | None) -> str:
    return "-" if rate is None else f"{100 * rate:.1f}%"


def summary_table(result: GradeFileResult) -> str:
    """The summary ``grade FILE`` prints: one line overall, per family and per task."""
    names = [("overall", result.summary)]
    names += [(f"family {k}", v) for k, v in sorted(result.by_family.items())]
    names += [(f"task {k}", v) for k, v in sorted(result.by_task.items())]
    width = max(22, *(len(n) + 2 for n, _ in names))
    rule = result.summary.benchmark_rule_rows > 0
    reasoned = result.summary.reasoning is not None
    head = (f"{'':<{width}}{'items':>7}{'errors':>7}{'ungrad.':>8}{'scored':>7}"
            f"{'unread.':>8}{'correct':>8}{'acc.':>8}{'acc.read':>9}"
            f"{'gold':>6}{'acc.orc':>8}{'acc.gold':>9}" + (f"{'acc.rule':>9}" if rule else "")
            + (reasoning_columns.heading() if reasoned else ""))
    buf = io.StringIO()
    buf.write(head + "\n" + "-" * len(head) + "\n")
    for name, t in names:
        buf.write(f"{name:<{width}}{t.items:>7}{t.errors:>7}{t.ungradable:>8}{t.scored:>7}"
                  f"{t.scored - t.readable:>8}{t.correct:>8}{_pct(t.accuracy):>8}"
                  f"{_pct(t.accuracy_readable):>9}{t.gold_rows:>6}"
                  f"{_pct(t.accuracy_oracle_on_gold_rows):>8}{_pct(t.accuracy_gold):>9}"
                  + (f"{_pct(t.accuracy_benchmark_rule):>9}" if rule else "")
                  + (reasoning_columns.cells((t.reasoning or ReasoningTally()).to_json())
                     if reasoned else "") + "\n")
    buf.write("acc. = correct / scored (an unreadable reply is not correct); acc.read = "
              "correct / readable;\ngold: rows with a gold the family reads; acc.orc / "
              "acc.gold: the same rows graded by the oracle / by the file's gold.\n")
    if rule:
        buf.write("acc.rule: the rows whose benchmark has its own scoring rule, graded by "
                  "it (e.g. CaLM's, as OpenCompass scores).\n")
    if result.summary.reasoning is not None:
        buf.write(reasoning_columns.NOTE)
        buf.write(reasoning_columns.lucky_line(result.summary.reasoning.to_json()))
    errors = [r for r in result.rows if r.grade is None]
    if errors:
        first = errors[0]
        buf.write(f"error rows: {len(errors)}, first: "
                  f"{readers.at_row(result.source.get('unit', 'row'), first.row, first.error)}"
                  "\n")
    return buf.getvalue()


__all__ = ["GradeFileResult", "GradedRow", "Tally", "add_file_options", "grade_file",
           "grade_row", "summary_table"]
