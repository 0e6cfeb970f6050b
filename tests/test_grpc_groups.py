"""``VerifyGroup``: a batch's premise sent once for its items (``oracle.proto``).

* a grouped item is answered with the bytes the same request alone gets, in the
  documented order (the batch's ``items`` first, then each group's items), in a batch
  that mixes both forms too;
* the clients' ``verify_batch`` groups requests that share a premise
  (``batch_request``) and gives back what the ungrouped batch gives, in request order;
* bad input in a group gets the item errors the ungrouped form gets: an unparsable or
  empty premise (every item of the group), a premise or hypothesis over the size
  limit (the premise's limit applies to each item), an item that gives a premise or
  ``input`` itself; a group without items and a batch over the item limit (counting
  every group's items) fail the call with INVALID_ARGUMENT / RESOURCE_EXHAUSTED and an
  ``ItemError`` — never INTERNAL or UNKNOWN;
* a grouped item and the same item sent alone share one cache entry;
* a ``VerifyStream`` message may carry a group: item k answered under ``id + k``,
  as the same items sent one by one are; an empty group or ids past 2^64 - 1 end the
  stream with INVALID_ARGUMENT.
"""

from __future__ import annotations

from collections.abc import Iterator

import grpc
import pytest
from test_grpc_service import ServerThread, _status, premise_text, rows
from test_server_batch import HYPOTHESES, _requests

from causal_oracle import server
from causal_oracle.clients.remote import OracleClient, batch_request, make_request
from causal_oracle.clients.remote_batch import batch_bytes
from causal_oracle.proto import pack
from causal_oracle.proto.causal_oracle.v1 import oracle_pb2 as pb
from causal_oracle.proto.causal_oracle.v1 import oracle_pb2_grpc as pb_grpc

LIMIT = 20_000  # the served premise limit (bytes), small enough to pass in a test


@pytest.fixture(scope="module")
def served() -> Iterator[ServerThread]:
    thread = ServerThread(workers=2, grace=2.0, max_premise_bytes=LIMIT)
    thread.start()
    yield thread
    thread.stop(grace=1.0)


@pytest.fixture(scope="module")
def stub(served: ServerThread) -> Iterator[pb_grpc.OracleStub]:
    with grpc.insecure_channel(served.target) as channel:
        yield pb_grpc.OracleStub(channel)


def _alone(stub: pb_grpc.OracleStub, requests: list[pb.VerifyRequest]) -> list[pb.VerifyItem]:
    """Each request's answer in the ungrouped form."""
    return list(stub.VerifyBatch(pb.VerifyBatchRequest(items=requests), timeout=120).items)


def _group(premise: str, requests: list[pb.VerifyRequest]) -> pb.VerifyGroup:
    group = pb.VerifyGroup(premise=premise)
    for request in requests:
        item = group.items.add()
        item.CopyFrom(request)
        item.ClearField("premise")
    return group


def _errors(items: list[pb.VerifyItem]) -> list[pb.ItemError]:
    assert all(item.HasField("error") for item in items)
    return [item.error for item in items]


def test_grouped_items_answer_what_they_answer_alone_in_the_documented_order(
        stub: pb_grpc.OracleStub) -> None:
    requests = _requests()
    groupable = [r for r in requests if r.premise and not r.input]
    loose = [r for r in requests if not (r.premise and not r.input)]
    premises = list(dict.fromkeys(r.premise for r in groupable))
    groups = [_group(p, [r for r in groupable if r.premise == p]) for p in premises]
    mixed = pb.VerifyBatchRequest(items=loose, groups=groups)
    got = stub.VerifyBatch(mixed, timeout=120).items
    in_order = loose + [r for p in premises for r in groupable if r.premise == p]
    assert list(got) == _alone(stub, in_order)
    only = stub.VerifyBatch(pb.VerifyBatchRequest(groups=groups), timeout=120).items
    assert list(only) == list(got)[len(loose):]
    assert sum(item.HasField("result") for item in got) > 60


