"""Read the checkable claims of a reasoning text: clause → template → typed ``Claim``.

``read_claims(text, names)`` cuts a reply into clauses (``parser.claims_text``: one
linear scan, the item's declared names bound to variables, hedged sentences dropped)
and parses each clause with the templates of ``claims.lark`` (an LALR grammar; one
section per concept: independence and correlation, d-separation, adjacency and edges,
causes, mediators, colliders and confounders, paths, adjustment sets, instruments,
identifiability, the equivalence class, numbers, the final answer).  A clause that
does not parse whole is no claim: it is skipped, never guessed.  A clause whose words
are not all in the grammar's vocabulary is skipped before parsing, which keeps the
reader fast on prose.

Negation is read ("A is not a cause of C" → ``polarity`` False; "A and B are
dependent" → an independence claim with polarity False); subjects may be lists ("A
and B cause C" → two claims); an arrow chain ("A -> B <- C") claims each of its edges.

>>> [(c.kind.value, c.variables, c.polarity) for c in read_claims(
...     "Step 4: A is not directly causing C. B is a collider between A and C.",
...     ("A", "B", "C"))]
[('edge', (0, 2), False), ('collider', (1, 0, 2), True)]
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import cache
from pathlib import Path
from typing import Any

from lark import Lark, Token, Transformer
from lark.exceptions import LarkError, VisitError
from lark.lexer import PatternStr

from causal_oracle.oracle.reasoning.model import Claim, ClaimKind, Quantity, Relation
from causal_oracle.parser.claims_text import Clause, Names, clauses

#: at most this many claims are read from one reply
MAX_CLAIMS = 400

K = ClaimKind
_NO_SPAN = (0, 0)


class NotAClaim(Exception):
    """A clause that parses but names the wrong number of variables for its template."""


class _Neg:
    pass


NEG = _Neg()


class _Vars(tuple[int, ...]):
    pass


class _Given(tuple[int, ...]):
    pass


class _Path(tuple[tuple[int, str], ...]):
    pass


@dataclass
class _View:
    """A template's children, sorted by role."""

    subject: tuple[int, ...] = ()
    objects: list[int] = field(default_factory=list)
    sets: list[tuple[int, ...]] = field(default_factory=list)
    negated: bool = False
    given: tuple[int, ...] = ()
    numbers: list[tuple[float, int]] = field(default_factory=list)
    quantities: list[Quantity] = field(default_factory=list)
    path: tuple[tuple[int, str], ...] = ()

    @property
    def pair(self) -> tuple[int, int]:
        both = (*self.subject, *self.objects)
        if len(both) != 2 or both[0] == both[1]:
            raise NotAClaim("a pair claim names two different variables")
        return both[0], both[1]

    def subjects_to_one(self) -> tuple[tuple[int, ...], int]:
        if len(self.objects) != 1 or not self.subject:
            raise NotAClaim("one object")
        return self.subject, self.objects[0]

    def three(self) -> tuple[int, int, int]:
        both = (*self.subject, *self.objects)
        if len(both) != 3 or len(set(both)) != 3:
            raise NotAClaim("three different variables")
        return both[0], both[1], both[2]


def _number(token: Token) -> tuple[float, int]:
    text = str(token)
    percent = text.endswith("%")
    digits = text.rstrip("%")
    decimals = len(digits.partition(".")[2])
    value = float(digits)
    return (value / 100, decimals + 2) if percent else (value, decimals)


def _view(children: list[Any]) -> _View:
    v = _View()
    for i, child in enumerate(children):
        if child is None:
            continue
        if isinstance(child, _Neg):
            v.negated = True
        elif isinstance(child, _Given):
            v.given = tuple(child)
        elif isinstance(child, _Vars):
            if i == 0:
                v.subject = tuple(child)
            else:
                v.sets.append(tuple(child))
        elif isinstance(child, _Path):
            v.path = tuple(child)
        elif isinstance(child, Quantity):
            v.quantities.append(child)
        elif isinstance(child, Token) and child.type == "VAR":
            v.objects.append(int(child[1:]))
        elif isinstance(child, Token) and child.type == "NUMBER":
            v.numbers.append(_number(child))
        elif isinstance(child, tuple):  # a pair after the subject
            v.objects.extend(child)
    return v


def _claim(kind: ClaimKind, variables: tuple[int, ...], polarity: bool = True,
           given: tuple[int, ...] = (), **more: Any) -> Claim:
    return Claim(kind, variables, _NO_SPAN, polarity, tuple(sorted(set(given))), **more)


