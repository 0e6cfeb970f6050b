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
server's workers and the gRPC client (the bulk path writes its responses' bytes
itself, from the same tables: ``proto.bulk_pack``).
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


def profile_value(name: str) -> int:
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


#: a relation's name → its enum value
RELATIONS = {"entailment": pb.RELATION_ENTAILMENT, "neutral": pb.RELATION_NEUTRAL,
             "contradiction": pb.RELATION_CONTRADICTION,
             "inconsistent": pb.RELATION_INCONSISTENT}
_FORMATS = {value: name for name, value in FORMATS.items() if name not in (None, "none")}


INT64_MAX = 2**63 - 1


def saturated(count: int) -> int:
    """``count`` as an int64 field holds it: class sizes grow like n! and pass 2^63 - 1
    for complete premises from 21 variables (the ``_exact`` string fields are exact)."""
    return min(count, INT64_MAX)


def _edges(pairs: Sequence[Sequence[str]]) -> list[pb.Edge]:
    return [pb.Edge(source=a, target=b) for a, b in pairs]


def summary_certificate(data: Mapping[str, Any]) -> pb.Certificate:
    """The summary part of a certificate (no members, witnesses or conflict) from its
    JSON data with names (``Certificate.to_json(variables)``'s keys; the bulk path
    gives the same keys, ``corr2cause_bulk.FastResult.certificate``)."""
    return pb.Certificate(verdict=RELATIONS[data["verdict"]],
                          profile=profile_value(data["profile"]),
                          relation_kind=data["relation"], form=data["form"], pair=data["pair"],
                          class_size=saturated(data["class_size"]),
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
        relation=RELATIONS[s["relation"]], class_size=saturated(s["class_size"]),
        class_size_exact=str(s["class_size"]),
        ambiguous=s["ambiguous"], profile=profile_value(profile),
        certificate_checked=s["certificate_checked"], reason=s["reason"],
        labels_by_profile=[pb.ProfileLabel(profile=profile_value(p), label=v)
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


# ---- protobuf varints (the bulk packer's, ``proto.bulk_pack``, and ``proto.wire``'s) ---------

def wire_varint(n: int) -> bytes:
    """A non-negative int (or a negative one plus 2^64) as a protobuf varint."""
    out = bytearray()
    while n > 0x7F:
        out.append(n & 0x7F | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


_VARINTS = [wire_varint(n) for n in range(1 << 14)]  # every one- and two-byte varint


def varint(n: int) -> bytes:
    """A non-negative int as a protobuf varint (class sizes, lengths, enum values; a table
    look-up below 2^14: most lengths)."""
    return _VARINTS[n] if 0 <= n < 16384 else wire_varint(n)
