"""Match a reply's read claims with its hand or generated annotations, and count.

An annotation is ``{"text", "kind", "truth"}``: the claim's words as they stand in the
reply, the kind it claims (``tests/reasoning_render.READ_AS`` names the kinds the
reader may report for it) and its truth (``true``, ``false``, ``not_decidable``).  A
read claim *matches* an annotation when its span lies inside the annotated text's
place in the reply and its kind is one of the annotation's.

An annotation with ``"every": true`` is a claim about "any node" ("E没有导致任何节点"),
read as one claim per other variable: its truth is theirs together — false when one of
them is false (with its witness), not decidable when none is false and one is not
decidable, true when all are true.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from reasoning_render import READ_AS

#: beyond the rendered kinds, the hand-written chains annotate these as themselves
OTHER_KINDS = ("answer", "number", "comparison", "class_size", "compelled", "path_blocked",
               "adjustment_set", "backdoor_path", "common_effect", "indirect_cause",
               "correlation", "d_separation", "instrument", "identifiable")


def kinds_of(kind: str) -> tuple[str, ...]:
    return READ_AS.get(kind, (kind,))


@dataclass
class Tally:
    annotated: int = 0
    found: int = 0
    matched_annotations: int = 0
    matched_found: int = 0
    verdict_right: int = 0
    false_planted: int = 0
    false_caught: int = 0
    misses: list[str] = field(default_factory=list)
    spurious: list[str] = field(default_factory=list)
    wrong: list[str] = field(default_factory=list)

    @property
    def precision(self) -> float:
        return self.matched_found / self.found if self.found else 1.0

    @property
    def recall(self) -> float:
        return self.matched_annotations / self.annotated if self.annotated else 1.0


def measure(reply: str, annotations: Iterable[Mapping[str, Any]], result: Any,
            tally: Tally) -> None:
    """Add one reply's counts to ``tally`` (``result``: its ``ReasoningResult``)."""
    places = []
    cursor = 0
    for a in annotations:
        at = reply.find(a["text"], cursor)
        assert at >= 0, f"annotation {a['text']!r} is not in the reply"
        places.append((at, at + len(a["text"]), a))
        cursor = at + len(a["text"])
    claims = list(result.claims)
    tally.annotated += len(places)
    tally.found += len(claims)
    used = set()
    for start, end, a in places:
        hits = [i for i, c in enumerate(claims) if start <= c.claim.span[0]
                and c.claim.span[1] <= end and c.claim.kind.value in kinds_of(a["kind"])]
        if a["truth"] == "false":
            tally.false_planted += 1
        if not hits:
            tally.misses.append(a["text"])
            continue
        tally.matched_annotations += 1
        used.update(hits)
        verdicts = {claims[i].verdict.value for i in hits}
        if a.get("every"):
            verdicts = {next((v for v in ("false", "not_decidable") if v in verdicts), "true")}
            hits = [i for i in hits if claims[i].verdict.value in verdicts]
        if verdicts == {a["truth"]} and all(claims[i].why for i in hits):
            tally.verdict_right += 1
            tally.false_caught += a["truth"] == "false"
        else:
            tally.wrong.append(f"{a['text']!r}: annotated {a['truth']}, read "
                               f"{sorted(verdicts)} ({claims[hits[0]].why})")
    tally.matched_found += len(used)
    tally.spurious += [claims[i].text for i in range(len(claims)) if i not in used]
