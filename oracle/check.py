"""Independent certificate checker.

This module re-verifies a Corr2Cause certificate against the premise and the
hypothesis while sharing no code with the solvers: it has its own graph
representation, its own d-separation test (Lauritzen's moralisation criterion,
not the solvers' reachability search), its own enumeration of the equivalence
class (covered-edge reversals from one member, not SAT or the solvers' orientation
search), and its own path checks.

What is checked, per verdict:

* every DAG in the certificate is acyclic and its d-separations are *exactly*
  the premise's listed independencies (closed world, faithfulness);
* ``entailment`` / ``contradiction``: the listed members are the whole class — the
  DAGs with the first member's skeleton and v-structures, which are exactly the
  DAGs Markov equivalent to it (Verma & Pearl 1990) — and the relation's witness
  is valid in each member where it is claimed, and absent in each member where
  it is claimed absent (re-derived by search);
* ``neutral``: one member with a valid witness, one where the relation is absent,
  each fitting the premise exactly;
* ``entailment`` / ``contradiction`` on a class too large to list (``complete``
  false): one member fitting the premise, and the checker's own z3 query
  (``oracle.check_z3``, ranking acyclicity) finds no member of its class where
  the verdict fails;
* ``inconsistent``: the stated conflict is real (see ``_check_conflict``); for an
  unexplained or missing independence, the candidate DAG has the forced skeleton
  and colliders and differs from the listing on the named statement (its own
  moral-graph test), and a shown open path is open.

``check`` returns a ``CheckResult``; a certificate that fails is never shown to a
user as verified.  The checker's own graph primitives (moral-graph d-separation, the
class by covered-edge reversals) are in ``oracle.check_graphs``.
"""

from __future__ import annotations

from dataclasses import dataclass

from causal_oracle.oracle.certificate import Certificate
from causal_oracle.oracle.check_graphs import (
    Moral,
    acyclic,
    as_parents,
    class_from,
    fits_premise,
    parent_masks,
    parent_masks_cached,
    reach,
    v_structures,
    whole_class,
)
from causal_oracle.oracle.check_z3 import orientation_exists, refuted
from causal_oracle.oracle.memo import memoised
from causal_oracle.oracle.statements import Hypothesis, Premise


@dataclass(frozen=True, slots=True)
class CheckResult:
    ok: bool
    reason: str = ""



# ------------------------------------------------------------------- relations
def _is_directed_path(path: tuple[int, ...], parents: tuple[int, ...]) -> bool:
    return len(set(path)) == len(path) and all(
        parents[v] >> u & 1 for u, v in zip(path, path[1:], strict=False))


def _check_witness(kind: str, form: str, profile: str, p: int, q: int,
                   parents: tuple[int, ...], w: tuple[tuple[int, ...], ...]) -> str:
    if any(not _is_directed_path(tuple(path), parents) for path in w):
        return "a witness is not a directed path in its member"
    if kind == "direct_cause":
        return "" if w == ((p, q),) else "the direct-cause witness is not the edge"
    if kind == "indirect_cause":
        (path,) = w
        if path[0] != p or path[-1] != q:
            return "the indirect-cause witness does not run from P to Q"
        if _not_direct(profile, form):
            return "P is a parent of Q" if parents[q] >> p & 1 else ""
        return "" if len(path) >= 3 else "the indirect-cause witness has no mediator"
    first, second = (tuple(x) for x in w)
    downward = kind == "common_effect"
    if downward:
        ok_ends = first[0] == p and second[0] == q and first[-1] == second[-1]
        meet = first[-1]
    else:
        ok_ends = first[-1] == p and second[-1] == q and first[0] == second[0]
        meet = first[0]
    if not ok_ends or meet in (p, q):
        return "the common-cause/effect witness does not meet at a third variable"
    if profile == "strict" and (len(first) != 2 or len(second) != 2):
        return "strict profile needs a common child/parent"
    if profile == "corr2cause" and set(first) & set(second) != {meet}:
        return "the two witness paths share more than their meeting node"
    return ""


def _not_direct(profile: str, form: str) -> bool:
    """"…but not directly" (Corr2Cause++) always, "…but not a direct one" under strict:
    ancestor and not parent (DESIGN.md §3.1)."""
    return form == "influences through some mediator(s) but not directly" or (
        profile == "strict" and form == "is a cause for, but not a direct one")


@memoised(scale=2)
def _child_masks(parents: tuple[int, ...]) -> tuple[int, ...]:
    n = len(parents)
    kids = [0] * n
    for h in range(n):
        for t in range(n):
            if parents[h] >> t & 1:
                kids[t] |= 1 << h
    return tuple(kids)


