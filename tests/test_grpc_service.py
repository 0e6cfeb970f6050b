"""The gRPC service against a real server on 127.0.0.1, port 0 (no mocks).

A module-wide server runs in a background thread (its own event loop, real worker
processes); the shutdown tests start servers of their own."""

from __future__ import annotations

import ast
import asyncio
import json
import random
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import grpc
import pytest
from conftest import load_rows
from google.protobuf import descriptor_pool
from google.rpc import error_details_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha.proto_reflection_descriptor_database import (
    ProtoReflectionDescriptorDatabase,
)
from grpc_status import rpc_status

from causal_oracle import answer as task_answer
from causal_oracle import serve_options, server, server_config, server_pool
from causal_oracle.clients import cli
from causal_oracle.clients.remote import (
    AsyncOracleClient,
    DeadlineExceeded,
    OracleClient,
    RemoteError,
    make_request,
    pb,
)
from causal_oracle.entry import PROFILES, default
from causal_oracle.oracle.equivalence import MAX_VARIABLES
from causal_oracle.oracle.errors import BudgetExceeded, InputError
from causal_oracle.parser.errors import ParseError
from causal_oracle.proto.causal_oracle.v1 import oracle_pb2_grpc as pb_grpc
from causal_oracle.server import SERVICE_NAME, OracleServer
from causal_oracle.server_config import ServerConfig

# ---- a server in a thread ------------------------------------------------------------------

def premise_text(n: int, independences: str = "", first: str = "A") -> str:
    """A premise on ``n`` variables A, B, … (from ``first``); every pair correlates unless
    told otherwise.  ``n = 8`` with no independence has 40,320 members: many seconds."""
    names = [chr(ord(first) + i) for i in range(n)]
    correlations = " ".join(f"{a} correlates with {b}." for i, a in enumerate(names)
                            for b in names[i + 1:])
    text = (f"Suppose there is a closed system of {n} variables, {', '.join(names[:-1])} and "
            f"{names[-1]}. All the statistical relations among these {n} variables are as "
            f"follows: {correlations}")
    return text + (f" However, {independences}" if independences else "")


def slow_premise(n: int, first: str = "V") -> str:
    """Every pair of ``n`` variables V0, V1, … correlates except V0 and V1, which are
    independent: checking a member against the closed world means trying every one of
    the 2^(n-2) conditioning sets of that pair (``n = 20``: tens of seconds)."""
    names = [f"{first}{i}" for i in range(n)]
    correlations = " ".join(f"{a} correlates with {b}." for i, a in enumerate(names)
                            for b in names[i + 1:] if (a, b) != (names[0], names[1]))
    return (f"Suppose there is a closed system of {n} variables, {', '.join(names[:-1])} and "
            f"{names[-1]}. All the statistical relations among these {n} variables are as "
            f"follows: {correlations} However, {names[0]} is independent of {names[1]}.")


class ServerThread:
    """``start()`` → the bound port; ``stop(grace)`` shuts down as SIGTERM would."""

    def __init__(self, **config: Any) -> None:
        self.config = ServerConfig(host="127.0.0.1", port=0, **config)
        self.server: OracleServer | None = None
        self.port: int | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._ready = threading.Event()
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, daemon=True)

    @property
    def target(self) -> str:
        return f"127.0.0.1:{self.port}"

    def _run(self) -> None:
        asyncio.run(self._main())

    async def _main(self) -> None:
        self._loop = asyncio.get_running_loop()
        try:
            self.server = OracleServer(self.config)
            self.port = await self.server.start()
        except BaseException as error:
            self._error = error
            self._ready.set()
            raise
        self._ready.set()
        await self.server.wait()

    def start(self) -> int:
        self._thread.start()
        self._ready.wait(120)
        if self._error is not None:
            raise self._error
        assert self.port
        return self.port

    def stop(self, grace: float = 5.0, wait: bool = True) -> None:
        assert self._loop is not None and self.server is not None
        future = asyncio.run_coroutine_threadsafe(self.server.stop(grace), self._loop)
        if wait:
            future.result(120)
            self._thread.join(120)


