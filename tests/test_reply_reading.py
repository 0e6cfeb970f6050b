"""The one reply-reading core (``parser.replies``) and every family's replies through it.

* the clean-up every family shares: think blocks, chat wrappers, code fences, ``\\boxed{}``;
* the located spans are those the old regular expressions found (checked against them on
  random short texts, where they are fast), found in linear time;
* the reproducers of ``shared/repro`` (a CI-Bench answer after a think block, unclosed
  ``<answer>`` tags under a budget, CLEAR replies of the wrong shape) behave cleanly;
* every CLEAR task × every reply shape grades (right, wrong or UNREADABLE), never raises;
* a 256 KiB reply of any adversarial shape grades in well under a second for every family,
  and reading time grows about linearly with the reply's size.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import causal_oracle as co
from causal_oracle.entry.limits import Limits
from causal_oracle.entry.service import Service
from causal_oracle.oracle.budget import budget
from causal_oracle.oracle.errors import BudgetExceeded
from causal_oracle.parser.clear import parse_item
from causal_oracle.parser.replies import MAX_SPAN, prepare

DATA = Path(__file__).parent / "data"
CIBENCH = [json.loads(line) for line in (DATA / "cibench" / "items_sample.jsonl").open()]
CLEAR = [json.loads(line) for line in (DATA / "clear" / "items_subset.jsonl").open()]

BA = ("The following text describes the assumed causal relationship between factors in a "
      "recent study:\nKrbxdaaa has a causal effect on terckaab and btxllaad.\nTerckaab has a "
      "causal effect on hqedcaac and appfoaae. \nQuestion:\nWe want to estimate the causal "
      "effect of theterckaab on thebtxllaad.\nBased on the information above, please provide "
      "a set of factors that can block all backdoor paths between them.\nYour answer should "
      "be plain text and should not contain other formats such as markdown.\nAnswer:\n")
PROMPTS = {
    "corr2cause": "Premise: Suppose there is a closed system of 3 variables, A, B and C. All "
                  "the statistical relations among these 3 variables are as follows: A "
                  "correlates with C. B correlates with C. However, A is independent of B.\n"
                  "Hypothesis: A directly causes C.",
    "corr2causepp": json.loads((DATA / "corr2causepp" / "sample.json").read_text())[0]["query"],
    "ie": "I'm going to describe a causal graphical directed acyclic model. There are three "
          "variables: Z, L and A. Z causes L. L causes A.  These are all the causal "
          "relationships in the graph. \nIn this causal graphical model, does Z cause A?",
    "clear": "Given a DAG (directed acyclic graph) with nodes P, G, S, N and directed edges "
             "P->N, G->S, P->S, P->G.\nWhich of the following is one of descendants of node "
             "P?\nA. S\nB. T\nC. E\nD. W",
    "clear c-component": "Given an ADMG (acyclic directed mixed graph) with nodes I, Y, H, U, "
                         "directed edges I->H, I->Y, I->U, H->U, Y->H and bi-directed edges "
                         "H<->U, I<->Y.\nIt can be uniquely partitioned into a set C(G) of "
                         "subgraphs, each a maximal C-component. Write down such partition of "
                         "the given graph.",
    "cladder": "Imagine a self-contained, hypothetical world with only the following "
               "conditions, and without any unmentioned factors or causal relationships: "
               "Husband has a direct effect on wife and alarm clock. Wife has a direct effect "
               "on alarm clock. For husbands that don't set the alarm, the probability of "
               "ringing alarm is 26%. For husbands that set the alarm, the probability of "
               "ringing alarm is 85%. Will alarm set by husband increase the chance of "
               "ringing alarm?",
    **{f"cibench {t}": next(r["prompt"] for r in CIBENCH if r["task"] == t)
       for t in ("CP", "BA", "FI", "CI")},
}


def _fill(unit: str, size: int, tail: str = "") -> str:
    return unit * max(1, (size - len(tail)) // len(unit)) + tail


SHAPES = {
    "unclosed <answer>": lambda n: _fill("<answer>", n) + "AA",
    "<answer> pairs": lambda n: _fill("<answer>A</answer> ", n),
    "</answer> first": lambda n: _fill("</answer><answer>", n),
    "separators": lambda n: _fill(", ; -> ", n),
    "whitespace": lambda n: "A" + " " * (n - 2) + "B",
    "node list": lambda n: _fill("A, B, C, ", n, "D"),
    "answer + spaces": lambda n: _fill("answer" + " " * 26, n),
    "answer: + spaces": lambda n: _fill("x answer" + " " * 20 + ":", n),
    "Answer: lines": lambda n: _fill("Answer: \n", n),
    "answer is": lambda n: _fill("the answer is ", n),
    "think blocks": lambda n: _fill("<think>", n, "yes"),
    "</think> closes": lambda n: _fill("</think>yes ", n),
    "think pairs": lambda n: _fill("<think></think>", n, "yes"),
    "boxed": lambda n: _fill("\\boxed{", n, "}"),
    "emphasis": lambda n: _fill("**`", n, "No"),
    "reasoning, then Answer:": lambda n: _fill("Let me think. ", n, "\nAnswer: yes"),
}


# ---- the clean-up ------------------------------------------------------------------------
@pytest.mark.parametrize(("reply", "clean"), [
    ("<think>Is it? No…</think>\n**Answer:** `No`<|im_end|>", "Answer: No"),
    ("<THINKING>x</thinking> Yes", "Yes"),
    ("reasoning the prompt opened</think>\nYes", "Yes"),
    ("Yes <think> and then thinking that never ends", "Yes"),
    ("<think>a<think>b</think>c", "c"),
    ("<|im_start|>user\nQ?<|im_end|>\n<|im_start|>assistant\nYes<|im_end|>", "Yes"),
    ("<|start_header_id|>assistant<|end_header_id|>\n\nNo<|eot_id|>", "No"),
    ("```json\nA, B\n```", "A, B"),
    ("So the answer is $\\boxed{\\text{Yes}}$.", "So the answer is Yes."),
    ("\\boxed{A, B}", "A, B"),
    ("\\boxed{never closed", "\\boxed{never closed"),
])
def test_the_clean_up_every_family_shares(reply: str, clean: str) -> None:
    assert str(prepare(reply)) == clean


def test_a_prepared_reply_is_prepared_once() -> None:
    reply = prepare("<think>x</think> Answer: yes")
    assert prepare(reply) is reply and reply.answer == "yes"


def _old_tagged(text: str) -> str | None:
    """The pairing rule as the old reader applied it (pairs left to right)."""
    opens = [m.end() for m in re.finditer("<answer>", text, re.I)]
    closes = [(m.start(), m.end()) for m in re.finditer("</answer>", text, re.I)]
    found, i, j = None, 0, 0
    while i < len(opens):
        while j < len(closes) and closes[j][0] < opens[i]:
            j += 1
        if j == len(closes):
            break
        found = text[opens[i]:closes[j][0]]
        while i < len(opens) and opens[i] - len("<answer>") < closes[j][1]:
            i += 1
    return found


_PIECES = st.sampled_from(["<answer>", "</answer>", "<ANSWER>", "answer", "Answer", "final",
                           "Final", " ", "\n", "\t", ":", "：", "is", " is", "*", "x", "yes",
                           "A, B", "\n  answer :"])
_TEXTS = st.lists(_PIECES, max_size=24).map("".join)
_OLD_LINE = re.compile(r"^[ \t*]*(?:final\s+)?answer\s*:", re.I | re.M)
_OLD_PREFIX = re.compile(r"^\s*(?:final\s+)?answer\s*:\s*", re.I)
_OLD_FINAL = re.compile(r"(?:final\s+answer|answer)\s*(?:is)?\s*[:：]\s*", re.I)


@settings(max_examples=400, deadline=None)
@given(_TEXTS)
def test_the_located_spans_are_those_the_old_expressions_found(text: str) -> None:
    reply = prepare(text)
    plain = str(reply)
    assert reply.tagged == _old_tagged(plain)
    body = reply.tagged if reply.tagged is not None else plain
    lines = list(_OLD_LINE.finditer(body))
    if lines:
        body = body[lines[-1].start():]
    assert reply.answer == _OLD_PREFIX.sub("", body, count=1).strip()
    parts = _OLD_FINAL.split(plain)
    assert reply.after_final == (parts[-1].strip() if len(parts) > 1 else None)


def test_reading_checks_the_budget() -> None:
    with budget(0.0), pytest.raises(BudgetExceeded):
        prepare("Answer: yes")


def test_a_located_answer_too_long_for_the_grammar_is_unreadable_and_says_why() -> None:
    prompt = PROMPTS["cibench CP"]
    graded = co.grade(prompt, "Answer: " + "a -> b\n" * (MAX_SPAN // 4))
    assert not graded.readable and graded.correct is False
    assert graded.normalised == "UNREADABLE"
    assert "characters long" in graded.reason and "at most" in graded.reason


# ---- the reproducers ----------------------------------------------------------------------
def test_a_cibench_answer_after_a_think_block_is_read() -> None:
    right = co.answer(BA).answer_text
    for reply in (right, f"<think>The backdoor path goes through {right}.</think>\n{right}",
                  f"<think>\nreasoning\n</think>\n\n{right}", f"reasoning</think>{right}"):
        graded = co.grade(BA, reply)
        assert graded.correct is True, (reply, graded)


@pytest.mark.parametrize("family", ["clear", "corr2cause", "ie"])
def test_unclosed_answer_tags_grade_quickly_under_a_budget(family: str) -> None:
    co.grade(PROMPTS[family], "x")  # the question parsed and solved: what is timed is reading
    start = time.perf_counter()
    with budget(2.0):
        graded = co.grade(PROMPTS[family], "AA" + "<answer>" * 30_000)
    assert time.perf_counter() - start < 1.0
    assert graded.correct is not True


@pytest.mark.parametrize("reply", ["H", "H->U", "H, U", "Yes", "3", "B"])
def test_a_c_component_reply_of_the_wrong_shape_is_unreadable(reply: str) -> None:
    graded = co.grade(PROMPTS["clear c-component"], reply)
    assert not graded.readable and graded.correct is False, graded
    assert graded.normalised == "UNREADABLE", graded
    assert "expected" in graded.reason


def test_the_c_component_partition_and_a_markov_blanket_read_as_sets() -> None:
    assert co.grade(PROMPTS["clear c-component"], "[{'I', 'Y'}, {'H', 'U'}]").correct is True
    assert co.grade(PROMPTS["clear c-component"], "[{'H', 'I', 'U', 'Y'}]").correct is False
    assert co.grade(PROMPTS["clear c-component"], "{'H', 'U'}").correct is False  # one district
    blanket = ("Given a DAG (directed acyclic graph) with nodes C, U, T, Z and directed edges "
               "C->Z, C->U, C->T.\nWhat is the markov blanket of node T?")
    assert co.grade(blanket, "C, U").correct is False
    assert co.grade(blanket, "C").correct is True
    assert co.grade(blanket, "{'C'}").correct is True
    none = co.grade(blanket, "None")  # the empty set: read, and wrong here
    assert none.correct is False and none.normalised == "set()"
    assert co.grade(blanket, "A").normalised == "UNREADABLE"  # an option letter, no node


def _clear_questions() -> list[tuple[str, str]]:
    seen: dict[tuple[str, str], str] = {}
    for row in CLEAR:
        seen.setdefault((row["task_type"], row["question_type"]),
                        row["description"].strip() + "\n" + row["question"].strip())
    return [(f"{t}/{q}", prompt) for (t, q), prompt in sorted(seen.items())]


def _shapes(prompt: str) -> list[str]:
    a, b, c, *_ = (*parse_item(prompt).graph.nodes, "Q", "R")
    return [a, f"{a}, {b}", f"{a}->{b}", f"{a}->{b}->{c}", f"{a}<->{b}", f"{a}--{b}",
            f"{{'{a}', '{b}'}}", f"[{{'{a}'}}, {{'{b}', '{c}'}}]", f"[('{a}', '{b}', '{c}')]",
            "set()", "None", "A", "B, D", "E", "Yes", "No", "2", "0",
            f"DAG with nodes {a}, {b} and directed edges {a}->{b}.", f"{a}{b}", "Z9, Q9"]


@pytest.mark.parametrize(("name", "prompt"), _clear_questions(), ids=lambda v: v[:30])
def test_every_clear_task_grades_every_reply_shape(name: str, prompt: str) -> None:
    assert co.grade(prompt, co.answer(prompt).answer_text).correct is True
    for reply in _shapes(prompt):
        graded = co.grade(prompt, reply)  # never raises
        assert graded.correct in (True, False), (name, reply)
        if not graded.readable:
            assert graded.correct is False, (name, reply)
            assert graded.normalised == "UNREADABLE" and graded.reason, (name, reply)


# ---- speed --------------------------------------------------------------------------------
def _best(service: Service, prompt: str, reply: str, repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        service.grade(prompt, reply)
        times.append(time.perf_counter() - start)
    return min(times)


@pytest.mark.parametrize("family", sorted(PROMPTS))
def test_a_256_kib_reply_of_any_shape_grades_well_under_a_second(family: str) -> None:
    service = Service(Limits.in_process())
    service.grade(PROMPTS[family], "yes")  # solved once: what is timed is the reading
    slow = {shape: t for shape, make in SHAPES.items()
            if (t := _best(service, PROMPTS[family], make(256 * 1024), 1)) > 0.25}
    assert slow == {}


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_reading_time_grows_about_linearly(shape: str) -> None:
    service = Service(Limits.in_process())
    for prompt in (PROMPTS["clear"], PROMPTS["cibench BA"]):
        service.grade(prompt, "yes")
        small = _best(service, prompt, SHAPES[shape](32 * 1024))
        large = _best(service, prompt, SHAPES[shape](256 * 1024))
        assert large < 1.0
        assert large < max(30 * small, 0.05), (shape, small, large)  # quadratic: 64×


_UNITS = st.sampled_from(["<answer>", "</answer>", "answer", " ", "\n", ":", ", ", "->", "A",
                          "<think>", "</think>", "\\boxed{", "}", "**", "final answer is",
                          "Answer: ", "yes", "'", "{", "[", "(", "\t"])


@settings(max_examples=12, deadline=None)
@given(st.lists(_UNITS, min_size=1, max_size=6))
def test_any_repeated_pattern_reads_in_linear_time(units: list[str]) -> None:
    service = Service(Limits.in_process())
    unit = "".join(units)
    for prompt in (PROMPTS["clear"], PROMPTS["cibench CP"], PROMPTS["corr2cause"]):
        small = _best(service, prompt, _fill(unit, 32 * 1024), 2)
        large = _best(service, prompt, _fill(unit, 256 * 1024), 2)
        assert large < 1.0 and large < max(30 * small, 0.05), (unit, small, large)