def test_the_client_groups_repeated_premises_and_keeps_request_order(
        served: ServerThread) -> None:
    requests = [make_request(r["premise"], r["hypothesis"], certificate="none")
                for r in rows("n4")[:120]]
    requests.insert(5, make_request(premise_text(3), "A directly causes B."))  # alone
    requests.insert(9, pb.VerifyRequest(input=f"Premise: {premise_text(3)}\n"
                                              "Hypothesis: B directly causes C."))
    batch, order = batch_request(requests)
    assert len(batch.items) == 2 and batch.groups and sorted(order) == list(range(len(order)))
    assert sum(len(g.items) for g in batch.groups) == len(requests) - 2
    assert len(batch.SerializeToString()) * 5 < len(
        pb.VerifyBatchRequest(items=requests).SerializeToString())
    with OracleClient(served.target, timeout=120) as client:
        grouped = client.verify_batch(requests)
        plain = client.verify_batch(requests, group=False)
    assert grouped == plain and all(isinstance(r, pb.VerifyResponse) for r in grouped)


def test_an_unparsable_or_empty_premise_fails_every_item_of_its_group(
        stub: pb_grpc.OracleStub) -> None:
    bad = premise_text(3).replace("correlates with", "correlates wit", 1)
    for premise in (bad, "", "Suppose"):
        requests = [make_request(premise, h, certificate="none") for h in HYPOTHESES[:5]]
        alone = _errors(_alone(stub, requests))
        grouped = _errors(list(stub.VerifyBatch(pb.VerifyBatchRequest(
            groups=[_group(premise, requests)]), timeout=60).items))
        assert grouped == alone and len({e.SerializeToString() for e in grouped}) == 1
        assert grouped[0].code == pack.INVALID
    parse = _errors(list(stub.VerifyBatch(pb.VerifyBatchRequest(groups=[_group(
        bad, [make_request(bad, "A directly causes B.")])]), timeout=60).items))[0]
    assert (parse.kind, parse.field, parse.line) == ("parse_error", "premise", 1)
    assert parse.column > 0 and parse.expected


def test_size_limits_count_the_premise_for_each_item(stub: pb_grpc.OracleStub) -> None:
    long = premise_text(3) + " " * LIMIT
    requests = [make_request(long, h, certificate="none") for h in HYPOTHESES[:3]]
    grouped = _errors(list(stub.VerifyBatch(pb.VerifyBatchRequest(
        groups=[_group(long, requests)]), timeout=60).items))
    assert grouped == _errors(_alone(stub, requests))
    assert {(e.code, e.field) for e in grouped} == {(pack.EXHAUSTED, "premise")}
    wordy = make_request(premise_text(3), "A directly causes B." + " " * LIMIT)
    fine = make_request(premise_text(3), "A directly causes B.")
    got = stub.VerifyBatch(pb.VerifyBatchRequest(groups=[_group(premise_text(3), [
        wordy, fine])]), timeout=60).items
    assert got[0].HasField("error") and got[1].HasField("result")
    assert (got[0].error.code, got[0].error.field) == (pack.EXHAUSTED, "hypothesis")
    assert got[0].error == _alone(stub, [wordy])[0].error


def test_an_item_that_gives_a_premise_or_input_itself_is_invalid(
        stub: pb_grpc.OracleStub) -> None:
    premise = premise_text(3)
    group = _group(premise, [make_request(premise, "A directly causes B.")] * 3)
    group.items[0].premise = premise
    group.items[1].input = f"Premise: {premise}\nHypothesis: A directly causes B."
    got = stub.VerifyBatch(pb.VerifyBatchRequest(groups=[group]), timeout=60).items
    assert [(i.error.code, i.error.field) for i in got[:2]] == [
        (pack.INVALID, "premise"), (pack.INVALID, "input")]
    assert "group" in got[0].error.description and got[2].HasField("result")


def test_an_empty_group_or_too_many_items_fail_the_call(
        stub: pb_grpc.OracleStub, monkeypatch: pytest.MonkeyPatch) -> None:
    premise = premise_text(3)
    good = _group(premise, [make_request(premise, "A directly causes B.")])
    with pytest.raises(grpc.RpcError) as info:
        stub.VerifyBatch(pb.VerifyBatchRequest(groups=[good, pb.VerifyGroup(
            premise=premise)]), timeout=60)
    assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    _, details = _status(info.value)
    assert details["ItemError"].field == "groups" and "group 1" in details["ItemError"].message
    monkeypatch.setattr(server, "MAX_BATCH_ITEMS", 4)  # the servicer runs in this process
    two = _group(premise, [make_request(premise, h) for h in HYPOTHESES[:2]])
    assert len(stub.VerifyBatch(pb.VerifyBatchRequest(items=[make_request(
        premise, HYPOTHESES[2])], groups=[two]), timeout=60).items) == 3
    with pytest.raises(grpc.RpcError) as info:
        stub.VerifyBatch(pb.VerifyBatchRequest(items=[make_request(premise, HYPOTHESES[2])],
                                               groups=[two, two]), timeout=60)
    assert info.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    _, details = _status(info.value)
    assert details["ItemError"].field == "items" and "5 items" in details["ItemError"].message