# ---- fixtures ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def service() -> Iterator[ServerThread]:
    thread = ServerThread(workers=2, grace=2.0)
    thread.start()
    yield thread
    thread.stop(grace=1.0)


@pytest.fixture(scope="module")
def client(service: ServerThread) -> Iterator[OracleClient]:
    with OracleClient(service.target, timeout=60) as c:
        yield c


@pytest.fixture(scope="module")
def channel(service: ServerThread) -> Iterator[grpc.Channel]:
    with grpc.insecure_channel(service.target) as ch:
        yield ch


def rows(name: str, step: int = 1) -> list[dict]:
    return load_rows(name)[::step]


def items() -> list[dict]:
    return rows("n3") + rows("n4", 12) + rows("n4_paraph", 24)


# ---- unary --------------------------------------------------------------------------------

def test_verify_matches_in_process(client: OracleClient) -> None:
    for row in items():
        local = default().verify(row["premise"], row["hypothesis"])
        remote = client.verify_result(row["premise"], row["hypothesis"], certificate="full",
                                      explanation="text")
        assert remote.summary() == local.summary()
        assert remote.explain("text") == local.explain("text")
        names = local.premise.variables
        assert remote.verdict.certificate.to_json(names) == \
            local.verdict.certificate.to_json(names)
        assert remote.premise.n == local.premise.n
        assert remote.hypothesis.kind is local.hypothesis.kind


def test_profiles_inconsistent_and_input_layout(client: OracleClient) -> None:
    row = rows("n4")[5]
    for profile in PROFILES:
        assert client.verify_result(row["premise"], row["hypothesis"], profile=profile
                                    ).summary() == \
            default().verify(row["premise"], row["hypothesis"], profile).summary()
    text = f"Premise: {row['premise']}\nHypothesis: {row['hypothesis']}"
    assert client.verify_result(input=text).summary() == default().verify_input(text).summary()
    r = rows("n6_sample")[48]
    local = default().verify(r["premise"], r["hypothesis"])
    assert local.verdict.relation == "inconsistent"
    remote = client.verify_result(r["premise"], r["hypothesis"], certificate="full")
    assert remote.summary() == local.summary()
    assert remote.response.relation == pb.RELATION_INCONSISTENT
    assert not remote.response.HasField("label")
    names = local.premise.variables
    assert remote.verdict.certificate.to_json(names) == \
        local.verdict.certificate.to_json(names)


def test_certificate_detail(client: OracleClient) -> None:
    row = rows("n4")[0]
    none = client.verify(row["premise"], row["hypothesis"], certificate="none")
    assert not none.HasField("certificate")
    summary = client.verify(row["premise"], row["hypothesis"])
    assert summary.certificate.pair and not summary.certificate.members
    full = client.verify(row["premise"], row["hypothesis"], certificate="full")
    assert len(full.certificate.members) == len(full.certificate.witnesses) >= 1


@pytest.mark.parametrize(("answer", "grade", "normalised"), [
    ("No.", pb.GRADE_CORRECT, "no"),
    ("<answer>Yes</answer>", pb.GRADE_WRONG, "yes"),
    ("Answer: invalid", pb.GRADE_CORRECT, "no"),
    ("neutral", pb.GRADE_CORRECT, "neutral"),
    ("Contradiction.", pb.GRADE_WRONG, "contradiction"),
    ("I am not sure", pb.GRADE_UNREADABLE, "UNREADABLE"),
])
def test_model_answer_is_graded(client: OracleClient, answer: str, grade: int,
                                normalised: str) -> None:
    row = rows("n4")[0]  # neutral, label 0
    assert default().verify(row["premise"], row["hypothesis"]).verdict.relation == "neutral"
    response = client.verify(row["premise"], row["hypothesis"], model_answer=answer)
    assert (response.grade, response.normalised_answer) == (grade, normalised)
    assert response.grade_reason
    assert client.verify(row["premise"], row["hypothesis"]).grade == pb.GRADE_UNSPECIFIED


