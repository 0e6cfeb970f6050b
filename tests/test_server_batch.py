"""Batches on the bulk path (``server_batch``, ``WorkerPool`` slots, ``corr2cause_bulk``).

* a worker's job answered by premise runs (``server_pool._run_items``) gives every
  item the bytes the per-item path gives it (``_run_one``): labels, reasons, labels
  by profile, and every error, for items grouped, interleaved, alone, with options
  the bulk path leaves (model answers, certificates, explanations, the ``input``
  layout, ``compelled``) and under every member profile;
* a run whose budget or deadline is spent gives each of its items that error;
* ``jobs`` pins a premise's items to one slot, in order, cut at ``JOB_ITEMS``; a job
  frame sends a premise once per run of its items;
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
from hypothesis import given
from hypothesis import strategies as st
from test_grpc_service import ServerThread, premise_text, rows, slow_premise

from causal_oracle import entry as svc
from causal_oracle import server_batch, server_pool
from causal_oracle.clients.remote import OracleClient, make_request
from causal_oracle.proto import pack
from causal_oracle.proto.causal_oracle.v1 import oracle_pb2 as pb
from causal_oracle.proto.wire import split_premise

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


def _items(data: list[bytes], deadline: float | None) -> server_pool.Items:
    """A job's items as the server ships them: each request split at its premise field,
    the items of a run sharing the field's object."""
    out, last = [], b""
    for d in data:
        head, rest = split_premise(d, last)
        out.append((head, rest, deadline))
        last = head
    return out


def _heads(requests: list[pb.VerifyRequest]) -> list[bytes]:
    return [item[0] for item in _items([r.SerializeToString() for r in requests], None)]


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
    bulk = server_pool._run_items("verify", _items(requests, deadline),
                                  svc.Service(svc.Limits()))
    alone = svc.Service(svc.Limits())
    one = [server_pool._run_one(alone, "verify", r, deadline) for r in requests]
    assert bulk == one
    assert sum(ok for ok, _ in one) > 60 and sum(not ok for ok, _ in one) > 10
    by_bulk = server_batch.bulk_answers(svc.Service(svc.Limits()), _items(requests, deadline))
    assert sum(isinstance(a, tuple) for a in by_bulk) > 30  # the bulk path answered most


def test_the_bulk_answers_are_the_per_item_answers_on_a_whole_file() -> None:
    data = [make_request(r["premise"], r["hypothesis"], certificate="none")
            .SerializeToString() for r in rows("n4_paraph")]
    bulk = server_pool._run_items("verify", _items(data, None), svc.Service(svc.Limits()))
    alone = svc.Service(svc.Limits())
    assert bulk == [server_pool._run_one(alone, "verify", d, None) for d in data]


def test_a_run_out_of_budget_or_time_gives_each_item_the_error() -> None:
    premise = slow_premise(16, first="J")
    data = [make_request(premise, f"J{i} directly causes J{i + 1}.", certificate="none")
            .SerializeToString() for i in range(4)]
    tight = svc.Service(svc.Limits(budget_s=0.05))
    started = time.perf_counter()
    results = server_pool._run_items("verify", _items(data, None), tight)
    assert time.perf_counter() - started < 20  # one budget for the run, not one per item
    for ok, error in results:
        item = pb.ItemError.FromString(error)
        assert not ok and (item.code, item.kind) == (pack.EXHAUSTED, "budget_exceeded")
    late = server_pool._run_items("verify", _items(data, time.time() + 0.05),
                                  svc.Service(svc.Limits()))
    for ok, error in late:
        assert not ok and pb.ItemError.FromString(error).code == pack.DEADLINE


