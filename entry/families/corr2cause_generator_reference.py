"""A reference Corr2Cause generator: every Markov equivalence class, labelled by the oracle.

Corr2Cause items are generated from a Markov equivalence class (MEC): the premise
lists every correlation and every conditional independence a member DAG implies
(closed world), and each hypothesis asks about one pair of variables.  This
module builds the same dataset with the oracle as the labeller, so a generator
author can diff an upstream release against it.

Classes up to relabelling
-------------------------
Every DAG is isomorphic to one whose edges all point from a lower to a higher index, so
the subsets of the pairs ``i < j`` reach every DAG up to relabelling; one premise is
written per class up to relabelling (``entry.canonical``), its variables renamed in
canonical order.

For n = 7..12 the space is too large to list: ``sample_classes`` draws seeded
random DAGs (random order, sparse edges) and keeps classes distinct up to
relabelling (as labelled classes when canonicalising would take more than
``MAX_RELABELLINGS`` relabellings).

Items
-----
For every unordered pair i < j the six upstream properties, in upstream order
and wording: parent (``"A directly causes B."``), non-parent ancestor (``"A
causes something else which causes B."``), child, non-child descendant,
has_collider, has_confounder — the upstream item set (12, 90, 720, 8,520,
198,630 items for n = 2..6 when the class counts match).  Labels (binary and
3-class) and, on request, certificates come from the entry layer
(``Service.pairs().verify_objects``): each label's certificate was re-verified by the
independent checker.  The service is passed in, as to every family generator
(``entry.oracle_protocol.SolvingOracle``), and the CLI finds this generator through
the registry (``Generator.reference`` of the family's ``causal_corr2cause``
generator): ``causal-oracle generate`` writes it.
"""


from __future__ import annotations

import json
import random
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from causal_oracle.entry.canonical import MAX_RELABELLINGS, Key, canonical, mec_key
from causal_oracle.entry.families.corr2cause_generator_keys import ItemKeys
from causal_oracle.entry.family_records import Reference
from causal_oracle.entry.freshness import provenance, split_of
from causal_oracle.entry.oracle_protocol import SolvingOracle
from causal_oracle.oracle.budget import checkpoint
from causal_oracle.oracle.dsep import independence_set
from causal_oracle.oracle.errors import InputError
from causal_oracle.oracle.graph import Dag
from causal_oracle.oracle.statements import join_names

MAX_EXHAUSTIVE = 6
MAX_SAMPLED = 12
ORIGINAL_NAMES = tuple("ABCDEFGHIJKL")
RENAMED_NAMES = tuple("ZYXWVUTSRQPO")

#: (property, template, reversed pair) in upstream order; {p} and {q} are the pair's names
ORIGINAL = (
    ("parent", "{p} directly causes {q}.", False),
    ("non-parent ancestor", "{p} causes something else which causes {q}.", False),
    ("child", "{p} directly causes {q}.", True),
    ("non-child descendant", "{p} causes something else which causes {q}.", True),
    ("has_collider", "There exists at least one collider (i.e., common effect) of {p} and {q}.",
     False),
    ("has_confounder", "There exists at least one confounder (i.e., common cause) of {p} and "
     "{q}.", False),
)
PARAPHRASED = (
    ("parent", "{p} directly affects {q}.", False),
    ("non-parent ancestor", "{p} influences {q} through some mediator(s).", False),
    ("child", "{p} directly affects {q}.", True),
    ("non-child descendant", "{p} influences {q} through some mediator(s).", True),
    ("has_collider", "{p} and {q} together cause some other variable(s).", False),
    ("has_confounder", "Some variable(s) cause(s) both {p} and {q}.", False),
)


def _dag_of_mask(n: int, pairs: list[tuple[int, int]], mask: int) -> Dag:
    return Dag.from_edges(n, [pairs[i] for i in range(len(pairs)) if mask >> i & 1])


def all_classes(n: int) -> list[Dag]:
    """One representative DAG per Markov equivalence class on ``n`` nodes, up to relabelling,
    relabelled into canonical order; sorted by edge count, then canonical key."""
    if not 1 <= n <= MAX_EXHAUSTIVE:
        raise InputError(f"exhaustive generation covers n = 2..{MAX_EXHAUSTIVE}, not {n}")
    pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]
    labelled: dict[Key, Dag] = {}
    for mask in range(1 << len(pairs)):
        checkpoint()
        dag = _dag_of_mask(n, pairs, mask)
        labelled.setdefault(mec_key(dag), dag)
    found: dict[Key, Dag] = {}
    for key, dag in labelled.items():
        found_form = canonical(n, key)
        assert found_form is not None
        canon, perm = found_form
        if canon not in found:
            found[canon] = Dag.from_edges(n, [(perm[t], perm[h]) for t, h in dag.edges()])
    return [found[k] for k in sorted(found, key=lambda k: (len(k[0]), len(k[1]), k))]


