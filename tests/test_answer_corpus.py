"""Model-style answers (tests/data/answers/corpus.jsonl, made by make_corpus.py): how
many are read, and that none is read as the wrong verdict.

Yes/no answers are read the way IE and Corr2Cause answers are graded
(``parse_corr2cause_answer``, whose yes/no side is ``parse_answer("IE", …)``);
an answer with no verdict must stay UNREADABLE.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from causal_oracle.parser.errors import ParseError
from causal_oracle.parser.task_answers import parse_answer, parse_corr2cause_answer
from causal_oracle.parser.verdicts import closing_verdict

CORPUS = [json.loads(line) for line in
          (Path(__file__).parent / "data" / "answers" / "corpus.jsonl").read_text(
              encoding="utf-8").splitlines()]


def _read(text: str) -> str | None:
    try:
        claim = parse_corr2cause_answer(text)
    except ParseError:
        return None
    return getattr(claim, "relation", None) or ("yes" if claim.yes else "no")  # type: ignore[union-attr]


def test_corpus_size() -> None:
    assert len(CORPUS) >= 200
    assert sum(r["expected"] is None for r in CORPUS) >= 50


def test_no_answer_is_read_as_the_wrong_verdict() -> None:
    wrong = [(r["id"], r["text"], _read(r["text"])) for r in CORPUS
             if _read(r["text"]) not in (None, r["expected"])]
    assert wrong == []


def test_answers_without_a_verdict_stay_unreadable() -> None:
    read = [(r["id"], r["text"]) for r in CORPUS
            if r["expected"] is None and _read(r["text"]) is not None]
    assert read == []


def test_readable_rate() -> None:
    with_verdict = [r for r in CORPUS if r["expected"] is not None]
    readable = sum(_read(r["text"]) == r["expected"] for r in with_verdict)
    assert readable / len(with_verdict) >= 0.95, readable


@pytest.mark.parametrize(("text", "verdict"), [
    ("So the answer is **No**.", "no"), ("\\boxed{Yes}", "yes"),
    ("Therefore, the hypothesis is not valid.", "no"), ("Verdict: yes", "yes"),
    ("The answer could be yes or no.", None), ("The hypothesis is not invalid.", None),
    ("No. The hypothesis is valid.", None), ("Maybe.", None), ("", None),
])
def test_closing_verdict(text: str, verdict: str | None) -> None:
    assert closing_verdict(text) == verdict


def test_ie_answers_use_the_same_fallback() -> None:
    assert parse_answer("IE", "The intervention cuts the edge.\nSo the answer is no.").yes \
        is False  # type: ignore[union-attr]
    with pytest.raises(ParseError):
        parse_answer("IE", "It depends on the intervention.")
    with pytest.raises(ParseError):
        parse_answer("CP", "So the answer is yes.")
