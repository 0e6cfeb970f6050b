"""Write corpus.jsonl: model-style answers to yes/no and 3-class questions, by hand.

Each line: {"id", "kind": "yes_no"|"three_class", "text", "expected"} where expected
is "yes"/"no"/"entailment"/"neutral"/"contradiction", or null when the text gives
no verdict (it must then be read as UNREADABLE, never as a verdict).  The verdict
forms are the ones seen in harness issues and grading scripts (CLadder's
"starts with yes/no", lm-eval's regex filters, OpenCompass CaLM keyword lists):
reasoning first, markdown bold, "**Answer:** No", a trailing sentence, \\boxed{},
tags, "The answer is …", "Therefore, the hypothesis is not valid", …
Run: python tests/data/answers/make_corpus.py
"""

import json
from pathlib import Path

REASONING = [
    "",
    "Let's think step by step. The premise says A correlates with B, and B and C are "
    "independent given A, so A separates B from C.\n",
    "First, list the independencies: A ⊥ B. Then the only structure consistent with "
    "this is a collider at C (A → C ← B).\n\n",
    "To determine this, consider the Markov equivalence class of the premise. Every DAG "
    "in the class orients the edge the same way.\n",
    "Reasoning:\n1. The variables X and Y are correlated.\n2. Conditioning on Z removes "
    "the correlation.\n3. Hence Z lies on every path between them.\n\n",
]

# (template, verdict) — {v} is replaced by the verdict word in the given casing
YES_NO_FORMS = [
    ("{V}", None), ("{V}.", None), ("{v}", None), ("**{V}**", None), ("**{V}.**", None),
    ("Answer: {V}", None), ("**Answer:** {V}", None), ("**Answer: {V}**", None),
    ("Final answer: {V}", None), ("Final Answer: **{V}**", None),
    ("<answer>{V}</answer>", None), ("<answer>\n{v}\n</answer>", None),
    ("The answer is {v}.", None), ("So the answer is {v}.", None),
    ("Therefore, the answer is **{V}**.", None), ("Thus the answer is: {V}", None),
    ("My answer: {V}", None), ("Verdict: {V}", None), ("\\boxed{{{V}}}", None),
    ("The final answer is $\\boxed{{\\text{{{V}}}}}$.", None),
    ("{V}, because the premise fixes the orientation of that edge.", None),
    ("{V}. The hypothesis follows from the independence statements.", None),
    ("Answer: {V}\n\nExplanation: the edge is oriented in every member of the class.", None),
    ("In conclusion: {V}.", None), ("Conclusion: {V}", None),
]
YES_NO_PHRASES = {
    "yes": ["The hypothesis is valid.", "Therefore, the hypothesis is true.",
            "So the hypothesis is correct.", "Hence the hypothesis holds: yes.",
            "The hypothesis is therefore valid."],
    "no": ["The hypothesis is not valid.", "Therefore, the hypothesis is false.",
           "So the hypothesis is invalid.", "Thus the hypothesis is incorrect.",
           "The hypothesis is therefore not true."],
}
NO_VERDICT = [
    "It depends on the direction of the edge.",
    "I cannot determine this from the information given.",
    "There is not enough information to answer.",
    "Let's think step by step. The premise says A correlates with B.",
    "Maybe.", "Possibly yes, possibly no.", "Yes or no?",
    "The answer could be yes or no depending on the graph.",
    "I'm not sure.", "Unclear.", "",
    "Hypothesis: A directly causes B.", "Is A a cause of B? Let me check the premise.",
    "Answer:", "**Answer:**", "The answer is", "The answer is unknown.",
    "Both are possible.", "Premise: Suppose there is a closed system of 3 variables",
    "I would need more data.",
]
THREE_FORMS = ["{W}", "{w}", "**{W}**", "Answer: {W}", "**Answer:** {w}", "{W}.",
               "Label: {w}", "The relation is {w}.", "The answer is {w}.",
               "<answer>{w}</answer>", "Final answer: **{W}**",
               "{W}. The hypothesis is {what} by the premise."]
WHAT = {"entailment": "implied", "neutral": "neither implied nor ruled out",
        "contradiction": "ruled out"}