def test_answer_rpc_matches_tasks(client: OracleClient) -> None:
    path = Path(__file__).parent.parent / "examples"
    samples = [json.loads(line) for name in ("cibench_sample.jsonl", "ie_sample.jsonl")
               for line in (path / name).read_text(encoding="utf-8").splitlines()[:6]]
    for item in samples:
        local = task_answer(item["prompt"], item["task"])
        remote = client.answer(item["prompt"], item["task"])
        assert (remote.task, remote.answer_text, remote.explanation) == \
            (local.task, local.answer_text, local.explanation)
        assert json.loads(remote.answer_json) == local.answer
        graded = client.answer(item["prompt"], item["task"], model_answer=local.answer_text)
        assert graded.grade == pb.GRADE_CORRECT
        assert client.answer(item["prompt"], item["task"], model_answer="@@@").grade == \
            pb.GRADE_UNREADABLE


def test_answer_rpc_serves_clear(client: OracleClient) -> None:
    """CLEAR prompts go through the same entry layer over gRPC as in-process."""
    path = Path(__file__).parent / "data" / "clear" / "items_subset.jsonl"
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()[:8]]
    for row in rows:
        prompt = f"{row['description']}\n{row['question']}"
        local = task_answer(prompt)
        remote = client.answer(prompt)
        assert remote.task == local.task and remote.task.startswith("CLEAR ")
        assert remote.answer_text == local.answer_text and remote.certificate_checked
        graded = client.answer(prompt, "CLEAR", model_answer=local.answer_text)
        assert graded.grade == pb.GRADE_CORRECT, (prompt, local["answer_text"])


COLLIDER = ("Premise: Suppose there is a closed system of 3 variables, A, B and C. All the "
            "statistical relations among these 3 variables are as follows: A correlates with "
            "C. B correlates with C. However, A is independent of B.\nHypothesis: A directly "
            "causes C.")


def test_answer_checks_the_reasoning_when_asked(channel: grpc.Channel) -> None:
    from causal_oracle import check_reasoning
    from causal_oracle.proto.pack import reasoning_json

    stub = pb_grpc.OracleStub(channel)
    reply = "C is a collider between A and B. C causes A. Answer: Yes"
    plain = stub.Answer(pb.AnswerRequest(prompt=COLLIDER, model_answer=reply), timeout=60)
    assert not plain.HasField("reasoning") and plain.grade == pb.GRADE_CORRECT
    asked = stub.Answer(pb.AnswerRequest(prompt=COLLIDER, model_answer=reply, reasoning=True),
                        timeout=60)
    local = check_reasoning(COLLIDER, reply).to_json()
    assert reasoning_json(asked.reasoning) == {k: v for k, v in local.items()
                                               if k not in ("family", "task", "final")}
    assert asked.reasoning.lucky and asked.reasoning.score == 0.5
    assert [c.verdict for c in asked.reasoning.claims] == [
        pb.CLAIM_VERDICT_TRUE, pb.CLAIM_VERDICT_FALSE, pb.CLAIM_VERDICT_TRUE]
    with pytest.raises(grpc.RpcError) as info:
        stub.Answer(pb.AnswerRequest(prompt=COLLIDER, reasoning=True), timeout=60)
    assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "give model_answer" in info.value.details()
    batch = stub.AnswerBatch(pb.AnswerBatchRequest(items=[pb.AnswerRequest(
        prompt=COLLIDER, model_answer=reply, reasoning=True)]), timeout=60)
    assert batch.items[0].result.reasoning == asked.reasoning


# ---- streaming ------------------------------------------------------------------------------

