"""Reasoning-check throughput: replies per second for 1 KiB of reasoning, on one core.

Run from the repository root:

    .venv/bin/python bench/reasoning_speed.py [--seconds 3]

What it measures, all in this one run, on a Corr2Cause item (3 variables, a class of
3 members) and a CLadder item (CausalCoT numbers), each reply about 1 KiB of reasoning
in the styles models use (step lists, prose, hedges, a final answer):

* ``check_reasoning`` — the whole verb (the question solved once and cached, as a
  trainer grading many replies to one item sees it): read every claim, check each,
  pair the contradictions, grade the final answer;
* ``read + check`` — the reader and checker alone, on the item's facts; *cold*: with
  the reader's cache of clause parses emptied before every reply (a reply none of whose
  sentences was seen before), *warm*: as a trainer grading rollouts sees it, the
  phrasing repeating;
* reference, *final answer alone* — ``grade`` on the same reply (the reply reader a
  trainer already pays for).

The target is ≥ 1,000 replies/s for the whole verb; the ratio (answer only over the
whole verb) says what checking the reasoning costs on top of reading the answer.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import causal_oracle as co
from causal_oracle.entry import REGISTRY, Options, default
from causal_oracle.oracle.reasoning.model import Facts
from causal_oracle.oracle.reasoning.verdicts import check_claims, contradictions
from causal_oracle.parser.claims import _parse_words, read_claims

C2C = ("Premise: Suppose there is a closed system of 3 variables, A, B and C. All the "
       "statistical relations among these 3 variables are as follows: A correlates with B. "
       "A correlates with C. B correlates with C. However, A and C are independent given B."
       "\nHypothesis: A directly causes B.")
C2C_REPLY = (
    "Let's think step by step.\nStep 1: The premise says that A and C are independent "
    "given B, so A and C are not adjacent. Step 2: A correlates with B and B correlates "
    "with C. Step 3: B is not a collider, since conditioning on B makes A and C "
    "independent. If B were a collider, A and C would be independent without conditioning. "
    "Step 4: The Markov equivalence class therefore contains 3 members: A -> B -> C, "
    "A <- B <- C and A <- B -> C. In some of them A directly causes B and in others B "
    "directly causes A, so the direction of the edge between A and B is not determined. "
    "Step 5: A might cause C through B, but it may also be the other way round. We cannot "
    "tell whether A is an ancestor of C. A and B are adjacent. B and C are adjacent. "
    "There is no edge between A and C. The hypothesis says that A directly causes B, which "
    "holds in only one of the three members. Hence the hypothesis is not necessarily true. "
    "Step 6: To double-check, note that C is not a collider and A is not a collider either. "
    "A and B are dependent. B and C are dependent.\nAnswer: No")
LADDER = ("Imagine a self-contained, hypothetical world with only the following conditions, "
          "and without any unmentioned factors or causal relationships: Husband has a direct "
          "effect on wife and alarm clock. Wife has a direct effect on alarm clock. For "
          "husbands that don't set the alarm, the probability of ringing alarm is 26%. For "
          "husbands that set the alarm, the probability of ringing alarm is 85%. Will alarm "
          "set by husband increase the chance of ringing alarm?")
LADDER_REPLY = (
    "Step 0: Let X = husband; V2 = wife; Y = alarm clock.\nStep 1: Extract the causal graph: "
    "X->V2,X->Y,V2->Y.\nStep 2: Determine the query type: the query is the average "
    "treatment effect E[Y | do(X = 1)] - E[Y | do(X = 0)].\nStep 3: Identify the estimand: "
    "there is no confounder between X and Y, so P(Y=1|X=1) - P(Y=1|X=0).\nStep 4: Collect "
    "the data: P(Y=1 | X=0) = 0.26\nP(Y=1 | X=1) = 0.85\nStep 5: 0.85 - 0.26 = 0.59. So the "
    "ATE is 0.59. Wife is a mediator between husband and alarm clock. Husband causes alarm "
    "clock. The ATE is positive. Since 0.59 > 0, setting the alarm increases the chance of "
    "ringing alarm, and the answer is yes. We should double check that wife is not a "
    "confounder: wife does not cause husband. Husband is a parent of wife. Wife is a child "
    "of husband. P(Y=1|X=1) is greater than P(Y=1|X=0). Answer: yes")


def _rate(fn: Callable[[], object], seconds: float) -> float:
    fn()
    count, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        for _ in range(20):
            fn()
        count += 20
    return count / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time per measurement")
    args = parser.parse_args()
    service = default()
    print(f"{'item':<12}{'reply':>8}{'claims':>8}{'check_reasoning/s':>19}"
          f"{'read+check cold/s':>19}{'warm/s':>9}{'answer only/s':>15}{'ratio':>8}")
    for name, prompt, reply in (("corr2cause", C2C, C2C_REPLY), ("cladder", LADDER,
                                                                  LADDER_REPLY)):
        family = REGISTRY.select(prompt)
        question, solution = service.solved(family, prompt, Options())
        facts = family.reasoning_facts(question, solution)
        assert facts is not None

        def core(reply: str = reply, facts: Facts = facts) -> None:
            claims = read_claims(reply, facts.names, facts.aliases)
            check_claims(facts, claims, reply)
            contradictions(claims, facts.names)

        def cold(core: Callable[[], None] = core) -> None:
            _parse_words.cache_clear()
            core()

        whole = _rate(lambda p=prompt, r=reply: co.check_reasoning(p, r), args.seconds)
        chilled = _rate(cold, args.seconds)
        alone = _rate(core, args.seconds)
        answer = _rate(lambda p=prompt, r=reply: co.grade(p, r), args.seconds)
        n = len(co.check_reasoning(prompt, reply).claims)
        print(f"{name:<12}{len(reply.encode()):>7}B{n:>8}{whole:>19,.0f}{chilled:>19,.0f}"
              f"{alone:>9,.0f}{answer:>15,.0f}{answer / whole:>7.1f}x")


if __name__ == "__main__":
    main()
