"""A bounded fuzz suite for the error contract (DESIGN 5), with hypothesis.

Inputs are mutations of real benchmark text (insert, delete, duplicate or swap
spans; Unicode whitespace, lone surrogates, tags and arrows) and plain random
text.  Over the parsers, the entry layer (``entry.service``), the CLI and the
gRPC service, every input must end in one of:

* a result (CLI exit 0, gRPC OK), or
* a clean error: ``ParseError``/``InputError`` (CLI exit 2, INVALID_ARGUMENT) with a
  line and column when it comes from text, or ``BudgetExceeded`` (exit 2,
  RESOURCE_EXHAUSTED), DEADLINE_EXCEEDED or CANCELLED over gRPC;

never a traceback, exit 1, INTERNAL or UNKNOWN.  The fast premise path must agree
with the full grammar on every input.  The default run takes seconds; the
``slow`` run multiplies the examples by ``FUZZ_SCALE`` (default 20).  Counts per
target (inputs, clean results, clean errors, violations) are printed at the end
and, with ``FUZZ_COUNTS=path``, written there as JSON.
"""

from __future__ import annotations

import json
import os
import random
from collections import Counter, deque
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from conftest import load_rows
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_grpc_service import ServerThread

from causal_oracle.clients import cli
from causal_oracle.entry import Limits, Service
from causal_oracle.oracle.errors import BudgetExceeded, InputError
from causal_oracle.parser import parse_hypothesis, parse_item, parse_premise
from causal_oracle.parser.cibench import parse_cibench
from causal_oracle.parser.corr2cause_fast import parse_premise_fast
from causal_oracle.parser.corr2cause_grammar import parse_with
from causal_oracle.parser.errors import ParseError
from causal_oracle.parser.ie import parse_ie
from causal_oracle.parser.task_answers import parse_answer, parse_corr2cause_answer
from causal_oracle.proto.causal_oracle.v1 import oracle_pb2 as pb

ROOT = Path(__file__).resolve().parent
COUNTS: dict[str, Counter[str]] = {}
ALLOWED_CODES = {grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.RESOURCE_EXHAUSTED,
                 grpc.StatusCode.DEADLINE_EXCEEDED, grpc.StatusCode.CANCELLED}


def _seeds() -> dict[str, list[str]]:
    c2c = load_rows("n4")[:30] + load_rows("n5_sample")[:10]
    ci = [json.loads(line) for line in (ROOT / "data" / "cibench" /
                                        "items_sample.jsonl").open()][:60]
    ie_path = ROOT.parent / "examples" / "ie_sample.jsonl"
    ie = [json.loads(line) for line in ie_path.open()][:20]
    return {"premise": [r["premise"] for r in c2c],
            "hypothesis": [r["hypothesis"] for r in c2c],
            "input": [f"Premise: {r['premise']}\nHypothesis: {r['hypothesis']}" for r in c2c],
            "prompt": [r["prompt"] for r in ci] + [r["prompt"] for r in ie],
            "answer": ["a -> b -> c", "<answer>yes</answer>", "Answer: x, happened\ny, not happen",
                       "{a, b}", "None", "entailment", "The a, didn’t happen.", "a → b"]}


SEEDS = _seeds()
SPICE = ["\u3000", "\xa0", "\x0b", "\x85", "\u2028", "\ud800", "\t", "\n", "\r\n", " " * 40,
         "<answer>", "</answer>", "->", "→", ".", ",", ":", "and", "the", "not", "A", "B",
         "happened", "However,", "Question:", "\x00", "é", "İ", "ſ"]


@st.composite
def mutated(draw: st.DrawFn, kind: str) -> str:
    """A seed text of ``kind`` with a few random edits, or random text."""
    if draw(st.integers(0, 9)) == 0:
        return draw(st.text(max_size=300))
    text = draw(st.sampled_from(SEEDS[kind]))
    for _ in range(draw(st.integers(0, 3))):
        op = draw(st.integers(0, 4))
        i = draw(st.integers(0, len(text)))
        j = draw(st.integers(i, min(len(text), i + 40)))
        if op == 0:
            text = text[:i] + draw(st.sampled_from(SPICE)) + text[i:]
        elif op == 1:
            text = text[:i] + text[j:]
        elif op == 2:
            text = text[:j] + text[i:j] + text[j:]
        elif op == 3:
            words = text.split(" ")
            a, b = draw(st.integers(0, len(words) - 1)), draw(st.integers(0, len(words) - 1))
            words[a], words[b] = words[b], words[a]
            text = " ".join(words)
        else:
            text = text[:i] + draw(st.text(max_size=8)) + text[i:]
    return text


