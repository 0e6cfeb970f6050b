"""Check the reasoning of a reply, not only its final answer.

``check_reasoning(service, prompt, reply)`` solves the question (cached, under the
service's limits), asks its family for the facts a reasoning text is checked against
(``Family.reasoning_facts``; a family that declares none gives a result with
``supported`` False), reads the reply's claims (``parser.claims``), checks each
(``oracle.reasoning.verdicts``), pairs the ones that contradict each other, and grades
the final answer the way ``grade`` does.  The ``ReasoningResult`` is the one record
every surface shows: the library's ``check_reasoning``, ``causal-oracle
check-reasoning``, and — as thin layers over ``to_json`` — reward components, report
columns and highlighted HTML.

Its summary numbers:

* ``score`` — the share of the reasoning's checkable claims (true or false; claims of
  the final answer itself aside) that are true (None when there is none);
* ``lucky`` — the final answer is right but some claim is false;
* ``unsupported`` — the final answer is right and no claim could be checked.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from causal_oracle.entry.registry import Options
from causal_oracle.entry.results import Grade
from causal_oracle.oracle.reasoning.model import (
    Checked,
    ClaimKind,
    Contradiction,
    Facts,
    Verdict,
)
from causal_oracle.oracle.reasoning.verdicts import check_claims, contradictions
from causal_oracle.oracle.relations import Profile
from causal_oracle.parser.claims import read_claims


@dataclass(frozen=True)
class ReasoningResult:
    """A reply's claims with their verdicts, their contradictions, and the final grade."""

    family: str
    task: str
    claims: tuple[Checked, ...]
    contradictions: tuple[Contradiction, ...]
    final: Grade
    #: False: the family declares no reasoning facts (no claim was read)
    supported: bool = True

    def count(self, verdict: Verdict, *, reasoning: bool = False) -> int:
        """How many claims got ``verdict`` (``reasoning``: leaving out the claims of
        the final answer itself)."""
        return sum(c.verdict is verdict and not (reasoning and c.claim.kind is ClaimKind.ANSWER)
                   for c in self.claims)

    @property
    def checkable(self) -> int:
        """The reasoning's claims (the final answer's aside) that got a verdict."""
        return self.count(Verdict.TRUE, reasoning=True) + \
            self.count(Verdict.FALSE, reasoning=True)

    @property
    def false_claims(self) -> int:
        """The reasoning's claims (the final answer's aside) found false."""
        return self.count(Verdict.FALSE, reasoning=True)

    @property
    def score(self) -> float | None:
        """The share of the reasoning's checkable claims that are true (None: none)."""
        return self.count(Verdict.TRUE, reasoning=True) / self.checkable \
            if self.checkable else None

    @property
    def lucky(self) -> bool:
        """A right final answer reached with at least one false claim."""
        return self.final.correct and self.count(Verdict.FALSE, reasoning=True) > 0

    @property
    def unsupported(self) -> bool:
        """A right final answer with no checkable claim behind it."""
        return self.final.correct and self.checkable == 0

    def to_json(self) -> dict[str, Any]:
        return {
            "family": self.family, "task": self.task, "supported": self.supported,
            "claims": [{"span": list(c.claim.span), "text": c.text,
                        "kind": c.claim.kind.value, "polarity": c.claim.polarity,
                        "verdict": c.verdict.value, "why": c.why} for c in self.claims],
            "contradictions": [{"first": c.first, "second": c.second, "why": c.why}
                               for c in self.contradictions],
            "counts": {v.value: self.count(v) for v in Verdict},
            "score": self.score, "lucky": self.lucky, "unsupported": self.unsupported,
            "final": self.final.to_json(),
        }


#: at most this many items' facts are kept
MAX_FACTS = 256
#: each solved item's facts, by the id of its solution (kept in the entry with its
#: question and the family's hook, so that the id is not reused while the entry lives
#: and a hook replaced at run time is asked again); ``Facts`` carries the checker's
#: memo of verdicts, so replies to one item share it
_FACTS: dict[int, tuple[Any, Any, Any, Facts | None]] = {}


def _facts(family: Any, question: Any, solution: Any) -> Facts | None:
    """``family.reasoning_facts(question, solution)``, once per solved item."""
    hook = type(family).reasoning_facts
    hit = _FACTS.get(id(solution))
    if hit is not None and hit[0] is hook and hit[1] is question and hit[2] is solution:
        return hit[3]
    facts = family.reasoning_facts(question, solution)
    if len(_FACTS) >= MAX_FACTS:
        _FACTS.clear()
    _FACTS[id(solution)] = (hook, question, solution, facts)
    return facts


def check_reasoning(service: Any, prompt: str, reply: str, task: str | None = None, *,
                    profile: Profile = Profile.CORR2CAUSE) -> ReasoningResult:
    """Read and check every claim of ``reply`` to ``prompt`` (``service``: an
    ``entry.service.Service``); ``InputError``/``ParseError`` for a bad prompt."""
    service.check_text(prompt, "prompt")
    service.check_text(reply, "model_answer")
    options = Options(task, profile)
    family = service.family_of(prompt, task, profile)
    question, solution = service.solved(family, prompt, options)
    with service.scope():
        final = service.graded(family, question, solution, reply)  # ``grade``'s core
        facts = _facts(family, question, solution)
        name = family.task_of(question)
        if facts is None:
            return ReasoningResult(family.name, name, (), (), final, supported=False)
        claims = read_claims(reply, facts.names, facts.aliases)
        checked = check_claims(facts, claims, reply)
        clashes = contradictions(claims, facts.names)
    return ReasoningResult(family.name, name, checked, clashes, final)


__all__ = ["ReasoningResult", "check_reasoning"]
