"""The server's side of the error contract, each case a reproducer of issue 27.

* SIGTERM with ``--grace 2`` during a slow batch: the process is gone in under 3 s
  (``../shared/repro/grpc_sigterm_grace.py``; the batch is Corr2Cause premises whose
  closed-world check needs about a minute each, so nothing but the shutdown ends it).
* A cancelled call stops its work: the next call on the same (only) worker is served
  at once, not after the abandoned batch.
* Every exception that escapes a family maps to a status: the oracle's own errors to
  INVALID_ARGUMENT / RESOURCE_EXHAUSTED, a bug to INTERNAL with its traceback in the
  server's log (``../shared/repro/grpc_internal.py``).
* ``serve`` options: a non-finite ``--solver-budget`` and an HTTP address that cannot
  be bound exit 2 with one line (``../shared/repro/serve_options.sh``).
"""

from __future__ import annotations

import logging
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from test_grpc_service import ServerThread, premise_text, slow_premise

from causal_oracle import server_pool
from causal_oracle.clients import cli
from causal_oracle.clients.remote import DeadlineExceeded, OracleClient, make_request
from causal_oracle.oracle.errors import BudgetExceeded, CertificateRejected, InputError
from causal_oracle.parser.errors import ParseError
from causal_oracle.proto.causal_oracle.v1 import oracle_pb2 as pb
from causal_oracle.proto.causal_oracle.v1 import oracle_pb2_grpc as pb_grpc
from causal_oracle.server import OracleServicer

ROOT = Path(__file__).resolve().parent.parent
FAST = premise_text(4, independences="C and D are independent given A and B.")
CODE = {code.value[0]: code for code in grpc.StatusCode}


def slow_batch() -> pb.VerifyBatchRequest:
    """Four premises of about a minute each: only a shutdown or a cancel ends them."""
    return pb.VerifyBatchRequest(items=[
        make_request(slow_premise(22, first=first), f"{first}0 directly causes {first}2.")
        for first in "PQRS"])


# ---- shutdown within --grace ------------------------------------------------------------------

def test_sigterm_with_grace_2_exits_in_under_3_s_during_a_slow_batch() -> None:
    process = subprocess.Popen([sys.executable, "-m", "causal_oracle.server", "--port", "0",
                                "--workers", "1", "--grace", "2", "--solver-budget", "60"],
                               cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True)
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        assert " on 127.0.0.1:" in line, line
        target = line.split(" on ")[1].split()[0]
        with grpc.insecure_channel(target) as channel:
            call = pb_grpc.OracleStub(channel).VerifyBatch.future(slow_batch(), timeout=300)
            time.sleep(1.5)
            assert not call.done()  # the worker is busy with the batch
            start = time.monotonic()
            process.send_signal(signal.SIGTERM)
            out, _ = process.communicate(timeout=60)
            elapsed = time.monotonic() - start
            with pytest.raises(grpc.RpcError) as ended:
                call.result(timeout=10)
        assert elapsed < 3.0, f"{elapsed:.1f} s after SIGTERM with --grace 2"
        assert process.returncode == 0, out
        assert "stopped" in out and "Traceback" not in out, out
        assert ended.value.code() in (grpc.StatusCode.UNAVAILABLE,  # type: ignore[attr-defined]
                                      grpc.StatusCode.CANCELLED)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


# ---- cancelled calls stop their work ---------------------------------------------------------

@pytest.fixture
def one_worker() -> Iterator[ServerThread]:
    thread = ServerThread(workers=1, grace=1.0, solver_budget=60.0)
    thread.start()
    yield thread
    thread.stop(grace=1.0)


def _worker_pids(thread: ServerThread) -> set[int]:
    assert thread.server is not None and thread.server._pool is not None
    return {w.process.pid for w in thread.server._pool._all}


