"""What the entry layer returns: a certified answer (``TaskAnswer``) and a grade (``Grade``).

Every surface — the library API, the CLI, gRPC packing, ``eval``'s scorer, the harness
plug-ins — receives these objects and only formats them.  A ``Grade`` says what
``grade --json`` prints, under the same names (``to_json``), and never leaves a
``None`` to miscount: ``correct`` is a bool, ``readable`` says whether the reply could
be read at all, ``gradable`` whether any answer is right.

    >>> g = Grade("IE", False, UNREADABLE, "yes", "line 1, column 1: …", readable=False)
    >>> g.grade, g.correct, g.readable
    ('UNREADABLE', False, False)
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

UNREADABLE = "UNREADABLE"
"""``Grade.normalised`` of a reply that could not be read."""


@dataclass(frozen=True)
class Grade:
    """The grade of a model's answer.

    Attributes
    ----------
    task : str
        The task name (``"corr2cause"``, ``"CP"``, …, ``"CLEAR <task>"``).
    correct : bool
        True only when the reply was read and is right; False when it is wrong, cannot
        be read (``readable`` False) or the item has no right answer (``gradable``
        False).  Never None: an unread reply counts as not correct.
    normalised : str
        What the answer was read as, or ``"UNREADABLE"``.
    expected : str or None
        The oracle's answer in the same form (None when no answer is right).
    reason : str
        Why the grade is what it is (for an unreadable answer: where reading failed).
    gradable : bool
        False when no answer is right (an inconsistent Corr2Cause premise).
    readable : bool
        False when the reply could not be read (``reason`` says where).
    family : str
        The benchmark family that graded it (``entry.registry``; "" when unknown, as
        for a grade that came over gRPC).

    ``grade`` is the one-word verdict: ``correct``, ``wrong``, ``UNREADABLE`` or
    ``ungradable``; ``to_json()`` is what ``causal-oracle grade --json`` prints.
    """

    task: str
    correct: bool
    normalised: str
    expected: str | None
    reason: str
    gradable: bool = True
    readable: bool = True
    family: str = ""

    @property
    def grade(self) -> str:
        """``correct``, ``wrong``, ``UNREADABLE`` or ``ungradable``."""
        if not self.gradable:
            return "ungradable"
        if not self.readable:
            return UNREADABLE
        return "correct" if self.correct else "wrong"

    @property
    def shown(self) -> str:
        """Same as ``grade`` (the older name)."""
        return self.grade

    def to_json(self) -> dict[str, Any]:
        """Every field, and ``grade``: what ``grade --json`` prints."""
        return {**asdict(self), "grade": self.grade}


@dataclass(frozen=True)
class TaskAnswer:
    """The oracle's certified answer to one question.

    Attributes
    ----------
    task : str
        ``"corr2cause"``, ``"CP"``, ``"BA"``, ``"FI"``, ``"CI"``, ``"IE"``,
        ``"CLEAR <task>"``, … (the family's name for the question).
    answer : Any
        The answer as data: CP a list of paths (lists of names); BA
        ``{"adjustment_needed", "minimal_sets", "parents_set", ...}``; FI/CI
        ``{name: happened}``; IE ``{"answer": "yes"|"no", "kappa", ...}``;
        Corr2Cause ``{"label", "relation", "class_size", "holds_in"}``.
    answer_text : str
        The answer as a model is expected to write it.
    explanation : str
        Why the answer is right, in words.
    certificate_checked : bool
        Always True: the independent checker re-verified the certificate.
    family : str
        The benchmark family that answered (``entry.registry``).
    grade : Grade or None
        The grade of a model's answer, when one was given.
    """

    task: str
    answer: Any
    answer_text: str
    explanation: str
    certificate_checked: bool
    family: str = ""
    grade: Grade | None = None


@dataclass(frozen=True)
class Explanation:
    """Why the oracle's answer to one question is right, in every form a family has.

    Attributes
    ----------
    family, task : str
        The benchmark family that answered and its name for the question.
    answer : Any
        The answer as data (as ``TaskAnswer.answer``).
    answer_text : str
        The answer as a model is expected to write it.
    explanation : str
        The derivation in words.
    certificate_checked : bool
        Always True: the independent checker re-verified the certificate.
    derivation : Any
        The derivation as data (Corr2Cause: adjacencies, colliders, orientations, the
        certificate), or None where the family explains in words only.
    dot : str or None
        The question's graph in Graphviz DOT with what decides the answer marked, or
        None where the family has no graph.

    ``to_json()`` is what ``causal-oracle explain --json`` prints.
    """

    family: str
    task: str
    answer: Any
    answer_text: str
    explanation: str
    certificate_checked: bool
    derivation: Any = None
    dot: str | None = None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


__all__ = ["UNREADABLE", "Explanation", "Grade", "TaskAnswer"]
