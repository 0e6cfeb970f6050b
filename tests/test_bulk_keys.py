"""The worker reads a Verify item's bulk key off the wire (``server_batch._bulk_keys``):
the same key as the decoded message gives, on well-formed items and on repeated,
unknown, truncated or non-UTF-8 fields (which take the per-item path)."""

from __future__ import annotations

import random

from causal_oracle import server_batch
from causal_oracle.proto import wire
from causal_oracle.proto.causal_oracle.v1 import oracle_pb2 as pb


def _reference(data: bytes) -> tuple[str, object, str, bool] | None:
    """The key as the decoded message gives it (the per-item path's reading)."""
    try:
        request = pb.VerifyRequest.FromString(data)
    except Exception:
        return None
    options = request.options
    profile = server_batch._PROFILES.get(options.profile)
    summary = server_batch._DETAILS.get(options.certificate_detail)
    if (profile is None or summary is None or not request.premise or not request.hypothesis
            or request.input or request.HasField("model_answer")
            or options.explanation_format not in server_batch._NO_EXPLANATION):
        return None
    return request.premise, profile, request.hypothesis, summary


def _field(number: int, payload: bytes) -> bytes:
    size = len(payload)
    length = bytearray()
    while size > 0x7F:
        length.append(size & 0x7F | 0x80)
        size >>= 7
    length.append(size)
    return bytes([number << 3 | 2]) + bytes(length) + payload


def _messages(rng: random.Random) -> list[bytes]:
    premises = [b"A correlates with B.", "Ä ⊥ B".encode(), b"x" * 300, b"\xff\xfe", b""]
    out = []
    for _ in range(600):
        options = pb.Options(profile=rng.choice([0, 1, 2, 3, 4, 9]),
                             certificate_detail=rng.choice([0, 1, 2, 3]),
                             explanation_format=rng.choice([0, 1, 2])).SerializeToString()
        parts = [_field(1, rng.choice(premises)), _field(2, rng.choice([b"A causes B.", b""])),
                 _field(5, options)]
        if rng.random() < 0.2:
            parts.append(_field(rng.choice([1, 2, 3, 4, 5, 6]), rng.choice([b"", b"A", options])))
        if rng.random() < 0.1:
            parts.append(bytes([0x08, 0x01]))  # a varint field: not VerifyRequest's
        if rng.random() < 0.2:
            rng.shuffle(parts)
        data = b"".join(parts)
        if rng.random() < 0.1:
            data = data[:rng.randrange(len(data) + 1)]
        out.append(data)
    return out


def _shipped(order: list[bytes]) -> list[tuple[bytes, bytes, None]]:
    """The items as the server ships them: (premise field, rest, deadline), a run of one
    premise sharing its field object (``wire.split_premise``)."""
    out, last = [], b""
    for data in order:
        head, rest = wire.split_premise(data, last)
        out.append((head, rest, None))
        last = head
    return out


def test_keys_off_the_wire_are_the_decoded_messages_keys() -> None:
    rng = random.Random(5)
    messages = _messages(rng)
    for order in (messages, sorted(messages), [m for m in messages for _ in range(2)]):
        keys = server_batch._bulk_keys(_shipped(order))
        for data, key in zip(order, keys, strict=True):
            want = _reference(data)
            # the wire reading may leave an item to the per-item path, never read it otherwise
            assert key is None or key == want, (data, key, want)
    plain = [pb.VerifyRequest(premise="P " * k, hypothesis="H", options=pb.Options(
        profile=1)).SerializeToString() for k in range(1, 200)]
    keys = server_batch._bulk_keys(_shipped(plain + plain[::-1]))
    assert keys == [_reference(m) for m in plain + plain[::-1]]
    assert all(k is not None for k in keys)