def test_jobs_interleave_the_slots(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(server_batch, "JOB_ITEMS", 4)
    premises = [premise_text(3, first=c) for c in "ABCDEFGHIJKLMNOP"]
    requests = [make_request(p, "A directly causes B.") for p in premises for _ in range(2)]
    todo = server_batch.jobs("verify", _heads(requests), 2, chunk=64)
    slots = [slot for slot, _ in todo]
    assert set(slots) == {0, 1} and slots[0] != slots[1]
    assert all(len(job) == 4 for _, job in todo[:2])


def test_jobs_pin_each_premise_to_one_slot_in_order() -> None:
    premises = [premise_text(n) for n in (2, 3, 4, 5)]
    requests = [make_request(premises[k % 4], "A directly causes B.") for k in range(40)]
    requests.insert(7, pb.VerifyRequest(input="Premise: x\nHypothesis: y"))
    heads = _heads(requests)
    todo = server_batch.jobs("verify", heads, 2, chunk=64)
    seen = sorted(k for _, job in todo for k in job)
    assert seen == list(range(len(requests)))
    for slot, job in todo:
        if slot is None:
            assert job == [7]
            continue
        assert job == sorted(job, key=lambda k: (premises.index(requests[k].premise), k))
        assert {server_batch.slot_of(heads[k], 2) for k in job} == {slot}
    # a premise's slot does not depend on the whitespace around it, nor on the call
    padded = _heads([make_request(" " + premises[0] + "\n", "A directly causes B.")])[0]
    assert server_batch.slot_of(padded, 3) == server_batch.slot_of(heads[0], 3)
    assert server_batch.jobs("answer", [b""] * 3, 2, chunk=2) == [(None, [0, 1]), (None, [2])]
    big = _heads([make_request(premises[0], "A directly causes B.")] * (
        server_batch.JOB_ITEMS + 5))
    assert [len(job) for _, job in server_batch.jobs("verify", big, 2, 64)] == [
        server_batch.JOB_ITEMS + 5]  # a group is not cut: the cut comes after it
    # equal premise fields that are distinct objects are still one premise
    copies = [bytes(bytearray(h)) for h in big[:3]]
    assert [job for _, job in server_batch.jobs("verify", copies, 2, 64)] == [[0, 1, 2]]


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


def test_a_job_frame_sends_a_shared_premise_once() -> None:
    premise = premise_text(5)
    data = [make_request(premise, h).SerializeToString() for h in HYPOTHESES * 3]
    data.insert(4, make_request(premise_text(3), "A directly causes B.").SerializeToString())
    data += [b"", pb.VerifyRequest(hypothesis="x", premise="y").SerializeToString()]
    items = [(h, r, d) for (h, r, _), d in zip(_items(data, None), [None, 5.0] * 15,
                                               strict=False)]
    frame = server_pool.encode_job("verify", items)
    kind, back = server_pool.decode_job(frame)
    assert (kind, back) == ("verify", items)
    assert len(frame) < sum(len(h) + len(r) for h, r, _ in items) // 3  # 3 times, not 28
    assert back[1][0] is back[2][0]  # a run's items share the premise field's object


def test_the_response_cache_counts_a_tuple_keys_parts() -> None:
    from causal_oracle.server_cache import ResponseCache

    cache = ResponseCache(items=10, max_bytes=1000)
    cache.put(("verify", b"abc"), (True, b"12"))
    cache.put(b"verifyabc", (True, b"12"))  # the same bytes joined: another key
    assert cache.get(("verify", b"abc")) == (True, b"12") and cache.nbytes == 11 + 11
    assert cache.get(("answer", b"abc")) is None


@given(st.lists(st.tuples(st.sampled_from([1, 2, 3, 4, 5, 6]), st.binary(max_size=200)),
                max_size=4) | st.binary(max_size=40).map(lambda b: [(0, b)]))
def test_the_usual_shape_reads_as_the_field_reader_does(
        fields: list[tuple[int, bytes]]) -> None:
    rest = b"".join(data if number == 0 else
                    bytes([number << 3 | 2]) + pack.varint(len(data)) + data
                    for number, data in fields)
    usual = server_batch._usual(rest)
    read = server_batch._fields(rest, {1: b""})
    if usual is not None:  # then the field reader finds exactly that
        assert read is not None and 3 not in read and 4 not in read and read[2]
        assert usual == (read[2], read.get(5, b""))
    elif read is not None and set(read) <= {1, 2, 5} and read.get(2) and all(
            len(v) < 128 for v in read.values()) and list(read)[1:] in ([2], [2, 5]):
        raise AssertionError(f"the usual shape was not read: {rest!r}")
