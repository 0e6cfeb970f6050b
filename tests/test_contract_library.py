"""The library's side of the error contract (issue 27), each reproducer of
``../shared/repro/`` kept as a test: stated numbers out of range are bad input, the CLadder
solver and checker agree when stated numbers are missing, the time budget holds inside
parsing, error messages quote at most 200 characters, a model file nested too deeply is
bad input, and a backadj question with two valid methods is ambiguous."""

from __future__ import annotations

import itertools
import json
import random
import time
from pathlib import Path
from typing import Any

import pytest
from lark import Token

import causal_oracle as co
from causal_oracle.clients import cli
from causal_oracle.entry import budget, default
from causal_oracle.entry.families import cladder as family
from causal_oracle.oracle.errors import QUOTE_LIMIT, BudgetExceeded, InputError
from causal_oracle.parser.corr2cause import parse_premise
from causal_oracle.parser.errors import ParseError
from causal_oracle.parser.grammar import SemanticError
from causal_oracle.parser.numbers import Kind, count, stated

HERE = Path(__file__).parent
CLADDER = HERE / "data" / "cladder"
INTRO = ("Imagine a self-contained, hypothetical world with only the following conditions, "
         "and without any unmentioned factors or causal relationships: ")
ALARM = (INTRO + "Husband has a direct effect on wife and alarm clock. Wife has a direct "
         "effect on alarm clock. For husbands that don't set the alarm, the probability of "
         "ringing alarm is {a}. For husbands that set the alarm, the probability of ringing "
         "alarm is {b}. Will alarm set by husband increase the chance of ringing alarm?")
FAME = (INTRO + "Appearance has a direct effect on fame. Talent has a direct effect on fame. "
        "For people considered unattractive and are not famous, the probability of talent is "
        "0%. For people considered unattractive and are famous, the probability of talent is "
        "{p}. For people considered attractive and are not famous, the probability of talent "
        "is 95%. For people considered attractive and are famous, the probability of talent "
        "is 88%. If we look at people who are famous, does the chance of talent decrease when "
        "attractive appearance?")
PREMISE5 = ("Suppose there is a closed system of 5 variables, A, B, C, D and E. All the "
            "statistical relations among these 5 variables are as follows: A correlates with "
            "C. A correlates with D. B correlates with C. C correlates with D. However, A is "
            "independent of B.")


# ---- 1. every stated number in its range ----
@pytest.mark.parametrize(("a", "b", "bad"), [("26%", "185%", "185%"), ("126%", "85%", "126%"),
                                             ("26%", "100.6%", "100.6%")])
def test_a_percentage_over_100_is_bad_input_at_its_place(a: str, b: str, bad: str) -> None:
    text = ALARM.format(a=a, b=b)
    with pytest.raises(ParseError) as caught:
        co.answer(text)
    error = caught.value
    assert "over 100%" in error.message and repr(bad) in error.message
    assert error.line == 1 and error.column == text.index(bad) + 1
    assert error.context.endswith("^")


def test_a_huge_percentage_is_refused_not_rejected_by_the_checker() -> None:
    with pytest.raises(ParseError, match="over 100%"):
        co.answer(FAME.format(p="9" * 26 + "%"))
    with pytest.raises(ParseError, match="over 100%"):  # never turned into a 10,000-digit int
        co.answer(FAME.format(p="9" * 10_000 + "%"))


def test_percentages_at_the_ends_are_still_answered() -> None:
    assert co.answer(ALARM.format(a="26%", b="85%")).answer_text == "yes"
    assert co.answer(ALARM.format(a="0%", b="100%")).answer_text == "yes"


@pytest.mark.parametrize(("text", "kind", "value"), [
    ("0%", Kind.PERCENT, 0), ("100%", Kind.PERCENT, 1), ("12.5%", Kind.PERCENT, 0.125),
    ("1", Kind.PROBABILITY, 1), ("0.25", Kind.PROBABILITY, 0.25),
    ("-1", Kind.CORRELATION, -1), ("-0.23", Kind.CORRELATION, -0.23)])
