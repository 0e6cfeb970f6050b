"""Write ``chains.jsonl``: hand-written reasoning chains in the styles models use, with
every claim annotated by hand (its words, kind and truth).

Each record: ``id``, ``style``, ``prompt``, ``reply``, ``claims`` (``text``: the claim's
words as they stand in the reply; ``kind``; ``truth``: true, false or not_decidable,
decided by hand from the item's graph or class).  Sentences that state nothing
checkable (prose, hedges, questions, arithmetic) are not annotated: a claim read from
them counts against precision.  Claims a human reads but the reader's templates do not
cover (an elided subject, "only one member") are annotated: they count against recall.
"""

import json
from pathlib import Path

C2C = ("Premise: Suppose there is a closed system of 3 variables, A, B and C. All the "
       "statistical relations among these 3 variables are as follows: ")
COLLIDER = C2C + ("A correlates with C. B correlates with C. However, A is independent of B."
                  "\nHypothesis: A directly causes C.")  # class {A→C←B}; yes
CHAIN = C2C + ("A correlates with B. A correlates with C. B correlates with C. However, A and "
               "C are independent given B.\nHypothesis: A directly causes B.")  # 3 members; no
CLEAR = ("Given a DAG (directed acyclic graph) with nodes P, G, S, N and directed edges P->N, "
         "G->S, P->S, P->G.\nIs node G one of ancestors of node P?")  # no
CLEAR_DSEP = ("Given a DAG (directed acyclic graph) with nodes A, B, C, D and directed edges "
              "A->B, C->B, B->D.\nAre node A and node C d-separated by nodeset {'D'}?")  # no
BA = ("The following text describes the assumed causal relationship between factors in a "
      "recent study:\nKrbxdaaa has a causal effect on terckaab and btxllaad.\nTerckaab has a "
      "causal effect on hqedcaac and appfoaae. \nQuestion:\nWe want to estimate the causal "
      "effect of theterckaab on thebtxllaad.\nBased on the information above, please provide "
      "a set of factors that can block all backdoor paths between them.\nYour answer should "
      "be plain text and should not contain other formats such as markdown.\nAnswer:\n")
IE = ("I'm going to describe a causal graphical directed acyclic model. There are three "
      "variables: rain, clouds and wet grass. rain causes clouds. clouds causes wet grass.  "
      "These are all the causal relationships in the graph. Suppose we perform the perfect "
      "intervention, do(wet grass=1). In this intervened causal graphical model, does clouds "
      "cause wet grass?")  # no
LADDER = ("Imagine a self-contained, hypothetical world with only the following conditions, "
          "and without any unmentioned factors or causal relationships: Husband has a direct "
          "effect on wife and alarm clock. Wife has a direct effect on alarm clock. For husbands "
          "that don't set the alarm, the probability of ringing alarm is 26%. For husbands that "
          "set the alarm, the probability of ringing alarm is 85%. Will alarm set by husband "
          "increase the chance of ringing alarm?")  # yes; ATE 0.58..0.60


def c(text: str, kind: str, truth: str) -> dict[str, str]:
    return {"text": text, "kind": kind, "truth": truth}


