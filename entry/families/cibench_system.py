"""A CI-Bench causal system drawn and written as the upstream generator does.

- A "graph shape" ``(s_0, …, s_{T-1})`` lists the sizes of ``T`` tiers.  The nodes
  are numbered tier by tier and every edge goes from a tier to a *later* one, so the
  graph is acyclic by construction.  The "edge density" is the number of edges over
  the number of pairs a tiered DAG may join (``sum(s_i * s_j for i < j)``).
- A "causal path" from ``c`` to ``e`` is a directed path ``c -> … -> e``.  **CP**
  asks for every causal path from each cause to each effect; the causes are one
  tier and the effects a later one, at most three tiers further (as upstream).
- A "backdoor path" from ``c`` to ``e`` is a path whose first edge points *into*
  ``c`` (``c <- …``; the other edges may point either way).  A set ``z`` satisfies
  the "backdoor criterion" when it holds no descendant of a cause (nor a cause or an
  effect) and blocks every backdoor path: it d-separates ``c`` and ``e`` in the graph
  without ``c``'s outgoing edges.  **BA** asks for such a set; "adjustment is needed"
  when the empty set is not one.
- A "boolean rule" line ``The x happens if the a happens and the b not happen.``
  says ``x ⇐ a ∧ ¬b``; the lines of one event are OR-ed, and each parent of the
  event appears in exactly one of its lines.  Every root is observed to happen.
  **FI** asks whether the events of the last tier happen; **CI** asks the same
  after "what-if" events (1 to 3 non-last-tier events, as upstream) are set, their
  rules removed.

Drawing: ``draw_shape`` splits ``n`` nodes into tiers of at most ``max_tier_size``;
``draw_edges`` joins each allowed pair (an earlier tier to a later one) with
probability ``p``; ``draw_names`` draws names of one upstream name type ("specific"
random strings such as ``ntkswaab``, or "bio" names such as ``xudutaaa growth`` /
``generation of wfojpaaa immunity``, from ``BIO_EVENTS``); ``draw_rules`` writes every
non-root event's boolean rule lines.  Writing: ``graph_prompt`` (CP, BA) and
``rules_prompt`` (FI, CI) give the prompt byte for byte as upstream, so the project's
CI-Bench parser reads it like any benchmark item.

>>> graph_prompt(("z", "c", "e"), [(0, 1), (0, 2), (1, 2)], (1,), (2,), "BA",
...              "specific").splitlines()[1:5]
['Z has a causal effect on c and e.', 'C has a causal effect on e. ', 'Question:', \
'We want to estimate the causal effect of thec on thee.']
"""

from __future__ import annotations

import random
import string
from collections.abc import Sequence

from causal_oracle.oracle.statements import join_names

Edge = tuple[int, int]
Event = tuple[int, bool]
RuleLine = tuple[int, tuple[Event, ...]]

#: the upstream "bio" nouns, and the verbs its FI/CI events put before each
BIO_EVENTS: dict[str, tuple[str, ...]] = {
    "acid": ("generation", "elimination"),
    "bacteria": ("increase", "decrease", "generation", "elimination"),
    "blood": ("increase", "decrease"),
    "cell": ("increase", "decrease", "generation", "elimination"),
    "chromosome": ("generation", "elimination"),
    "cycle": ("generation", "elimination"),
    "decomposition": ("start", "stop"),
    "egg": ("generation", "elimination"),
    "embryo": ("generation", "elimination"),
    "enzyme": ("generation", "elimination"),
    "evolution": ("start", "stop"),
    "extinction": ("start", "stop"),
    "fitness": ("facilitation", "hindrance"),
    "flagellum": ("increase", "decrease"),
    "fungi": ("increase", "decrease"),
    "genes": ("generation", "elimination"),
    "growth": ("start", "stop"),
    "immunity": ("generation", "elimination"),
    "infection": ("facilitation", "hindrance"),
    "membrane": ("generation", "elimination"),
    "nutrient": ("generation", "elimination"),
    "organization": ("start", "stop"),
    "pheromone": ("generation", "elimination"),
    "plant": ("generation", "elimination"),
    "protein": ("increase", "decrease", "generation", "elimination"),
    "reproduction": ("start", "stop"),
    "selection": ("start", "stop"),
    "species": ("generation", "elimination"),
    "theory": ("satisfaction", "violation"),
    "virus": ("increase", "decrease"),
}
BIO_NOUNS = tuple(BIO_EVENTS)

_FOOTER = ("Your answer should be plain text and should not contain other formats such as "
           "markdown.\nAnswer:\n")
_ASK = {"CP": "identify all the causal paths between them.",
        "BA": "provide a set of factors that can block all backdoor paths between them."}
_DID = {True: "happened", False: "didn't happen"}


# ---- drawing the structure ----------------------------------------------------------------

