"""The library API: the verbs an evaluation pipeline calls in-process.

A benchmark item is *verified* when the oracle has derived its correct answer,
attached a certificate, and had that certificate re-verified by the independent
checker (``causal_oracle.oracle.check``, each family's ``oracle/<family>/check.py``,
which share no code with the solvers).  Every result returned here has been verified;
a certificate the checker rejects raises instead of being returned.

Corr2Cause items (DESIGN.md §3.1) are a premise — a closed-world list of
correlations and conditional independences — and a hypothesis about one ordered
pair of variables.  The label is *entailment* when the hypothesis holds in every
DAG of the premise's Markov equivalence class, *contradiction* when it holds in
none, *neutral* otherwise; the binary label is 1 iff entailment, and a premise no
DAG fits is *inconsistent* (no label).  Other tasks (DESIGN.md §3.2–3.3): CI-Bench
CP, BA, FI, CI and the intervention-effect questions (IE).

Verbs
-----
verify(premise, hypothesis=None, *, profile="corr2cause")
    Label one Corr2Cause item → ``VerifyResult``.
explain(prompt_or_premise, hypothesis=None, *, task=None, profile=..., format="text")
    Why the answer to a question of any family is right, in words (or JSON / Graphviz
    DOT where the family draws a graph) → ``str``.
answer(prompt, task=None)
    The certified answer to a CP/BA/FI/CI/IE question or a Corr2Cause item
    → ``TaskAnswer``.
grade(prompt, model_answer, task=None)
    Read a model's answer and grade it against the oracle → ``Grade``.
check_reasoning(prompt, reply, task=None, *, profile="corr2cause")
    Read every causal claim of a reply's reasoning and check it against the certificate
    → ``ReasoningResult``.
grade_file(path, *, reply_column=None, ...)
    Grade every reply in a file of prompts and replies → ``GradeFileResult``.
audit(source, *, profile=..., workers=1, columns=None)
    Re-derive every gold label of a dataset (a file or rows) → ``AuditReport``.

Errors: ``InputError`` (``ParseError`` for text the grammar rejects, with line,
column and the expected tokens) for bad input; ``BudgetExceeded`` when a size or
time budget is exceeded.  Both derive from ``OracleError``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from causal_oracle.clients.audit import audit_rows, run_audit
from causal_oracle.clients.audit_report import AuditReport
from causal_oracle.clients.grade_file import GradeFileResult
from causal_oracle.clients.grade_file import grade_file as run_grade_file
from causal_oracle.clients.row_audit import Columns
from causal_oracle.entry import (
    BudgetExceeded,
    CertificateRejected,
    Grade,
    InputError,
    OracleError,
    ParseError,
    Profile,
    TaskAnswer,
    VerifyResult,
    default,
    profile_of,
)
from causal_oracle.entry.reasoning import ReasoningResult
from causal_oracle.entry.reasoning import check_reasoning as _check_reasoning

_EXPLANATION_FORMATS = ("text", "json", "dot")


def verify(premise: str, hypothesis: str | None = None, *,
           profile: str | Profile = Profile.CORR2CAUSE) -> VerifyResult:
    """Label a Corr2Cause hypothesis against its premise.

    Parameters
    ----------
    premise : str
        The premise text exactly as the benchmark writes it — or, with
        ``hypothesis`` omitted, the published layout
        ``"Premise: …\\nHypothesis: …"``.
    hypothesis : str, optional
        The hypothesis text ("A directly causes B.", paraphrases included).
    profile : {"corr2cause", "loose", "strict"} or Profile
        The semantics profile (DESIGN.md §3.1); default ``"corr2cause"``.

    Returns
    -------
    VerifyResult
        ``label`` (1, 0, or None when the premise is inconsistent), ``relation``
        (entailment / neutral / contradiction / inconsistent), ``class_size``,
        ``holds_in``, ``ambiguous``; ``reason()`` is one line of why,
        ``summary()`` a JSON-ready dict, ``explain(fmt)`` the derivation.

    Raises
    ------
    ParseError
        The text is not Corr2Cause text; the message gives line, column and the
        expected tokens.
    InputError
        The text parses but is not a valid item (e.g. an unknown variable).
    BudgetExceeded
        The premise is over a size or solver budget.

    Examples
    --------
    >>> import causal_oracle as co
    >>> premise = ("Suppose there is a closed system of 3 variables, A, B and C. "
    ...            "All the statistical relations among these 3 variables are as follows: "
    ...            "A correlates with C. B correlates with C. However, A is independent of B.")
    >>> result = co.verify(premise, "A directly causes C.")
    >>> result.label, result.relation, result.class_size
    (1, 'entailment', 1)
    >>> co.verify(premise, "C directly causes A.").relation
    'contradiction'
    >>> co.verify("Premise: " + premise + "\\nHypothesis: A causes something else which "
    ...           "causes C.").label
    0
    """
    prof = profile_of(profile)
    if hypothesis is None:
        return default().verify_input(premise, prof)
    return default().verify(premise, hypothesis, prof)


def explain(premise: str, hypothesis: str | None = None, *, task: str | None = None,
            profile: str | Profile = Profile.CORR2CAUSE, format: str = "text") -> str:
    """Explain the answer to one question of any family: the derivation in words.

    Parameters
    ----------
    premise : str
        A Corr2Cause premise (with ``hypothesis``), or — with ``hypothesis`` omitted —
        the question of any registered family, as for ``answer``.
    hypothesis : str, optional
        The Corr2Cause hypothesis.
    task : str, optional
        A family or task name (detected from the text when omitted).
    profile
        As for ``verify``.
    format : {"text", "json", "dot"}
        Plain text (Corr2Cause: adjacencies, colliders, forced orientations, the class,
        the hypothesis per member); JSON (the family's derivation as data where it has
        one — Corr2Cause's — else the answer and the words); or Graphviz DOT of the
        question's graph, for the families that have one.

    Returns
    -------
    str

    Raises
    ------
    InputError, ParseError, BudgetExceeded
        As for ``verify``; ``InputError`` also for an unknown ``format``, or ``dot`` for
        a family with no graph.

    Examples
    --------
    >>> import causal_oracle as co
    >>> premise = ("Suppose there is a closed system of 3 variables, A, B and C. "
    ...            "All the statistical relations among these 3 variables are as follows: "
    ...            "A correlates with C. B correlates with C. However, A is independent of B.")
    >>> text = co.explain(premise, "A directly causes C.")
    >>> print(text.splitlines()[-1])
    Conclusion: entailment (valid): the relation holds in every member.
    >>> "C is a collider A→C←B" in text
    True
    >>> print(co.explain("Given a DAG (directed acyclic graph) with nodes A, B and "
    ...                  "directed edges A->B. Is there a directed path from A to B?",
    ...                  format="dot").splitlines()[0])
    digraph clear {
    """
    if format not in _EXPLANATION_FORMATS:
        raise InputError(f"unknown explanation format {format!r}; expected one of "
                         f"{', '.join(_EXPLANATION_FORMATS)}")
    if hypothesis is not None:
        return verify(premise, hypothesis, profile=profile).explain(format)
    explained = default().explain(premise, task, profile=profile)
    if format == "dot":
        if explained.dot is None:
            raise InputError(f"the {explained.family} family has no graph to draw")
        return explained.dot
    if format == "json":
        data = explained.derivation if explained.derivation is not None else \
            explained.to_json()
        return json.dumps(data, indent=2, ensure_ascii=False)
    return explained.explanation


def answer(prompt: str, task: str | None = None) -> TaskAnswer:
    """Derive the certified answer to one benchmark question.

    Parameters
    ----------
    prompt : str
        The question exactly as the model sees it, of any registered benchmark
        family: a Corr2Cause item in the published layout
        ``"Premise: …\\nHypothesis: …"`` (Corr2Cause++ in its own dialect), a
        CI-Bench CP/BA/FI/CI question, an intervention-effect (IE) prompt, a CLEAR
        graph question.
    task : str, optional
        A family or task name (``"corr2cause"``, ``"CP"``, ``"IE"``, ``"CLEAR"``, …);
        detected from the text when omitted.

    Returns
    -------
    TaskAnswer

    Raises
    ------
    ParseError, InputError, BudgetExceeded
        Bad text (with line and column), an unknown task, or a budget exceeded.

    Examples
    --------
    >>> import causal_oracle as co
    >>> prompt = ("I'm going to describe a causal graphical model. There are two "
    ...           "variables: P and F. P causes F. These are all the causal relationships "
    ...           "in the graph. Suppose we perform the perfect intervention, do(P=p). "
    ...           "\\nIn this intervened causal graphical model, does P cause F?")
    >>> result = co.answer(prompt)
    >>> result.task, result.answer_text, result.certificate_checked
    ('IE', 'yes', True)
    """
    return default().answer(prompt, task)


def grade(prompt: str, model_answer: str, task: str | None = None) -> Grade:
    """Grade a model's answer against the oracle's certified answer.

    Answers are read the way models write them: reasoning followed by a verdict,
    ``<answer>…</answer>`` tags, a closing "Answer: …" line, markdown bold.  For
    BA any valid adjustment set is correct, not only a reference set.

    Parameters
    ----------
    prompt : str
        The question, as for ``answer``.
    model_answer : str
        The model's reply.
    task : str, optional
        As for ``answer``.

    Returns
    -------
    Grade
        ``correct`` (a bool: False for a reply that cannot be read, with ``readable``
        False, or when no answer is right, with ``gradable`` False), ``normalised``,
        ``expected``, ``reason``, ``grade`` (the one-word verdict) and ``family``;
        ``to_json()`` is what ``causal-oracle grade --json`` prints.

    Raises
    ------
    ParseError, InputError, BudgetExceeded
        For a bad *prompt*; an unreadable *answer* is a grade, not an error.

    Examples
    --------
    >>> import causal_oracle as co
    >>> item = ("Premise: Suppose there is a closed system of 3 variables, A, B and C. "
    ...         "All the statistical relations among these 3 variables are as follows: "
    ...         "A correlates with C. B correlates with C. However, A is independent of B."
    ...         "\\nHypothesis: C directly causes A.")
    >>> co.grade(item, "Let me think. C is a collider.\\nAnswer: **No**").correct
    True
    >>> co.grade(item, "entailment").correct
    False
    >>> graded = co.grade(item, "It depends.")
    >>> graded.normalised, graded.readable, graded.correct, graded.grade
    ('UNREADABLE', False, False, 'UNREADABLE')
    """
    return default().grade(prompt, model_answer, task)


def check_reasoning(prompt: str, reply: str, task: str | None = None, *,
                    profile: str | Profile = Profile.CORR2CAUSE) -> ReasoningResult:
    """Check the reasoning of a reply, not only its final answer.

    Every checkable claim the reply makes about the question's own variables —
    (in)dependence, edges and their direction, causes, colliders, confounders,
    mediators, paths, adjustment sets, the equivalence class, numbers, the final answer
    — is read from its sentences (a sentence that is no claim, or that hedges, is
    skipped) and checked against the certified answer's formal object: ``true``,
    ``false`` (with the witness: the member where the edge is reversed, the open path,
    the exact value) or ``not_decidable`` (with why).  See docs/reasoning.md.

    Returns
    -------
    ReasoningResult
        ``claims`` (each with its character ``span``, ``verdict`` and ``why``),
        ``contradictions``, ``final`` (the ``Grade`` of the final answer), ``score``
        (the share of checkable claims that are true), ``lucky`` (a right answer with a
        false claim), ``unsupported`` (a right answer with no checkable claim);
        ``to_json()`` is what ``causal-oracle check-reasoning --json`` prints.

    Raises
    ------
    ParseError, InputError, BudgetExceeded
        For a bad *prompt*.

    Examples
    --------
    >>> import causal_oracle as co
    >>> item = ("Premise: Suppose there is a closed system of 3 variables, A, B and C. "
    ...         "All the statistical relations among these 3 variables are as follows: "
    ...         "A correlates with C. B correlates with C. However, A is independent of B."
    ...         "\\nHypothesis: C directly causes A.")
    >>> r = co.check_reasoning(item, "C is a collider. A causes C. C causes A. Answer: No")
    >>> for c in r.claims:
    ...     print(f"{c.claim.span} {c.text!r}: {c.verdict.value}")
    (0, 15) 'C is a collider': true
    (17, 27) 'A causes C': true
    (29, 39) 'C causes A': false
    (41, 51) 'Answer: No': true
    >>> r.claims[2].why
    'there is no directed path from C to A in the only member of the class (A→C, B→C)'
    >>> r.lucky, len(r.contradictions)
    (True, 1)
    """
    return _check_reasoning(default(), prompt, reply, task, profile=profile_of(profile))


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


__all__ = [
    "AuditReport",
    "BudgetExceeded",
    "CertificateRejected",
    "Grade",
    "GradeFileResult",
    "InputError",
    "OracleError",
    "ParseError",
    "Profile",
    "ReasoningResult",
    "TaskAnswer",
    "VerifyResult",
    "answer",
    "audit",
    "check_reasoning",
    "explain",
    "grade",
    "grade_file",
    "verify",
]