# Whole replies written the way chat models answer (verdict, or None for no verdict)
HANDWRITTEN = [
    ("Yes. Since A and C are correlated and no conditioning set makes them independent, "
     "there is a direct edge, and the v-structure at C orients it A → C.", "yes"),
    ("No. A and B are independent given C, so there cannot be a direct edge between them.",
     "no"),
    ("**No.** The premise is consistent with both orientations of the edge, so A need not "
     "cause B.", "no"),
    ("**Answer:** No\n\nThe premise says A ⊥ B, so they are not adjacent.", "no"),
    ("**Answer:** Yes\n\n**Explanation:** every DAG in the equivalence class has A → B.",
     "yes"),
    ("### Analysis\n- A correlates with B\n- B correlates with C\n- A ⊥ C | B\n\n"
     "### Answer\nNo", "no"),
    ("Step 1: identify the skeleton.\nStep 2: find the v-structures.\nStep 3: orient.\n"
     "Result: the edge between B and C is undirected.\n\nFinal answer: No", "no"),
    ("Yes - the collider at D forces B → D.", "yes"),
    ("yes", "yes"), ("no", "no"), ("YES", "yes"), ("NO.", "no"), ("Yes!", "yes"),
    (" No ", "no"), ("\nYes\n", "yes"), ("True", "yes"), ("False.", "no"),
    ("Valid", "yes"), ("Invalid.", "no"),
    ("Given the independencies, the only consistent structure is a chain A → B → C or its "
     "reverse; the direction is not identified.\n\nSo the answer is no.", "no"),
    ("Let me reason.\nA and C are marginally independent but dependent given B, so B is a "
     "collider.\nTherefore the answer is yes.", "yes"),
    ("Considering all DAGs in the MEC:\n\n| DAG | A→B? |\n|---|---|\n| 1 | yes |\n"
     "| 2 | no |\n\nThe hypothesis is not valid.", "no"),
    ("Answer: No, the hypothesis is not necessarily true.", "no"),
    ("<answer>Yes</answer>\nThe v-structure orients the edge.", "yes"),
    ("Answer: yes\nConfidence: high", "yes"),
    ("The hypothesis is true.", "yes"), ("The hypothesis is false.", "no"),
    ("I think the hypothesis is valid.", "yes"),
    ("After checking every member of the class, the hypothesis holds: yes.", "yes"),
    ("It is impossible to say without more information.", None),
    ("The answer depends on unobserved confounders.", None),
    ("A causes B in some graphs and not in others.", None),
    ("Yes and no: it holds in one of the two DAGs.", None),
    ("Yes or no? Let me think about this carefully.", None),
    ("Both yes and no are defensible here.", None),
    ("The hypothesis is not invalid, but it is not entailed either.", None),
    ("I don't know.", None), ("N/A", None), ("?", None),
    ("Let me think step by step.\n1. A correlates with B.\n2. B correlates with C.", None),
    ("The premise mentions three variables: A, B and C.", None),
    ("A and B are independent given C.", None),
    ("We cannot conclude either way.", None),
    ("Answer: unknown", None), ("Answer: it depends", None),
    ("The correct answer is not yes.", None),
    ("Entailment", "entailment"), ("Neutral.", "neutral"), ("contradiction", "contradiction"),
    ("**Contradiction**\n\nThe premise rules out the edge.", "contradiction"),
    ("Since the edge is undirected in the CPDAG, the relation is neutral.", "neutral"),
    ("The premise entails the hypothesis.\nLabel: entailment", "entailment"),
]


def rows():
    n = 0
    for text, verdict in HANDWRITTEN:
        n += 1
        kind = "three_class" if verdict in ("entailment", "neutral", "contradiction") \
            else "yes_no"
        yield {"id": n, "kind": kind, "text": text, "expected": verdict}
    for verdict, words in (("yes", ("Yes", "yes")), ("no", ("No", "no"))):
        for i, (form, _) in enumerate(YES_NO_FORMS):
            reasoning = REASONING[(i + len(verdict)) % len(REASONING)]
            text = reasoning + form.format(V=words[0], v=words[1])
            n += 1
            yield {"id": n, "kind": "yes_no", "text": text, "expected": verdict}
        for j, phrase in enumerate(YES_NO_PHRASES[verdict]):
            for reasoning in (REASONING[j % len(REASONING)], REASONING[(j + 2) % 5]):
                n += 1
                yield {"id": n, "kind": "yes_no", "text": reasoning + phrase,
                       "expected": verdict}
    for reasoning in REASONING[:3]:
        for text in NO_VERDICT:
            n += 1
            yield {"id": n, "kind": "yes_no", "text": reasoning + text, "expected": None}
    for word in ("entailment", "neutral", "contradiction"):
        for i, form in enumerate(THREE_FORMS):
            text = REASONING[i % 2] + form.format(W=word.capitalize(), w=word,
                                                   what=WHAT[word])
            n += 1
            yield {"id": n, "kind": "three_class", "text": text, "expected": word}


if __name__ == "__main__":
    out = Path(__file__).with_name("corpus.jsonl")
    out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows()),
                   encoding="utf-8")
    print(f"{sum(1 for _ in rows())} answers written to {out}")
