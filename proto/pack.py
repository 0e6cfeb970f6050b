"""Packing: ``causal_oracle.v1`` messages ↔ the entry layer's results (``entry``).

``verify`` and ``answer`` turn one request into calls on a ``Service`` and the
result into a response message; ``error_of`` turns an exception raised on the way
into an ``ItemError`` with its gRPC code (INVALID_ARGUMENT for bad text or an
unknown enum value, RESOURCE_EXHAUSTED for a limit or budget).  ``task_answer_of``
is the way back, for clients: an ``AnswerResponse`` as the ``TaskAnswer`` (with its
``Grade``) the in-process service returns; ``reasoning_message``/``reasoning_json``
carry a ``ReasoningResult.to_json()`` (an ``Answer`` with ``reasoning``) both ways.
No reasoning happens here: this is the
one table between names in messages and the entry layer's objects, shared by the
server's workers and the gRPC client.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping, Sequence
from typing import Any

from google.rpc import code_pb2

from causal_oracle import entry as svc
from causal_oracle.entry import BudgetExceeded, Grade, InputError, ParseError, TaskAnswer
from causal_oracle.entry.reasoning import check_reasoning
from causal_oracle.proto.causal_oracle.v1 import oracle_pb2 as pb

log = logging.getLogger("causal_oracle.server")

INVALID, EXHAUSTED, DEADLINE = (code_pb2.INVALID_ARGUMENT, code_pb2.RESOURCE_EXHAUSTED,
                                   code_pb2.DEADLINE_EXCEEDED)


def item_error(code: int, kind: str, message: str, field: str = "") -> pb.ItemError:
    return pb.ItemError(code=code, kind=kind, message=message, field=field,
                        description=message)


def error_of(error: BaseException) -> pb.ItemError:
    """The ``ItemError`` of an exception raised while answering one item."""
    if isinstance(error, ParseError):
        fields = ("premise", "hypothesis", "input", "prompt")
        return pb.ItemError(code=INVALID, kind="parse_error", message=error.message,
                            field=error.what if error.what in fields else "",
                            line=error.line or 0, column=error.column or 0,
                            expected=error.expected, context=error.context, what=error.what,
                            description=error.describe())
    if isinstance(error, InputError):
        return pb.ItemError(code=INVALID, kind="input_error", message=error.message,
                            line=error.line or 0, column=error.column or 0,
                            context=error.context, description=error.describe())
    if isinstance(error, BudgetExceeded):
        return item_error(EXHAUSTED, "budget_exceeded", str(error), "solver")
    log.error("internal error: %s: %s", type(error).__name__, error)
    return item_error(code_pb2.INTERNAL, "internal", f"internal error: {type(error).__name__}")


# ---- packing (requests → service calls → responses) -----------------------------------------

def _enum(enum: Any, value: int, what: str) -> int:
    if value not in enum.values():
        raise InputError(f"unknown {what} {value}; expected one of "
                         f"{', '.join(str(v) for v in enum.values())}")
    return value


def _profile_name(value: int) -> str:
    value = _enum(pb.Profile, value, "profile") or pb.PROFILE_CORR2CAUSE
    return pb.Profile.Name(value).removeprefix("PROFILE_").lower()


_PROFILE_VALUES = {name.removeprefix("PROFILE_").lower(): value
                   for name, value in pb.Profile.items()}


def _profile_value(name: str) -> int:
    value = _PROFILE_VALUES.get(name)
    return pb.Profile.Value("PROFILE_" + name.upper()) if value is None else value


DETAILS = {"none": pb.CERTIFICATE_DETAIL_NONE, "summary": pb.CERTIFICATE_DETAIL_SUMMARY,
           "full": pb.CERTIFICATE_DETAIL_FULL}
FORMATS = {None: pb.EXPLANATION_FORMAT_NONE, "none": pb.EXPLANATION_FORMAT_NONE,
           "text": pb.EXPLANATION_FORMAT_TEXT, "json": pb.EXPLANATION_FORMAT_JSON,
           "dot": pb.EXPLANATION_FORMAT_DOT}


def relation_name(value: int) -> str:
    """``entailment``, ``neutral``, ``contradiction`` or ``inconsistent``."""
    return pb.Relation.Name(value).removeprefix("RELATION_").lower()


def profile_name(value: int) -> str:
    """A profile's name (0, unset, is ``corr2cause``); no check (clients read responses)."""
    return pb.Profile.Name(value or pb.PROFILE_CORR2CAUSE).removeprefix("PROFILE_").lower()