def _pair_rule(kind: ClaimKind, flip: bool = False, reverse: bool = False):  # type: ignore[no-untyped-def]
    def rule(self: Any, children: list[Any]) -> list[Claim]:
        v = _view(children)
        x, y = v.pair
        if reverse:
            x, y = y, x
        given = v.given or (v.sets[0] if v.sets else ())
        return [_claim(kind, (x, y), v.negated == flip, given)]
    return rule


def _fan_rule(kind: ClaimKind, reverse: bool = False):  # type: ignore[no-untyped-def]
    """Each subject to the one object ("A and B directly cause C": two claims)."""
    def rule(self: Any, children: list[Any]) -> list[Claim]:
        v = _view(children)
        if reverse:
            x, y = v.pair
            return [_claim(kind, (y, x), not v.negated)]
        subjects, obj = v.subjects_to_one()
        if obj in subjects:
            raise NotAClaim("a variable related to itself")
        return [_claim(kind, (s, obj), not v.negated) for s in subjects]
    return rule


def _triple_rule(kind: ClaimKind, order: tuple[int, int, int] = (0, 1, 2)):  # type: ignore[no-untyped-def]
    def rule(self: Any, children: list[Any]) -> list[Claim]:
        v = _view(children)
        t = v.three()
        return [_claim(kind, (t[order[0]], t[order[1]], t[order[2]]), not v.negated)]
    return rule


def _exists_rule(kind: ClaimKind):  # type: ignore[no-untyped-def]
    def rule(self: Any, children: list[Any]) -> list[Claim]:
        v = _view(children)
        return [_claim(kind, v.pair, not v.negated)]
    return rule