def test_numbers_in_range_are_read_exactly(text: str, kind: Kind, value: float) -> None:
    assert stated(Token("N", text), kind) == pytest.approx(value)


@pytest.mark.parametrize(("text", "kind", "why"), [
    ("185%", Kind.PERCENT, "over 100%"), ("1.01", Kind.PROBABILITY, "over 1"),
    ("-0.5", Kind.PROBABILITY, "under 0"), ("-1.2", Kind.CORRELATION, "under -1"),
    ("1e3", Kind.PROBABILITY, "not a finite decimal"), ("nan", Kind.PROBABILITY, "not a finite"),
    ("inf%", Kind.PERCENT, "not a finite"), ("0." + "1" * 13, Kind.PROBABILITY, "13 digits"),
    ("9" * 5000 + "%", Kind.PERCENT, "over 100%"), ("٣%", Kind.PERCENT, "plain digits")])
def test_numbers_out_of_range_or_not_plain_are_refused(text: str, kind: Kind, why: str) -> None:
    token = Token("N", text, start_pos=7)
    with pytest.raises(SemanticError, match=why) as caught:
        stated(token, kind)
    assert caught.value.token is token
    assert len(caught.value.message) < QUOTE_LIMIT + 200


def test_counts_are_bounded_before_they_become_ints() -> None:
    assert count("0062", "variables") == 62
    with pytest.raises(SemanticError, match="at most 6"):
        count("9" * 5000, "variables")
    premise = PREMISE5.replace("of 5 variables", "of " + "9" * 5000 + " variables", 1)
    with pytest.raises(ParseError, match="at most 6") as caught:  # not Python's ValueError
        co.verify("Premise: " + premise + "\nHypothesis: A directly causes C.")
    assert len(str(caught.value)) < 600


# ---- 2. the CLadder solver and checker agree when numbers are missing ----
MISSING = {
    "correlation with only P(X) and P(X, Y)":
        INTRO + "Medication has a direct effect on blood pressure and heart condition. Blood "
        "pressure has a direct effect on heart condition. The overall probability of taking "
        "medication is 84%. The probability of taking medication and healthy heart is 76%. Is "
        "the chance of healthy heart larger when observing taking medication?",
    "explaining away with one conditional missing":
        INTRO + "Ability to swim has a direct effect on elite institution admission status. "
        "Effort has a direct effect on elite institution admission status. The overall "
        "probability of being able to swim is 17%. For students who cannot swim and rejected "
        "from elite institutions, the probability of being hard-working is 1%. For students "
        "who cannot swim and accepted to elite institutions, the probability of being "
        "hard-working is 13%. For students who can swim and rejected from elite institutions, "
        "the probability of being hard-working is 1%. If we look at students accepted to elite "
        "institutions, does the chance of being hard-working decrease when being able to swim?",
}


@pytest.mark.parametrize("name", sorted(MISSING))
def test_a_query_the_stated_numbers_do_not_identify_is_undetermined(name: str) -> None:
    # P(Y | X=0) is not stated and may be anything in [0, 1]: the difference of the two
    # conditionals takes both signs, so the question is not decided
    answer = co.answer(MISSING[name])
    assert answer.answer_text == "undetermined"
    assert answer.answer["reason"] == "not identifiable"


def test_the_effect_on_the_treated_by_frontdoor_needs_only_the_factual_conditionals() -> None:
    # P(lung cancer | nonsmoker, no tar) is not stated; ETT among smokers does not use it
    text = (INTRO + "Gender has a direct effect on smoking and lung cancer. Smoking has a "
            "direct effect on tar deposit. Tar deposit has a direct effect on lung cancer. "
            "Gender is unobserved. For nonsmokers and with high tar deposit, the probability "
            "of lung cancer is 45%. For smokers and with no tar deposit, the probability of "
            "lung cancer is 73%. For smokers and with high tar deposit, the probability of lung "
            "cancer is 40%. For nonsmokers, the probability of high tar deposit is 67%. For "
            "smokers, the probability of high tar deposit is 17%. For smokers, would it be "
            "more likely to see lung cancer if the person had been a nonsmoker?")
    answer = co.answer(text)
    assert answer.answer_text == "no" and answer.answer["identification"] == \
        "frontdoor adjustment"


