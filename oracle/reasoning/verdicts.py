"""Every claim of a reply checked against the item's facts, and the claims that clash.

A claim about the graph is checked in each DAG the item allows (``Facts.graphs``: a
Corr2Cause premise's Markov equivalence class, or the item's one graph):

* **true** when it holds in every member;
* **false** when it holds in none — with the witness of the first member (the edge
  that is reversed there, the path that stays open, the directed path that exists);
* **not decidable** when it holds in some members only — with one member where it
  holds and one where it does not (e.g. an edge whose direction the class leaves
  open).  No verdict is given on what the certificate cannot decide.

The direction of an edge is *compelled* when every member orients it alike; the class
size is the number of members.  A number is checked against the value the item
determines (exact, or an interval for a stated, rounded number) with the claim's own
rounding tolerance (half a unit of its last written decimal, at least 0.005); a
quantity the item does not determine is not decidable.  The final answer is checked
against the certified one.

``contradictions`` pairs claims of one reply that cannot both hold, whatever the
graph: a literal and its negation ("A causes C" … "A is not the cause of C"), or
through a sound implication (an edge ``A → B`` is a cause and rules out ``B → A``;
correlation is dependence).
"""

from __future__ import annotations

from collections.abc import Sequence

from causal_oracle.oracle.reasoning.graph_checks import STRUCTURAL, dag_text, holds, needs_query
from causal_oracle.oracle.reasoning.graph_checks import why as graph_why
from causal_oracle.oracle.reasoning.model import (
    Checked,
    Claim,
    ClaimKind,
    Contradiction,
    Facts,
    Quantity,
    Relation,
    Value,
    Verdict,
)

K = ClaimKind
#: at most this many contradictions are reported for one reply
MAX_CONTRADICTIONS = 50
#: at most this many verdicts are remembered per item
MAX_VERDICTS = 4096
#: the loosest rounding a written number is checked with
MIN_TOLERANCE = 0.005


#: what every member of a Markov equivalence class shares: its reason, told from one
#: member, holds in all
_CLASS_WIDE = frozenset({K.INDEPENDENCE, K.D_SEPARATION, K.CORRELATION, K.ADJACENT})


def _structural(facts: Facts, claim: Claim) -> tuple[Verdict, str]:
    names, graphs = facts.names, facts.graphs
    if not graphs:
        return Verdict.NOT_DECIDABLE, facts.no_graph
    if needs_query(claim) and facts.query is None:
        return Verdict.NOT_DECIDABLE, "the claim names no treatment and outcome"
    results = [holds(g, claim, facts.query) for g in graphs]
    good = [r == claim.polarity for r in results]
    many = facts.is_class
    if all(good) and len(graphs) > 1 and claim.kind not in _CLASS_WIDE:
        return Verdict.TRUE, f"it holds in all {len(graphs)} members of the class"
    if all(good):
        where = "in the graph" if not many else "in the only member of the class" \
            if len(graphs) == 1 else f"in all {len(graphs)} members of the class"
        return Verdict.TRUE, f"{graph_why(names, graphs[0], claim, results[0], facts.query)} " \
                             f"({where})"
    if not any(good):
        where = f"in every member of the class, e.g. {dag_text(names, graphs[0])}" \
            if len(graphs) > 1 else f"in the {'only member of the class' if many else 'graph'} " \
            f"({dag_text(names, graphs[0])})"
        return Verdict.FALSE, f"{graph_why(names, graphs[0], claim, results[0], facts.query)} " \
                              f"{where}"
    yes, no = good.index(True), good.index(False)
    return Verdict.NOT_DECIDABLE, (
        f"it holds in {sum(good)} of {len(graphs)} members of the class: in "
        f"{dag_text(names, graphs[yes])} but not in {dag_text(names, graphs[no])} "
        f"({graph_why(names, graphs[no], claim, results[no], facts.query)})")


def _compelled(facts: Facts, claim: Claim) -> tuple[Verdict, str]:
    if not facts.graphs:
        return Verdict.NOT_DECIDABLE, facts.no_graph
    n, (x, y) = facts.names, claim.variables
    ways = {(g.has_edge(x, y), g.has_edge(y, x)) for g in facts.graphs}
    if ways == {(False, False)}:
        return Verdict.FALSE, f"{n[x]} and {n[y]} are not adjacent: there is no edge to orient"
    if len(ways) == 1:
        (forward, _), = ways
        edge = f"{n[x]}→{n[y]}" if forward else f"{n[y]}→{n[x]}"
        verdict = Verdict.TRUE if claim.polarity else Verdict.FALSE
        return verdict, f"every member has {edge}"
    a = next(g for g in facts.graphs if g.has_edge(x, y))
    b = next(g for g in facts.graphs if g.has_edge(y, x))
    verdict = Verdict.FALSE if claim.polarity else Verdict.TRUE
    return verdict, (f"members differ: {dag_text(n, a)} has {n[x]}→{n[y]}, "
                     f"{dag_text(n, b)} has {n[y]}→{n[x]}")


