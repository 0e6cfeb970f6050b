"""Reasoning-check throughput: replies per second for 1 KiB of reasoning, on one core.

Run from the repository root:

    .venv/bin/python bench/reasoning_speed.py [--seconds 2] [--runs 3]

What it measures, all in this one run, on a Corr2Cause item (3 variables, a class of
3 members) and a CLadder item (CausalCoT numbers), each reply about 1 KiB of reasoning
in the styles models use (step lists, prose, hedges, a final answer):

* ``check_reasoning`` — the whole verb (the question solved once and cached, as a
  trainer grading many replies to one item sees it): read every claim, check each,
  pair the contradictions, grade the final answer; *warm*: the reply's clauses and
  claims seen before (phrasing repeats across a trainer's rollouts), *new text*: the
  reader's memo of clause parses and the checker's memo of verdicts (with the item's
  facts) emptied before every reply, as for a reply none of whose clauses was seen;
* ``read + check`` — the reader and checker alone on the item's facts (made afresh,
  with an empty memo of verdicts), new text (the memos of clause parses emptied);
* reference, *final answer alone* — ``grade`` on the same reply (the reply reader a
  trainer already pays for).

Each rate is measured ``--runs`` times and printed as the minimum and the median over
the runs, in CPU time of this process (``time.process_time``: what one core does,
whatever else the machine runs) and in wall time.  The target is ≥ 1,000 replies/s
for the whole verb; the ratio (answer only over the whole verb, CPU medians) says what
checking the reasoning costs on top of reading the answer.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from typing import Any

import causal_oracle as co
from causal_oracle.entry import REGISTRY, Family, Options, default, reasoning
from causal_oracle.oracle.reasoning.verdicts import check_claims, contradictions
from causal_oracle.parser.claims import read_claims

#: the service-owned memories of the claim reader (oracle.memo), emptied for "new text"
PARSES = ("causal_oracle.parser.claims._parse_words", "causal_oracle.parser.claims_text._table",
          "causal_oracle.parser.claims_zh._parse_words")

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


def _rate(fn: Callable[[], object], seconds: float) -> tuple[float, float]:
    """(replies per CPU second, replies per wall second) of ``fn`` over ``seconds``."""
    fn()
    count, wall, cpu = 0, time.perf_counter(), time.process_time()
    while time.perf_counter() - wall < seconds:
        for _ in range(20):
            fn()
        count += 20
    return count / (time.process_time() - cpu), count / (time.perf_counter() - wall)


def _cell(rates: list[float]) -> str:
    return f"{min(rates):,.0f}/{statistics.median(rates):,.0f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="time per measurement")
    parser.add_argument("--runs", type=int, default=3, help="measurements of each rate")
    args = parser.parse_args()
    service = default()
    print("replies/s, min/median of the runs; cpu: process time, wall: elapsed")
    print(f"{'item':<11}{'reply':>6}{'claims':>7} {'measure':<26}{'cpu':>15}{'wall':>15}")
    for name, prompt, reply in (("corr2cause", C2C, C2C_REPLY), ("cladder", LADDER,
                                                                 LADDER_REPLY)):
        family = REGISTRY.select(prompt)
        question, solution = service.solved(family, prompt, Options())

        def core(reply: str = reply, family: Family[Any, Any] = family,
                 question: object = question, solution: object = solution) -> None:
            for name in PARSES:  # new text: no clause parse remembered
                service.caches.memory.map(name).clear()
            facts = family.reasoning_facts(question, solution)  # a fresh memo of verdicts
            assert facts is not None
            claims = read_claims(reply, facts.names, facts.aliases)
            check_claims(facts, claims, reply)
            contradictions(claims, facts.names)

        def new(prompt: str = prompt, reply: str = reply) -> None:
            for name in PARSES:
                service.caches.memory.map(name).clear()
            reasoning._FACTS.clear()
            co.check_reasoning(prompt, reply)

        measures: dict[str, Callable[[], object]] = {
            "check_reasoning, warm": lambda p=prompt, r=reply: co.check_reasoning(p, r),
            "check_reasoning, new text": new,
            "read + check, new text": core,
            "final answer alone": lambda p=prompt, r=reply: co.grade(p, r),
        }
        rates: dict[str, tuple[list[float], list[float]]] = {m: ([], []) for m in measures}
        for _ in range(args.runs):
            for measure, fn in measures.items():
                cpu, wall = _rate(fn, args.seconds)
                rates[measure][0].append(cpu)
                rates[measure][1].append(wall)
        n = len(co.check_reasoning(prompt, reply).claims)
        for i, (measure, (cpu_rates, wall_rates)) in enumerate(rates.items()):
            head = f"{name:<11}{len(reply.encode()):>5}B{n:>7}" if i == 0 else " " * 24
            print(f"{head} {measure:<26}{_cell(cpu_rates):>15}{_cell(wall_rates):>15}")
        answer = statistics.median(rates["final answer alone"][0])
        for measure in ("check_reasoning, warm", "check_reasoning, new text"):
            ratio = answer / statistics.median(rates[measure][0])
            print(f"{'':<24} ratio answer alone / {measure.removeprefix('check_reasoning, ')}: "
                  f"{ratio:.1f}x")


if __name__ == "__main__":
    main()