def _sample_questions() -> list[tuple[str, str, list[str], str]]:
    """(id, background, given sentences, question) of every generated sample question."""
    models = {str(m["model_id"]): m["background"] for m in
              json.loads((CLADDER / "test-model-meta.json").read_text(encoding="utf-8"))}
    out = []
    for name in ("easy", "hard", "anti", "det"):
        rows = json.loads((CLADDER / f"test-generate-{name}.json").read_text(encoding="utf-8"))
        for row in rows:
            sentences = [s if s.endswith(".") else s + "." for s in
                         (p.strip() for p in row["given_info"].split(". ")) if s]
            out.append((row["desc_id"], models[str(row["meta"]["model_id"])], sentences,
                        row["question"]))
    return out


def _outcome_without(background: str, sentences: list[str], question: str,
                     dropped: tuple[int, ...]) -> str:
    text = " ".join([background, *(s for i, s in enumerate(sentences) if i not in dropped),
                     question])
    try:
        return co.answer(text).answer_text
    except co.CertificateRejected:
        raise
    except InputError as error:  # e.g. a backadj question without its Method 2
        assert "Method" in error.message, error.message
        return "bad input"


def test_solver_and_checker_agree_with_any_stated_number_dropped() -> None:
    """Every single stated number dropped, and 300 random pairs: an answer, undetermined
    or bad input — never CertificateRejected."""
    seen: dict[str, int] = {}
    rng = random.Random(27)
    pairs = []
    for _qid, background, sentences, question in _sample_questions():
        numbered = [i for i, s in enumerate(sentences) if any(c.isdigit() for c in s)]
        for i in numbered:
            outcome = _outcome_without(background, sentences, question, (i,))
            seen[outcome] = seen.get(outcome, 0) + 1
        pairs.extend((background, sentences, question, pair)
                     for pair in itertools.combinations(numbered, 2))
    for background, sentences, question, pair in rng.sample(pairs, 300):
        outcome = _outcome_without(background, sentences, question, pair)
        seen[outcome] = seen.get(outcome, 0) + 1
    assert seen.get("undetermined", 0) > 100 and seen.get("yes", 0) + seen.get("no", 0) > 20


