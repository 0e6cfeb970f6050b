"""A gRPC call's items on their way to the workers: checked, keyed, cached, dispatched.

Every RPC of the server hands its items here (``OracleServicer``): a unary call one,
a batch its ``items`` and its ``groups``' items, a stream what arrived meanwhile.
Each item is

* checked against the size limits on the event loop, before a worker sees it
  (``precheck``; a ``VerifyGroup``'s premise once for all its items, and an item of a
  group that gives a premise or ``input`` itself gets its ``ItemError``);
* keyed by its premise field and the rest of its serialised request
  (``wire.split_premise``): a group's items, and a batch's run of items of one
  premise, share the premise's one bytes object, whose hash is computed once; the
  key of an item is the same whether it came alone, in a batch or in a group, so one
  response cache (``server_cache``) serves them all;
* answered from the cache, or sent with the other misses to the workers, each
  premise's items as jobs for the worker of its slot (``server_batch.jobs``), the
  rest in chunks of ``STREAM_BATCH``, all jobs in flight together; answers that
  any later call would get again (results, INVALID_ARGUMENT errors) are cached.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from causal_oracle import entry as svc
from causal_oracle.entry import BudgetExceeded
from causal_oracle.proto import pack
from causal_oracle.proto.causal_oracle.v1 import oracle_pb2 as pb
from causal_oracle.proto.wire import premise_field, split_premise
from causal_oracle.server_batch import jobs
from causal_oracle.server_cache import ResponseCache
from causal_oracle.server_pool import WorkerPool

STREAM_BATCH = 64  # at most this many stream or loose items go to a worker at once
INVALID, EXHAUSTED = pack.INVALID, pack.EXHAUSTED
item_error = pack.item_error


class ItemAnswerer:
    """``await answer(kind, requests, deadline, raw, groups)``: ``(ok, bytes)`` per item,
    from the cache or the pool (module docstring)."""

    def __init__(self, pool: WorkerPool, service: svc.Service, cache: ResponseCache) -> None:
        self.pool, self.service, self.cache = pool, service, cache

    def precheck(self, request: Any) -> pb.ItemError | None:
        """Size limits on the event loop, before a worker sees the request."""
        if request.ByteSize() <= self.service.limits.text_bytes:
            return None
        for field in ("premise", "hypothesis", "input", "prompt", "model_answer"):
            if field in request.DESCRIPTOR.fields_by_name:
                try:
                    self.service.check_text(getattr(request, field), field)
                except BudgetExceeded as error:
                    return item_error(EXHAUSTED, "budget_exceeded", str(error), field)
        return None

    async def answer(self, kind: str, requests: Sequence[Any], deadline: float | None,
                     raw: Sequence[bytes] | None = None, groups: Sequence[Any] = ()
                     ) -> list[tuple[bool, bytes]]:
        """``(ok, bytes)`` per request, then per item of each of ``groups`` (a batch's
        ``VerifyGroup``s), in order: cache hits at once, misses via the pool (all jobs in
        flight together): each premise's Verify items as jobs for the worker of its
        slot, the rest in chunks of ``STREAM_BATCH`` (``server_batch``).  ``raw``: each
        request's bytes as received (a ``Batch``'s), which key the cache and go to the
        workers as they are; else each request is serialised here.  An item is keyed
        and shipped as its premise field and the rest of its bytes
        (``wire.split_premise``): a group's items share their premise's one object."""
        out: list[tuple[bool, bytes] | None] = [None] * (
            len(requests) + sum(len(g.items) for g in groups))
        misses: list[tuple[int, tuple[str, bytes, bytes]]] = []  # position, cache key
        limit, get = self.service.limits.text_bytes, self.cache.get
        verify, last = kind == "verify", b""
        for i in range(len(requests)):
            data = raw[i] if raw is not None else None
            # an item's text fields are no longer than its bytes: within the limit, no
            # field can be over it (``precheck`` would pass it)
            if data is None or len(data) > limit:
                request = requests[i]
                error = self.precheck(request)
                if error is not None:
                    out[i] = (False, error.SerializeToString())
                    continue
                if data is None:
                    data = request.SerializeToString()
            head, rest = split_premise(data, last) if verify else (b"", data)
            key, last = (kind, head, rest), head
            hit = get(key)
            if hit is not None:
                out[i] = hit
            else:
                misses.append((i, key))
        i = len(requests)
        for group in groups:
            head = premise_field(group.premise)
            # the premise's limit, checked once for the group's items
            over = self.precheck(pb.VerifyRequest(premise=group.premise)) \
                if len(head) > limit else None
            for item in group.items:
                rest = item.SerializeToString()
                error = grouped_error(item) or over or (
                    self.precheck(item) if len(rest) > limit else None)
                if error is not None:
                    out[i] = (False, error.SerializeToString())
                else:
                    key = (kind, head, rest)
                    hit = get(key)
                    if hit is not None:
                        out[i] = hit
                    else:
                        misses.append((i, key))
                i += 1
        todo = jobs(kind, [key[1] for _, key in misses], self.pool.workers, STREAM_BATCH)
        results = await asyncio.gather(*(
            self.pool.run(kind, [(misses[k][1][1], misses[k][1][2], deadline) for k in job],
                          slot)
            for slot, job in todo))
        put, size_of_kind = self.cache.put, len(kind)
        for (_, job), done in zip(todo, results, strict=True):
            for k, answer in zip(job, done, strict=True):
                i, key = misses[k]
                out[i] = answer
                if answer[0] or pb.ItemError.FromString(answer[1]).code == INVALID:
                    put(key, answer, size_of_kind + len(key[1]) + len(key[2]))
        return out  # type: ignore[return-value]


def grouped_error(item: pb.VerifyRequest) -> pb.ItemError | None:
    """The error of an item of a ``VerifyGroup`` that gives what the group gives."""
    if item.premise:
        return item_error(INVALID, "input_error", "an item of a group takes the group's "
                          "premise: leave the item's premise empty", "premise")
    if item.input:
        return item_error(INVALID, "input_error", "an item of a group gives a hypothesis, "
                          "not input (the published layout of premise and hypothesis)",
                          "input")
    return None


__all__ = ["STREAM_BATCH", "ItemAnswerer", "grouped_error"]