def test_stream_answers_each_id(channel: grpc.Channel) -> None:
    sample = items()
    ids = random.Random(7).sample(range(10**6, 10**7), len(sample) + 1)
    bad = ids[-1]
    requests = [pb.VerifyStreamRequest(id=i, request=make_request(r["premise"], r["hypothesis"]))
                for i, r in zip(ids, sample, strict=False)]
    requests.insert(len(requests) // 2, pb.VerifyStreamRequest(
        id=bad, request=make_request("not a premise", "A directly causes B.")))
    stub = pb_grpc.OracleStub(channel)
    responses = list(stub.VerifyStream(iter(requests), timeout=60))
    assert sorted(r.id for r in responses) == sorted(ids)
    by_id = {r.id: r for r in responses}
    assert by_id[bad].WhichOneof("outcome") == "error"
    assert by_id[bad].error.code == grpc.StatusCode.INVALID_ARGUMENT.value[0]
    assert by_id[bad].error.line == 1 and by_id[bad].error.expected
    for i, row in zip(ids, sample, strict=False):
        local = default().verify(row["premise"], row["hypothesis"])
        assert by_id[i].result.reason == local.reason()
        assert by_id[i].result.class_size == local.verdict.class_size


def test_verify_many_keeps_request_order(client: OracleClient) -> None:
    sample = items() * 3
    random.Random(3).shuffle(sample)
    requests = [make_request(r["premise"], r["hypothesis"]) for r in sample]
    requests.insert(7, make_request("nonsense", "A directly causes B."))
    out = list(client.verify_many(requests, max_in_flight=16, return_exceptions=True))
    assert len(out) == len(requests)
    assert isinstance(out[7], ParseError)
    del out[7]
    for response, row in zip(out, sample, strict=True):
        assert response.reason == default().verify(row["premise"], row["hypothesis"]).reason()
    with pytest.raises(ParseError):
        list(client.verify_many(requests, max_in_flight=4))


def test_async_client(service: ServerThread) -> None:
    sample = items()

    async def main() -> tuple[str, list, pb.VerifyResponse]:
        async with AsyncOracleClient(service.target) as c:
            health_status = await c.health()
            one = await c.verify(sample[0]["premise"], sample[0]["hypothesis"])
            got = [r async for r in c.verify_many(
                (make_request(r["premise"], r["hypothesis"]) for r in sample),
                max_in_flight=8)]
            return health_status, got, one

    health_status, got, one = asyncio.run(main())
    assert health_status == "SERVING"
    assert one.reason == default().verify(sample[0]["premise"], sample[0]["hypothesis"]).reason()
    assert [r.reason for r in got] == \
        [default().verify(r["premise"], r["hypothesis"]).reason() for r in sample]


# ---- errors ----------------------------------------------------------------------------------

def _status(error: grpc.RpcError) -> tuple[Any, dict[str, Any]]:
    status = rpc_status.from_call(error)  # type: ignore[arg-type]
    assert status is not None
    found: dict[str, Any] = {}
    for detail in status.details:
        for cls in (error_details_pb2.BadRequest, error_details_pb2.QuotaFailure, pb.ItemError):
            if detail.Is(cls.DESCRIPTOR):
                message = cls()
                detail.Unpack(message)
                found[cls.__name__] = message
    return status, found


def test_garbage_is_invalid_argument_with_position(channel: grpc.Channel) -> None:
    stub = pb_grpc.OracleStub(channel)
    premise = rows("n4")[0]["premise"]
    broken = premise.replace("A correlates with B.", "A correlates with with B.")
    with pytest.raises(grpc.RpcError) as info:
        stub.Verify(make_request(broken, "A directly causes B."), timeout=30)
    error = info.value
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    with pytest.raises(ParseError) as local:
        default().verify(broken, "A directly causes B.")
    column = local.value.column
    assert column == broken.index("with B.") + len("with ") + 1
    assert f"line 1, column {column}" in error.details()
    assert "expected one of" in error.details()
    _, details = _status(error)
    violation = details["BadRequest"].field_violations[0]
    assert violation.field == "premise" and f"column {column}" in violation.description
    item = details["ItemError"]
    assert (item.line, item.column, item.kind) == (1, column, "parse_error")
    assert list(item.expected) == list(local.value.expected) and item.context
    assert error.details() == local.value.describe()