CHAINS = [
    ("steps-right", "step list", COLLIDER,
     "Let's think step by step.\nStep 1: A and B are independent, but A correlates with C and "
     "B correlates with C.\nStep 2: So C is a collider between A and B, that is A -> C <- B.\n"
     "Step 3: The Markov equivalence class has only one member.\nStep 4: Hence A directly "
     "causes C.\nAnswer: Yes",
     [c("A and B are independent", "independence", "true"),
      c("A correlates with C", "correlation", "true"),
      c("B correlates with C", "correlation", "true"),
      c("C is a collider between A and B", "collider", "true"),
      c("A -> C <- B", "edge", "true"),
      c("The Markov equivalence class has only one member", "class_size", "true"),
      c("A directly causes C", "edge", "true"),
      c("Answer: Yes", "answer", "true")]),
    ("smollm-style", "step list, contradicting itself", COLLIDER,
     "No. Step 1: A is a dependent variable. Step 2: A is the cause of C. Step 3: C is not "
     "directly causing B. If A is the cause of C, then A must be the cause of B. However, A is "
     "not the cause of B. In other words, A is not the cause of C, but rather C is the cause "
     "of A.",
     [c("No", "answer", "false"), c("A is the cause of C", "cause", "true"),
      c("C is not directly causing B", "edge", "true"),
      c("A is not the cause of B", "cause", "true"),
      c("A is not the cause of C", "cause", "false"),
      c("C is the cause of A", "cause", "false")]),
    ("prose-class", "prose", CHAIN,
     "The premise says that A and C are independent given B, so A and C are not adjacent. B "
     "is not a collider, since conditioning on B makes A and C independent. The class "
     "therefore contains 3 DAGs: A -> B -> C, A <- B <- C and A <- B -> C. In some of them A "
     "directly causes B and in others B directly causes A, so the direction of the edge "
     "between A and B is not determined. The answer is No.",
     [c("A and C are independent given B", "independence", "true"),
      c("A and C are not adjacent", "adjacent", "true"),
      c("B is not a collider", "collider", "true"),
      c("conditioning on B makes A and C independent", "independence", "true"),
      c("The class therefore contains 3 DAGs", "class_size", "true"),
      c("the direction of the edge between A and B is not determined", "compelled", "true"),
      c("The answer is No", "answer", "true")]),
    ("chain-wrong", "prose, overclaiming", CHAIN,
     "A causes B and B causes C, so B is a mediator between A and C. Because A and C are "
     "independent given B, there is no edge between A and C. Since A is a direct cause of B, "
     "the hypothesis holds. Answer: Yes",
     [c("A causes B", "cause", "not_decidable"), c("B causes C", "cause", "not_decidable"),
      c("B is a mediator between A and C", "mediator", "not_decidable"),
      c("A and C are independent given B", "independence", "true"),
      c("there is no edge between A and C", "adjacent", "true"),
      c("A is a direct cause of B", "edge", "not_decidable"),
      c("Answer: Yes", "answer", "false")]),
    ("clear-ancestor", "graph walk", CLEAR,
     "Let's look at the edges: P -> N, G -> S, P -> S and P -> G. Node G is a child of node "
     "P, so G is a descendant of P and cannot be an ancestor of P. There is no directed path "
     "from G to P. S is a collider between G and P. Answer: No.",
     [c("P -> N, G -> S, P -> S and P -> G", "edge", "true"),
      c("Node G is a child of node P", "edge", "true"),
      c("G is a descendant of P", "cause", "true"),
      c("cannot be an ancestor of P", "cause", "true"),
      c("There is no directed path from G to P", "cause", "true"),
      c("S is a collider between G and P", "collider", "true"),
      c("Answer: No", "answer", "true")]),
    ("clear-dsep", "d-separation, paths", CLEAR_DSEP,
     "B is a collider on the path A -> B <- C. D is a descendant of B. Conditioning on D opens "
     "the path A -> B <- C, so A and C are not d-separated by D. Without conditioning, A and C "
     "are independent. Answer: No",
     [c("B is a collider on the path A -> B <- C", "collider", "true"),
      c("D is a descendant of B", "cause", "true"),
      c("Conditioning on D opens the path A -> B <- C", "path_blocked", "true"),
      c("A and C are not d-separated by D", "d_separation", "true"),
      c("Without conditioning, A and C are independent", "independence", "true"),
      c("Answer: No", "answer", "true")]),
    ("cibench-backdoor", "adjustment", BA,
     "The graph has edges krbxdaaa -> terckaab, krbxdaaa -> btxllaad, terckaab -> hqedcaac, "
     "terckaab -> appfoaae. There is an open backdoor path from terckaab to btxllaad through "
     "krbxdaaa. Krbxdaaa is a common cause of terckaab and btxllaad. So {krbxdaaa} is a valid "
     "adjustment set. Hqedcaac is a descendant of terckaab, so it must not be adjusted for. "
     "The empty set is not a valid adjustment set. Answer: krbxdaaa",
     [c("krbxdaaa -> terckaab, krbxdaaa -> btxllaad, terckaab -> hqedcaac, terckaab -> "
        "appfoaae", "edge", "true"),
      c("There is an open backdoor path from terckaab to btxllaad through krbxdaaa",
        "backdoor_path", "true"),
      c("Krbxdaaa is a common cause of terckaab and btxllaad", "confounder", "true"),
      c("{krbxdaaa} is a valid adjustment set", "adjustment_set", "true"),
      c("Hqedcaac is a descendant of terckaab", "cause", "true"),
      c("The empty set is not a valid adjustment set", "adjustment_set", "true")]),
    ("cibench-wrong", "adjustment, wrong", BA,
     "Hqedcaac is a confounder of terckaab and btxllaad, so we should adjust for hqedcaac. "
     "Terckaab directly causes btxllaad. There is no backdoor path from terckaab to btxllaad.",
     [c("Hqedcaac is a confounder of terckaab and btxllaad", "confounder", "false"),
      c("we should adjust for hqedcaac", "adjustment_set", "false"),
      c("Terckaab directly causes btxllaad", "edge", "false"),
      c("There is no backdoor path from terckaab to btxllaad", "backdoor_path", "false")]),
    ("ie-intervened", "intervention", IE,
     "Originally rain causes clouds and clouds causes wet grass. After the intervention "
     "do(wet grass=1), the edge from clouds to wet grass is cut. So clouds does not cause wet "
     "grass. Rain does not cause wet grass either. Rain causes clouds. Answer: No",
     [c("rain causes clouds and clouds causes wet grass", "cause", "true"),
      c("clouds does not cause wet grass", "cause", "true"),
      c("Rain causes clouds", "cause", "true"),
      c("Answer: No", "answer", "true")]),
    ("causalcot", "CausalCoT steps", LADDER,
     "Step 0: Let X = husband; V2 = wife; Y = alarm clock.\nStep 1: Extract the causal graph: "
     "X->V2,X->Y,V2->Y.\nStep 2: Determine the query type: the query is E[Y | do(X = 1)] - "
     "E[Y | do(X = 0)].\nStep 3: Identify the estimand: P(Y=1|X=1) - P(Y=1|X=0).\nStep 4: "
     "Collect the data: P(Y=1 | X=0) = 0.26\nP(Y=1 | X=1) = 0.85\nStep 5: 0.85 - 0.26 = 0.59. "
     "So the ATE is 0.59. Since 0.59 > 0, the answer is yes.",
     [c("X->V2,X->Y,V2->Y", "edge", "true"), c("P(Y=1 | X=0) = 0.26", "number", "true"),
      c("P(Y=1 | X=1) = 0.85", "number", "true"), c("the ATE is 0.59", "number", "true"),
      c("the answer is yes", "answer", "true")]),
    ("causalcot-wrong", "CausalCoT steps, wrong", LADDER,
     "Husband has a direct effect on wife and alarm clock. Wife is a mediator between husband "
     "and alarm clock. The probability of ringing alarm for husbands that set the alarm is "
     "85%. P(Y=1 | X=1) = 0.58. The average treatment effect is -0.59. Husband does not "
     "cause alarm clock. Answer: no",
     [c("Husband has a direct effect on wife and alarm clock", "edge", "true"),
      c("Wife is a mediator between husband and alarm clock", "mediator", "true"),
      c("P(Y=1 | X=1) = 0.58", "number", "false"),
      c("The average treatment effect is -0.59", "number", "false"),
      c("Husband does not cause alarm clock", "cause", "false"),
      c("Answer: no", "answer", "false")]),
    ("hedges", "hedged, no claims", COLLIDER,
     "It might be that A causes B. If C were observed, A and B would become dependent. "
     "Perhaps B causes C. We cannot tell whether A causes C. I think the answer is yes, but "
     "I am not sure.",
     []),
    ("markdown", "markdown list", CHAIN,
     "**Reasoning:**\n- A and B are correlated.\n- B and C are correlated.\n- A is independent "
     "of C given B, so B is not a collider.\n- Therefore A and C are not adjacent, and the "
     "edge between A and B can be oriented either way.\n\n**Answer:** No",
     [c("A and B are correlated", "correlation", "true"),
      c("B and C are correlated", "correlation", "true"),
      c("A is independent of C given B", "independence", "true"),
      c("B is not a collider", "collider", "true"),
      c("A and C are not adjacent", "adjacent", "true"),
      c("the edge between A and B can be oriented either way", "compelled", "true"),
      c("Answer:** No", "answer", "true")]),
]


def main() -> None:
    out = Path(__file__).with_name("chains.jsonl")
    lines = [json.dumps({"id": i, "style": style, "prompt": prompt, "reply": reply,
                         "claims": claims}, ensure_ascii=False)
             for i, style, prompt, reply, claims in CHAINS]
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"{len(lines)} chains → {out}")


if __name__ == "__main__":
    main()