_RELATIONS = {"entailment": pb.RELATION_ENTAILMENT, "neutral": pb.RELATION_NEUTRAL,
              "contradiction": pb.RELATION_CONTRADICTION,
              "inconsistent": pb.RELATION_INCONSISTENT}
_FORMATS = {value: name for name, value in FORMATS.items() if name not in (None, "none")}


INT64_MAX = 2**63 - 1


def _saturated(count: int) -> int:
    """``count`` as an int64 field holds it: class sizes grow like n! and pass 2^63 - 1
    for complete premises from 21 variables (the ``_exact`` string fields are exact)."""
    return min(count, INT64_MAX)


def _edges(pairs: Sequence[Sequence[str]]) -> list[pb.Edge]:
    return [pb.Edge(source=a, target=b) for a, b in pairs]


def summary_certificate(data: Mapping[str, Any]) -> pb.Certificate:
    """The summary part of a certificate (no members, witnesses or conflict) from its
    JSON data with names (``Certificate.to_json(variables)``'s keys; the bulk path
    gives the same keys, ``corr2cause_bulk.FastResult.certificate``)."""
    return pb.Certificate(verdict=_RELATIONS[data["verdict"]],
                          profile=_profile_value(data["profile"]),
                          relation_kind=data["relation"], form=data["form"], pair=data["pair"],
                          class_size=_saturated(data["class_size"]),
                          class_size_exact=str(data["class_size"]),
                          cpdag_directed=_edges(data["cpdag_directed"]),
                          cpdag_undirected=_edges(data["cpdag_undirected"]))


def _certificate(result: svc.VerifyResult, detail: int) -> pb.Certificate:
    """The certificate of a ``VerifyResult``, names instead of indices."""
    data = result.verdict.certificate.to_json(result.premise.variables)
    edges = _edges
    cert = summary_certificate(data)
    if detail == pb.CERTIFICATE_DETAIL_FULL:
        cert.members.extend(pb.Graph(edges=edges(m)) for m in data["members"])
        cert.witnesses.extend(
            pb.Witness(holds=False) if w is None else
            pb.Witness(holds=True, paths=[pb.Path(nodes=p) for p in w])
            for w in data["witnesses"])
    c = data["conflict"]
    if c is not None:
        conflict = cert.conflict
        conflict.kind, conflict.message = c["kind"], c["message"]
        if c["statement"] is not None:
            conflict.statement.CopyFrom(pb.Statement(**c["statement"]))
        if c["path"] is not None:
            conflict.path.CopyFrom(pb.Path(nodes=c["path"]))
        if c["candidate"] is not None:
            conflict.candidate.CopyFrom(pb.Graph(edges=edges(c["candidate"])))
    return cert


def verify_response(s: dict[str, Any], profile: str, variables: Sequence[str],
                    hypothesis_kind: str) -> pb.VerifyResponse:
    """A Verify response without explanation, certificate or grade, from a result's
    ``summary()`` (``VerifyResult``'s, or the bulk path's ``FastResult``'s)."""
    response = pb.VerifyResponse(
        relation=_RELATIONS[s["relation"]], class_size=_saturated(s["class_size"]),
        class_size_exact=str(s["class_size"]),
        ambiguous=s["ambiguous"], profile=_profile_value(profile),
        certificate_checked=s["certificate_checked"], reason=s["reason"],
        labels_by_profile=[pb.ProfileLabel(profile=_profile_value(p), label=v)
                           for p, v in s["labels_by_profile"].items()],
        variables=variables, hypothesis_kind=hypothesis_kind)
    if s["label"] is not None:
        response.label = s["label"]
    if s["holds_in"] is not None:
        response.holds_in = s["holds_in"]
    return response


def verify(service: svc.Service, request: pb.VerifyRequest) -> pb.VerifyResponse:
    """One Verify item: parse (through the service's limits) → verify → pack."""
    options = request.options
    profile = _profile_name(options.profile)
    _enum(pb.CertificateDetail, options.certificate_detail, "certificate_detail")
    _enum(pb.ExplanationFormat, options.explanation_format, "explanation_format")
    if request.input:
        if request.premise or request.hypothesis:
            raise InputError("give either input or premise/hypothesis, not both")
        result = service.verify_input(request.input.replace("\r\n", "\n"), profile)
    elif request.premise and request.hypothesis:
        result = service.verify(request.premise, request.hypothesis, profile)
    else:
        raise InputError("give premise and hypothesis (or input)")
    response = verify_response(result.summary(), profile, result.premise.variables,
                               result.hypothesis.kind.value)
    fmt = _FORMATS.get(options.explanation_format)
    if fmt is not None:
        response.explanation_format = options.explanation_format
        response.explanation = result.explain(fmt)
    if options.certificate_detail != pb.CERTIFICATE_DETAIL_NONE:
        response.certificate.CopyFrom(_certificate(result, options.certificate_detail))
    if request.HasField("model_answer"):
        service.check_text(request.model_answer, "model_answer")
        graded = service.grade_result(result, request.model_answer)
        response.normalised_answer = graded.normalised
        response.grade_reason = graded.reason
        response.grade = grade_value(graded)
    return response


