"""The library's file verbs: grade every reply in a file, audit every row of a dataset.

``causal_oracle.grade_file`` and ``causal_oracle.audit`` (the package exports them
beside the item verbs of ``causal_oracle.api``) are thin doors onto the engines that
read files: ``clients.grade_file`` and ``clients.audit`` (every format ``readers``
reads, column roles, worker processes).  They sit here, with their engines, so that
``api`` — the item verbs — depends on the entry layer only.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from causal_oracle.clients.audit import audit_rows, run_audit
from causal_oracle.clients.audit_report import AuditReport
from causal_oracle.clients.grade_file import GradeFileResult
from causal_oracle.clients.grade_file import grade_file as run_grade_file
from causal_oracle.clients.row_audit import Columns
from causal_oracle.entry import InputError, Profile, profile_of


def grade_file(path: str | os.PathLike[str], *, reply_column: str | None = None,
               prompt_column: str | None = None, task: str | None = None,
               profile: str | Profile = Profile.CORR2CAUSE,
               records: str | os.PathLike[str] | None = None,
               reasoning: bool = False) -> GradeFileResult:
    """Grade every reply in a file of prompts and replies (``causal-oracle grade FILE``).

    Each row's question is read as ``audit`` reads rows (or from its ``prompt`` column),
    its reply from ``reply_column`` (detected among ``response``, ``completion``,
    ``output``, ``prediction``, ``answer`` when exactly one is present), and graded as
    ``grade`` grades one reply; see ``clients.grade_file`` for every count.
    ``reasoning`` also checks each reply's causal claims (``check_reasoning``): the
    claims, the false ones, and the share of right answers that rest on a false claim.

    Returns
    -------
    GradeFileResult
        ``rows`` (per row: ``Grade`` or the error that kept it from being graded, and the
        verdict against the file's gold), ``summary``, ``by_family``, ``by_task``
        (``accuracy``, ``unreadable_share``, ``accuracy_readable``, ``accuracy_gold``…);
        ``to_json()`` is what ``grade FILE --json`` prints.

    Raises
    ------
    InputError
        The file is missing or unreadable, a named column is absent, the reply column is
        ambiguous, or no row could be graded.

    Examples
    --------
    >>> import causal_oracle as co, json, tempfile, pathlib
    >>> item = ("Premise: Suppose there is a closed system of 2 variables, A and B. All "
    ...         "the statistical relations among these 2 variables are as follows: A "
    ...         "correlates with B.\\nHypothesis: A directly causes B.")
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "replies.jsonl").write_text("\\n".join(json.dumps(
    ...     {"prompt": item, "response": reply}) for reply in ("No.", "Yes.", "Hmm")))
    >>> result = co.grade_file(folder / "replies.jsonl")
    >>> s = result.summary
    >>> s.items, s.correct, s.scored - s.readable, s.accuracy, s.accuracy_readable
    (3, 1, 1, 0.3333, 0.5)
    """
    return run_grade_file(path, reply_column=reply_column, prompt_column=prompt_column,
                          task=task, profile=profile, records=records, reasoning=reasoning)


def audit(source: str | os.PathLike[str] | Iterable[dict[str, Any]], *,
          profile: str | Profile = Profile.CORR2CAUSE, workers: int = 1,
          columns: dict[str, str] | None = None) -> AuditReport:
    """Re-derive every gold label of a dataset and report each disagreement.

    Parameters
    ----------
    source : path or iterable of dict
        Any source ``causal-oracle audit`` reads (JSON lines or array, CSV/TSV, Parquet, a
        ``datasets`` folder), or rows in memory.  Corr2Cause rows have
        ``premise``/``hypothesis``/``label`` (the generator's layout) or
        ``input``/``label`` (the published layout); CI-Bench and IE rows have
        ``task``, ``prompt`` and ``truth``/``label``; CLEAR rows have
        ``description``, ``question``, ``answer``, ``task_type``; a ``.json`` file
        is a Corr2Cause++ array of ``query``/``label``/``relation_type``/
        ``forced_edges`` (labelled by the ``compelled`` profile).
    profile : str or Profile
        The semantics profile for Corr2Cause rows.
    workers : int
        Worker processes for a file (rows in memory are audited in this process).
    columns : dict, optional
        Column names that differ from the defaults, e.g. ``{"label": "gold"}``;
        keys ``premise``, ``hypothesis``, ``input``, ``label``, ``relation``, ``id``.

    Returns
    -------
    AuditReport
        ``summary`` counts (items, agree, disagree, ambiguous, inconsistent,
        unreadable), the ``disagreements`` with their certificates, the
        ``inconsistent`` premises with reasons, the ``unreadable`` rows with
        their errors; ``to_json()`` is the report ``causal-oracle audit`` writes.

    Raises
    ------
    InputError
        The file does not exist, or an unknown column key or profile is given.
        A bad row is never an error: it is counted as unreadable.

    Examples
    --------
    >>> import causal_oracle as co
    >>> premise = ("Suppose there is a closed system of 3 variables, A, B and C. "
    ...            "All the statistical relations among these 3 variables are as follows: "
    ...            "A correlates with C. B correlates with C. However, A is independent of B.")
    >>> rows = [{"premise": premise, "hypothesis": "A directly causes C.", "label": 1},
    ...         {"premise": premise, "hypothesis": "C directly causes A.", "label": 1},
    ...         {"premise": premise, "hypothesis": "A directly causes", "label": 0}]
    >>> report = co.audit(rows)
    >>> s = report.summary
    >>> s.items, s.agree, s.disagree, s.unreadable
    (3, 1, 1, 1)
    >>> report.disagreements[0]["derived_relation"]
    'contradiction'
    """
    prof = profile_of(profile).value
    known = set(Columns.__dataclass_fields__)
    unknown = set(columns or {}) - known
    if unknown:
        raise InputError(f"unknown column key(s) {', '.join(sorted(unknown))}; expected "
                         f"{', '.join(sorted(known))}")
    cols = Columns(**(columns or {}))
    if isinstance(source, str | os.PathLike):
        path = Path(source)
        if not path.exists():
            raise InputError(f"no such file or folder: {path}")
        return run_audit(path, cols=cols, profile=prof, workers=max(1, workers))
    return audit_rows(source, cols=cols, profile=prof)


__all__ = ["AuditReport", "GradeFileResult", "audit", "grade_file"]
