r"""The Chinese claim templates' meaning: ``claims_zh.lark`` → typed ``Claim``\s.

``ZhClaims`` is the English transformer (``parser.claims_templates.Claims``) — the
Chinese templates carry the English rule names, so "A是B的原因" and "A is a cause of
B" make one ``CAUSE`` claim by one callback — plus what only Chinese word order needs:

* a condition said first ("给定C，A和B独立": ``start_given``) applies to the claim
  after it, and only to a claim a condition can qualify (independence, correlation);
* a treatment–outcome pair said first ("对于(A, E)，{B, D}满足后门准则":
  ``start_effect``) is the pair of the adjustment claim after it;
* a subject with several objects ("A导致B和C": ``cause_has``) claims each;
* the effects' Chinese names (自然直接效果 → NDE, 受控直接效果 → CDE, …);
* "any node" ("E没有导致任何节点", "没有节点是A的父节点", "A没有父节点"): a claim about
  every other variable, made here with the placeholder ``ANY`` in the place of "any node"
  (``parser.claims_zh`` puts each of the item's other variables there).  Negation before
  "任何/任意" or after the quantifier says "none" (∀¬); before "所有" it says "not all",
  which no claim of one variable states: no claim;
* a probability in words ("在X为0的条件下，Y为1的概率", "当X为1时…", "非rixq且xevu的概率":
  CaLM's Chinese CLadder, a name alone value 1, 非 name value 0);
* the JSON final answer CaLM's prompts ask for (``{"ANSWER":"是","PROB":"0.2076"}``).
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
    _Neg,
    _Vars,
    _view,
)

K = ClaimKind
#: the placeholder for "any node" in a claim's variables (``parser.claims_zh`` replaces
#: it with each of the item's other variables)
ANY = -1
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


class _Any:
    """"任何节点" (``every`` False: negation before it says "none") or "所有节点"
    (``every`` True: negation before it says "not all"); ``bare``: "节点" after 没有."""

    __slots__ = ("bare", "every")

    def __init__(self, every: bool, bare: bool = False) -> None:
        self.every, self.bare = every, bare


class _Cond(tuple[tuple[int, int], ...]):
    """The literals of a probability's condition said in words."""


def _one(child: Any) -> int:
    """The one variable a name list or a VAR token names."""
    if isinstance(child, _Vars):
        if len(child) != 1:
            raise NotAClaim("one variable")
        return child[0]
    return int(child[1:])


def _universal(children: list[Any], kind: ClaimKind, out: bool) -> list[Claim]:
    """A claim of one variable about "any node" (``out``: the variable is the source of
    the edge or path, "E没有导致任何节点"; else its target, "没有节点导致A")."""
    items = [c for c in children if c is not None]
    at = next(i for i, c in enumerate(items) if isinstance(c, _Any))
    quantifier: _Any = items[at]
    named = [_one(c) for c in items if isinstance(c, _Vars)
             or (isinstance(c, Token) and c.type == "VAR")]
    if len(named) != 1:
        raise NotAClaim("one variable and any node")
    before = sum(isinstance(c, _Neg) for c in items[:at])
    after = sum(isinstance(c, _Neg) for c in items[at + 1:])
    if quantifier.every and before:
        raise NotAClaim("not every node: no claim of one variable says it")
    if quantifier.bare and not before:
        raise NotAClaim("a bare 节点 quantifies only after 没有")
    v = named[0]
    return [_claim(kind, (v, ANY) if out else (ANY, v), (before + after) % 2 == 0)]


def _universal_rule(kind: ClaimKind, out: bool):  # type: ignore[no-untyped-def]
    def rule(self: Any, children: list[Any]) -> list[Claim]:
        return _universal(children, kind, out)
    return rule


def _none_rule(kind: ClaimKind, out: bool):  # type: ignore[no-untyped-def]
    """"A没有父节点": no variable is a parent (cause, child, …) of A."""
    def rule(self: Any, children: list[Any]) -> list[Claim]:
        v = _one(next(c for c in children if isinstance(c, _Vars)))
        return [_claim(kind, (v, ANY) if out else (ANY, v), False)]
    return rule


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

    # -- "any node"
    def any_node(self, _: list[Any]) -> _Any:
        return _Any(False)

    def all_node(self, _: list[Any]) -> _Any:
        return _Any(True)

    def bare_node(self, _: list[Any]) -> _Any:
        return _Any(False, bare=True)

    u_cause_out = _universal_rule(K.CAUSE, True)
    u_cause_in = _universal_rule(K.CAUSE, False)
    u_edge_out = _universal_rule(K.EDGE, True)
    u_edge_in = _universal_rule(K.EDGE, False)
    u_adjacent = _universal_rule(K.ADJACENT, True)
    u_no_parents = _none_rule(K.EDGE, False)
    u_no_children = _none_rule(K.EDGE, True)
    u_no_ancestors = _none_rule(K.CAUSE, False)
    u_no_descendants = _none_rule(K.CAUSE, True)

    # -- probabilities in words
    def lit_set(self, children: list[Any]) -> tuple[int, int]:
        return self.lit([Token("VAR", f"V{_one(children[0])}"), children[-1]])

    def lit_not(self, children: list[Any]) -> tuple[int, int]:
        return _one(children[0]), 0

    def zlits(self, children: list[Any]) -> tuple[tuple[int, int], ...]:
        out: list[tuple[int, int]] = []
        for c in children:
            out.extend(((v, 1) for v in c) if isinstance(c, _Vars) else (c,))
        if len({v for v, _ in out}) != len(out):
            raise NotAClaim("one value per variable")
        return tuple(sorted(out))

    def zcond(self, children: list[Any]) -> _Cond:
        return _Cond(next(c for c in children if isinstance(c, tuple)))

    def zprob(self, children: list[Any]) -> Quantity:
        given = next((c for c in children if isinstance(c, _Cond)), _Cond())
        event = next((c for c in children if isinstance(c, tuple) and not isinstance(c, _Cond)),
                     None)
        if event is None:  # "xevu的概率": the name alone, value 1
            event = ((_one(children[-1]), 1),)
        if {v for v, _ in event} & {v for v, _ in given}:
            raise NotAClaim("a variable in both the event and its condition")
        return Quantity("P", tuple(event), tuple(given))

    def answer_json(self, children: list[Any]) -> list[Claim]:
        """``{"ANSWER":"是","PROB":"0.2076"}``: the yes/no (the number is the answer's
        own, not a claim about a named quantity)."""
        return [_claim(K.ANSWER, (), next(c for c in children if isinstance(c, bool)))]

    effect_nde = _named("nde")
    effect_nie = _named("nie")
    effect_cde = _named("cde")


__all__ = ["ANY", "ZhClaims"]
