r"""The Chinese claim templates' meaning: ``claims_zh.lark`` → typed ``Claim``\s.

``ZhClaims`` is the English transformer (``parser.claims_templates.Claims``) — the
Chinese templates carry the English rule names, so "A是B的原因" and "A is a cause of
B" make one ``CAUSE`` claim by one callback — plus what only Chinese word order needs:

* a condition said first ("给定C，A和B独立": ``start_given``) applies to the claim
  after it, and only to a claim a condition can qualify (independence, correlation);
* a treatment–outcome pair said first ("对于(A, E)，{B, D}满足后门准则":
  ``start_effect``) is the pair of the adjustment claim after it;
* a subject with several objects ("A导致B和C": ``cause_has``) claims each;
* the effects' Chinese names (自然直接效果 → NDE, 受控直接效果 → CDE, …).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from lark import Token

from causal_oracle.oracle.reasoning.model import Claim, ClaimKind, Quantity
from causal_oracle.parser.claims_templates import (
    Claims,
    NotAClaim,
    _claim,
    _Given,
    _Vars,
    _view,
)

K = ClaimKind
#: the kinds a condition said first may qualify
_CONDITIONED = frozenset({K.INDEPENDENCE, K.CORRELATION, K.D_SEPARATION})


def _variables(children: list[Any]) -> tuple[int, ...]:
    """The variables an effect names ("A对B的因果效应"), one subject and one object."""
    out: list[int] = []
    for c in children:
        if isinstance(c, _Vars):
            if len(c) != 1:
                raise NotAClaim("an effect of one variable on one other")
            out.extend(c)
        elif isinstance(c, Token) and c.type == "VAR":
            out.append(int(c[1:]))
    return tuple(out) if len(out) == 2 and out[0] != out[1] else ()


def _named(name: str):  # type: ignore[no-untyped-def]
    def rule(self: Any, children: list[Any]) -> Quantity:
        return Quantity(name, between=_variables(children))
    return rule


class ZhClaims(Claims):
    """Each Chinese template alternative → its claims (see ``claims_zh.lark``)."""

    def start_given(self, children: list[Any]) -> list[list[Claim]]:
        given = next(tuple(c) for c in children if isinstance(c, _Given))
        claims = children[-1]
        out = []
        for c in claims:
            if c.kind not in _CONDITIONED or c.given or set(given) & set(c.variables):
                raise NotAClaim("a condition said first qualifies an (in)dependence")
            out.append(replace(c, given=tuple(sorted(set(given)))))
        return [out]

    def start_effect(self, children: list[Any]) -> list[list[Claim]]:
        """"对于(A, E)，{B, D}满足后门准则": the pair said first is the claim's."""
        pair = tuple(int(c[1:]) for c in children if isinstance(c, Token) and c.type == "VAR")
        claims = children[-1]
        if len(pair) != 2 or pair[0] == pair[1]:
            raise NotAClaim("an effect of one variable on another")
        out = []
        for c in claims:
            head = c.variables[:1] if c.kind is K.INSTRUMENT else ()
            if c.variables not in (head, (*head, *pair)) or set(pair) & {*c.given, *head}:
                raise NotAClaim("one treatment and outcome, outside the set")
            out.append(replace(c, variables=(*head, *pair)))
        return [out]

    def cause_has(self, children: list[Any]) -> list[Claim]:
        """"A导致B和C": a directed path from each subject to each object."""
        v = _view(children)
        targets = v.sets[0] if v.sets else tuple(v.objects)
        if not v.subject or not targets or set(targets) & set(v.subject):
            raise NotAClaim("a variable's effect on itself")
        return [_claim(K.CAUSE, (s, t), not v.negated) for s in v.subject for t in targets]

    def edge_kids(self, children: list[Any]) -> list[Claim]:
        """"B的子节点是I、J和C": an edge from B to each."""
        v = _view(children)
        if len(v.objects) != 1 or not v.sets or v.objects[0] in v.sets[0]:
            raise NotAClaim("a node's children")
        return [_claim(K.EDGE, (v.objects[0], t)) for t in v.sets[0]]

    def edge_parents(self, children: list[Any]) -> list[Claim]:
        """"B的父节点是A": an edge from each into B."""
        return [replace(c, variables=c.variables[::-1]) for c in self.edge_kids(children)]

    def adj_set_zh(self, children: list[Any]) -> list[Claim]:
        """"调整集是{B}": the set said last."""
        v = _view(children)
        return self._adjustment(v, v.sets[-1] if v.sets else v.subject, True)

    def effect(self, children: list[Any]) -> Quantity:
        words = [str(c).lower() for c in children if isinstance(c, Token) and c.type != "VAR"]
        name = words[0] if words and words[0] in ("nde", "nie", "ett", "cde") else "ate"
        return Quantity(name, between=_variables(children))

    effect_nde = _named("nde")
    effect_nie = _named("nie")
    effect_cde = _named("cde")


__all__ = ["ZhClaims"]