def test_a_cancelled_call_frees_its_worker(one_worker: ServerThread) -> None:
    """The client cancels a minute of work after a second: the worker is replaced and
    the next call (on the only worker) is answered at once."""
    with grpc.insecure_channel(one_worker.target) as channel:
        call = pb_grpc.OracleStub(channel).VerifyBatch.future(slow_batch(), timeout=300)
        time.sleep(1.0)
        before = _worker_pids(one_worker)
        assert call.cancel()
    with OracleClient(one_worker.target, timeout=30, retries=0) as client:
        start = time.monotonic()
        assert client.verify(FAST, "A directly causes B.").class_size == 10
        assert time.monotonic() - start < 15  # not the minutes the batch would take
    assert _worker_pids(one_worker).isdisjoint(before)


def test_a_call_past_its_deadline_keeps_its_worker(one_worker: ServerThread) -> None:
    """At the deadline the cooperative budget ends the work by itself: the worker is
    not replaced, and serves the next call."""
    before = _worker_pids(one_worker)
    with OracleClient(one_worker.target, timeout=30, retries=0) as client:
        with pytest.raises(DeadlineExceeded):
            client.verify(slow_premise(22), "V0 directly causes V2.", timeout=1.0)
        assert client.verify(FAST, "A directly causes B.").class_size == 10
    assert _worker_pids(one_worker) == before


# ---- the error mapping is total --------------------------------------------------------------

@pytest.mark.parametrize(("error", "code", "kind"), [
    (ParseError("expected a premise", line=1, column=3), grpc.StatusCode.INVALID_ARGUMENT,
     "parse_error"),
    (InputError("no such variable"), grpc.StatusCode.INVALID_ARGUMENT, "input_error"),
    (BudgetExceeded("the time budget of 1 s was exceeded"),
     grpc.StatusCode.RESOURCE_EXHAUSTED, "budget_exceeded"),
    (RecursionError("maximum recursion depth exceeded"), grpc.StatusCode.RESOURCE_EXHAUSTED,
     "budget_exceeded"),
    (MemoryError(), grpc.StatusCode.RESOURCE_EXHAUSTED, "budget_exceeded"),
])
def test_oracle_errors_map_to_their_codes(error: Exception, code: grpc.StatusCode,
                                          kind: str) -> None:
    item = server_pool.error_item(error)
    assert (CODE[item.code], item.kind) == (code, kind)


@pytest.mark.parametrize("error", [CertificateRejected("the checker disagrees"),
                                   TypeError("'Walk' object is not iterable")])
def test_a_bug_is_internal_and_logged_with_its_traceback(
        error: Exception, caplog: pytest.LogCaptureFixture) -> None:
    try:
        raise error
    except Exception as raised:
        with caplog.at_level(logging.ERROR, logger="causal_oracle.server"):
            item = server_pool.error_item(raised)
    assert CODE[item.code] == grpc.StatusCode.INTERNAL
    assert type(error).__name__ in item.message
    [record] = caplog.records
    assert record.exc_info is not None and record.exc_info[1] is error


def test_a_bug_of_the_servicer_is_internal_not_unknown(
        monkeypatch: pytest.MonkeyPatch, one_worker: ServerThread) -> None:
    async def broken(*args: object) -> None:
        raise KeyError("a bug")

    monkeypatch.setattr(OracleServicer, "_items", broken)
    with grpc.insecure_channel(one_worker.target) as channel, \
            pytest.raises(grpc.RpcError) as failed:
        pb_grpc.OracleStub(channel).Verify(make_request(FAST, "A directly causes B."),
                                           timeout=30)
    assert failed.value.code() == grpc.StatusCode.INTERNAL  # type: ignore[attr-defined]


CLEAR = ("Given an ADMG (acyclic directed mixed graph) with nodes I, Y, H, U, directed edges "
         "I->H, I->Y, I->U, H->U, Y->H and bi-directed edges H<->U, I<->Y.\nIt can be "
         "uniquely partitioned into a set C(G) of subgraphs, each a maximal C-component. "
         "Write down such partition of the given graph.")