def sample_classes(n: int, count: int, seed: int) -> list[Dag]:
    """``count`` distinct classes on ``n`` nodes from seeded sparse random DAGs (distinct up
    to relabelling unless a class is too symmetric to canonicalise cheaply)."""
    if not 2 <= n <= MAX_SAMPLED:
        raise InputError(f"sampled generation covers n = 2..{MAX_SAMPLED}, not {n}")
    rng = random.Random(seed)
    found: dict[Key, Dag] = {}
    tries = 0
    while len(found) < count and tries < 50 * count:
        checkpoint()
        tries += 1
        order = list(range(n))
        rng.shuffle(order)
        density = rng.uniform(1.0, 2.5) / max(n - 1, 1)
        edges = [(order[i], order[j]) for i in range(n) for j in range(i + 1, n)
                 if rng.random() < density]
        dag = Dag.from_edges(n, edges)
        key = mec_key(dag)
        form = canonical(n, key, limit=MAX_RELABELLINGS)
        found.setdefault(form[0] if form is not None else key, dag)
    return list(found.values())


def premise_text(dag: Dag, names: tuple[str, ...]) -> str:
    """The upstream premise for ``dag``'s class: correlations, then "However," and every
    conditional independence, sorted by pair and then by conditioning names."""
    return statements_text(dag.n, names, independence_set(dag))


def statements_text(n: int, names: tuple[str, ...],
                    indep: Iterable[tuple[int, int, int]]) -> str:
    """A premise in the upstream wording that lists exactly ``indep`` (``(x, y, given)``
    triples, ``x < y``, ``given`` a bitmask) and a correlation for every pair without a
    marginal independence — ``premise_text`` for any set of statements, faithful to a
    DAG or not (tests write unfaithful premises with it)."""
    names = names[:n]
    indep = set(indep)
    marginal = {(x, y) for x, y, given in indep if given == 0}
    correlations = [f"{names[x]} correlates with {names[y]}."
                    for x in range(n) for y in range(x + 1, n) if (x, y) not in marginal]

    def given_list(mask: int) -> list[int]:
        return [i for i in range(n) if mask >> i & 1]

    statements = []
    for x, y, given in sorted(indep, key=lambda k: (k[0], k[1], given_list(k[2]))):
        if given == 0:
            statements.append(f"{names[x]} is independent of {names[y]}.")
        else:
            statements.append(f"{names[x]} and {names[y]} are independent given "
                              f"{join_names([names[i] for i in given_list(given)])}.")
    text = (f"Suppose there is a closed system of {n} variables, {join_names(list(names))}. "
            f"All the statistical relations among these {n} variables are as follows:")
    if correlations:
        text += " " + " ".join(correlations)
    if statements:
        text += (" However, " if correlations else " ") + " ".join(statements)
    return text


@dataclass(frozen=True)
class Options:
    n: int
    fmt: str = "jsonl"  # jsonl | published
    seed: int = 0
    certificates: bool = False
    paraphrase: bool = False
    rename: bool = False
    classes: int = 20  # for sampled n
    #: item keys to leave out (``entry.freshness``: a published test set's keys)
    exclude: frozenset[str] = frozenset()
    #: keep only this side of the hash split ("train" / "test"; None: both)
    split: str | None = None
    test_fraction: float = 0.1
    #: add generator, seed, key, split and certificate_digest to every row
    provenance: bool = False