# ---- 3. the time budget holds inside parsing ----
N = 100_000
BIG = {
    "corr2cause published layout": ("verify", "Premise: " + PREMISE5 +
                                    " A and B are independent given C." * N +
                                    "\nHypothesis: A directly causes C."),
    "clear": ("answer", "Given a DAG (directed acyclic graph) with nodes P, G, S, N and "
              "directed edges " + "P->N, " * N + "P->G.\nHow many children does node P have?"),
    "cibench": ("answer", "The following text describes the assumed causal relationship "
                "between factors in a recent study:\n" + "Ntkswaab has a causal effect on "
                "wkeszaac and uazeyaad.\n" * (N // 2) + "Question:\nWe want to estimate the "
                "causal effect of thentkswaab on theuazeyaad.\nBased on the information above, "
                "please identify all the causal paths between them.\nAnswer:\n"),
    "ie": ("answer", "I'm going to describe a causal graphical model. There are two variables: "
           "P and F. " + "P causes F. " * N + "These are all the causal relationships in the "
           "graph. Suppose we perform the perfect intervention, do(P=p). \nIn this intervened "
           "causal graphical model, does P cause F?"),
    "cladder": ("answer", INTRO + "Husband has a direct effect on wife and alarm clock. Wife "
                "has a direct effect on alarm clock. " + "For husbands that don't set the "
                "alarm, the probability of ringing alarm is 26%. " * (N // 2) + "Will alarm set "
                "by husband increase the chance of ringing alarm?"),
}


@pytest.mark.parametrize("name", sorted(BIG))
def test_a_budget_stops_a_large_parse_close_to_its_end(name: str) -> None:
    verb, text = BIG[name]
    # a budget well under the time each text takes to read on any machine: CLadder and IE
    # read theirs in 0.2-1 s, the others in 2-8 s (machine and load)
    seconds = 0.05 if name in ("cladder", "ie") else 0.5
    call = co.verify if verb == "verify" else co.answer
    start, cpu = time.monotonic(), time.process_time()
    with pytest.raises(BudgetExceeded), budget(seconds):
        call(text)
    # the work done past the budget, in this process's CPU time (a parse left to run
    # would take seconds of it); wall time only loosely, as other processes' load
    # stretches it (1.56 s for a 0.5 s budget on a shared 2-core machine)
    assert time.process_time() - cpu < seconds + 1.0
    assert time.monotonic() - start < seconds + 3.0


def test_the_cli_budget_holds_while_parsing(capsys: pytest.CaptureFixture[str]) -> None:
    start, cpu = time.monotonic(), time.process_time()
    code = cli.main(["--budget", "1", "verify", "--input", BIG["corr2cause published layout"][1]])
    assert time.process_time() - cpu < 2.0  # CPU: load elsewhere stretches wall time
    assert time.monotonic() - start < 4.0
    assert code == 2 and "budget" in capsys.readouterr().err


# ---- 4. error messages quote at most 200 characters ----
def test_a_parse_error_quotes_at_most_200_characters_of_a_huge_token() -> None:
    token = "A" * 1_000_000
    with pytest.raises(ParseError) as caught:
        parse_premise("Suppose there is " + token + " here.")
    message = str(caught.value)
    assert token[:QUOTE_LIMIT] in message and token[:QUOTE_LIMIT + 1] not in message
    assert "1,000,000 characters" in message and len(message) < 1000


def test_an_input_errors_context_is_clipped() -> None:
    error = InputError("bad", line=1, column=5, context="x" * 10_000 + "\n" + " " * 4 + "^")
    lines = error.context.split("\n")
    assert len(lines[0]) == QUOTE_LIMIT + 1 and lines[0].endswith("…")
    assert lines[1] == "    ^"


# ---- 5. a model file nested too deeply is bad input ----
def test_a_deeply_nested_model_file_is_bad_input(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    nested = tmp_path / "nested.json"
    nested.write_text("[" * 100_000, encoding="utf-8")
    with pytest.raises(InputError, match="nested too deeply") as caught:
        family.load_models(nested)
    assert str(nested) in str(caught.value)
    code = cli.main(["audit", str(CLADDER / "test-generate-det.json"), "--cladder-models",
                     str(nested), "--quiet"])
    assert code == 2 and "nested too deeply" in capsys.readouterr().err


# ---- 6. backadj with both methods valid is ambiguous, not a disagreement ----
def test_both_methods_valid_is_ambiguous_in_the_audit() -> None:
    family.load_models(CLADDER / "test-model-meta.json")
    rows: list[dict[str, Any]] = []
    for name in ("easy", "hard", "anti"):
        rows += json.loads((CLADDER / f"test-generate-{name}.json").read_text(encoding="utf-8"))
    both = []
    for row in rows:
        item = default().item(row)
        assert item is not None
        record = default().audit_item(item)
        if "both_methods_valid" in record.get("flags", ()):
            both.append(record)
    assert both and all(r["ambiguous"] and r["agree"] is None and r["reason"] for r in both)
    report = co.audit(rows).to_json()
    assert report["summary"]["ambiguous"] == len(both)
    assert not any("both methods" in str(d.get("reason")) for d in report["disagreements"])