def _record(target: str, outcome: str) -> None:
    COUNTS.setdefault(target, Counter())["inputs"] += 1
    COUNTS[target][outcome] += 1


def clean(target: str, fn: Callable[[], object]) -> None:
    """Run ``fn``; a result or a clean error is recorded, anything else fails the test."""
    try:
        fn()
    except ParseError as error:
        if error.what and error.line is None and "question, not" not in error.message:
            _record(target, "violations")
            raise AssertionError(f"parse error without a location: {error}") from error
        _record(target, "clean errors")
    except (InputError, BudgetExceeded):
        _record(target, "clean errors")
    except Exception:
        _record(target, "violations")
        raise
    else:
        _record(target, "clean results")


FAST = settings(max_examples=60, deadline=None, derandomize=True,
                suppress_health_check=list(HealthCheck))
SCALE = int(os.environ.get("FUZZ_SCALE", "20"))
SLOW = settings(FAST, max_examples=60 * SCALE)
SERVICE = Service(Limits(budget_s=2.0, cache_items=1024))


@pytest.fixture(scope="module", autouse=True)
def report_counts() -> Iterator[None]:
    yield
    total = Counter[str]()
    for counts in COUNTS.values():
        total.update(counts)
    lines = [f"{t:>16}: {dict(c)}" for t, c in sorted(COUNTS.items())]
    print("\nfuzz counts\n" + "\n".join(lines) + f"\n{'total':>16}: {dict(total)}")
    if os.environ.get("FUZZ_COUNTS"):
        Path(os.environ["FUZZ_COUNTS"]).write_text(json.dumps(
            {**{t: dict(c) for t, c in COUNTS.items()}, "total": dict(total)}, indent=1))
    assert total["violations"] == 0


# ---- parsers ---------------------------------------------------------------------------------

def _parsers(text: str, kind: str) -> None:
    if kind == "premise":
        clean("premise", lambda: parse_premise(text))
        fast = parse_premise_fast(text)
        try:
            parse_with(text, "premise", "premise")
            grammar = True
        except ParseError:
            grammar = False
        if fast is not None and not grammar:
            _record("fast=grammar", "violations")
            raise AssertionError(f"the fast path accepts what the grammar rejects: {text!r}")
        _record("fast=grammar", "clean results")
    elif kind == "hypothesis":
        clean("hypothesis", lambda: parse_hypothesis(text))
    elif kind == "input":
        clean("item", lambda: parse_item(text))
    elif kind == "prompt":
        clean("cibench", lambda: parse_cibench(text))
        clean("ie", lambda: parse_ie(text))
    else:
        for task in ("CP", "BA", "FI", "IE"):
            clean("answers", lambda task=task: parse_answer(task, text))  # type: ignore[misc]
        clean("answers", lambda: parse_corr2cause_answer(text))


def _parser_test(config: settings) -> Callable[..., None]:
    @config
    @given(st.sampled_from(sorted(SEEDS)).flatmap(lambda k: st.tuples(st.just(k), mutated(k))))
    def run(case: tuple[str, str]) -> None:
        kind, text = case
        _parsers(text, kind)
    return run  # type: ignore[no-any-return]


test_parsers = _parser_test(FAST)
test_parsers_slow = pytest.mark.slow(_parser_test(SLOW))


# ---- the entry layer -------------------------------------------------------------------------

def _service_test(config: settings) -> Callable[..., None]:
    @config
    @given(mutated("premise"), mutated("hypothesis"), mutated("input"), mutated("prompt"),
           mutated("answer"))
    def run(premise: str, hypothesis: str, item: str, prompt: str, answer: str) -> None:
        clean("service.verify", lambda: SERVICE.verify(premise, hypothesis))
        clean("service.verify", lambda: SERVICE.verify_input(item))
        clean("service.answer", lambda: SERVICE.answer(prompt))
        clean("service.grade", lambda: SERVICE.grade(prompt, answer))
    return run  # type: ignore[no-any-return]


test_service = _service_test(FAST)
test_service_slow = pytest.mark.slow(_service_test(SLOW))


# ---- the CLI ---------------------------------------------------------------------------------

