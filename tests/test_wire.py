"""The bytes ``proto/wire.py`` writes by hand are the messages ``oracle.proto`` defines.

Each tag is re-derived from the descriptors (field number and wire type), and each
frame is parsed back by protobuf itself, so renumbering a field in the ``.proto``
fails here instead of on the wire.
"""

from __future__ import annotations

import pytest
from google.protobuf.descriptor import FieldDescriptor
from hypothesis import given
from hypothesis import strategies as st

from causal_oracle.proto import wire
from causal_oracle.proto.causal_oracle.v1 import oracle_pb2 as pb


def _tag(message: type, field: str) -> bytes:
    f = message.DESCRIPTOR.fields_by_name[field]  # type: ignore[attr-defined]
    kind = 2 if f.type == FieldDescriptor.TYPE_MESSAGE else 0
    return wire.varint(f.number << 3 | kind)


@pytest.mark.parametrize(("constant", "message", "field"), [
    (wire.BATCH_ITEMS, pb.VerifyBatchResponse, "items"),
    (wire.BATCH_ITEMS, pb.AnswerBatchResponse, "items"),
    (wire.ITEM_RESULT, pb.VerifyItem, "result"),
    (wire.ITEM_ERROR, pb.VerifyItem, "error"),
    (wire.ITEM_RESULT, pb.AnswerItem, "result"),
    (wire.ITEM_ERROR, pb.AnswerItem, "error"),
    (wire.STREAM_ID, pb.VerifyStreamResponse, "id"),
    (wire.STREAM_RESULT, pb.VerifyStreamResponse, "result"),
    (wire.STREAM_ERROR, pb.VerifyStreamResponse, "error"),
])
def test_tags_are_the_proto_field_numbers(constant: bytes, message: type, field: str) -> None:
    assert constant == _tag(message, field)


@given(st.integers(min_value=0, max_value=2**64 - 1))
def test_varint_is_protobufs(n: int) -> None:
    assert pb.VerifyStreamResponse.FromString(wire.STREAM_ID + wire.varint(n)).id == n


@given(st.text(max_size=300), st.booleans(), st.integers(min_value=0, max_value=2**40))
def test_frames_parse_back(text: str, ok: bool, rid: int) -> None:
    data = (pb.VerifyResponse(reason=text) if ok else pb.ItemError(message=text)
            ).SerializeToString()
    assert wire.batch_outcome(ok, data) == wire.batch_item(wire.outcome(ok, data))
    batch = pb.VerifyBatchResponse.FromString(wire.batch_outcome(ok, data) * 2)
    assert len(batch.items) == 2
    for item in batch.items:
        assert item.WhichOneof("outcome") == ("result" if ok else "error")
        assert (item.result.reason if ok else item.error.message) == text
    answer = pb.AnswerItem.FromString(wire.outcome(ok, data))
    assert answer.WhichOneof("outcome") == ("result" if ok else "error")
    streamed = pb.VerifyStreamResponse.FromString(wire.stream_item(rid, ok, data))
    assert streamed.id == rid
    assert (streamed.result.reason if ok else streamed.error.message) == text


@given(st.lists(st.tuples(st.text(max_size=200), st.text(max_size=40), st.text(max_size=20)),
                max_size=8))
def test_batch_items_are_each_items_bytes(items: list[tuple[str, str, str]]) -> None:
    requests = [pb.VerifyRequest(premise=p, hypothesis=h, input=i) for p, h, i in items]
    data = pb.VerifyBatchRequest(items=requests).SerializeToString()
    assert wire.batch_items(data) == [r.SerializeToString() for r in requests]
    parsed = wire.safe_batch_parser(pb.VerifyBatchRequest)(data)
    assert isinstance(parsed, wire.Batch)
    assert parsed.raw == wire.batch_items(data) and list(parsed.items) == requests
    for raw, request in zip(parsed.raw, requests, strict=True):
        lead = wire.leading_field(raw)  # the first field, the premise when it is set
        first = pb.VerifyRequest(premise=request.premise) if request.premise else \
            pb.VerifyRequest(hypothesis=request.hypothesis) if request.hypothesis else \
            pb.VerifyRequest(input=request.input)
        assert raw[:lead] == first.SerializeToString()


def test_a_batch_with_other_fields_or_bad_bytes_keeps_protobufs_reading() -> None:
    item = pb.VerifyRequest(premise="p", hypothesis="h").SerializeToString()
    framed = wire.BATCH_ITEMS + wire.varint(len(item)) + item
    unknown = framed + b"\x10\x01"  # field 2, a varint: not an item
    assert wire.batch_items(unknown) is None
    parsed = wire.safe_batch_parser(pb.VerifyBatchRequest)(unknown)
    assert isinstance(parsed, wire.Batch) and parsed.raw is None and len(parsed.items) == 1
    assert wire.batch_items(framed[:-1]) is None  # cut short
    assert isinstance(wire.safe_batch_parser(pb.VerifyBatchRequest)(framed[:-1]),
                      wire.Undecodable)
    assert wire.leading_field(b"") == 0 and wire.leading_field(b"\x10\x01") == 0
    assert wire.leading_field(b"\x0a\x05ab") == 0  # a length past the end


@given(st.text(max_size=300), st.text(max_size=40), st.text(max_size=20),
       st.sampled_from([0, 1, 3]))
def test_a_request_splits_at_its_premise_field(premise: str, hypothesis: str, answer: str,
                                               profile: int) -> None:
    request = pb.VerifyRequest(premise=premise, hypothesis=hypothesis, model_answer=answer,
                               options=pb.Options(profile=profile))
    data = request.SerializeToString()
    head, rest = wire.split_premise(data)
    assert head == wire.premise_field(premise) and head + rest == data
    item = pb.VerifyRequest.FromString(rest)
    assert not item.premise and item.hypothesis == hypothesis
    again = wire.split_premise(data, head)
    assert again[0] is head and again[1] == rest  # the last field's object, reused
    other = pb.VerifyRequest(premise=premise + "x", hypothesis=hypothesis).SerializeToString()
    assert wire.split_premise(other, head)[0] == wire.premise_field(premise + "x")
    assert wire.split_premise(pb.VerifyRequest(hypothesis=hypothesis).SerializeToString()
                              )[0] == b""


@given(st.lists(st.text(max_size=50), max_size=4), st.lists(st.text(max_size=50), max_size=4))
def test_batch_items_skip_the_groups(items: list[str], premises: list[str]) -> None:
    requests = [pb.VerifyRequest(hypothesis=h) for h in items]
    groups = [pb.VerifyGroup(premise=p, items=[pb.VerifyRequest(hypothesis=p)])
              for p in premises]
    data = pb.VerifyBatchRequest(items=requests, groups=groups).SerializeToString()
    assert wire.batch_items(data) == [r.SerializeToString() for r in requests]
    parsed = wire.safe_batch_parser(pb.VerifyBatchRequest)(data)
    assert isinstance(parsed, wire.Batch) and list(parsed.groups) == groups


def test_read_varint_reads_protobufs_and_refuses_what_runs_past() -> None:
    for n in (0, 1, 127, 128, 300, 2**28 - 1, 2**32 - 1):
        data = wire.varint(n) + b"rest"
        assert wire.read_varint(data, 0) == (n, len(data) - 4)
    for bad in (b"", b"\x80", b"\xff\xff\xff\xff\xff\x01"):
        with pytest.raises(ValueError):
            wire.read_varint(bad, 0)