def items(options: Options, service: SolvingOracle) -> Iterator[dict[str, Any]]:
    """Every item, in the layout ``audit`` reads (generator fields), less the excluded
    keys and the other side of the split (``entry.freshness``), labelled by ``service``."""
    n = options.n
    dags = all_classes(n) if n <= MAX_EXHAUSTIVE else sample_classes(n, options.classes,
                                                                      options.seed)
    names = (RENAMED_NAMES if options.rename else ORIGINAL_NAMES)[:n]
    templates = PARAPHRASED if options.paraphrase else ORIGINAL
    keys = ItemKeys(service)
    verbs = service.pairs()
    keyed = bool(options.exclude) or options.split is not None or options.provenance
    for mec_id, dag in enumerate(dags):
        text = premise_text(dag, names)
        premise = verbs.premise_of(text)
        analysis = verbs.analysis_of(premise)
        for i in range(n):
            for j in range(i + 1, n):
                for prop, template, reverse in templates:
                    checkpoint()
                    p, q = (names[j], names[i]) if reverse else (names[i], names[j])
                    hypothesis = template.format(p=p, q=q)
                    parsed = verbs.hypothesis_of(hypothesis)
                    key = keys.key_of(premise, parsed) if keyed else ""
                    if key in options.exclude or (options.split is not None and split_of(
                            key, options.test_fraction) != options.split):
                        continue
                    result = verbs.verify_objects(premise, parsed)
                    v = result.verdict
                    prob = v.holds_in / v.class_size if v.class_size else 0.0
                    row: dict[str, Any] = {
                        "id": f"num_nodes={n}__mec_id={mec_id}__node_i={i + 1}__node_j="
                              f"{j + 1}__causal_relation={prop.replace(' ', '_')}__prob="
                              f"{prob:.2f}",
                        "num_nodes": n, "premise": text, "hypothesis": hypothesis,
                        "relation": v.relation, "label": v.label, "property": prop,
                        "prob": prob, "class_size": analysis.size}
                    if options.certificates or options.provenance:
                        certificate = v.certificate.to_json(premise.variables)
                        if options.certificates:
                            row["certificate"] = certificate
                        if options.provenance:
                            row.update(provenance(key, options.seed, certificate,
                                                  options.test_fraction))
                    yield row


def class_signatures(path: Path, service: SolvingOracle, premise_column: str = "premise"
                     ) -> dict[str, Any]:
    """Canonical class keys of the premises in a dataset (JSONL generator layout), read
    by ``service``, for comparing an upstream release with this generator up to renaming."""
    texts: set[str] = set()
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except UnicodeDecodeError as error:
        raise InputError(f"{path}: byte {error.start + 1} is not UTF-8") from None
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            texts.add(str(json.loads(line)[premise_column]))
        except (ValueError, KeyError, TypeError, IndexError) as error:
            why = f"invalid JSON: {error}" if isinstance(error, ValueError) else \
                f"no {premise_column!r} field"
            raise InputError(f"{path}, line {number}: not a generator-layout JSON line "
                             f"({why})") from None
    if not texts:
        raise InputError(f"{path}: no premises (an empty file?); --compare reads the "
                         "generator layout, one JSON object per line")
    keys: dict[Key, str] = {}
    inconsistent: list[str] = []
    for text in sorted(texts):
        verbs = service.pairs()
        analysis = verbs.analysis_of(verbs.premise_of(text))
        if not analysis.consistent:
            inconsistent.append(text)
            continue
        member = analysis.members[0]
        form = canonical(member.n, mec_key(member))
        assert form is not None
        keys.setdefault(form[0], text)
    return {"premises": len(texts), "keys": keys, "inconsistent": inconsistent}


def compare(generated: Path, upstream: Path, service: SolvingOracle,
            theirs: dict[str, Any] | None = None) -> dict[str, Any]:
    """Premise classes of ``upstream`` vs ``generated``, up to renaming of variables
    (``theirs``: ``class_signatures(upstream)`` when already computed)."""
    ours = class_signatures(generated, service)
    theirs = theirs if theirs is not None else class_signatures(upstream, service)
    mine, other = set(ours["keys"]), set(theirs["keys"])
    return {"generated_premises": ours["premises"], "upstream_premises": theirs["premises"],
            "upstream_classes": len(other), "upstream_inconsistent": theirs["inconsistent"],
            "shared": len(mine & other),
            "only_upstream": [theirs["keys"][k] for k in sorted(other - mine)],
            "only_generated": len(mine - other),
            "upstream_duplicates": theirs["premises"] - len(other)
            - len(theirs["inconsistent"])}


def _keys(service: SolvingOracle) -> Any:
    return ItemKeys(service).key


#: the reference dataset the Corr2Cause family's generator writes (``Generator.reference``)
REFERENCE = Reference(Options, MAX_SAMPLED, items, class_signatures, compare, _keys)


__all__ = ["MAX_EXHAUSTIVE", "MAX_SAMPLED", "ORIGINAL", "ORIGINAL_NAMES", "PARAPHRASED",
           "REFERENCE", "RENAMED_NAMES", "Options", "all_classes", "class_signatures",
           "compare", "items", "premise_text", "sample_classes", "statements_text"]