def _tolerance(claim: Claim) -> float:
    """Half a unit of the claim's last written decimal (two at least: "0.4" is ±0.05,
    "1" is ±0.005)."""
    if claim.decimals == 1:
        return 0.05
    return max(0.5 * 10.0 ** -claim.decimals, 0.0) if claim.decimals >= 2 else MIN_TOLERANCE


def _unnumbered(facts: Facts, *quantities: Quantity | None) -> str:
    """Why the item's text fixes no value of a quantity's variables ("" where it does):
    an item that names values only in words leaves a numeral's meaning open."""
    if facts.unnumbered and any(q is not None and (q.event or q.given) for q in quantities):
        return facts.unnumbered
    return ""


def _value(facts: Facts, q: Quantity) -> Value | None:
    hit = facts.numbers.get(q)
    # "the effect of X on Y" names the item's query
    if hit is None and q.between and facts.query is not None and q.between == facts.query:
        hit = facts.numbers.get(Quantity(q.name))
    return hit


def _shown(v: Value) -> str:
    return f"{v.lo:.4g}" if v.lo == v.hi else f"between {v.lo:.4g} and {v.hi:.4g}"


def _number(facts: Facts, claim: Claim) -> tuple[Verdict, str]:
    assert claim.quantity is not None and claim.number is not None
    q = claim.quantity.text(facts.names)
    open_ = _unnumbered(facts, claim.quantity)
    if open_:
        return Verdict.NOT_DECIDABLE, f"{q}: {open_}"
    value = _value(facts, claim.quantity)
    if value is None:
        return Verdict.NOT_DECIDABLE, f"the item does not determine {q}"
    tol = _tolerance(claim)
    inside = value.lo - tol - 1e-12 <= claim.number <= value.hi + tol + 1e-12
    verdict = Verdict.TRUE if inside else Verdict.FALSE
    return verdict, f"{q} is {_shown(value)}; claimed {claim.number:g} (tolerance ±{tol:g})"


def _comparison(facts: Facts, claim: Claim) -> tuple[Verdict, str]:
    assert claim.quantity is not None
    open_ = _unnumbered(facts, claim.quantity, claim.other)
    if open_:
        return Verdict.NOT_DECIDABLE, f"{claim.quantity.text(facts.names)}: {open_}"
    left = _value(facts, claim.quantity)
    right = Value(claim.number, claim.number) if claim.other is None and \
        claim.number is not None else _value(facts, claim.other) if claim.other else None
    lq = claim.quantity.text(facts.names)
    rq = claim.other.text(facts.names) if claim.other else f"{claim.number:g}"
    if left is None or right is None:
        return Verdict.NOT_DECIDABLE, f"the item does not determine {lq if left is None else rq}"
    greater = claim.relation is Relation.GREATER
    if (left.lo > right.hi) or (left.hi < right.lo):
        truth = (left.lo > right.hi) == greater
        verdict = Verdict.TRUE if truth == claim.polarity else Verdict.FALSE
        return verdict, f"{lq} is {_shown(left)}, {rq} is {_shown(right)}"
    return Verdict.NOT_DECIDABLE, f"{lq} ({_shown(left)}) and {rq} ({_shown(right)}) overlap"


def check_claim(facts: Facts, claim: Claim) -> tuple[Verdict, str]:
    """The verdict on one claim and why."""
    kind = claim.kind
    if kind in STRUCTURAL:
        return _structural(facts, claim)
    if kind is K.COMPELLED:
        return _compelled(facts, claim)
    if kind is K.CLASS_SIZE:
        if not facts.is_class:
            return Verdict.NOT_DECIDABLE, "the item is about one graph, not a class"
        size = len(facts.graphs)
        verdict = Verdict.TRUE if claim.number == size else Verdict.FALSE
        return verdict, f"the class has {size} member(s)"
    if kind is K.IDENTIFIABLE:
        if facts.graphs and not facts.hidden:
            verdict = Verdict.TRUE if claim.polarity else Verdict.FALSE
            return verdict, "every variable is observed: every causal effect is identifiable"
        return Verdict.NOT_DECIDABLE, "identifiability with unobserved variables is not checked"
    if kind is K.NUMBER:
        return _number(facts, claim)
    if kind is K.COMPARISON:
        return _comparison(facts, claim)
    if facts.answer is None:
        return Verdict.NOT_DECIDABLE, "the item has no yes/no answer to compare with"
    right = "yes" if facts.answer else "no"
    return (Verdict.TRUE if claim.polarity == facts.answer else Verdict.FALSE,
            f"the certified answer is {right}")