def test_bad_hypothesis_and_unknown_variable(client: OracleClient) -> None:
    premise = rows("n4")[0]["premise"]
    with pytest.raises(ParseError) as info:
        client.verify(premise, "A is friends with B.")
    assert info.value.line == 1 and info.value.expected
    local_message = ""
    try:
        default().verify(premise, "A is friends with B.")
    except ParseError as error:
        local_message = error.describe()
    assert info.value.describe() == local_message
    with pytest.raises(InputError):
        client.verify(premise, "Q directly causes B.")
    with pytest.raises(InputError):
        client.verify(premise, "")


def test_size_limits_are_resource_exhausted(channel: grpc.Channel, client: OracleClient
                                            ) -> None:
    stub = pb_grpc.OracleStub(channel)
    with pytest.raises(grpc.RpcError) as info:
        stub.Verify(make_request("A" * (10 * 1024 * 1024), "A directly causes B."), timeout=30)
    assert info.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    _, details = _status(info.value)
    assert details["QuotaFailure"].violations[0].subject == "premise"
    with pytest.raises(BudgetExceeded, match="variables"):
        client.verify(slow_premise(MAX_VARIABLES + 1), "V0 directly causes V2.")
    with pytest.raises(grpc.RpcError) as info:  # over the gRPC message limit itself
        stub.Verify(make_request("A" * (20 * 1024 * 1024), "x"), timeout=30)
    assert info.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert client.health() == "SERVING"


def test_tiny_deadline_then_still_serving(client: OracleClient) -> None:
    with pytest.raises(DeadlineExceeded):  # a premise that needs about a second
        client.verify(slow_premise(16, first="J"), "J0 directly causes J2.", timeout=0.001)
    row = rows("n4")[1]
    assert client.verify(row["premise"], row["hypothesis"], timeout=30).reason


def test_deadline_interrupts_the_solver(client: OracleClient) -> None:
    """Both workers take a premise that needs ~a minute; the deadline frees them."""
    with ThreadPoolExecutor(2) as pool:
        futures = [pool.submit(client.verify, slow_premise(22, first=first),
                               f"{first}0 directly causes {first}2.", timeout=1.0)
                   for first in "PQ"]
        for f in futures:
            with pytest.raises(DeadlineExceeded):
                f.result()
    # Were the workers still busy, this would wait out its deadline.
    fresh = premise_text(4, independences="C and D are independent given A and B.")
    assert client.verify(fresh, "A directly causes B.", timeout=20).class_size == 10


def test_slow_premise_does_not_stall_other_calls(client: OracleClient) -> None:
    with ThreadPoolExecutor(1) as pool:
        slow = pool.submit(client.verify, slow_premise(22), "V0 directly causes V2.", timeout=4)
        for row in rows("n4_fromZ", 90):
            assert client.verify(row["premise"], row["hypothesis"], timeout=30).reason
        assert not slow.done()
        with pytest.raises(DeadlineExceeded):
            slow.result()


def test_worker_budget_interrupts_solver_loops() -> None:
    """The worker-side entry point, run here in-process: the cooperative budget (no
    signals) stops the enumeration both at the call's deadline and at the solver budget."""
    from causal_oracle.entry import Limits, Service

    request = make_request(slow_premise(22), "V0 directly causes V2.").SerializeToString()
    roomy, tight = Service(Limits(budget_s=60.0)), Service(Limits(budget_s=0.3))
    [(ok, data)] = server_pool._run_items("verify", [(b"", request, time.time() + 0.3)],
                                          roomy)
    assert not ok
    assert pb.ItemError.FromString(data).code == grpc.StatusCode.DEADLINE_EXCEEDED.value[0]
    [(ok, data)] = server_pool._run_items("verify", [(b"", request, None)], tight)
    assert not ok
    error = pb.ItemError.FromString(data)
    assert error.code == grpc.StatusCode.RESOURCE_EXHAUSTED.value[0]
    assert error.kind == "budget_exceeded"


# ---- health, reflection -----------------------------------------------------------------------

def test_health_serving(channel: grpc.Channel) -> None:
    stub = health_pb2_grpc.HealthStub(channel)
    for name in ("", SERVICE_NAME):
        response = stub.Check(health_pb2.HealthCheckRequest(service=name), timeout=10)
        assert response.status == health_pb2.HealthCheckResponse.SERVING


def test_reflection_lists_the_service(channel: grpc.Channel) -> None:
    database = ProtoReflectionDescriptorDatabase(channel)
    services = set(database.get_services())
    assert SERVICE_NAME in services
    assert "grpc.health.v1.Health" in services
    pool = descriptor_pool.DescriptorPool(database)
    service = pool.FindServiceByName(SERVICE_NAME)
    assert {m.name for m in service.methods} >= {"Verify", "VerifyStream", "Answer"}


# ---- CLI over the service ----------------------------------------------------------------------

def _cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = cli.main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_cli_server_output_is_identical(service: ServerThread, tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    row = rows("n4")[3]
    item = ["--premise", row["premise"], "--hypothesis", row["hypothesis"]]
    remote = ["--server", service.target]
    for verb in (["verify"], ["verify", "--json"], ["explain"], ["explain", "--format", "json"],
                 ["explain", "--format", "dot"], ["verify", "--profile", "strict"]):
        assert _cli([*verb, *item, *remote], capsys) == _cli([*verb, *item], capsys)
    bad = ["verify", "--premise", "Suppose nothing.", "--hypothesis", "A directly causes B."]
    local = _cli(bad, capsys)
    assert local[0] == 2 and "line 1, column" in local[2]
    assert _cli([*bad, *remote], capsys) == local
    data = Path(__file__).parent / "data"
    for name in ("n3.jsonl", "hf_layout_sample.csv"):
        code, out, _ = _cli(["audit", str(data / name), "--quiet",
                             "--report", str(tmp_path / "local.json")], capsys)
        code_r, out_r, _ = _cli(["audit", str(data / name), "--quiet", *remote,
                                 "--report", str(tmp_path / "remote.json")], capsys)
        assert code == code_r == 0

        def strip(text: str) -> list[str]:
            return [line for line in text.splitlines()
                    if "items/s" not in line and "report written" not in line]

        assert strip(out) == strip(out_r)
        local_report = json.loads((tmp_path / "local.json").read_text(encoding="utf-8"))
        remote_report = json.loads((tmp_path / "remote.json").read_text(encoding="utf-8"))
        local_report.pop("seconds"), remote_report.pop("seconds")
        where = remote_report.pop("where")  # which rows ran where: all on the server
        assert where["in_process_rows"] == 0 and where["server"] == service.target
        assert local_report == remote_report


def test_cli_unreachable_server(capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as s:  # a loopback port that nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    row = rows("n3")[0]
    code, _, err = _cli(["verify", "--premise", row["premise"], "--hypothesis",
                         row["hypothesis"], "--server", f"127.0.0.1:{port}"], capsys)
    assert code == 2 and "UNAVAILABLE" in err and "Traceback" not in err
    assert f"cannot reach the server at 127.0.0.1:{port}" in err


# ---- retries, TLS, shutdown ----------------------------------------------------------------------

def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_retries_on_unavailable_until_the_server_is_up() -> None:
    port = _free_port()
    sample = items()[:20]
    expected = [default().verify(r["premise"], r["hypothesis"]).reason() for r in sample]
    options = dict(retries=40, backoff=0.05, max_backoff=0.5, timeout=120)
    unary = OracleClient(f"127.0.0.1:{port}", **options)
    stream = OracleClient(f"127.0.0.1:{port}", **options)
    with ThreadPoolExecutor(2) as pool:
        one = pool.submit(unary.verify, sample[0]["premise"], sample[0]["hypothesis"])
        many = pool.submit(lambda: [r.reason for r in stream.verify_many(
            (make_request(r["premise"], r["hypothesis"]) for r in sample), max_in_flight=4)])
        thread = ServerThread(workers=1)
        thread.config.port = port
        thread.start()
        try:
            assert one.result().reason == expected[0]
            assert many.result() == expected
        finally:
            unary.close()
            stream.close()
            thread.stop(grace=1.0)
    with OracleClient(f"127.0.0.1:{port}", retries=1, backoff=0.01) as gone, \
            pytest.raises(RemoteError) as info:
        gone.verify(sample[0]["premise"], sample[0]["hypothesis"])
    assert info.value.code == grpc.StatusCode.UNAVAILABLE


@pytest.mark.skipif(shutil.which("openssl") is None, reason="needs the openssl command")
def test_tls(tmp_path: Path) -> None:
    key, cert = tmp_path / "key.pem", tmp_path / "cert.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                    "-keyout", str(key), "-out", str(cert), "-subj", "/CN=localhost",
                    "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost"],
                   check=True, capture_output=True)
    thread = ServerThread(workers=1, tls_cert=str(cert), tls_key=str(key))
    thread.start()
    try:
        with OracleClient(thread.target, tls_root=cert.read_bytes(), retries=0) as secure:
            assert secure.health() == "SERVING"
        with OracleClient(thread.target, retries=0, timeout=5) as plain, \
                pytest.raises(RemoteError):
            plain.health()
    finally:
        thread.stop(grace=1.0)