def _relation_absent(kind: str, form: str, profile: str, p: int, q: int,
                     parents: tuple[int, ...]) -> bool:
    n = len(parents)
    children = _child_masks(parents)
    pm, qm = 1 << p, 1 << q
    if kind == "direct_cause":
        return not parents[q] >> p & 1
    if kind == "indirect_cause":
        if _not_direct(profile, form):
            return bool(parents[q] >> p & 1) or not reach(p, children) >> q & 1
        for c in range(n):
            if children[p] >> c & 1 and c != q and (reach(c, children, pm) >> q & 1):
                return False
        return True
    step = children if kind == "common_effect" else parents
    if profile == "strict":
        return not (step[p] & step[q] & ~(pm | qm))
    if profile == "loose":
        return not (reach(p, step) & reach(q, step) & ~(pm | qm))
    return not (reach(p, step, qm) & reach(q, step, pm) & ~(pm | qm))


# ---------------------------------------------------------------- conflicts
def _check_conflict(premise: Premise, cert: Certificate) -> str:
    c = cert.conflict
    if c is None:
        return "an inconsistent verdict needs a conflict"
    listed = premise.independence_keys()
    n = premise.n
    if c.kind == "correlation":
        x, y, _ = c.triple or (0, 0, 0)
        said = any((k.x, k.y) == (x, y) for k in premise.correlations)
        return "" if said and (x, y, 0) in listed else "no such correlation conflict"
    skeleton = {(x, y) for x in range(n) for y in range(x + 1, n)
                if not any(k[0] == x and k[1] == y for k in listed)}
    if c.kind == "sepset":
        x, y, _ = c.triple or (0, 0, 0)
        for m in range(n):
            adj = (min(x, m), max(x, m)) in skeleton and (min(y, m), max(y, m)) in skeleton
            seps = [g for a, b, g in listed if (a, b) == (x, y)]
            if adj and any(g >> m & 1 for g in seps) and any(not g >> m & 1 for g in seps):
                return ""
        return "no separating-set conflict found"
    vstructs = set()
    non_adjacent = [(u, w) for u in range(n) for w in range(u + 1, n) if (u, w) not in skeleton]
    for a, b in non_adjacent:
        seps = [g for x, y, g in listed if (x, y) == (a, b)]
        for m in range(n):
            if ((min(a, m), max(a, m)) in skeleton and (min(b, m), max(b, m)) in skeleton
                    and not any(g >> m & 1 for g in seps)):
                vstructs.add((a, m, b))
    if c.kind == "colliders":
        # no orientation of the skeleton has exactly these v-structures
        if _orientations_exist(n, sorted(skeleton), vstructs):
            return "an orientation with exactly the forced colliders exists"
        return ""
    if c.kind in ("unexplained_independence", "missing_independence"):
        if c.candidate is None or c.triple is None:
            return "the conflict names no candidate DAG or no statement"
        edges = tuple(sorted(c.candidate))
        cand_skeleton = {(min(t, h), max(t, h)) for t, h in edges}
        parents = parent_masks(n, edges)
        got = v_structures(n, parents, cand_skeleton)
        if cand_skeleton != skeleton or got != vstructs or not acyclic(n, parents):
            return "the candidate does not have the forced skeleton and colliders"
        # the DAGs with the forced skeleton and colliders are Markov equivalent to the
        # candidate, so they share its d-separations: one that differs from the listing
        # on the named statement fits no premise-faithful DAG
        x, y, given = c.triple
        if not 0 <= x < y < n or given >> n or given >> x & 1 or given >> y & 1:
            return "the conflict's statement is not a statement about the premise"
        separated = Moral(n, parents).separated(x, y, given)
        if c.kind == "missing_independence":
            if (x, y, given) in listed:
                return "the statement said to be missing is listed"
            return "" if separated else "the candidate does not d-separate the missing statement"
        if (x, y, given) not in listed:
            return "the statement said to be unexplained is not listed"
        if separated:
            return "the candidate d-separates the statement said to be unexplained"
        if c.path is not None and not _open_path(parents, tuple(c.path), x, y, given):
            return "the path the conflict shows is not an open path of the candidate"
        return ""
    return f"unknown conflict kind {c.kind!r}"


def _open_path(parents: tuple[int, ...], path: tuple[int, ...], x: int, y: int,
               given: int) -> bool:
    """Whether ``path`` is a simple path from x to y in the DAG that ``given`` leaves open:
    every inner non-collider outside ``given``, every inner collider in ``given`` or
    with a descendant there."""
    n = len(parents)
    if len(path) < 2 or path[0] != x or path[-1] != y or len(set(path)) != len(path) \
            or not all(0 <= v < n for v in path):
        return False
    if not all(parents[v] >> u & 1 or parents[u] >> v & 1
               for u, v in zip(path, path[1:], strict=False)):
        return False
    children = _child_masks(parents)
    for u, m, w in zip(path, path[1:], path[2:], strict=False):
        if parents[m] >> u & 1 and parents[m] >> w & 1:
            if not (given >> m & 1 or reach(m, children) & given):
                return False
        elif given >> m & 1:
            return False
    return True