def check_claims(facts: Facts, claims: Sequence[Claim], text: str = "") -> tuple[Checked, ...]:
    """Each claim with its verdict (``text``: the reply, for each claim's own words).

    Verdicts are remembered on ``facts`` (at most ``MAX_VERDICTS``): a claim said again
    — later in the reply, or in another reply to the same item — is not checked again."""
    out = []
    memo, count = facts.verdicts, len(facts.names)
    for claim in claims:
        key = claim.key()
        hit = memo.get(key)
        if hit is None:
            if max((*claim.variables, *claim.given), default=-1) >= count:
                hit = Verdict.NOT_DECIDABLE, "it names an undeclared variable"
            else:
                hit = check_claim(facts, claim)
            if len(memo) >= MAX_VERDICTS:
                memo.clear()
            memo[key] = hit
        out.append(Checked(claim, hit[0], hit[1], text[claim.span[0]:claim.span[1]]))
    return tuple(out)


# ---- contradictions ----------------------------------------------------------------
Literal = tuple[object, ...]


def _literals(c: Claim) -> list[tuple[Literal, bool]]:
    """What ``c`` asserts, as (atom, truth) pairs, with what it soundly implies."""
    v, p = c.variables, c.polarity
    if c.kind in (K.INDEPENDENCE, K.D_SEPARATION, K.CORRELATION):
        atom: Literal = ("sep", min(v), max(v), c.given)
        return [(atom, p if c.kind is not K.CORRELATION else not p)]
    if c.kind is K.ADJACENT:
        return [(("adj", min(v), max(v)), p)]
    if c.kind is K.EDGE:
        x, y = v
        if not p:
            return [(("edge", x, y), False)]
        return [(("edge", x, y), True), (("adj", min(v), max(v)), True),
                (("cause", x, y), True), (("cause", y, x), False), (("edge", y, x), False)]
    if c.kind in (K.CAUSE, K.INDIRECT_CAUSE):
        x, y = v
        own: Literal = ("cause", x, y) if c.kind is K.CAUSE else ("indirect", x, y)
        if not p:
            if c.kind is K.CAUSE:
                return [(own, False), (("edge", x, y), False), (("indirect", x, y), False)]
            return [(own, False)]
        return [(own, True), (("cause", x, y), True), (("cause", y, x), False),
                (("edge", y, x), False)]
    if c.kind is K.ANSWER:
        return [(("answer",), p)]
    if c.kind in (K.NUMBER, K.COMPARISON):
        return []
    return [((c.kind.value, v, c.given), p)]


def contradictions(claims: Sequence[Claim], names: Sequence[str]) -> tuple[Contradiction, ...]:
    """Pairs of claims that cannot both hold (at most ``MAX_CONTRADICTIONS``)."""
    seen: dict[Literal, list[tuple[int, bool]]] = {}
    found: dict[tuple[int, int], str] = {}
    for i, claim in enumerate(claims):
        for atom, truth in _literals(claim):
            for j, other in seen.get(atom, ()):
                if other != truth and j != i and (j, i) not in found:
                    found[(j, i)] = _atom_text(atom, names)
                    if len(found) >= MAX_CONTRADICTIONS:
                        return _out(found)
            seen.setdefault(atom, []).append((i, truth))
    return _out(found)


def _out(found: dict[tuple[int, int], str]) -> tuple[Contradiction, ...]:
    return tuple(Contradiction(i, j, f"one says {atom} and the other denies it")
                 for (i, j), atom in sorted(found.items()))


def _atom_text(atom: Literal, names: Sequence[str]) -> str:
    head, *rest = atom
    args = [names[a] for a in rest if isinstance(a, int) and a < len(names)]
    words = {"sep": "{} and {} are independent", "adj": "{} and {} are adjacent",
             "edge": "{}→{}", "cause": "{} causes {}", "indirect": "{} causes {} indirectly",
             "answer": "the answer is yes"}
    template = words.get(str(head))
    if template is not None and template.count("{}") == len(args):
        return template.format(*args)
    return f"{head} of {', '.join(args)}" if args else str(head)


__all__ = ["check_claim", "check_claims", "contradictions"]
