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

from causal_oracle.proto.pack import INVALID, item_error

#: tags, (field number << 3) | wire type: 2 length-delimited, 0 varint
BATCH_ITEMS = b"\x0a"  # VerifyBatchResponse.items = 1, AnswerBatchResponse.items = 1
ITEM_RESULT, ITEM_ERROR = b"\x0a", b"\x12"  # VerifyItem/AnswerItem .result = 1, .error = 2
STREAM_ID = b"\x08"  # VerifyStreamResponse.id = 1 (varint)
STREAM_RESULT, STREAM_ERROR = b"\x12", b"\x1a"  # VerifyStreamResponse .result = 2, .error = 3


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


def _varint(n: int) -> bytes:
    out = bytearray()
    while n > 0x7F:
        out.append(n & 0x7F | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


_SMALL = [_varint(n) for n in range(1 << 14)]  # every one- and two-byte varint


def varint(n: int) -> bytes:
    """``n`` as a protobuf varint (a table look-up below 2^14: most lengths)."""
    return _SMALL[n] if 0 <= n < 16384 else _varint(n)


def outcome(ok: bool, data: bytes) -> bytes:
    """A serialised ``VerifyItem``/``AnswerItem``: field 1 (result) or 2 (error)."""
    return (ITEM_RESULT if ok else ITEM_ERROR) + varint(len(data)) + data


def batch_item(item: bytes) -> bytes:
    """One serialised item of a ``VerifyBatchResponse``/``AnswerBatchResponse`` (field 1)."""
    return BATCH_ITEMS + varint(len(item)) + item


def stream_item(rid: int, ok: bool, data: bytes) -> bytes:
    """A serialised ``VerifyStreamResponse``: id (field 1), result (2) or error (3)."""
    return (STREAM_ID + varint(rid) + (STREAM_RESULT if ok else STREAM_ERROR)
            + varint(len(data)) + data)


__all__ = ["Undecodable", "batch_item", "outcome", "safe_parser", "stream_item", "varint"]
