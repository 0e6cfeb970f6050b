"""Batches for the gRPC clients: a premise sent once per batch, results back in order.

A dataset's items repeat each premise many times (Corr2Cause: every pair of
variables × the hypothesis templates).  ``batch_request`` sends the requests of a
``VerifyBatch`` that share a premise as one ``VerifyGroup`` (the premise once, each
item without it) and the rest as they are; the server answers the batch's ``items``
first, then each group's items (``oracle.proto``), and ``in_order`` puts the answers
back in the order of the requests.  ``outcomes`` turns a batch response's items into
responses, or the oracle's exceptions for the items that failed.

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


def outcomes(items: Iterable[Any]) -> list[Any]:
    """Batch response items → responses, or the oracle's exceptions for failed items."""
    return [i.result if i.WhichOneof("outcome") == "result" else error_from_item(i.error)
            for i in items]


def batch_request(requests: Iterable[pb.VerifyRequest], group: bool = True
                  ) -> tuple[pb.VerifyBatchRequest, list[int]]:
    """The ``VerifyBatch`` message for ``requests``, and for each of its response items
    the position of the request it answers.  Requests that share their premise with
    another go as a ``VerifyGroup`` (the premise once, each item without it), the rest
    as they are: a dataset's batch, which repeats each premise many times, is a
    fraction of the bytes to send and for the server to read.  The server answers
    ``items`` first, then each group's items (``oracle.proto``).  ``group=False``: every
    request as its own item (for a server from before groups)."""
    requests = list(requests)
    if not group:
        return pb.VerifyBatchRequest(items=requests), list(range(len(requests)))
    by_premise: dict[str, list[int]] = {}
    loose: list[int] = []  # no premise, or the ``input`` layout
    last, run = None, loose  # the last premise seen, its positions (a batch has runs)
    for k, request in enumerate(requests):
        premise = request.premise
        if not premise or request.input:
            loose.append(k)
            continue
        if premise != last:
            last, run = premise, by_premise.setdefault(premise, [])
        run.append(k)
    grouped = {premise: positions for premise, positions in by_premise.items()
               if len(positions) > 1}
    order = sorted([*loose, *(p[0] for p in by_premise.values() if len(p) == 1)])
    batch = pb.VerifyBatchRequest(items=[requests[k] for k in order])
    for premise, positions in grouped.items():
        add = batch.groups.add(premise=premise).items.add
        for k in positions:
            request = requests[k]
            item = add(hypothesis=request.hypothesis)  # every field but premise and input
            if request.HasField("options"):
                item.options.CopyFrom(request.options)
            if request.HasField("model_answer"):
                item.model_answer = request.model_answer
        order += positions
    return batch, order


#: the ``VerifyRequest`` fields ``batch_request`` knows (a new field must be copied there)
REQUEST_FIELDS = ("premise", "hypothesis", "input", "model_answer", "options")


def in_order(results: list[Any], order: list[int], target: str) -> list[Any]:
    """Response items (in the batch's order) back in the order of the requests."""
    if len(results) != len(order):  # a server from before groups skips them
        raise RemoteError(f"{target} answered {len(results)} of {len(order)} items: a "
                          "server that does not know VerifyGroup; send group=False")
    out: list[Any] = [None] * len(order)
    for k, result in zip(order, results, strict=True):
        out[k] = result
    return out


__all__ = ["REQUEST_FIELDS", "batch_request", "in_order", "make_request", "outcomes"]