class _Claims(Transformer[Token, list[Claim]]):
    """Each template alternative → its claims (see ``claims.lark``)."""

    def neg(self, _: list[Any]) -> _Neg:
        return NEG

    def vars(self, children: list[Any]) -> _Vars:
        return _Vars(int(c[1:]) for c in children if isinstance(c, Token) and c.type == "VAR")

    def given(self, children: list[Any]) -> _Given:
        return _Given(children[-1])

    def pair(self, children: list[Any]) -> tuple[int, int]:
        return int(children[0][1:]), int(children[1][1:])

    def chain(self, children: list[Any]) -> _Path:
        nodes = [int(c[1:]) for c in children if c.type == "VAR"]
        arrows = [str(c) for c in children if c.type == "ARROW"]
        return _Path(zip(nodes, ["", *arrows], strict=True))

    path = chain

    # -- independence, correlation, d-separation
    ind_of = ind_pair = _pair_rule(K.INDEPENDENCE)
    dep_of = dep_pair = _pair_rule(K.INDEPENDENCE, flip=True)
    corr_of = corr_pair = _pair_rule(K.CORRELATION)
    dsep_pair = dsep_of = _pair_rule(K.D_SEPARATION)
    dcon_pair = _pair_rule(K.D_SEPARATION, flip=True)

    def dsep_by(self, children: list[Any]) -> list[Claim]:
        v = _view(children)
        x, y = v.objects if len(v.objects) == 2 else (0, 0)
        if x == y:
            raise NotAClaim("two different variables")
        return [_claim(K.D_SEPARATION, (x, y), True, v.subject)]

    # -- adjacency and edges
    adj_pair = adj_of = adj_there = _pair_rule(K.ADJACENT)

    def edge_chain(self, children: list[Any]) -> list[Claim]:
        out = []
        path = children[0]
        for (a, _), (b, arrow) in zip(path, path[1:], strict=False):
            if a == b:
                raise NotAClaim("a self-loop")
            if arrow == "->":
                out.append(_claim(K.EDGE, (a, b)))
            elif arrow == "<-":
                out.append(_claim(K.EDGE, (b, a)))
            elif arrow == "--":
                out.append(_claim(K.ADJACENT, (a, b)))
        return out

    edge_pos = edge_be = _fan_rule(K.EDGE)
    edge_rev = _fan_rule(K.EDGE, reverse=True)
    edge_there = _pair_rule(K.EDGE)

    # -- causes
    cause_pos = cause_be = _fan_rule(K.CAUSE)
    cause_rev = _fan_rule(K.CAUSE, reverse=True)
    cause_there = _pair_rule(K.CAUSE)
    ind_pos = ind_be = _fan_rule(K.INDIRECT_CAUSE)
    ind_rev = _fan_rule(K.INDIRECT_CAUSE, reverse=True)

    # -- mediators, colliders, confounders
    def med_through(self, children: list[Any]) -> list[Claim]:
        v = _view(children)
        if len(v.subject) != 1 or len(v.objects) != 1 or len(v.sets) != 1:
            raise NotAClaim("X causes Y through M")
        x, y = v.subject[0], v.objects[0]
        if x == y or x in v.sets[0] or y in v.sets[0]:
            raise NotAClaim("three different variables")
        return [_claim(K.MEDIATOR, (m, x, y)) for m in v.sets[0]]

    med_be = med_pos = _triple_rule(K.MEDIATOR)
    coll_be = _triple_rule(K.COLLIDER)

    def coll_chain(self, children: list[Any]) -> list[Claim]:
        """"B—A—C is not a collider": the middle node of a three-node path."""
        v = _view(children)
        nodes = [n for n, _ in children[0]]
        if len(nodes) != 3 or len(set(nodes)) != 3:
            raise NotAClaim("a collider sits between two nodes")
        return [_claim(K.COLLIDER, (nodes[1], nodes[0], nodes[2]), not v.negated)]

    def adj_chain(self, children: list[Any]) -> list[Claim]:
        v = _view(children)
        nodes = [n for n, _ in children[0]]
        if len(nodes) != 2 or nodes[0] == nodes[1]:
            raise NotAClaim("two nodes")
        return [_claim(K.ADJACENT, (nodes[0], nodes[1]), not v.negated)]
    ceff_be = _triple_rule(K.COMMON_EFFECT)
    coll_together = _triple_rule(K.COMMON_EFFECT, (2, 0, 1))
    ceff_exists = ceff_there = _exists_rule(K.COMMON_EFFECT)
    conf_be = conf_pos = _triple_rule(K.CONFOUNDER)
    conf_exists = conf_there = _exists_rule(K.CONFOUNDER)

    # -- paths
    def _path(self, children: list[Any], blocked: bool, conditioned_first: bool
              ) -> list[Claim]:
        v = _view(children)
        nodes = tuple(n for n, _ in v.path)
        if len(set(nodes)) != len(nodes) or len(nodes) < 2:
            raise NotAClaim("a path visits each node once")
        given = v.given or (v.subject if conditioned_first else ()) or \
            (v.sets[0] if v.sets else ())
        return [_claim(K.PATH_BLOCKED, nodes, blocked != v.negated, given)]

    def path_blocked(self, children: list[Any]) -> list[Claim]:
        return self._path(children, True, False)

    def path_open(self, children: list[Any]) -> list[Claim]:
        return self._path(children, False, False)

    def path_blocks(self, children: list[Any]) -> list[Claim]:
        v = _view(children)
        return self._path([_Given(v.subject or v.sets[0]), _Path(v.path)], True, False)

    def path_opens(self, children: list[Any]) -> list[Claim]:
        v = _view(children)
        return self._path([_Given(v.subject or v.sets[0]), _Path(v.path)], False, False)

    bd_there = _pair_rule(K.BACKDOOR_PATH)

    def bd_query(self, children: list[Any]) -> list[Claim]:
        return [_claim(K.BACKDOOR_PATH, (), not _view(children).negated)]

    # -- adjustment sets, instruments, identifiability
    def _adjustment(self, v: _View, zset: tuple[int, ...], polarity: bool) -> list[Claim]:
        if v.objects and len(v.objects) != 2:
            raise NotAClaim("an effect of one variable on another")
        pair = tuple(v.objects)
        if set(pair) & set(zset) or (pair and pair[0] == pair[1]):
            raise NotAClaim("the treatment or outcome in its own adjustment set")
        return [Claim(K.ADJUSTMENT_SET, pair, _NO_SPAN, polarity, tuple(sorted(set(zset))))]

    def adj_set(self, children: list[Any]) -> list[Claim]:
        v = _view(children)
        return self._adjustment(v, v.subject, not v.negated)

    adj_set_pos = adj_set_suff = adj_set

    def adj_set_is(self, children: list[Any]) -> list[Claim]:
        v = _view(children)
        return self._adjustment(v, v.sets[-1] if v.sets else (), True)

    def adj_set_we(self, children: list[Any]) -> list[Claim]:
        v = _view(children)
        return self._adjustment(v, v.sets[-1] if v.sets else v.subject, True)

    def instrument(self, children: list[Any]) -> list[Claim]:
        v = _view(children)
        if len(v.subject) != 1 or len(v.objects) > 2:
            raise NotAClaim("one instrument")
        return [_claim(K.INSTRUMENT, (*v.subject, *v.objects), not v.negated)]

    def ident(self, children: list[Any]) -> list[Claim]:
        v = _view(children)
        pair = v.quantities[0].between if v.quantities else ()
        return [_claim(K.IDENTIFIABLE, pair, not v.negated)]

    # -- the equivalence class
    def comp_be(self, children: list[Any]) -> list[Claim]:
        v = _view(children)
        return [_claim(K.COMPELLED, v.pair, not v.negated)]

    comp_we = comp_be

    def comp_either(self, children: list[Any]) -> list[Claim]:
        return [_claim(K.COMPELLED, _view(children).pair, False)]

    def size(self, children: list[Any]) -> list[Claim]:
        (value, _), = _view(children).numbers
        return [_claim(K.CLASS_SIZE, (), True, number=value)]

    # -- numbers
    def lit(self, children: list[Any]) -> tuple[int, int]:
        value = _number(children[1])[0] if len(children) > 1 else 1.0
        if value not in (0.0, 1.0):
            raise NotAClaim("a binary variable's value")
        return int(children[0][1:]), int(value)

    def lits(self, children: list[Any]) -> tuple[tuple[int, int], ...]:
        return tuple(sorted(children))

    def prob(self, children: list[Any]) -> Quantity:
        return Quantity("P", children[0], children[1] or ())

    def effect(self, children: list[Any]) -> Quantity:
        variables = tuple(int(c[1:]) for c in children if isinstance(c, Token)
                          and c.type == "VAR")
        words = [str(c).lower() for c in children if isinstance(c, Token) and c.type != "VAR"]
        name = words[0] if words and words[0] in ("nde", "nie", "ett") else "ate"
        return Quantity(name, between=variables if len(variables) == 2 else ())

    def num(self, children: list[Any]) -> list[Claim]:
        v = _view(children)
        (value, decimals), = v.numbers
        return [_claim(K.NUMBER, (), True, number=value, decimals=decimals,
                       quantity=v.quantities[0])]

    def _compare(self, children: list[Any], relation: Relation) -> list[Claim]:
        v = _view(children)
        number, decimals = v.numbers[0] if v.numbers else (None, 0)
        other = v.quantities[1] if len(v.quantities) > 1 else None
        return [_claim(K.COMPARISON, (), not v.negated, number=number, decimals=decimals,
                       quantity=v.quantities[0], other=other, relation=relation)]

    def more(self, children: list[Any]) -> list[Claim]:
        return self._compare(children, Relation.GREATER)

    def less(self, children: list[Any]) -> list[Claim]:
        return self._compare(children, Relation.LESS)

    def positive(self, children: list[Any]) -> list[Claim]:
        return self._compare([*children, Token("NUMBER", "0")], Relation.GREATER)

    def negative(self, children: list[Any]) -> list[Claim]:
        return self._compare([*children, Token("NUMBER", "0")], Relation.LESS)

    # -- the final answer
    def yes(self, _: list[Any]) -> bool:
        return True

    def no(self, _: list[Any]) -> bool:
        return False

    def answer(self, children: list[Any]) -> list[Claim]:
        return [_claim(K.ANSWER, (), bool(children[-1]))]

    def start(self, children: list[Any]) -> list[Claim]:
        return list(children[0])


