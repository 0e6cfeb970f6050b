"""Grading a model's parsed answer against the derived answer.

* CP — correct iff the claimed paths are exactly the directed paths from each
  cause to each effect ("None" = no path);
* BA — correct iff the claimed set satisfies the backdoor criterion for every
  (cause, effect) pair.  *Any* valid set is accepted, not one reference set; a
  wrong set is explained by its forbidden member or an open backdoor path;
* FI/CI — correct iff every queried event is given its derived value (other
  events may be mentioned but may not contradict themselves);
* IE — correct iff yes/no matches.

Names are matched case-insensitively; a leading "the" (also glued, as the
prompt writes "theX") is ignored when the name is otherwise unknown.  A name
that is not a variable makes the answer wrong (it is readable, just wrong);
text that cannot be read at all never reaches this module — callers report
``UNREADABLE``.

Public function: ``grade``; result type ``Grade``.
"""

from __future__ import annotations

from dataclasses import dataclass

from causal_oracle.oracle.errors import InputError
from causal_oracle.oracle.tasks.backdoor import SetVerdict, check_set
from causal_oracle.oracle.tasks.explain import format_path, format_set, verdict_reason
from causal_oracle.oracle.tasks.model import (
    Answer,
    BackdoorQuestion,
    Claim,
    InterventionAnswer,
    PathsAnswer,
    PathsClaim,
    Question,
    SetClaim,
    TaskGraph,
    ValuesAnswer,
    ValuesClaim,
    YesNoClaim,
)


@dataclass(frozen=True)
class Grade:
    """``correct``; the claim written in canonical form; why; the BA verdict if any."""

    correct: bool
    normalised: str
    reason: str
    verdict: SetVerdict | None = None
    set_mask: int | None = None


class _Unknown(Exception):
    pass


def _index(names: tuple[str, ...], name: str) -> int:
    key = " ".join(name.split()).casefold()
    lookup = {n.casefold(): i for i, n in enumerate(names)}
    # exact, then "the x", then the prompt's glued "thex"
    for candidate in (key, key[4:] if key.startswith("the ") else None,
                      key[3:] if key.startswith("the") else None):
        if candidate and candidate in lookup:
            return lookup[candidate]
    raise _Unknown(name)


def _graph_of(question: Question) -> TaskGraph:
    return question.graph if hasattr(question, "graph") else question.scm.graph  # type: ignore[union-attr]


def grade(question: Question, answer: Answer, claim: Claim) -> Grade:
    """Grade ``claim`` (a parsed model answer) against the oracle's ``answer``."""
    names = _graph_of(question).names
    try:
        if isinstance(claim, PathsClaim) and isinstance(answer, PathsAnswer):
            return _grade_paths(question, answer, claim)
        if isinstance(claim, SetClaim) and isinstance(question, BackdoorQuestion):
            return _grade_set(question, claim)
        if isinstance(claim, ValuesClaim) and isinstance(answer, ValuesAnswer):
            return _grade_values(names, answer, claim)
        if isinstance(claim, YesNoClaim) and isinstance(answer, InterventionAnswer):
            ok = claim.yes == answer.yes
            word = "yes" if claim.yes else "no"
            return Grade(ok, word, f"the answer is {'yes' if answer.yes else 'no'}")
    except _Unknown as unknown:
        return Grade(False, str(unknown), f"{str(unknown)!r} is not a variable of the question")
    raise InputError(f"a {type(claim).__name__} does not answer this question")


def _grade_paths(question: Question, answer: PathsAnswer, claim: PathsClaim) -> Grade:
    g = _graph_of(question)
    claimed = {tuple(_index(g.names, n) for n in p) for p in claim.paths}
    shown = "\n".join(format_path(g, p) for p in sorted(claimed)) or "None"
    truth = set(answer.paths)
    if claimed == truth:
        return Grade(True, shown, "exactly the directed paths from the causes to the effects")
    missing = [format_path(g, p) for p in sorted(truth - claimed)]
    extra = [format_path(g, p) for p in sorted(claimed - truth)]
    parts = []
    if missing:
        parts.append("missing " + "; ".join(missing))
    if extra:
        parts.append("not causal paths: " + "; ".join(extra))
    return Grade(False, shown, ", ".join(parts))


def _grade_set(question: BackdoorQuestion, claim: SetClaim) -> Grade:
    g = question.graph
    z = 0
    for n in claim.names:
        z |= 1 << _index(g.names, n)
    verdict = check_set(question, z)
    shown = ", ".join(g.mask_names(z)) or "None"
    return Grade(verdict.valid, shown, verdict_reason(question, z, verdict), verdict, z)


def _grade_values(names: tuple[str, ...], answer: ValuesAnswer, claim: ValuesClaim) -> Grade:
    given: dict[int, bool] = {}
    for name, value in claim.values:
        i = _index(names, name)
        if given.get(i, value) != value:
            return Grade(False, name, f"{names[i]!r} is given both values")
        given[i] = value
    shown = "\n".join(f"{names[i]}, {'happened' if v else 'not happen'}"
                      for i, v in given.items())
    wrong = []
    for q, v in answer.values:
        if q not in given:
            wrong.append(f"no value for {names[q]}")
        elif given[q] != v:
            wrong.append(f"the {names[q]} {'happened' if v else 'did not happen'}")
    if not answer.values:
        return Grade(True, shown, "nothing was asked")
    return Grade(not wrong, shown, "; ".join(wrong) or "every queried value is right")


__all__ = ["Grade", "format_set", "grade"]
