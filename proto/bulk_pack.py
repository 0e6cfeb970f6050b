"""Bulk Verify responses, serialised by hand: ``BulkPacker``.

A batch answers a premise's items from one class (``server_batch``, the bulk path's
``corr2cause_bulk.FastResult``): the variables, the CPDAG and the class size are the
same in every response, and building a ``VerifyResponse`` and a ``Certificate`` object
per item only to serialise them cost more than looking the item up.  ``BulkPacker``
writes the bytes protobuf's ``SerializeToString`` writes for ``pack.verify_response``
(with ``pack.summary_certificate``) of the same result — fields in number order, proto3
defaults left out, ``optional`` fields written when set: the premise's parts once,
then per item only what the item has of its own.  ``tests/test_pack_bulk.py`` compares
them with protobuf's, byte for byte.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from causal_oracle.proto.pack import RELATIONS, profile_value, saturated, varint, wire_varint

_v = varint  # the packer's many call sites


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
        self._size = _v(saturated(size))
        self._cpdag = b""  # written with the first certificate (``_certificate``)
        self._heads.clear()  # they hold the class size
        self._tails.clear()  # they hold the variables
        self._reasons.clear()  # a premise's own (and so bounded by its items)
        self._certificates.clear()  # they hold the CPDAG

    def _profile(self, name: str) -> bytes:
        found = self._profiles.get(name)
        if found is None:
            value = profile_value(name)
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
        parts = [b"\x08" + _signed(v.label), b"\x10" + _v(RELATIONS[v.relation])]
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
        cert = [b"\x08" + _v(RELATIONS[v.relation])]
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
    return _v(n) if n >= 0 else wire_varint(n + (1 << 64))


__all__ = ["BulkPacker"]
