r"""The claim templates' meaning: each alternative of ``claims.lark`` → typed ``Claim``\s.

``Claims`` is the grammar's transformer.  A template's children are sorted by role
(``_View``: the subject list, the other variables, later name sets, the negation, the
conditioning set, numbers, quantities, a path) and each alternative's callback builds
its claims from them: a pair claim from two variables, a fan of claims from a subject
list ("A and B cause C"), a triple (mediator, collider, confounder) from three.  A
template that parses but names the wrong number of variables — "A is independent of
A" — raises ``NotAClaim``: the clause is no claim.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from lark import Token, Transformer

from causal_oracle.oracle.reasoning.model import Claim, ClaimKind, Quantity, Relation

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


class _View:
    """A template's children, sorted by role (made once per template reduction: a plain
    class with slots, its children told apart by their exact type first)."""

    __slots__ = ("given", "negated", "numbers", "objects", "path", "quantities", "sets",
                 "subject")

    def __init__(self, children: list[Any]) -> None:
        self.subject: tuple[int, ...] = ()
        self.objects: list[int] = []
        self.sets: list[tuple[int, ...]] = []
        self.negated = False
        self.given: tuple[int, ...] = ()
        self.numbers: list[tuple[float, int]] = []
        self.quantities: list[Quantity] = []
        self.path: tuple[tuple[int, str], ...] = ()
        for i, child in enumerate(children):
            if child is None:
                continue
            kind = type(child)
            if kind is Token:
                if child.type == "VAR":
                    self.objects.append(int(child[1:]))
                elif child.type == "NUMBER":
                    self.numbers.append(_number(child))
            elif kind is _Vars:
                if i == 0:
                    self.subject = tuple(child)
                else:
                    self.sets.append(tuple(child))
            elif kind is _Neg:
                self.negated = True
            else:
                self._other(child, i)

    def _other(self, child: Any, i: int) -> None:
        """A child of any other type, by ``isinstance`` (subclasses included)."""
        if isinstance(child, _Neg):
            self.negated = True
        elif isinstance(child, _Given):
            self.given = tuple(child)
        elif isinstance(child, _Vars):
            if i == 0:
                self.subject = tuple(child)
            else:
                self.sets.append(tuple(child))
        elif isinstance(child, _Path):
            self.path = tuple(child)
        elif isinstance(child, Quantity):
            self.quantities.append(child)
        elif isinstance(child, Token) and child.type == "VAR":
            self.objects.append(int(child[1:]))
        elif isinstance(child, Token) and child.type == "NUMBER":
            self.numbers.append(_number(child))
        elif isinstance(child, tuple):  # a pair after the subject
            self.objects.extend(child)

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


_view = _View


#: a binary variable's value as models write it most ("X=1")
_BINARY = {"0": 0, "1": 1}


def _claim(kind: ClaimKind, variables: tuple[int, ...], polarity: bool = True,
           given: tuple[int, ...] = (), **more: Any) -> Claim:
    return Claim(kind, variables, _NO_SPAN, polarity, tuple(sorted(set(given))) if given else (),
                 **more)


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


class Claims(Transformer[Token, list[Claim]]):
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
        paths = [path for path in children if isinstance(path, _Path)]
        if len(paths) > 1 and any(len(path) > 2 for path in paths):
            raise NotAClaim("a list of paths names alternatives (class members), not edges")
        pairs = [(p, q) for path in paths for p, q in zip(path, path[1:], strict=False)]
        for (a, _), (b, arrow) in pairs:
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

    def edge_has(self, children: list[Any]) -> list[Claim]:
        """"Husband has a direct effect on wife and alarm clock": an edge to each."""
        v = _view(children)
        targets = v.sets[0] if v.sets else ()
        if set(targets) & set(v.subject):
            raise NotAClaim("a variable's effect on itself")
        return [_claim(K.EDGE, (s, t), not v.negated) for s in v.subject for t in targets]
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

    def coll_any(self, children: list[Any]) -> list[Claim]:
        """"B is not a collider": B has (not) two parents, a collider on some path."""
        v = _view(children)
        if len(v.subject) != 1:
            raise NotAClaim("one node")
        return [_claim(K.COLLIDER, v.subject, not v.negated)]

    def coll_on_path(self, children: list[Any]) -> list[Claim]:
        """"B is a collider on the path A -> B <- C": its neighbours on the path."""
        v = _view(children)
        nodes = [n for n, _ in v.path]
        if len(v.subject) != 1 or v.subject[0] not in nodes[1:-1]:
            raise NotAClaim("a collider is an inner node of its path")
        at = nodes.index(v.subject[0])
        return [_claim(K.COLLIDER, (nodes[at], nodes[at - 1], nodes[at + 1]), not v.negated)]

    def ind_made(self, children: list[Any]) -> list[Claim]:
        v = _view(children)
        x, y = v.objects if len(v.objects) == 2 else (0, 0)
        if x == y:
            raise NotAClaim("two different variables")
        return [_claim(K.INDEPENDENCE, (x, y), True, v.subject)]

    def dep_made(self, children: list[Any]) -> list[Claim]:
        return [replace(c, polarity=False) for c in self.ind_made(children)]

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

    def front_set(self, children: list[Any]) -> list[Claim]:
        v = _view(children)
        return [replace(c, kind=K.FRONTDOOR_SET)
                for c in self._adjustment(v, v.subject, not v.negated)]

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
        value = _BINARY.get(children[1]) if len(children) > 1 else 1
        if value is None:  # written otherwise ("1.0", "0%") or not binary
            value = _number(children[1])[0]
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

    def start(self, children: list[Any]) -> tuple[tuple[Claim, ...], ...]:
        """One clause's claims, grouped by conjunct ("A causes B and B causes C")."""
        return tuple(map(tuple, children))


__all__ = ["Claims", "NotAClaim"]