def _cli_test(config: settings) -> Callable[..., None]:
    @config
    @given(mutated("premise"), mutated("hypothesis"), mutated("prompt"), mutated("answer"),
           st.sampled_from(["verify", "explain", "answer", "grade"]))
    def run(premise: str, hypothesis: str, prompt: str, answer: str, verb: str) -> None:
        argv = {"verify": ["verify", "--premise", premise, "--hypothesis", hypothesis],
                "explain": ["explain", "--premise", premise, "--hypothesis", hypothesis,
                            "--format", "json"],
                "answer": ["answer", "--prompt", prompt],
                "grade": ["grade", "--prompt", prompt, "--answer", answer]}[verb]
        try:
            code = cli.main(["--budget", "2", *argv])
        except SystemExit as stop:  # argparse refusing an argument that looks like an option
            code = int(stop.code or 0)
        outcome = {0: "clean results", 2: "clean errors"}.get(code, "violations")
        _record("cli", outcome)
        assert code in (0, 2), argv
    return run  # type: ignore[no-any-return]


@pytest.fixture
def quiet(capsys: pytest.CaptureFixture[str]) -> Iterator[None]:
    from causal_oracle.entry import service

    previous = service.DEFAULT
    yield
    service.DEFAULT = previous
    capsys.readouterr()


_cli_fast, _cli_slow = _cli_test(FAST), _cli_test(SLOW)


def test_cli(quiet: None) -> None:
    _cli_fast()


@pytest.mark.slow
def test_cli_slow(quiet: None) -> None:
    _cli_slow()


# ---- the gRPC service --------------------------------------------------------------------------

@pytest.fixture(scope="module")
def channel() -> Iterator[grpc.Channel]:
    thread = ServerThread(workers=2, grace=1.0, solver_budget=2.0)
    thread.start()
    with grpc.insecure_channel(thread.target) as ch:
        yield ch
    thread.stop(grace=1.0)


def _call(channel: grpc.Channel, method: str, payload: bytes) -> None:
    raw = channel.unary_unary(f"/causal_oracle.v1.Oracle/{method}")
    try:
        data = raw(payload, timeout=30)
    except grpc.RpcError as error:
        code = error.code()  # type: ignore[attr-defined]
        ok = code in ALLOWED_CODES
        _record("grpc", "clean errors" if ok else "violations")
        assert ok, (method, code, error.details())  # type: ignore[attr-defined]
        return
    if method.endswith("Batch"):
        cls = pb.VerifyBatchResponse if method == "VerifyBatch" else pb.AnswerBatchResponse
        for item in cls.FromString(data).items:
            if item.WhichOneof("outcome") == "error":
                assert item.error.code in {c.value[0] for c in ALLOWED_CODES}, item.error
    _record("grpc", "clean results")


