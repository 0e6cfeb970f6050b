"""Write ``perturbed.jsonl``: per family, reasoning texts of true claims about real items,
with controlled perturbations.

For each item (Corr2Cause, Corr2Cause++, CLEAR, CI-Bench, IE and CLadder rows of
``tests/data``) the item's graph(s) — its Markov equivalence class, or its one graph —
come from the family's ``reasoning_facts``; every claim's truth is decided by networkx
(``tests/reasoning_render.py``), not by ``oracle.reasoning``.  Per item:

* ``true``: one true claim of each kind (a paraphrase drawn at random; negative
  templates where the relation does not hold), and for a class with more than one
  member, one claim the class leaves open (annotated ``not_decidable``);
* ``renamed``: the same claims with the names written as models write them (quoted,
  "node X", lower-case);
* ``false-<kind>``: the true text with that kind's claim replaced by a false one;
* CLadder: also a stated probability, right and (``false-number``) wrong.

Run from the repository root: ``python tests/data/reasoning/make_corpus.py``.
"""

from __future__ import annotations

import csv
import hashlib
import json
import random
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "tests"))

from reasoning_render import KINDS, digraphs, sentence, truth  # noqa: E402

from causal_oracle.entry import REGISTRY, Options, default  # noqa: E402

DATA = ROOT / "tests" / "data"
OUT = Path(__file__).with_name("perturbed.jsonl")


def _rows(path: Path, n: int, keep: Any = lambda item: True) -> list[Any]:
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        item = REGISTRY.row(json.loads(line))
        if item is not None and keep(item):
            out.append(item.prompt)
        if len(out) == n:
            break
    return out


def _ie_prompts() -> list[str]:
    out = []
    for name in ("inter/prompts_inter_cause_2.csv", "obs/prompts_obs_cause_2.csv"):
        rows = list(csv.DictReader((DATA / "ie" / name).open(encoding="utf-8"), delimiter="|"))
        for row in rows[-2:]:
            text = f"{row['prompt'].rstrip('. ')}. {row['question']}"
            for token, word in (("<T1>", "rain"), ("<T2>", "clouds"), ("<T3>", "wet grass"),
                                ("<vT1>", "1"), ("<vT2>", "1"), ("<vT3>", "1")):
                text = text.replace(token, word)
            out.append(text)
    return out


def _cladder_prompts() -> list[str]:
    REGISTRY.load_resource("cladder-models", DATA / "cladder" / "test-model-meta.json")
    rows = json.loads((DATA / "cladder" / "test-generate-easy.json").read_text())
    out = []
    for row in rows:
        item = REGISTRY.row(row)
        if item is not None:
            out.append(item.prompt)
        if len(out) == 4:
            break
    return out


def _pp_prompts() -> list[str]:
    rows = json.loads((DATA / "corr2causepp" / "sample.json").read_text())
    return [r["query"] for r in rows[:3]]


def items() -> list[str]:
    return (_rows(DATA / "n3.jsonl", 2) + _rows(DATA / "n4.jsonl", 2) + _pp_prompts()
            + _rows(DATA / "clear" / "items_subset.jsonl", 3,
                    lambda it: it.prompt.startswith("Given a DAG"))
            + _rows(DATA / "cibench" / "items_sample.jsonl", 2,
                    lambda it: it.task in ("BA", "CP")) + _ie_prompts() + _cladder_prompts())


def _pick(graphs: list[Any], names: tuple[str, ...], kind: str, want: set[str],
          rng: random.Random) -> tuple[tuple[str, ...], tuple[str, ...], str] | None:
    for _ in range(60):
        v = tuple(rng.sample(list(names), KINDS[kind][2]))
        rest = [n for n in names if n not in v]
        given = tuple(rng.sample(rest, min(len(rest), rng.choice((0, 0, 1))))) \
            if kind == "independence" else ()
        t = truth(graphs, kind, v, given)
        if t in want:
            return v, given, t
    return None


def records_of(prompt: str, rng: random.Random) -> list[dict[str, Any]]:
    service = default()
    family = service.family_of(prompt)
    question, solution = service.solved(family, prompt, Options())
    facts = family.reasoning_facts(question, solution)
    if facts is None or not facts.graphs:
        return []
    names = facts.names
    graphs = digraphs(names, [g.edges() for g in facts.graphs])
    base: list[tuple[str, tuple[str, ...], tuple[str, ...], str, bool]] = []
    for kind in KINDS:
        got = _pick(graphs, names, kind, {"true", "false"}, rng)
        if got is not None:
            v, given, t = got
            base.append((kind, v, given, t, t == "true"))
    open_claim = _pick(graphs, names, "edge", {"not_decidable"}, rng) if len(graphs) > 1 \
        else None
    texts = {k: sentence(k, v, pos, rng, g) for k, v, g, _, pos in base}

    def record(tag: str, swap: str | None = None, style: int = 0) -> dict[str, Any]:
        claims, parts = [], []
        for kind, v, given, _, positive in base:
            flip = kind == swap
            text = sentence(kind, v, positive != flip, rng, given, style) if flip or style \
                else texts[kind]
            parts.append(text)
            claims.append({"text": text.rstrip("."), "kind": kind,
                           "truth": "false" if flip else "true"})
        if open_claim is not None:
            v, given, _ = open_claim
            text = sentence("edge", v, True, rng, given, style)
            parts.append(text)
            claims.append({"text": text.rstrip("."), "kind": "edge",
                           "truth": "not_decidable"})
        key = hashlib.sha256(prompt.encode()).hexdigest()[:8]
        return {"id": f"{family.name}:{key}:{tag}",
                "family": family.name, "prompt": prompt, "reply": " ".join(parts),
                "claims": claims}

    out = [record("true"), record("renamed", style=rng.choice((1, 2, 3)))]
    out += [record(f"false-{kind}", swap=kind) for kind, *_ in base]
    if facts.numbers:
        q, value = sorted(facts.numbers.items(), key=lambda kv: str(kv[0]))[0]
        if q.name == "P":
            alias = {i: a for a, i in facts.aliases.items()}
            lit = ", ".join(f"{alias.get(v, names[v])}={x}" for v, x in q.event)
            cond = ", ".join(f"{alias.get(v, names[v])}={x}" for v, x in q.given)
            mid = round((value.lo + value.hi) / 2, 2)
            for tag, shown, t in (("number", mid, "true"), ("false-number",
                                                            round(mid + 0.2, 2), "false")):
                text = f"P({lit}{' | ' + cond if cond else ''}) = {shown:.2f}"
                rec = record(tag)
                rec["reply"] += " " + text + "."
                rec["claims"].append({"text": text, "kind": "number", "truth": t})
                out.append(rec)
    return out


def main() -> None:
    rng = random.Random(32)
    lines = [json.dumps(r, ensure_ascii=False) for p in items() for r in records_of(p, rng)]
    OUT.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"{len(lines)} replies → {OUT}")


if __name__ == "__main__":
    main()