@cache
def _parser() -> tuple[Lark, frozenset[str]]:
    grammar = (Path(__file__).parent / "claims.lark").read_text(encoding="utf-8")
    parser = Lark(grammar, parser="lalr", lexer="basic", transformer=_Claims(),
                  maybe_placeholders=True)
    words = frozenset(t.pattern.value for t in parser.terminals
                      if isinstance(t.pattern, PatternStr))
    return parser, words


def _fits(clause: Clause, vocabulary: frozenset[str]) -> bool:
    """Whether every word of ``clause`` is one the templates use (else it is no claim)."""
    for word, token in zip(clause.words, clause.tokens, strict=True):
        if token.kind == "word" and word not in vocabulary:
            return False
    return True


def read_clause(clause: Clause) -> list[Claim]:
    """The claims of one clause (none when it is not one of the templates)."""
    parser, vocabulary = _parser()
    if not _fits(clause, vocabulary):
        return []
    try:
        found = parser.parse(" ".join(clause.words))
    except (LarkError, NotAClaim, VisitError):
        return []
    return [replace(c, span=(clause.start, clause.end)) for c in found]


def read_claims(text: str, names: tuple[str, ...] | Names,
                aliases: Mapping[str, int] | None = None) -> list[Claim]:
    """Every claim of ``text`` about the variables ``names`` (also named by ``aliases``),
    in reading order."""
    out: list[Claim] = []
    table = names if isinstance(names, Names) else Names(names, aliases)
    for clause in clauses(text, table):
        out.extend(read_clause(clause))
        if len(out) >= MAX_CLAIMS:
            return out[:MAX_CLAIMS]
    return out


def vocabulary() -> frozenset[str]:
    """The words the claim templates use."""
    return _parser()[1]


__all__ = ["MAX_CLAIMS", "read_claims", "read_clause", "vocabulary"]