def _wire(strategy: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    """Text protobuf can carry (it refuses lone surrogates on the client side; invalid
    UTF-8 on the wire is fuzzed by the raw-bytes case below)."""
    return strategy.map(lambda t: t.encode("utf-8", "replace").decode("utf-8"))


@st.composite
def requests(draw: st.DrawFn) -> tuple[str, bytes]:
    kind = draw(st.integers(0, 4))
    enum = st.integers(-3, 9)
    options = pb.Options(profile=draw(enum), certificate_detail=draw(enum),  # type: ignore[arg-type]
                         explanation_format=draw(enum))  # type: ignore[arg-type]
    if kind == 0:
        request = pb.VerifyRequest(premise=draw(_wire(mutated("premise"))),
                                   hypothesis=draw(_wire(mutated("hypothesis"))), options=options)
        if draw(st.booleans()):
            request.model_answer = draw(_wire(mutated("answer")))
        return "Verify", request.SerializeToString()
    if kind == 1:
        return "Verify", pb.VerifyRequest(input=draw(_wire(mutated("input"))),
                                          options=options).SerializeToString()
    if kind == 2:
        request_a = pb.AnswerRequest(prompt=draw(_wire(mutated("prompt"))),
                                     task=draw(st.sampled_from(["", "CP", "FI", "IE", "zz"])))
        if draw(st.booleans()):
            request_a.model_answer = draw(_wire(mutated("answer")))
        return draw(st.sampled_from(["Answer", "AnswerBatch"])), (
            request_a.SerializeToString() if draw(st.booleans())
            else pb.AnswerBatchRequest(items=[request_a]).SerializeToString())
    if kind == 3:
        batch = pb.VerifyBatchRequest(items=[pb.VerifyRequest(
            premise=draw(_wire(mutated("premise"))), hypothesis=draw(_wire(mutated("hypothesis"))),
            options=options) for _ in range(draw(st.integers(0, 3)))])
        return "VerifyBatch", batch.SerializeToString()
    method = draw(st.sampled_from(["Verify", "Answer", "VerifyBatch", "AnswerBatch"]))
    return method, draw(st.binary(max_size=64))


def _grpc_test(config: settings) -> Callable[..., None]:
    @config
    @given(requests())
    def run(channel: grpc.Channel, case: tuple[str, bytes]) -> None:
        _call(channel, *case)
    return run  # type: ignore[no-any-return]


_grpc_fast, _grpc_slow = _grpc_test(FAST), _grpc_test(SLOW)


def test_grpc(channel: grpc.Channel) -> None:
    _grpc_fast(channel)


@pytest.mark.slow
def test_grpc_slow(channel: grpc.Channel) -> None:
    _grpc_slow(channel)


# ---- seeded fuzzers of the slow suite: every family, batches, deadlines, cancels ----------------
#
# ``FUZZ_SEED`` picks the seed (default 27: the suite's fixed one) and ``FUZZ_INPUTS`` the
# number of inputs (items: a batch of five is five inputs; default 20,000).  A plain
# ``random.Random`` makes thousands of mutations a second, where hypothesis makes tens.

FUZZ_SEED = int(os.environ.get("FUZZ_SEED", "27"))
FUZZ_INPUTS = int(os.environ.get("FUZZ_INPUTS", "20000"))
CLADDER_LEAD = ("Imagine a self-contained, hypothetical world with only the following "
                "conditions, and without any unmentioned factors or causal relationships: ")
REPLIES = ["Yes", "No", "yes.", "<think>no</think> Yes", "<answer>B</answer>", "A -> B", "None",
           "{'P'}", "3", "A, B and C", "entailment", "Answer: x, happened", "```\nno\n```",
           "<answer>" * 40, "H", "{A, B}, {C}", "B, D", "0.5", "-1", "1e309", ""]


def _more_prompts() -> list[str]:
    data = ROOT / "data"
    clear = [json.loads(line) for line in (data / "clear" / "items_subset.jsonl").open()]
    cladder = json.loads((data / "cladder" / "test-generate-det.json").read_text())
    return ([f"{r['description']}\n{r['question']}" for r in clear[:80]]
            + [f"{CLADDER_LEAD}{r['given_info']} {r['question']}" for r in cladder[:40]])


PROMPTS = SEEDS["prompt"] + _more_prompts()


def mutate(rng: random.Random, text: str) -> str:
    """``mutated``'s edits, drawn from ``rng``."""
    if rng.randrange(10) == 0:
        return "".join(rng.choice(SPICE + list("abcXYZ019 .,\n")) for _ in range(
            rng.randrange(60)))
    for _ in range(rng.randrange(4)):
        op, i = rng.randrange(5), rng.randrange(len(text) + 1)
        j = rng.randint(i, min(len(text), i + 40))
        if op == 0:
            text = text[:i] + rng.choice(SPICE) + text[i:]
        elif op == 1:
            text = text[:i] + text[j:]
        elif op == 2:
            text = text[:j] + text[i:j] + text[j:]
        elif op == 3:
            words = text.split(" ")
            a, b = rng.randrange(len(words)), rng.randrange(len(words))
            words[a], words[b] = words[b], words[a]
            text = " ".join(words)
        else:
            text = text[:i] + "".join(chr(rng.randrange(0x20, 0x2FFF)) for _ in range(
                rng.randrange(8))) + text[i:]
    return text


def _wire_text(text: str) -> str:
    return text.encode("utf-8", "replace").decode("utf-8")


def _verify_item(rng: random.Random) -> pb.VerifyRequest:
    options = pb.Options(profile=rng.randint(-3, 9), certificate_detail=rng.randint(-3, 9),  # type: ignore[arg-type]
                         explanation_format=rng.randint(-3, 9))  # type: ignore[arg-type]
    if rng.randrange(3) == 0:
        return pb.VerifyRequest(input=_wire_text(mutate(rng, rng.choice(SEEDS["input"]))),
                                options=options)
    request = pb.VerifyRequest(premise=_wire_text(mutate(rng, rng.choice(SEEDS["premise"]))),
                               hypothesis=_wire_text(mutate(rng, rng.choice(
                                   SEEDS["hypothesis"]))), options=options)
    if rng.randrange(4) == 0:
        request.model_answer = _wire_text(mutate(rng, rng.choice(REPLIES)))
    return request


def _answer_item(rng: random.Random) -> pb.AnswerRequest:
    request = pb.AnswerRequest(prompt=_wire_text(mutate(rng, rng.choice(PROMPTS))),
                               task=rng.choice(["", "", "", "CP", "FI", "IE", "clear",
                                                "cladder", "zz"]))
    if rng.randrange(2):
        request.model_answer = _wire_text(mutate(rng, rng.choice(REPLIES)))
    return request


def _grpc_case(rng: random.Random) -> tuple[str, bytes, int]:
    """``(method, request bytes, inputs in it)``."""
    roll = rng.randrange(20)
    if roll == 0:
        return (rng.choice(["Verify", "Answer", "VerifyBatch", "AnswerBatch"]),
                rng.randbytes(rng.randrange(64)), 1)
    if roll < 7:
        return "Verify", _verify_item(rng).SerializeToString(), 1
    if roll < 13:
        return "Answer", _answer_item(rng).SerializeToString(), 1
    n = rng.randrange(1, 9)
    if roll < 16:
        return "VerifyBatch", pb.VerifyBatchRequest(
            items=[_verify_item(rng) for _ in range(n)]).SerializeToString(), n
    return "AnswerBatch", pb.AnswerBatchRequest(
        items=[_answer_item(rng) for _ in range(n)]).SerializeToString(), n


BATCH_RESPONSES = {"VerifyBatch": pb.VerifyBatchResponse, "AnswerBatch": pb.AnswerBatchResponse}
ALLOWED_ITEM_CODES = {c.value[0] for c in ALLOWED_CODES}


def _outcome(method: str, payload: bytes, future: Any, counts: Counter[str]) -> None:
    try:
        data = future.result()
    except grpc.FutureCancelledError:
        counts["CANCELLED"] += 1
        return
    except grpc.RpcError as error:
        code = error.code()  # type: ignore[attr-defined]
        counts[code.name] += 1
        assert code in ALLOWED_CODES, (method, code, error.details(),  # type: ignore[attr-defined]
                                       payload[:300])
        return
    counts["OK"] += 1
    if method in BATCH_RESPONSES:
        for item in BATCH_RESPONSES[method].FromString(data).items:
            if item.WhichOneof("outcome") == "error":
                counts[f"item {item.error.kind}"] += 1
                assert item.error.code in ALLOWED_ITEM_CODES, (item.error, payload[:300])


def fuzz_grpc(channel: grpc.Channel, seed: int, inputs: int, window: int = 4
              ) -> Counter[str]:
    """``inputs`` fuzzed inputs over ``channel``, ``window`` calls in flight: one call in
    10 under a deadline of at most 0.3 s, one in 30 cancelled by the client at a random
    moment; every outcome is counted."""
    rng, counts = random.Random(seed), Counter[str]()
    flight: deque[tuple[str, bytes, Any, bool]] = deque()
    while counts["inputs"] < inputs or flight:
        if counts["inputs"] < inputs and len(flight) < window:
            method, payload, n = _grpc_case(rng)
            counts["inputs"] += n
            roll = rng.randrange(30)
            timeout = rng.uniform(0.001, 0.3) if roll < 3 else 30.0
            stub = channel.unary_unary(f"/causal_oracle.v1.Oracle/{method}")
            flight.append((method, payload, stub.future(payload, timeout=timeout), roll == 3))
            continue
        method, payload, future, cancel = flight.popleft()
        if cancel:
            future.cancel()
        _outcome(method, payload, future, counts)
    return counts


@pytest.mark.slow
def test_grpc_fuzz_seeded(channel: grpc.Channel) -> None:
    """≥ 20,000 fuzzed inputs of every family, alone and in batches, some under tiny
    deadlines or cancelled: only OK, INVALID_ARGUMENT, RESOURCE_EXHAUSTED,
    DEADLINE_EXCEEDED and CANCELLED, in the call's status and in every batch item."""
    counts = fuzz_grpc(channel, FUZZ_SEED, FUZZ_INPUTS)
    print(f"\ngrpc fuzz, seed {FUZZ_SEED}: {dict(counts)}")
    COUNTS.setdefault(f"grpc seed {FUZZ_SEED}", Counter()).update(
        {"inputs": counts["inputs"]})
    assert counts["inputs"] >= FUZZ_INPUTS
    # the server is still healthy after the run: an ordinary item is answered at once
    _call(channel, "Verify", pb.VerifyRequest(input=SEEDS["input"][0]).SerializeToString())