def draw_shape(n: int, max_tier_size: int, rng: random.Random) -> tuple[int, ...]:
    """Tier sizes summing to ``n``, each at most ``max_tier_size``, at least three tiers
    (upstream: equal tiers of 1–3 nodes; here the remainder of ``n`` spreads over them).

    >>> shape = draw_shape(11, 3, random.Random(1))
    >>> sum(shape), max(shape) <= 3, len(shape) >= 3
    (11, True, True)
    """
    width = rng.randint(1, max(1, min(max_tier_size, n // 3)))
    sizes = [width] * (n // width)
    for _ in range(n - width * len(sizes)):
        room = [i for i, s in enumerate(sizes) if s < max_tier_size]
        if room:
            sizes[rng.choice(room)] += 1
        else:
            sizes.insert(rng.randint(0, len(sizes)), 1)
    return tuple(sizes)


def tiers_of(shape: Sequence[int]) -> tuple[int, ...]:
    """The tier of each node (nodes numbered tier by tier)."""
    return tuple(t for t, size in enumerate(shape) for _ in range(size))


def allowed_pairs(shape: Sequence[int]) -> int:
    """The number of pairs a tiered DAG of this shape may join."""
    return sum(shape[i] * shape[j] for i in range(len(shape)) for j in range(i + 1, len(shape)))


def draw_edges(shape: Sequence[int], p: float, rng: random.Random) -> tuple[Edge, ...]:
    """Each pair (earlier tier → later tier) an edge with probability ``p``, sorted."""
    tier = tiers_of(shape)
    n = len(tier)
    return tuple((i, j) for i in range(n) for j in range(i + 1, n)
                 if tier[i] < tier[j] and rng.random() < p)


def _suffix(index: int) -> str:
    """Upstream's three-letter index: the decimal digits as a–j (12 → ``abc``)."""
    return "".join("abcdefghij"[int(d)] for d in f"{index:03d}")


def draw_names(n: int, name_type: str, events: bool, rng: random.Random) -> tuple[str, ...]:
    """Upstream node names: five random letters and the index (``ntkswaab``); "bio" adds a
    noun (``xudutaaa growth``), and FI/CI ``events`` a verb (``generation of … acid``).

    >>> draw_names(3, "specific", False, random.Random(0))[2][-3:]
    'aac'
    """
    out: list[str] = []
    for i in range(n):
        name = "".join(rng.choice(string.ascii_lowercase) for _ in range(5)) + _suffix(i)
        if name_type == "bio":
            noun = rng.choice(BIO_NOUNS)
            name = f"{name} {noun}"
            if events:
                name = f"{rng.choice(BIO_EVENTS[noun])} of {name}"
        out.append(name)
    return tuple(out)


def draw_rules(n: int, edges: Sequence[Edge], rng: random.Random) -> tuple[RuleLine, ...]:
    """Rule lines: each event's parents split into conjunctions (one line each, OR-ed),
    every literal "happens" or "not happen" at random; heads, lines and literals in index
    order, as upstream writes them."""
    parents: list[list[int]] = [[] for _ in range(n)]
    for a, b in sorted(edges):
        parents[b].append(a)
    lines: list[RuleLine] = []
    for head in range(n):
        if not parents[head]:
            continue
        order = list(parents[head])
        rng.shuffle(order)
        count = rng.randint(1, len(order))
        groups: list[list[int]] = [[v] for v in order[:count]]
        for v in order[count:]:
            rng.choice(groups).append(v)
        for group in sorted(sorted(g) for g in groups):
            lines.append((head, tuple((v, rng.random() < 0.5) for v in group)))
    return tuple(lines)


# ---- writing the prompt (as upstream) ---------------------------------------------------------

def _glued(names: Sequence[str]) -> str:
    # upstream: "the" glued to a single name, "thes " before a list
    return "the" + names[0] if len(names) == 1 else "thes " + join_names(names)


def _header(what: str, name_type: str) -> str:
    field = "biological " if name_type == "bio" and what == "factors" else ""
    return (f"The following text describes the assumed causal relationship between {what} "
            f"in a recent {field}study:\n")


def graph_prompt(names: Sequence[str], edges: Sequence[Edge], causes: Sequence[int],
                 effects: Sequence[int], task: str, name_type: str) -> str:
    """A CP or BA prompt exactly as upstream writes it (one sentence per node with
    children, in index order; a space before the newline after the last)."""
    children: dict[int, list[int]] = {}
    for a, b in sorted(edges):
        children.setdefault(a, []).append(b)
    lines = [f"{names[a][:1].upper()}{names[a][1:]} has a causal effect on "
             f"{join_names([names[b] for b in kids])}." for a, kids in sorted(children.items())]
    return (_header("factors", name_type) + "\n".join(lines) + " \nQuestion:\n"
            f"We want to estimate the causal effect of {_glued([names[c] for c in causes])} "
            f"on {_glued([names[e] for e in effects])}.\n"
            f"Based on the information above, please {_ASK[task]}\n" + _FOOTER)


def rules_prompt(names: Sequence[str], rules: Sequence[RuleLine], observed: Sequence[int],
                 queries: Sequence[int], task: str, whatif: Sequence[Event] = ()) -> str:
    """An FI or CI prompt exactly as upstream writes it (``observed`` happened; CI's
    ``whatif`` events in the order given)."""
    lines = ["The {} happens if {}.".format(
        names[head], " and ".join(f"the {names[v]} {'happens' if value else 'not happen'}"
                                  for v, value in body)) for head, body in rules]
    seen = join_names([f"the {names[v]} happened" for v in observed])
    asked = join_names([names[q] for q in queries])
    if task == "FI":
        question = f"What about the {asked}? \n"
    else:
        events = join_names([f"the {names[v]} {_DID[value]}" for v, value in whatif])
        question = f"What the {asked} would be if {events}?\n"
    return (_header("events", "") + "\n".join(lines) + "\nQuestion:\n"
            f"We have observed {seen}.\n" + question + _FOOTER)


__all__ = ["BIO_EVENTS", "BIO_NOUNS", "Edge", "Event", "RuleLine", "allowed_pairs",
           "draw_edges", "draw_names", "draw_rules", "draw_shape", "graph_prompt",
           "rules_prompt", "tiers_of"]