def test_graceful_shutdown() -> None:
    """Health turns NOT_SERVING, the stream in flight completes, new calls are refused."""
    thread = ServerThread(workers=1, grace=30.0)
    thread.start()
    sample = items()
    with grpc.insecure_channel(thread.target) as channel:
        watch = health_pb2_grpc.HealthStub(channel).Watch(
            health_pb2.HealthCheckRequest(service=SERVICE_NAME), timeout=60)
        statuses = iter(watch)
        assert next(statuses).status == health_pb2.HealthCheckResponse.SERVING
        draining = threading.Event()

        def requests() -> Iterator[pb.VerifyStreamRequest]:
            for i, row in enumerate(sample):
                if i == len(sample) // 2:
                    draining.wait(60)
                yield pb.VerifyStreamRequest(id=i, request=make_request(row["premise"],
                                                                        row["hypothesis"]))

        stream = pb_grpc.OracleStub(channel).VerifyStream(requests(), timeout=60)
        first = next(stream)
        thread.stop(grace=30.0, wait=False)
        assert next(statuses).status == health_pb2.HealthCheckResponse.NOT_SERVING
        draining.set()
        rest = list(stream)
        assert sorted(r.id for r in [first, *rest]) == list(range(len(sample)))
        assert all(r.WhichOneof("outcome") == "result" for r in rest)
    thread._thread.join(60)
    assert not thread._thread.is_alive()
    with OracleClient(thread.target, retries=0, timeout=5) as late, \
            pytest.raises(RemoteError):
        late.verify(sample[0]["premise"], sample[0]["hypothesis"])


def test_sigterm_stops_the_server_process() -> None:
    root = Path(__file__).parent.parent
    process = subprocess.Popen([sys.executable, "-m", "causal_oracle.server", "--port", "0",
                                "--workers", "1", "--grace", "5"], cwd=root,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        assert "serving causal_oracle.v1.Oracle on 127.0.0.1:" in line, line
        target = line.split(" on ")[1].split()[0]
        with OracleClient(target, retries=0) as c:
            assert c.health(SERVICE_NAME) == "SERVING"
        process.send_signal(signal.SIGTERM)
        out, _ = process.communicate(timeout=60)
        assert process.returncode == 0, out
        assert "stopped" in out and "Traceback" not in out
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def test_the_server_imports_nothing_from_clients() -> None:
    """``server.py`` and the options it shares with the CLI reach the entry layer
    (``entry``) and the stubs only, never ``clients/`` (DESIGN 5)."""
    for module in (server, server_pool, server_config, serve_options):
        tree = ast.parse(Path(module.__file__).read_text(encoding="utf-8"))
        imported = {node.module or "" for node in ast.walk(tree)
                    if isinstance(node, ast.ImportFrom)}
        imported |= {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import)
                     for alias in node.names}
        assert "causal_oracle" in {name.split(".")[0] for name in imported}
        assert not {name for name in imported if name.startswith("causal_oracle.clients")}
        assert not any(isinstance(node, ast.ImportFrom) and node.module == "causal_oracle"
                       and any(a.name == "clients" for a in node.names)
                       for node in ast.walk(tree))