def _orientations_exist(n: int, skeleton: list[tuple[int, int]],
                        vstructs: set[tuple[int, int, int]]) -> bool:
    """Whether some acyclic orientation of ``skeleton`` has exactly ``vstructs`` (z3)."""
    return orientation_exists(n, skeleton, vstructs)


def _check_unlisted_class(premise: Premise, cert: Certificate,
                          listed: frozenset[tuple[int, int, int]]) -> str:
    """An entailment / contradiction on a class too large to list: one member that fits
    the premise, and no member of its class (same skeleton and v-structures) where the
    relation fails (entailment) / holds (contradiction), by the checker's own z3 query."""
    n = premise.n
    if len(cert.members) != 1 or len(cert.witnesses) != 1:
        return "an unlisted-class certificate needs exactly one member"
    member = tuple(sorted(cert.members[0]))
    why = fits_premise(n, member, listed)
    if why:
        return why
    parents = parent_masks(n, member)
    skeleton = sorted({(min(t, h), max(t, h)) for t, h in member})
    vstructs = v_structures(n, parents, set(skeleton))
    entail = cert.verdict == "entailment"
    if (cert.witnesses[0] is not None) != entail:
        return "the witnesses do not match the verdict"
    p, q = cert.pair
    not_direct = cert.form == "is a cause for, but not a direct one"
    if refuted(n, skeleton, vstructs, cert.relation, not_direct, cert.profile, p, q,
               want=not entail):
        return (f"some member of the class makes the relation "
                f"{'fail' if entail else 'hold'}")
    return ""


# ------------------------------------------------------------------ entry point
def check(premise: Premise, hypothesis: Hypothesis, cert: Certificate) -> CheckResult:
    """Re-verify ``cert`` for ``hypothesis`` against ``premise``."""
    names = premise.variables
    if (names[cert.pair[0]], names[cert.pair[1]]) != (hypothesis.first, hypothesis.second):
        return CheckResult(False, "the certificate is about another pair")
    if cert.relation != hypothesis.kind.value or cert.form != hypothesis.form.value:
        return CheckResult(False, "the certificate is about another relation")
    if cert.verdict == "inconsistent":
        why = _check_conflict(premise, cert)
        return CheckResult(not why, why)
    listed = premise.independence_keys()
    n = premise.n
    for c in premise.correlations:
        if (c.x, c.y, 0) in listed:
            return CheckResult(False, "the premise contradicts itself on a correlation")
    members = [tuple(sorted(m)) for m in cert.members]
    if not members or len(cert.witnesses) != len(members):
        return CheckResult(False, "the certificate lists no members")
    p, q = cert.pair
    if cert.verdict == "neutral" and not cert.complete:
        if len(members) != 2 or cert.witnesses[0] is None or cert.witnesses[1] is not None:
            return CheckResult(False, "a neutral certificate needs one positive and one "
                                      "negative member")
        for m in members:
            why = fits_premise(n, m, listed)
            if why:
                return CheckResult(False, why)
    elif cert.verdict in ("entailment", "contradiction") and not cert.complete:
        why = _check_unlisted_class(premise, cert, listed)
        if why:
            return CheckResult(False, why)
    elif cert.verdict == "neutral":
        if len(members) != 2 or cert.witnesses[0] is None or cert.witnesses[1] is not None:
            return CheckResult(False, "a neutral certificate needs one positive and one "
                                      "negative member")
        found, why = class_from(n, members[0], listed)
        if found is None:
            return CheckResult(False, why)
        if not all(as_parents(n, m) in found for m in members):
            return CheckResult(False, "a member does not reproduce the premise exactly")
    elif cert.verdict in ("entailment", "contradiction"):
        why = whole_class(n, tuple(members), listed)
        if why:
            return CheckResult(False, why)
        if cert.class_size != len(members):
            return CheckResult(False, "the class size is wrong")
        want_holds = cert.verdict == "entailment"
        if any((w is not None) != want_holds for w in cert.witnesses):
            return CheckResult(False, "the witnesses do not match the verdict")
    else:
        return CheckResult(False, f"unknown verdict {cert.verdict!r}")
    for m, w in zip(members, cert.witnesses, strict=True):
        parents = parent_masks_cached(n, m)
        if w is None:
            if not _relation_absent(cert.relation, cert.form, cert.profile, p, q, parents):
                return CheckResult(False, f"the relation holds in member {list(m)} after all")
        else:
            why = _check_witness(cert.relation, cert.form, cert.profile, p, q, parents, w)
            if why:
                return CheckResult(False, why)
    return CheckResult(True)

