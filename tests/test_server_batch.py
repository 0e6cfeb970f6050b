"""Batches on the bulk path (``server_batch``, ``WorkerPool`` slots, ``corr2cause_bulk``).

* a worker's job answered by premise runs (``server_pool._run_items``) gives every
  item the bytes the per-item path gives it (``_run_one``): labels, reasons, labels
  by profile, and every error, for items grouped, interleaved, alone, with options
  the bulk path leaves (model answers, certificates, explanations, the ``input``
  layout, ``compelled``) and under every member profile;
* a run whose budget or deadline is spent gives each of its items that error;
* ``jobs`` pins a premise's items to one slot, in order, cut at ``JOB_ITEMS``;
* the pool's slots: a pinned batch waits for its slot, takes another slot that is
  idle, hands slots on first come, first served, and forgets a cancelled waiter;
* over gRPC, a ``VerifyBatch`` and a stream answer every item as in-process
  ``verify`` does, in request order.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator

import pytest
from test_grpc_service import ServerThread, premise_text, rows, slow_premise

from causal_oracle import entry as svc
from causal_oracle import server_batch, server_pool
from causal_oracle.clients.remote import OracleClient, make_request
from causal_oracle.proto import pack
from causal_oracle.proto.causal_oracle.v1 import oracle_pb2 as pb

CHAIN = premise_text(4, independences="A is independent of D given B and C. "
                     "A is independent of C given B. B is independent of D given C.")
INCONSISTENT = ("Suppose there is a closed system of 3 variables, A, B and C. All the "
                "statistical relations among these 3 variables are as follows: A correlates "
                "with B. B correlates with C. However, A is independent of C. A is "
                "independent of C given B.")
HYPOTHESES = ["A directly causes B.", "B directly causes A.", "A causes something else "
              "which causes C.", "C is a cause for A, but not a direct one.",
              "There exists at least one collider (i.e., common effect) of A and C.",
              "There exists at least one confounder (i.e., common cause) of B and D.",
              "A directly causes Z.", "nonsense", "A directly causes A."]


def _requests() -> list[pb.VerifyRequest]:
    """Grouped, interleaved and lone items, errors and options the bulk path leaves."""
    out = []
    for premise in (CHAIN, premise_text(4), INCONSISTENT):
        out += [make_request(premise, h, certificate="none") for h in HYPOTHESES]
    out += [make_request(r["premise"], r["hypothesis"], certificate="none")
            for r in rows("n4", 3)]
    for profile in (pb.PROFILE_LOOSE, pb.PROFILE_STRICT, 99):
        for h in HYPOTHESES[:6]:
            request = make_request(CHAIN, h, certificate="none")
            request.options.profile = profile
            out.append(request)
    lone = make_request(premise_text(5), "A directly causes B.", certificate="none")
    out += [lone, make_request(CHAIN, HYPOTHESES[2], certificate="full"),
            make_request(CHAIN, HYPOTHESES[0], certificate="none", model_answer="Yes"),
            pb.VerifyRequest(input=f"Premise: {CHAIN}\nHypothesis: A directly causes B."),
            make_request(CHAIN, HYPOTHESES[1], certificate="none"),  # back to CHAIN
            make_request(premise_text(4), HYPOTHESES[0], certificate="none")]
    out += [make_request(CHAIN, h) for h in HYPOTHESES]  # a summary certificate each
    out += [pb.VerifyRequest(premise=premise_text(4), hypothesis=h) for h in HYPOTHESES[:4]]
    explained = make_request(CHAIN, HYPOTHESES[3], certificate="none")
    explained.options.explanation_format = pb.EXPLANATION_FORMAT_TEXT
    return [*out, explained]


def test_a_job_by_premise_runs_answers_what_each_item_answers() -> None:
    requests = [r.SerializeToString() for r in _requests()]
    deadline = time.time() + 600
    bulk = server_pool._run_items("verify", [(r, deadline) for r in requests],
                                  svc.Service(svc.Limits()))
    alone = svc.Service(svc.Limits())
    one = [server_pool._run_one(alone, "verify", r, deadline) for r in requests]
    assert bulk == one
    assert sum(ok for ok, _ in one) > 60 and sum(not ok for ok, _ in one) > 10
    by_bulk = server_batch.bulk_answers(svc.Service(svc.Limits()),
                                        [(r, deadline) for r in requests])
    assert sum(isinstance(a, tuple) for a in by_bulk) > 30  # the bulk path answered most


def test_the_bulk_answers_are_the_per_item_answers_on_a_whole_file() -> None:
    data = [make_request(r["premise"], r["hypothesis"], certificate="none")
            .SerializeToString() for r in rows("n4_paraph")]
    bulk = server_pool._run_items("verify", [(d, None) for d in data],
                                  svc.Service(svc.Limits()))
    alone = svc.Service(svc.Limits())
    assert bulk == [server_pool._run_one(alone, "verify", d, None) for d in data]


def test_a_run_out_of_budget_or_time_gives_each_item_the_error() -> None:
    premise = slow_premise(16, first="J")
    data = [make_request(premise, f"J{i} directly causes J{i + 1}.", certificate="none")
            .SerializeToString() for i in range(4)]
    tight = svc.Service(svc.Limits(budget_s=0.05))
    started = time.perf_counter()
    results = server_pool._run_items("verify", [(d, None) for d in data], tight)
    assert time.perf_counter() - started < 20  # one budget for the run, not one per item
    for ok, error in results:
        item = pb.ItemError.FromString(error)
        assert not ok and (item.code, item.kind) == (pack.EXHAUSTED, "budget_exceeded")
    late = server_pool._run_items("verify", [(d, time.time() + 0.05) for d in data],
                                  svc.Service(svc.Limits()))
    for ok, error in late:
        assert not ok and pb.ItemError.FromString(error).code == pack.DEADLINE


def test_jobs_interleave_the_slots(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(server_batch, "JOB_ITEMS", 4)
    premises = [premise_text(3, first=c) for c in "ABCDEFGHIJKLMNOP"]
    requests = [make_request(p, "A directly causes B.") for p in premises for _ in range(2)]
    todo = server_batch.jobs("verify", requests, 2, chunk=64)
    slots = [slot for slot, _ in todo]
    assert set(slots) == {0, 1} and slots[0] != slots[1]
    assert all(len(job) == 4 for _, job in todo[:2])


def test_jobs_pin_each_premise_to_one_slot_in_order() -> None:
    premises = [premise_text(n) for n in (2, 3, 4, 5)]
    requests = [make_request(premises[k % 4], "A directly causes B.") for k in range(40)]
    requests.insert(7, pb.VerifyRequest(input="Premise: x\nHypothesis: y"))
    todo = server_batch.jobs("verify", requests, 2, chunk=64)
    seen = sorted(k for _, job in todo for k in job)
    assert seen == list(range(len(requests)))
    for slot, job in todo:
        if slot is None:
            assert job == [7]
            continue
        assert job == sorted(job, key=lambda k: (premises.index(requests[k].premise), k))
        assert {server_batch.slot_of(requests[k].premise.strip(), 2) for k in job} == {slot}
    assert server_batch.slot_of(premises[0], 3) == server_batch.slot_of(premises[0], 3)
    answers = [pb.AnswerRequest(prompt="x")] * 3
    assert server_batch.jobs("answer", answers, 2, chunk=2) == [(None, [0, 1]), (None, [2])]
    big = [make_request(premises[0], "A directly causes B.")] * (server_batch.JOB_ITEMS + 5)
    assert [len(job) for _, job in server_batch.jobs("verify", big, 2, 64)] == [
        server_batch.JOB_ITEMS + 5]  # a group is not cut: the cut comes after it


def test_pool_slots_wait_steal_and_hand_on_in_turn() -> None:
    async def scenario() -> None:
        pool = server_pool.WorkerPool(2, svc.Limits())
        pool._idle = {0, 1}
        assert await pool._acquire(0) == 0
        assert await pool._acquire(0) == 1  # its slot is busy, the other idle: taken
        first = asyncio.ensure_future(pool._acquire(0))
        anyone = asyncio.ensure_future(pool._acquire(None))
        other = asyncio.ensure_future(pool._acquire(1))
        cancelled = asyncio.ensure_future(pool._acquire(0))
        await asyncio.sleep(0)
        cancelled.cancel()
        await asyncio.sleep(0)
        pool._release(1)  # nobody asked for 1 before `anyone`; `first` wants 0
        await asyncio.sleep(0)
        assert anyone.done() and anyone.result() == 1 and not first.done()
        pool._release(0)
        await asyncio.sleep(0)
        assert first.result() == 0 and not other.done()
        pool._release(0)  # `other` wants 1, which is busy: 0 is free, so it takes 0
        await asyncio.sleep(0)
        assert other.result() == 0 and not pool._waiting and not pool._idle
        pool._release(0)
        pool._release(1)
        assert pool._idle == {0, 1}

    asyncio.run(scenario())


# ---- over gRPC -------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def served() -> Iterator[ServerThread]:
    thread = ServerThread(workers=2, grace=2.0)
    thread.start()
    yield thread
    thread.stop(grace=1.0)


def _expected(request: pb.VerifyRequest) -> tuple[bool, bytes]:
    return server_pool._run_one(svc.Service(svc.Limits()), "verify",
                                request.SerializeToString(), None)


def test_verify_batch_and_stream_answer_as_verify_does(served: ServerThread) -> None:
    requests = _requests()
    expected = [_expected(r) for r in requests]
    with OracleClient(served.target, timeout=60) as client:
        batch = client._stub.VerifyBatch(pb.VerifyBatchRequest(items=requests), timeout=60)
        streamed = list(client.verify_many(iter(requests), return_exceptions=True))
    assert len(batch.items) == len(requests) == len(streamed)
    for item, (ok, data) in zip(batch.items, expected, strict=True):
        if ok:
            assert item.result == pb.VerifyResponse.FromString(data)
        else:
            assert item.error == pb.ItemError.FromString(data)
    for got, (ok, data) in zip(streamed, expected, strict=True):
        if ok:
            assert got.reason == pb.VerifyResponse.FromString(data).reason
        else:
            assert isinstance(got, Exception)


def test_jobs_read_off_the_items_bytes_are_the_same_jobs() -> None:
    premises = [premise_text(n) for n in (2, 3, 4)]
    requests = [make_request(premises[k // 5 % 3], "A directly causes B.") for k in range(30)]
    requests[3] = pb.VerifyRequest(premise=premises[0], input="Premise: x\nHypothesis: y")
    requests[4] = pb.VerifyRequest(premise=premises[0])  # no hypothesis: any worker
    requests[11] = make_request(" " + premises[2] + " ", "A directly causes B.")
    raw = [r.SerializeToString() for r in requests]
    assert server_batch.jobs("verify", requests, 2, 4, raw) == \
        server_batch.jobs("verify", requests, 2, 4)


def test_a_job_frame_sends_a_shared_premise_once() -> None:
    premise = premise_text(5)
    items = [(make_request(premise, h).SerializeToString(), d)
             for h, d in zip(HYPOTHESES * 3, [None, 5.0] * 9, strict=False)]
    items.insert(4, (make_request(premise_text(3), "A directly causes B.")
                     .SerializeToString(), None))
    items.append((b"", None))
    frame = server_pool.encode_job("verify", items)
    assert server_pool.decode_job(frame) == ("verify", items)
    assert len(frame) < sum(len(d) for d, _ in items) // 3  # premise sent 3 times, not 19


def test_the_response_cache_counts_a_tuple_keys_parts() -> None:
    from causal_oracle.server_cache import ResponseCache

    cache = ResponseCache(items=10, max_bytes=1000)
    cache.put(("verify", b"abc"), (True, b"12"))
    cache.put(b"verifyabc", (True, b"12"))  # the same bytes joined: another key
    assert cache.get(("verify", b"abc")) == (True, b"12") and cache.nbytes == 11 + 11
    assert cache.get(("answer", b"abc")) is None
