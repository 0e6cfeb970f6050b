"""Wire bytes the server writes by hand, pinned to ``oracle.proto``'s field numbers.

A batch response is the concatenation of its items' serialised bytes and a stream
item wraps bytes a worker serialised, so responses are framed here without decoding
and re-encoding them; ``tests/test_wire.py`` checks every frame against the
descriptors of ``oracle.proto`` (field numbers and wire types) and against protobuf's
own parser.  Requests are decoded by ``safe_parser``, which never raises.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from causal_oracle.proto.pack import INVALID, item_error, varint

#: tags, (field number << 3) | wire type: 2 length-delimited, 0 varint
BATCH_ITEMS = b"\x0a"  # VerifyBatchResponse.items = 1, AnswerBatchResponse.items = 1
ITEM_RESULT, ITEM_ERROR = b"\x0a", b"\x12"  # VerifyItem/AnswerItem .result = 1, .error = 2
STREAM_ID = b"\x08"  # VerifyStreamResponse.id = 1 (varint)
STREAM_RESULT, STREAM_ERROR = b"\x12", b"\x1a"  # VerifyStreamResponse .result = 2, .error = 3
PREMISE_TAG = b"\x0a"  # VerifyRequest.premise = 1, VerifyGroup.premise = 1
GROUPS_TAG = 0x12  # VerifyBatchRequest.groups = 2


class Undecodable:
    """What the request deserializer gives for bytes that are not the message."""

    def __init__(self, what: str, error: Exception) -> None:
        self.error = item_error(INVALID, "input_error",
                                 f"the request is not a valid {what} message: {error}")


def safe_parser(cls: Any) -> Callable[[bytes], Any]:
    """A request deserializer that never raises (no traceback logged per request)."""
    def parse(data: bytes) -> Any:
        try:
            return cls.FromString(data)
        except Exception as error:
            return Undecodable(cls.DESCRIPTOR.full_name, error)
    return parse


class Batch:
    """A decoded batch request (``message``) and each of its ``items``' bytes as they came
    (``raw``; None when the message holds anything but its items and groups, in
    canonical framing).  The server keys its cache by and hands workers the items' own
    bytes, so a batch is not re-serialised item by item."""

    __slots__ = ("message", "raw")

    def __init__(self, message: Any, raw: list[bytes] | None) -> None:
        self.message, self.raw = message, raw

    @property
    def items(self) -> Any:
        return self.message.items

    @property
    def groups(self) -> Any:
        """A ``VerifyBatchRequest``'s groups (an ``AnswerBatchRequest`` has none)."""
        return getattr(self.message, "groups", ())


def read_varint(data: bytes, at: int) -> tuple[int, int]:
    """The varint at ``data[at]`` (at most five bytes: a length) and where it ends;
    ``ValueError`` when it runs past the end or past five bytes.  The one varint reader
    of the server's hand-read bytes (``batch_items``, ``leading_field``,
    ``server_batch``)."""
    size = shift = 0
    end = len(data)
    while True:
        if at >= end or shift > 28:
            raise ValueError("a varint runs past the end")
        byte = data[at]
        at += 1
        size |= (byte & 0x7F) << shift
        if byte < 0x80:
            return size, at
        shift += 7


def batch_items(data: bytes) -> list[bytes] | None:
    """Each ``items`` entry (field 1) of a serialised batch request, as bytes, past any
    ``groups`` (field 2, read by protobuf); None when the message holds another field
    or a length it cannot read (``FromString`` is the judge of what such a message
    says)."""
    out: list[bytes] = []
    at, end = 0, len(data)
    try:
        while at < end:
            tag = data[at]
            if tag != 0x0A and tag != GROUPS_TAG:
                return None
            size, at = read_varint(data, at + 1)
            if at + size > end:
                return None
            if tag == 0x0A:
                out.append(data[at:at + size])
            at += size
    except ValueError:
        return None
    return out


def leading_field(data: bytes) -> int:
    """The length of ``data``'s leading length-delimited field (tag, varint length and
    content: a Verify item's premise), 0 when it does not start with one."""
    if not data or data[0] >= 0x80 or data[0] & 7 != 2:
        return 0
    try:
        size, at = read_varint(data, 1)
    except ValueError:
        return 0
    return at + size if at + size <= len(data) else 0


def premise_field(text: str) -> bytes:
    """``VerifyRequest.premise`` serialised (tag, length, UTF-8), as protobuf writes it
    first in a request; empty text: no field."""
    if not text:
        return b""
    data = text.encode("utf-8")
    return PREMISE_TAG + varint(len(data)) + data


def split_premise(data: bytes, last: bytes = b"") -> tuple[bytes, bytes]:
    """A serialised ``VerifyRequest`` as (its leading premise field, the rest): the
    server keys and ships a batch's items this way, a premise's bytes one object shared
    by its items.  ``last`` (the previous item's premise field) is returned itself when
    ``data`` starts with it, so that its hash is computed once."""
    if last and data.startswith(last):
        return last, data[len(last):]
    if data[:1] != PREMISE_TAG:
        return b"", data
    size = leading_field(data)
    return data[:size], data[size:]


def safe_batch_parser(cls: Any) -> Callable[[bytes], Any]:
    """``safe_parser`` for a batch request: a ``Batch`` (the message and its items'
    bytes), or ``Undecodable``."""
    parse = safe_parser(cls)

    def parse_batch(data: bytes) -> Any:
        message = parse(data)
        if isinstance(message, Undecodable):
            return message
        raw = batch_items(data)
        return Batch(message, raw if raw is not None and len(raw) == len(message.items)
                     else None)
    return parse_batch


def outcome(ok: bool, data: bytes) -> bytes:
    """A serialised ``VerifyItem``/``AnswerItem``: field 1 (result) or 2 (error)."""
    return (ITEM_RESULT if ok else ITEM_ERROR) + varint(len(data)) + data


def batch_outcome(ok: bool, data: bytes) -> bytes:
    """``batch_item(outcome(ok, data))`` in one join: a batch response's item."""
    size = varint(len(data))
    return b"".join((BATCH_ITEMS, varint(1 + len(size) + len(data)),
                     ITEM_RESULT if ok else ITEM_ERROR, size, data))


def batch_item(item: bytes) -> bytes:
    """One serialised item of a ``VerifyBatchResponse``/``AnswerBatchResponse`` (field 1)."""
    return BATCH_ITEMS + varint(len(item)) + item


def stream_item(rid: int, ok: bool, data: bytes) -> bytes:
    """A serialised ``VerifyStreamResponse``: id (field 1), result (2) or error (3)."""
    return (STREAM_ID + varint(rid) + (STREAM_RESULT if ok else STREAM_ERROR)
            + varint(len(data)) + data)


__all__ = ["Batch", "Undecodable", "batch_item", "batch_items", "batch_outcome",
           "leading_field", "outcome", "premise_field", "read_varint", "safe_batch_parser",
           "safe_parser", "split_premise", "stream_item", "varint"]