def grade_value(graded: Grade) -> int:
    """The ``Grade`` enum value of a grade."""
    if not graded.gradable:
        return pb.GRADE_UNGRADABLE
    if not graded.readable:
        return pb.GRADE_UNREADABLE
    return pb.GRADE_CORRECT if graded.correct else pb.GRADE_WRONG


def grade_of(value: int) -> tuple[bool, bool, bool]:
    """(correct, gradable, readable) of a ``Grade`` enum value."""
    return (value == pb.GRADE_CORRECT, value != pb.GRADE_UNGRADABLE,
            value != pb.GRADE_UNREADABLE)


#: a claim's verdict (``ReasoningResult.to_json``'s word) ↔ its enum value
CLAIM_VERDICTS = {"true": pb.CLAIM_VERDICT_TRUE, "false": pb.CLAIM_VERDICT_FALSE,
                  "not_decidable": pb.CLAIM_VERDICT_NOT_DECIDABLE}
_VERDICT_WORDS = {v: k for k, v in CLAIM_VERDICTS.items()}


def reasoning_message(data: Mapping[str, Any]) -> pb.Reasoning:
    """A ``ReasoningResult.to_json()`` as its message."""
    out = pb.Reasoning(
        supported=data["supported"],
        claims=[pb.ReasoningClaim(start=c["span"][0], end=c["span"][1], text=c["text"],
                                  kind=c["kind"], polarity=c["polarity"],
                                  verdict=CLAIM_VERDICTS[c["verdict"]], why=c["why"])
                for c in data["claims"]],
        contradictions=[pb.ReasoningContradiction(first=c["first"], second=c["second"],
                                                  why=c["why"])
                        for c in data["contradictions"]],
        true_claims=data["counts"]["true"], false_claims=data["counts"]["false"],
        not_decidable=data["counts"]["not_decidable"], lucky=data["lucky"],
        unsupported=data["unsupported"])
    if data["score"] is not None:
        out.score = data["score"]
    return out


def reasoning_json(message: pb.Reasoning) -> dict[str, Any]:
    """The way back: a ``Reasoning`` message as ``ReasoningResult.to_json()`` gives it
    (without ``family``, ``task`` and ``final``, which the response holds elsewhere)."""
    return {"supported": message.supported,
            "claims": [{"span": [c.start, c.end], "text": c.text, "kind": c.kind,
                        "polarity": c.polarity, "verdict": _VERDICT_WORDS.get(c.verdict, ""),
                        "why": c.why} for c in message.claims],
            "contradictions": [{"first": c.first, "second": c.second, "why": c.why}
                               for c in message.contradictions],
            "counts": {"true": message.true_claims, "false": message.false_claims,
                       "not_decidable": message.not_decidable},
            "score": message.score if message.HasField("score") else None,
            "lucky": message.lucky, "unsupported": message.unsupported}


def answer(service: svc.Service, request: pb.AnswerRequest) -> pb.AnswerResponse:
    """One Answer item: parse → solve → check → pack (and grade a model's answer; with
    ``reasoning``, check its claims too)."""
    given = request.model_answer if request.HasField("model_answer") else None
    if request.reasoning and given is None:
        raise InputError("reasoning: there is no model_answer whose claims to check; "
                         "give model_answer")
    result = service.answer(request.prompt, request.task or None, model_answer=given)
    response = pb.AnswerResponse(
        task=result.task, answer_text=result.answer_text,
        answer_json=json.dumps(result.answer, ensure_ascii=False),
        certificate_checked=result.certificate_checked, explanation=result.explanation)
    if result.grade is not None:
        graded = result.grade
        response.grade = grade_value(graded)
        response.normalised_answer = graded.normalised
        response.grade_reason = graded.reason or ""
        response.expected = graded.expected or ""
    if request.reasoning and given is not None:
        checked = check_reasoning(service, request.prompt, given, request.task or None)
        response.reasoning.CopyFrom(reasoning_message(checked.to_json()))
    return response