def test_a_grouped_item_and_the_same_item_alone_share_a_cache_entry(
        served: ServerThread, stub: pb_grpc.OracleStub) -> None:
    premise = premise_text(4, first="P")
    requests = [make_request(premise, f"{a} directly causes {b}.", certificate="none")
                for a, b in ("PQ", "QR", "RS", "SP")]
    assert served.server is not None and served.server.servicer is not None
    cache = served.server.servicer.cache
    alone = _alone(stub, requests)
    size = len(cache)
    grouped = stub.VerifyBatch(pb.VerifyBatchRequest(groups=[_group(premise, requests)]),
                               timeout=60).items
    assert list(grouped) == alone and len(cache) == size


def test_batch_request_carries_every_field_of_each_request() -> None:
    premise = premise_text(3)
    requests = [make_request(premise, "A directly causes B.", certificate="none"),
                make_request(premise, "B directly causes C.", model_answer="Yes",
                             explanation="text", profile="strict"),
                pb.VerifyRequest(premise=premise, hypothesis="C directly causes A.",
                                 model_answer=""),
                pb.VerifyRequest(hypothesis="no premise"),
                pb.VerifyRequest(premise=premise, input="Premise: x\nHypothesis: y"),
                make_request(premise_text(4), "A directly causes D."),
                make_request(premise, "A directly causes C.")]
    batch, order = batch_request(requests)
    sent = list(batch.items)
    for group in batch.groups:
        for item in group.items:
            whole = pb.VerifyRequest(premise=group.premise)
            whole.MergeFrom(item)
            sent.append(whole)
    assert [sent[order.index(k)] for k in range(len(requests))] == requests
    assert sent[len(batch.items) + 2].HasField("model_answer")  # set to "" is kept
    assert order[:len(batch.items)] == [3, 4, 5]
    data, same_order = batch_bytes(requests)  # what the clients send: the same message
    assert data == batch.SerializeToString() and same_order == order


def test_a_grouped_item_keeps_fields_this_client_does_not_know() -> None:
    """A grouped item is its request's bytes without the premise field, so a field
    added to the protocol after this client was written still reaches the server."""
    premise = premise_text(3)
    unknown = b"\xfa\x01\x03new"  # field 31, length-delimited: no such field today
    requests = [pb.VerifyRequest.FromString(
        make_request(premise, h, certificate="none").SerializeToString() + unknown)
        for h in HYPOTHESES[:3]]
    data, order = batch_bytes(requests)
    (group,) = pb.VerifyBatchRequest.FromString(data).groups
    assert group.premise == premise and order == [0, 1, 2]
    assert all(item.SerializeToString().endswith(unknown) and not item.premise
               for item in group.items)


def _stream(stub: pb_grpc.OracleStub, messages: list[pb.VerifyStreamRequest]
            ) -> dict[int, pb.VerifyStreamResponse]:
    return {r.id: r for r in stub.VerifyStream(iter(messages), timeout=120)}


def test_a_stream_message_may_carry_a_group_answered_under_consecutive_ids(
        stub: pb_grpc.OracleStub) -> None:
    premise = premise_text(4)
    requests = [make_request(premise, h, certificate="none") for h in HYPOTHESES]
    group = _group(premise, requests)
    group.items[1].premise = premise  # gives a premise itself: that item's error
    alone = _stream(stub, [pb.VerifyStreamRequest(id=10 + k, request=r)
                           for k, r in enumerate(requests)])
    lone = make_request(premise_text(3), "A directly causes B.")
    got = _stream(stub, [pb.VerifyStreamRequest(id=7, request=lone),
                         pb.VerifyStreamRequest(id=10, group=group)])
    assert sorted(got) == [7, *range(10, 10 + len(requests))]
    assert got[11].error.field == "premise" and got[11].error.code == pack.INVALID
    del got[11], alone[11]
    assert {k: v for k, v in got.items() if k != 7} == alone
    assert got[7].HasField("result")
    for bad in (pb.VerifyStreamRequest(id=1, group=pb.VerifyGroup(premise=premise)),
                pb.VerifyStreamRequest(id=(1 << 64) - 2, group=_group(premise, requests))):
        with pytest.raises(grpc.RpcError) as info:
            _stream(stub, [bad])
        assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT
