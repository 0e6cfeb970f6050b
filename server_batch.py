"""Batches on the bulk path: a premise's items go to one worker, which answers them
off the premise's relation tables.

Item by item, a new Corr2Cause item costs a certificate built and re-checked (about
100 µs once its class is known).  Grouped by premise, a batch costs one class
derivation per premise and a table look-up per item (``verify_fast_many`` of the family
that answers premise–hypothesis pairs, ``Service.pairs()``), and answers exactly what
``Verify`` answers for each item.  Two halves:

* the server's, ``jobs``: a call's misses grouped by premise (the serialised premise
  field each item is keyed and shipped with, ``wire.split_premise``; a
  ``VerifyGroup``'s items share it), each group pinned to the worker slot its stripped
  text hashes to (CRC-32), so that no two workers derive the same class and the
  worker's table cache serves the premise's later items.  A slot's groups go as jobs
  of about ``JOB_ITEMS`` items, in order, the slots' jobs interleaved.  Items without
  a premise field (the ``input`` layout, Answer items) go in chunks to whichever
  worker is free, as before;
* the worker's, ``bulk_answers``: each run of consecutive items of one premise and
  profile that ask for the label (with no model answer, explanation or full
  certificate; a summary certificate is given) is answered together under one
  budget — the solver budget, or the time left before the items' deadline when
  that is shorter.  An item the bulk
  labeller leaves (unreadable, over a limit, an inconsistent premise, a class too
  large to list, ...) and every other item take the per-item path, with its own
  budget and its own error; a run whose budget ran out gives each of its items
  that error (the per-item path would only run out again, once per item).  A job's
  items arrive as (premise field, rest, deadline) with one premise object per run
  (``Items``): the premise is decoded once per run and only the rest of each item is
  read.

Results keep the request's order: the server puts each job's results back where its
items came from.
"""

from __future__ import annotations

import time
import zlib
from collections.abc import Sequence
from typing import Any

from causal_oracle import entry as svc
from causal_oracle.entry import BudgetExceeded, Profile, budget
from causal_oracle.proto import bulk_pack
from causal_oracle.proto.causal_oracle.v1 import oracle_pb2 as pb
from causal_oracle.proto.wire import read_varint

JOB_ITEMS = 1024  # a slot's job is cut after the group that reaches this many items

#: a job: the slot of the worker that must answer it (None: any free one) and the
#: positions of its items in the call's list
Job = tuple[int | None, list[int]]
#: a job's items: (premise field or b"", the rest of the serialised request, deadline);
#: the request is the two joined (``wire.split_premise``), a run's items share the
#: field's object
Items = list[tuple[bytes, bytes, float | None]]
#: a bulk answer: (ok, serialised response), the time-budget error that ended the
#: item's run, or None (the per-item path answers it)
Answer = tuple[bool, bytes] | BudgetExceeded | None

_PROFILES = {0: Profile.CORR2CAUSE, **{
    value: Profile(name.removeprefix("PROFILE_").lower())
    for name, value in pb.Profile.items()
    if value and name.removeprefix("PROFILE_").lower() in {p.value for p in Profile}
    and name != "PROFILE_COMPELLED"}}
#: certificate details the bulk path gives (unset means summary), explanations (none)
_DETAILS = {pb.CERTIFICATE_DETAIL_UNSPECIFIED: True, pb.CERTIFICATE_DETAIL_SUMMARY: True,
            pb.CERTIFICATE_DETAIL_NONE: False}
_NO_EXPLANATION = (pb.EXPLANATION_FORMAT_UNSPECIFIED, pb.EXPLANATION_FORMAT_NONE)


# ---- the server's half ------------------------------------------------------------------------

def slot_of(head: bytes, workers: int) -> int:
    """The worker slot of a premise, by its serialised field (``wire.split_premise``;
    stable across calls and restarts; surrounding whitespace does not move it)."""
    return zlib.crc32(head[leading_size(head):].strip()) % workers


def leading_size(head: bytes) -> int:
    """How many bytes of a premise field come before its text (tag and length)."""
    at = 1
    while at < len(head) and head[at] >= 0x80:
        at += 1
    return at + 1


def jobs(kind: str, heads: Sequence[bytes], workers: int, chunk: int) -> list[Job]:
    """Items cut into jobs by their premise fields (``heads``: one per item, as
    ``wire.split_premise`` gives them; empty: none): each premise's items to its slot,
    in jobs of about ``JOB_ITEMS`` (a premise's items together, in request order);
    the rest, and every item of another kind, in chunks of ``chunk`` for any
    worker."""
    groups: dict[bytes, list[int]] = {}  # premise field → positions, first seen first
    loose: list[int] = []
    if kind != "verify":
        loose.extend(range(len(heads)))
    last, found = b"", loose  # the last item's premise field (one object a run), its list
    for k, head in enumerate(heads if kind == "verify" else ()):
        if head is not last:
            last = head
            found = loose if not head else groups.setdefault(head, [])
        found.append(k)
    by_slot: dict[int, list[list[int]]] = {}  # slot → its jobs, the last one filling
    for head, positions in groups.items():
        slot_jobs = by_slot.setdefault(slot_of(head, workers), [[]])
        if len(slot_jobs[-1]) >= JOB_ITEMS:
            slot_jobs.append([])
        slot_jobs[-1].extend(positions)
    # the slots' jobs interleaved, so that the first jobs in flight are one per slot
    # (a job whose worker is busy while another idles would take that one)
    out: list[Job] = [(slot, slot_jobs[k]) for k in range(max(map(len, by_slot.values()),
                                                              default=0))
                      for slot, slot_jobs in by_slot.items() if k < len(slot_jobs)]
    out.extend((None, loose[k:k + chunk]) for k in range(0, len(loose), chunk))
    return out


# ---- the worker's half ------------------------------------------------------------------------

#: VerifyRequest's fields (``oracle.proto``), all length-delimited: premise, hypothesis,
#: input, model_answer, options
_PREMISE, _HYPOTHESIS, _INPUT, _MODEL_ANSWER, _OPTIONS = 1, 2, 3, 4, 5


def _fields(data: bytes, out: dict[int, bytes]) -> dict[int, bytes] | None:
    """A serialised ``VerifyRequest``'s fields (added to ``out``: the ones known
    already), read off the wire without building the message; None for anything but
    each known field at most once (repeated, unknown or malformed fields:
    ``pb.VerifyRequest.FromString`` decides, on the per-item path)."""
    at, end = 0, len(data)
    try:
        while at < end:
            tag = data[at]
            field = tag >> 3
            if tag & 7 != 2 or not _PREMISE <= field <= _OPTIONS or field in out:
                return None
            size = data[at + 1]  # the length: one byte is usual
            at += 2
            if size >= 0x80:
                size, at = read_varint(data, at - 1)
            if at + size > end:
                return None
            out[field] = data[at:at + size]
            at += size
    except (IndexError, ValueError):  # a length that runs past the end
        return None
    return out


def _options(data: bytes) -> tuple[Profile, bool] | None:
    """(profile, with a summary certificate) of serialised ``Options`` the bulk path
    answers, else None."""
    try:
        options = pb.Options.FromString(data)
    except Exception:
        return None
    profile = _PROFILES.get(options.profile)
    summary = _DETAILS.get(options.certificate_detail)
    if profile is None or summary is None or options.explanation_format not in _NO_EXPLANATION:
        return None
    return profile, summary


def _usual(rest: bytes) -> tuple[bytes, bytes] | None:
    """(hypothesis, options) of the rest of a request in the shape protobuf writes it past
    the premise — the hypothesis (field 2, not empty), then maybe the options (field 5),
    each under 128 bytes and nothing else — read without ``_fields``; None for any
    other shape (``_fields`` reads it)."""
    size = len(rest)
    if size < 3 or rest[0] != 0x12 or not 0 < rest[1] < 0x80:
        return None
    end = 2 + rest[1]
    if end == size:
        return rest[2:end], b""
    if end + 1 < size and rest[end] == 0x2A and end + 2 + rest[end + 1] == size \
            and rest[end + 1] < 0x80:
        return rest[2:end], rest[end + 2:]
    return None


#: what the rest of a request (past its premise) gives an item's bulk key: (profile,
#: hypothesis, with a summary certificate), or None when the bulk path leaves it
Rest = tuple[Profile, str, bool] | None


def _bulk_keys(items: Items) -> list[tuple[str, Profile, str, bool] | None]:
    """Per item, (premise, profile, hypothesis, with a summary certificate) of an item the
    bulk path may answer, else None.  Each distinct premise field and rest of a request
    is read once (a batch asks the same hypotheses of many premises, and a run's items
    share one premise field object)."""
    texts: dict[bytes, str | None] = {}
    settings: dict[bytes, tuple[Profile, bool] | None] = {}
    rests: dict[bytes, Rest] = {}
    out: list[tuple[str, Profile, str, bool] | None] = []
    head, premise = b"", None  # the last premise field met, its text
    for at, rest, _ in items:
        if at is not head:
            head = at
            raw = head[leading_size(head):] if head else b""
            premise = texts.get(raw, "")
            if premise == "":
                premise = texts[raw] = _text(raw) if raw else None
        if premise is None:
            out.append(None)
            continue
        part = rests.get(rest, _UNSET)
        if part is _UNSET:
            part = rests[rest] = _rest(rest, settings)
        if part is None:
            out.append(None)
        else:
            profile, hypothesis, summary = part
            out.append((premise, profile, hypothesis, summary))
    return out


def _rest(rest: bytes, settings: dict[bytes, tuple[Profile, bool] | None]) -> Rest:
    """The part of an item's bulk key the rest of its request gives (``settings``: the
    options fields read so far)."""
    found = _usual(rest)
    if found is None:
        fields = _fields(rest, {_PREMISE: b""})
        if (fields is None or _INPUT in fields or _MODEL_ANSWER in fields
                or not fields.get(_HYPOTHESIS)):
            return None
        found = fields[_HYPOTHESIS], fields.get(_OPTIONS, b"")
    hypothesis, options = found
    chosen = settings.get(options, _UNSET)
    if chosen is _UNSET:
        chosen = settings[options] = _options(options)
    text = _text(hypothesis)
    if chosen is None or text is None:
        return None
    return chosen[0], text, chosen[1]


_UNSET: Any = object()


def _text(raw: bytes) -> str | None:
    """A string field's text (None: not UTF-8, which protobuf rejects too)."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return None


def bulk_answers(service: svc.Service, items: Items) -> list[Answer]:
    """Per Verify item (premise field, the rest of the serialised request, deadline), its
    bulk answer (see the module docstring)."""
    keys = _bulk_keys(items)
    count = len(items)
    out: list[Answer] = [None] * count
    start = 0
    while start < count:
        key, end = keys[start], start + 1
        if key is not None:
            premise, profile = key[0], key[1]  # a run's premise is one object
            while end < count:
                other = keys[end]
                if other is None or other[1] is not profile or other[0] != premise:
                    break
                end += 1
            if end - start > 1:
                run = keys[start:end]
                out[start:end] = _run(service, premise, profile,
                                      [k[2] for k in run],  # type: ignore[index]
                                      [k[3] for k in run],  # type: ignore[index]
                                      [d for _, _, d in items[start:end]])
        start = end
    return out


def _run(service: svc.Service, premise: str, profile: Profile, hypotheses: list[str],
         summaries: list[bool], deadlines: list[float | None]) -> list[Answer]:
    """One premise's run of items (their hypotheses, whether each gets a summary
    certificate) under one budget."""
    seconds = service.limits.budget_s
    if None not in deadlines:
        left = min(deadlines) - time.time()  # type: ignore[type-var]
        seconds = left if seconds is None else min(seconds, left)
    if seconds is not None and seconds <= 0:
        return [None] * len(hypotheses)  # the per-item path says the deadline passed
    try:
        with budget(seconds) as scope:
            results = service.pairs().verify_fast_many(premise, hypotheses, profile)
        if scope is not None and not any(results) and scope.exceeded():
            raise BudgetExceeded(f"the time budget of {scope.seconds:g} s was exceeded")
    except BudgetExceeded as error:
        return [error] * len(hypotheses)
    except Exception:  # memory, recursion, a bug: each item's own path reports it
        return [None] * len(hypotheses)
    packer = bulk_pack.BulkPacker()  # the premise's parts serialised once, not per item
    return [None if r is None else (True, packer.pack(r, summary))
            for r, summary in zip(results, summaries, strict=True)]


__all__ = ["JOB_ITEMS", "Answer", "Items", "Job", "bulk_answers", "jobs", "leading_size",
           "slot_of"]