def task_answer_of(response: pb.AnswerResponse) -> TaskAnswer:
    """An ``AnswerResponse`` as the in-process service's ``TaskAnswer`` (the family is
    not on the wire: empty)."""
    graded = None
    if response.grade:
        correct, gradable, readable = grade_of(response.grade)
        graded = Grade(response.task, correct, response.normalised_answer,
                       response.expected or None, response.grade_reason, gradable, readable)
    return TaskAnswer(response.task, json.loads(response.answer_json or "null"),
                      response.answer_text, response.explanation, response.certificate_checked,
                      "", graded)


# ---- bulk Verify responses, serialised by hand ------------------------------------------------
#
# A batch answers a premise's items from one class: the variables, the CPDAG and the class
# size are the same in every response, and building a ``VerifyResponse`` and a
# ``Certificate`` object per item only to serialise them cost more than looking the item
# up.  ``BulkPacker`` writes the bytes protobuf's ``SerializeToString`` writes (fields in
# number order, proto3 defaults left out, ``optional`` fields written when set): the
# premise's parts once, then per item only what the item has of its own.
# ``tests/test_pack_bulk.py`` compares them with protobuf's, byte for byte.

def _wire_varint(n: int) -> bytes:
    out = bytearray()
    while n > 0x7F:
        out.append(n & 0x7F | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


_VARINTS = [_wire_varint(n) for n in range(1 << 14)]  # every one- and two-byte varint


def varint(n: int) -> bytes:
    """A non-negative int as a protobuf varint (class sizes, lengths, enum values; a table
    look-up below 2^14: most lengths)."""
    return _VARINTS[n] if 0 <= n < 16384 else _wire_varint(n)


_v = varint  # the packers' many call sites


def _text(tag: bytes, value: str) -> bytes:
    """A string field (tag included); empty: left out, as proto3 leaves it."""
    if not value:
        return b""
    data = value.encode("utf-8")
    return tag + _v(len(data)) + data


def _nested(tag: bytes, data: bytes) -> bytes:
    return tag + _v(len(data)) + data


def _edge_fields(tag: bytes, pairs: Sequence[Sequence[str]]) -> bytes:
    return b"".join(_nested(tag, _text(b"\x0a", a) + _text(b"\x12", b)) for a, b in pairs)


class BulkPacker:
    """Serialised ``VerifyResponse`` bytes of the bulk path's results
    (``corr2cause_bulk.FastResult``), equal to ``verify_response`` (plus, with a summary
    certificate, ``summary_certificate``) serialised by protobuf.  The parts that
    belong to the premise (variables, CPDAG, class size) are written once per
    premise and reused while the results share them; so are the fields before the
    reason (a premise's items have few distinct verdicts), each reason (items of a
    premise share them: every contradicted one has the same), the fields after the
    reason per relation kind, and the certificates (one per verdict, profile and
    hypothesis shape)."""

    def __init__(self) -> None:
        #: the premise's parts are for these: variables, CPDAG, class size, profile
        self._variables_of: object = None
        self._cpdag_of: object = None
        self._size_of = -1
        self._profile_of: object = None
        self._variables = self._exact = self._cpdag = self._size = b""
        self._profiles: dict[str, bytes] = {}
        self._labels: dict[tuple[str, int | None], bytes] = {}
        #: every profile's label field, by the result's (profile, label) pairs
        self._label_lists: dict[tuple[tuple[str, int | None], ...], bytes] = {}
        #: the fields after the reason (variables, hypothesis_kind, class_size_exact) by
        #: the kind's ``id``: enum members are singletons, and an enum's hash is Python
        #: code (a tenth of a packed item's time)
        self._tails: dict[int, bytes] = {}
        self._heads: dict[tuple[object, ...], bytes] = {}
        self._reasons: dict[str, bytes] = {}
        self._certificates: dict[tuple[object, ...], bytes] = {}

    def _premise(self, variables: Sequence[str], cpdag: tuple[Sequence[Sequence[str]],
                 Sequence[Sequence[str]]], size: int, profile: object) -> None:
        """The parts of a premise's class under one profile (the cached heads, tails
        and certificates hold them)."""
        self._variables_of, self._cpdag_of = variables, cpdag
        self._size_of, self._profile_of = size, profile
        self._variables = b"".join(_text(b"\x6a", v) if v else b"\x6a\x00" for v in variables)
        exact = str(size)
        self._exact = _text(b"\x92\x01", exact)  # VerifyResponse.class_size_exact = 18
        self._size = _v(_saturated(size))
        self._cpdag = b""  # written with the first certificate (``_certificate``)
        self._heads.clear()  # they hold the class size
        self._tails.clear()  # they hold the variables
        self._reasons.clear()  # a premise's own (and so bounded by its items)
        self._certificates.clear()  # they hold the CPDAG

    def _profile(self, name: str) -> bytes:
        found = self._profiles.get(name)
        if found is None:
            value = _profile_value(name)
            found = self._profiles[name] = _v(value) if value else b""
        return found

    def _label(self, name: str, label: int | None) -> bytes:
        found = self._labels.get((name, label))
        if found is None:  # ProfileLabel: profile = 1, optional label = 2
            profile = self._profile(name)
            body = (b"\x08" + profile if profile else b"") + (
                b"" if label is None else b"\x10" + _signed(label))
            found = self._labels[(name, label)] = _nested(b"\x32", body)
        return found

    def _head(self, r: Any) -> bytes:
        """Fields 1–8 (label … certificate_checked) of a result's response."""
        v = r.verdict
        profile = self._profile(r.profile.value)
        parts = [b"\x08" + _signed(v.label), b"\x10" + _v(_RELATIONS[v.relation])]
        if self._size != b"\x00":
            parts.append(b"\x18" + self._size)
        parts.append(b"\x20" + _signed(v.holds_in))
        if v.ambiguous:
            parts.append(b"\x28\x01")
        labels = self._label_lists.get(r.labels)
        if labels is None:
            labels = self._label_lists[r.labels] = b"".join(
                [self._label(name, label) for name, label in r.labels])
        parts.append(labels)
        if profile:
            parts.append(b"\x38" + profile)
        parts.append(b"\x40\x01")  # certificate_checked: the bulk path checks every one
        return b"".join(parts)

    def _certificate(self, r: Any) -> bytes:
        """The summary certificate (field 12) of a result's response."""
        v = r.verdict
        profile = self._profile(r.profile.value)
        cert = [b"\x08" + _v(_RELATIONS[v.relation])]
        if profile:
            cert.append(b"\x10" + profile)
        cert.append(_text(b"\x1a", v.kind.value))
        cert.append(_text(b"\x22", r.form.value))
        cert.extend(_text(b"\x2a", name) if name else b"\x2a\x00" for name in r.pair)
        if self._size != b"\x00":
            cert.append(b"\x30" + self._size)
        if not self._cpdag:  # Certificate fields 7, 8, 12
            cpdag, exact = r.cpdag, str(v.class_size)
            self._cpdag = (_edge_fields(b"\x3a", cpdag[0]) + _edge_fields(b"\x42", cpdag[1])
                           + _text(b"\x62", exact))
        cert.append(self._cpdag)
        return _nested(b"\x62", b"".join(cert))

    def pack(self, r: Any, with_certificate: bool) -> bytes:
        """One result's serialised response (``r``: a ``FastResult``)."""
        v, profile, labels, why, variables, _, pair, cpdag = r  # (unpacked: fewer look-ups)
        relation, label, holds_in, size, ambiguous, kind, _ = v
        if (variables is not self._variables_of or cpdag is not self._cpdag_of
                or size != self._size_of or profile is not self._profile_of):
            self._premise(variables, cpdag, size, profile)
        head_key = (relation, label, holds_in, ambiguous, labels)  # one profile
        head = self._heads.get(head_key)
        if head is None:
            head = self._heads[head_key] = self._head(r)
        reason = self._reasons.get(why)
        if reason is None:
            data = why.encode("utf-8")
            reason = self._reasons[why] = b"\x4a" + _v(len(data)) + data if data else b""
        tail = self._tails.get(id(kind))
        if tail is None:
            tail = self._tails[id(kind)] = (self._variables + _text(b"\x72", kind.value)
                                           + self._exact)
        if not with_certificate:
            return b"".join((head, reason, tail))
        cert_key = (relation, id(kind), id(r.form), pair)  # one profile
        cert = self._certificates.get(cert_key)
        if cert is None:
            cert = self._certificates[cert_key] = self._certificate(r)
        return b"".join((head, reason, cert, tail))


def _signed(n: int) -> bytes:
    """An int32/int64 field's varint (negatives take ten bytes, as protobuf writes them)."""
    return _v(n) if n >= 0 else _wire_varint(n + (1 << 64))
