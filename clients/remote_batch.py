"""Batches for the gRPC clients: a premise sent once per batch, results back in order.

A dataset's items repeat each premise many times (Corr2Cause: every pair of
variables × the hypothesis templates).  ``batch_request`` sends the requests of a
``VerifyBatch`` that share a premise as one ``VerifyGroup`` (the premise once, each
item without it) and the rest as they are (``batch_bytes``: the same message
serialised, which the clients send through ``raw_verify_batch``); the server answers
the batch's ``items`` first, then each group's items (``oracle.proto``), and
``in_order`` puts the answers back in the order of the requests.  ``outcomes`` turns
a batch response's items into responses, or the oracle's exceptions for the items
that failed.

    >>> same = "Suppose there is a closed system of 2 variables, A and B. ..."
    >>> batch, order = batch_request([make_request(same, "A causes B."),
    ...                               make_request("other premise", "A causes B."),
    ...                               make_request(same, "B causes A.")])
    >>> len(batch.items), [len(g.items) for g in batch.groups], order
    (1, [2], [1, 0, 2])
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from causal_oracle.clients.remote_codec import RemoteError, error_from_item, make_request
from causal_oracle.proto.causal_oracle.v1 import oracle_pb2 as pb
from causal_oracle.proto.wire import GROUPS_TAG, split_premise, varint


def outcomes(items: Iterable[Any]) -> list[Any]:
    """Batch response items → responses, or the oracle's exceptions for failed items."""
    return [i.result if i.WhichOneof("outcome") == "result" else error_from_item(i.error)
            for i in items]


def batch_request(requests: Iterable[pb.VerifyRequest], group: bool = True
                  ) -> tuple[pb.VerifyBatchRequest, list[int]]:
    """The ``VerifyBatch`` message for ``requests``, and for each of its response items
    the position of the request it answers (``batch_bytes``, parsed)."""
    data, order = batch_bytes(requests, group)
    return pb.VerifyBatchRequest.FromString(data), order


def batch_bytes(requests: Iterable[pb.VerifyRequest], group: bool = True
                ) -> tuple[bytes, list[int]]:
    """The serialised ``VerifyBatch`` message for ``requests``, and for each of its
    response items the position of the request it answers.  Requests that share their
    premise with another go as a ``VerifyGroup`` (the premise once, each item without
    it), the rest as they are: a dataset's batch, which repeats each premise many
    times, is a fraction of the bytes to send and for the server to read.  The server
    answers ``items`` first, then each group's items (``oracle.proto``).
    ``group=False``: every request as its own item (for a server from before groups).

    Built from each request's own bytes: a grouped item is the request with its
    leading premise field cut off (protobuf writes fields in number order, and
    ``premise`` is field 1), so every other field — set, unknown to this client or
    added later — goes as the request has it, and nothing is copied field by field."""
    requests = list(requests)
    if not group:
        return (pb.VerifyBatchRequest(items=requests).SerializeToString(),
                list(range(len(requests))))
    by_premise: dict[bytes, list[tuple[int, bytes]]] = {}  # premise field → items
    loose: list[tuple[int, bytes]] = []  # no premise, or the ``input`` layout
    last, run = b"", loose  # the last premise field seen, its items (a batch has runs)
    for k, request in enumerate(requests):
        data = request.SerializeToString()
        head, rest = split_premise(data, last)  # ``last`` itself when it starts so
        if not head or request.input:
            loose.append((k, data))
            continue
        if head is not last:
            last, run = head, by_premise.setdefault(head, [])
        run.append((k, rest))
    for head, items in list(by_premise.items()):
        if len(items) == 1:  # a premise of one request: sent as it is
            loose.append((items[0][0], head + items[0][1]))
            del by_premise[head]
    loose.sort()
    parts = [_field(_ITEMS_TAG, data) for _, data in loose]
    order = [k for k, _ in loose]
    for head, items in by_premise.items():
        parts.append(_field(_GROUPS_TAG, head + b"".join(
            [_field(_GROUP_ITEMS_TAG, rest) for _, rest in items])))
        order += [k for k, _ in items]
    return b"".join(parts), order


#: VerifyBatchRequest.items = 1 and .groups = 2; VerifyGroup.items = 2 (its premise = 1
#: is the request's own premise field, tag and all)
_ITEMS_TAG, _GROUPS_TAG, _GROUP_ITEMS_TAG = b"\x0a", bytes([GROUPS_TAG]), b"\x12"


def _field(tag: bytes, data: bytes) -> bytes:
    return tag + varint(len(data)) + data


#: the method's path on the wire (``/package.Service/Method``)
_VERIFY_BATCH = "/{}/VerifyBatch".format(pb.DESCRIPTOR.services_by_name["Oracle"].full_name)


def raw_verify_batch(channel: Any) -> Any:
    """The ``VerifyBatch`` method of a ``grpc`` or ``grpc.aio`` channel taking the
    request as bytes (``batch_bytes``; gRPC sends bytes as they are when a method has
    no request serializer) and giving the parsed ``VerifyBatchResponse``."""
    return channel.unary_unary(_VERIFY_BATCH, request_serializer=None,
                               response_deserializer=pb.VerifyBatchResponse.FromString)


def in_order(results: list[Any], order: list[int], target: str) -> list[Any]:
    """Response items (in the batch's order) back in the order of the requests."""
    if len(results) != len(order):  # a server from before groups skips them
        raise RemoteError(f"{target} answered {len(results)} of {len(order)} items: a "
                          "server that does not know VerifyGroup; send group=False")
    out: list[Any] = [None] * len(order)
    for k, result in zip(order, results, strict=True):
        out[k] = result
    return out


__all__ = ["batch_bytes", "batch_request", "in_order", "make_request", "outcomes",
           "raw_verify_batch"]