CLADDER = ("Imagine a self-contained, hypothetical world with only the following conditions, "
           "and without any unmentioned factors or causal relationships: Medication has a "
           "direct effect on blood pressure and heart condition. Blood pressure has a direct "
           "effect on heart condition. The overall probability of taking medication is 84%. "
           "The probability of taking medication and healthy heart is 76%. Is the chance of "
           "healthy heart larger when observing taking medication?")


CLEAR_PATH = ("Given a DAG (directed acyclic graph) with nodes K, U, A, Z, Y, D, C, I and "
              "directed edges U->I, A->Z, K->A, C->I, A->D, A->I, Z->I, K->Y, Y->C.\nWhich of "
              "the following nodesets can block path Y<-K->A->Z->Z9I<-C?\nA. {'D', 'I'}\n"
              "B. {'I', 'A', 'K'}\nC. {'I', 'U'}\nD. {'I'}")


@pytest.fixture(scope="module")
def service() -> Iterator[ServerThread]:
    thread = ServerThread(workers=1, grace=1.0, solver_budget=10.0)
    thread.start()
    yield thread
    thread.stop(grace=1.0)


@pytest.mark.parametrize("request_", [
    pytest.param(pb.AnswerRequest(prompt=CLEAR, model_answer="H"), id="clear-c-component-reply"),
    pytest.param(pb.AnswerRequest(prompt=CLADDER), id="cladder-missing-conditional"),
    # found by bench/server_memory.py: a CLEAR path through a node the graph lacks
    pytest.param(pb.AnswerRequest(prompt=CLEAR_PATH), id="clear-path-through-unknown-node"),
])
def test_grpc_internal_reproducer(service: ServerThread, request_: pb.AnswerRequest) -> None:
    """``grpc_internal.py`` (and one more the memory bench found): answered or refused
    as bad input, never INTERNAL."""
    with grpc.insecure_channel(service.target) as channel:
        try:
            pb_grpc.OracleStub(channel).Answer(request_, timeout=30)
        except grpc.RpcError as error:
            assert error.code() in (grpc.StatusCode.INVALID_ARGUMENT,  # type: ignore[attr-defined]
                                    grpc.StatusCode.RESOURCE_EXHAUSTED), error


# ---- serve options ---------------------------------------------------------------------------

@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "-1", "0", "NaN"])
def test_a_solver_budget_that_is_no_number_of_seconds_is_refused_when_parsed(
        value: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        cli.main(["serve", "--port", "0", "--solver-budget", value])
    assert stop.value.code == 2
    assert "--solver-budget" in capsys.readouterr().err


@pytest.mark.parametrize("option", ["--grace", "--budget"])
def test_other_seconds_options_refuse_non_finite_values(
        option: str, capsys: pytest.CaptureFixture[str]) -> None:
    argv = (["serve", "--port", "0", "--grace", "nan"] if option == "--grace"
            else ["--budget", "inf", "verify", "--premise", FAST, "--hypothesis", "x"])
    with pytest.raises(SystemExit) as stop:
        cli.main(argv)
    assert stop.value.code == 2
    assert option in capsys.readouterr().err


def test_an_http_port_in_use_exits_2_naming_the_address(
        capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("uvicorn")
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        code = cli.main(["serve", "--workers", "1", "--http-port", str(port)])
    err = capsys.readouterr().err
    assert code == 2
    assert f"causal-oracle: error: cannot bind 127.0.0.1:{port}" in err, err


def test_an_http_host_that_is_no_address_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("uvicorn")
    code = cli.main(["serve", "--workers", "1", "--http-port", "0", "--host", "300.0.0.1"])
    err = capsys.readouterr().err
    assert code == 2
    assert "causal-oracle: error: cannot bind 300.0.0.1:0" in err, err
