"""Write ``chains_zh.jsonl``: hand-written Chinese reasoning chains for CaLM's Chinese
graph and effect items, in the styles models use (CaLM's own Chinese chain-of-thought
examples, step lists, prose, markdown, a hedged reply), every claim annotated by hand.

Same record as ``chains.jsonl`` (``write_chains.py``): ``id``, ``style``, ``prompt``,
``reply``, ``claims`` (``text`` as it stands in the reply, ``kind``, ``truth`` decided by
hand from the item's graph; ``check_truths`` below re-derives the graph claims' truth
with networkx, sharing nothing with the checker).  Sentences that state nothing
checkable are not annotated; claims a human reads but the templates do not cover are.

The chains after ``zh-hedges`` use the forms read since: "any node" (任何节点, 没有节点…,
A没有父节点; annotated ``"every": true``: one claim per other variable, false when one
is), 条件独立 without its condition, d-分离 (with and without a conditioning set), a
probability in words ("当smku为0时，eons为0的概率为…"), CaLM's JSON answer and the
class-size templates (on one Corr2Cause item of ``../shared/data/corr2cause/n3.jsonl``:
CaLM's items are about one graph, where a class size is not decidable).  Their truths
are derived independently in ``check_new_truths``: the graph claims with networkx
(``is_d_separator``, ``has_path``, ``has_edge``; CEI's hidden confounder as a node U,
which "any node" ranges over like the checker's U[E,F]), the Corr2Cause class by
enumerating every DAG on three nodes and keeping those whose d-separations are the
premise's, and the probabilities by hand from the item's sentences.  A probability
written with numerals ("P(B=0|A=0)", "当smku为0时") is annotated not decidable: the
item names values only in words (低/高) and never says which is 0 or 1 — CaLM's own
chain of thought numbers them one way (its ATE example writes B=1 for 高, the value
the text names first), ``parser.calm_effects`` by first mention.  One value-word
probability ("在smku为低的条件下…") is annotated though ``check_reasoning`` does not
read it yet: the item's value words do not reach the reader
(``parser.claims_zh.read_chinese(…, values=…)`` reads it given them).
"""

import itertools
import json
from pathlib import Path

import networkx as nx

FA = ("给定如下因果图：A导致E, A导致D, A导致F, B导致D, B导致F, C导致E, 以及D导致E。\n"
      "问题：E是F的祖先节点吗？\n答案（是或否？）：")  # CA-B_FA_CN #1; no
FP = ("给定如下因果图：A导致J, A导致B, A导致N, A导致K, A导致H, B导致I, B导致J, B导致C, C导致H, "
      "C导致M, C导致N, C导致L, C导致F, C导致G, D导致N, D导致J, D导致F, D导致M, D导致E, D导致G, "
      "D导致I, E导致M, E导致K, E导致I, F导致N, F导致J, F导致M, F导致G, F导致K, F导致L, G导致L, "
      "G导致I, G导致J, G导致K, H导致N, H导致J, H导致L, H导致I, I导致L, I导致J, J导致M, J导致L, "
      "J导致N, K导致L, 以及L导致N。\n问题：B是N的父节点吗？\n答案（是或否？）：")
# CA-B_FP_CN #1; no
AR = ("输入信息：如果A导致F, A导致J, A导致C, A导致E, A导致B, B导致H, B导致F, B导致I, B导致G, "
      "B导致J, B导致E, C导致K, C导致H, C导致J, D导致F, D导致G, D导致K, D导致I, E导致J, E导致H, "
      "E导致G, F导致K, F导致J, G导致I, G导致H, H导致I, H导致K, I导致K, 以及I导致J。\n"
      "问题：G是否导致K？\n答案（是或否？）：")  # AR-B_CaLM-AR_CN #1; yes
CEI = ("给定如下因果图：A导致B, 以及B导致C。\n在这些变量间存在着不可观察的混淆变量：A和C。\n"
       "问题：A对C的因果效应是否可以被识别？\n答案（是或否？）：")  # front door; yes
BAS = ("给定如下因果图：A导致F, A导致C, A导致E, B导致G, B导致E, B导致F, C导致E, D导致E, D导致F, "
       "E导致G, 以及F导致G。\n问题：对于上述因果图中的有序变量对 (A, E)，满足后门准则的最大变量集是"
       "哪个？\n选项一：A, C\n选项二：B, D\n选项三：D, F\n答案（选项一或选项二或选项三？）：\n")
ATE = ("输入信息：设想一个只有以下条件，而没有其他因素或因果关系的假设世界：Smku对eons有直接影响。"
       "Smku对pgqh有直接影响。Arbu对eons有直接影响。Eons对pgqh有直接影响。\n在smku为低的条件下, "
       "eons为低的概率为0.8445。在smku为高的条件下, eons为低的概率为0.9288。\n指令：考虑smku作用于"
       "eons的“平均干预效果”(average treatment effect, ATE)。\n问题：如果smku被改变为低，那么eons"
       "更有可能为低吗？\n请根据上述信息，给出计算结果（答案保留四位小数），并给出最终答案“是“或”否“。"
       "请以JSON格式返回最终结果，例如，{\"ANSWER\":\"是\",\"PROB\":\"0.1234\"}：")
# ATE-P_ATE-basic_CN #1: ATE = (1 - 0.9288) - (1 - 0.8445) = -0.0843
CEI2 = ("给定如下因果图：A导致F, A导致E, A导致G, B导致D, B导致E, C导致E, D导致E, D导致F, "
        "以及E导致F。\n在这些变量间存在着不可观察的混淆变量：E和F。\n"
        "问题：C对G的因果效应是否可以被识别？\n答案（是或否？）：")  # CEI-B_0.2-UC_CN #2; yes
C2C = ("Premise: Suppose there is a closed system of 3 variables, A, B and C. All the "
       "statistical relations among these 3 variables are as follows: A correlates with B. "
       "A correlates with C. B correlates with C. However, B and C are independent given A.\n"
       "Hypothesis: A directly causes B.")  # corr2cause n3.jsonl #1; neutral (no)


def c(text: str, kind: str, truth: str) -> dict[str, str]:
    return {"text": text, "kind": kind, "truth": truth}


def every(text: str, kind: str, truth: str) -> dict[str, object]:
    """A claim about "any node" (read as one claim per other variable)."""
    return {"text": text, "kind": kind, "truth": truth, "every": True}


CHAINS = [
    ("zh-calm-cot", "CaLM's Chinese chain of thought", FA,
     "A导致D，D导致E，所以A是E的祖先节点。E没有导致任何节点，E不是F的祖先节点。因此答案为“否”。",
     [c("A导致D", "cause", "true"), c("D导致E", "cause", "true"),
      c("A是E的祖先节点", "cause", "true"), every("E没有导致任何节点", "cause", "true"),
      c("E不是F的祖先节点", "cause", "true"),
      c("答案为“否”", "answer", "true")]),
    ("zh-steps-wrong", "step list, wrong", FA,
     "步骤1：A导致E，E导致F。\n步骤2：所以E是F的祖先节点。\n步骤3：B是F的父节点，C是E的父节点。\n"
     "答案：是",
     [c("A导致E", "cause", "true"), c("E导致F", "cause", "false"),
      c("E是F的祖先节点", "cause", "false"), c("B是F的父节点", "edge", "true"),
      c("C是E的父节点", "edge", "true"), c("答案：是", "answer", "false")]),
    ("zh-prose-parents", "prose", FP,
     "B的子节点是I、J和C，B不是N的父节点。但是B是N的祖先，因为B导致C，C导致N。所以答案是否。",
     [c("B的子节点是I、J和C", "edge", "true"), c("B不是N的父节点", "edge", "true"),
      c("B是N的祖先", "cause", "true"), c("B导致C", "cause", "true"),
      c("C导致N", "cause", "true"), c("答案是否", "answer", "true")]),
    ("zh-markdown", "markdown list, planted false", AR,
     "**推理：**\n- G导致H，H导致K。\n- 因此G是K的原因。\n- K是G的祖先节点。\n- I是G的父节点。\n\n"
     "**答案：** 是",
     [c("G导致H", "cause", "true"), c("H导致K", "cause", "true"),
      c("G是K的原因", "cause", "true"), c("K是G的祖先节点", "cause", "false"),
      c("I是G的父节点", "edge", "false"), c("答案：** 是", "answer", "true")]),
    ("zh-front-door", "prose, hidden confounder", CEI,
     "A和C有共同原因。A导致B，B导致C，B是A和C之间的中介变量。{B}满足前门准则。"
     "给定B，A和C独立。答案：是",
     [c("A和C有共同原因", "confounder", "true"), c("A导致B", "cause", "true"),
      c("B导致C", "cause", "true"), c("B是A和C之间的中介变量", "mediator", "true"),
      c("{B}满足前门准则", "frontdoor_set", "true"),
      c("给定B，A和C独立", "independence", "false"), c("答案：是", "answer", "true")]),
    ("zh-cei-wrong", "short claims, all wrong", CEI,
     "A和C是相互独立的。A直接影响C。C是A和B的对撞节点。答案：否",
     [c("A和C是相互独立的", "independence", "false"), c("A直接影响C", "edge", "false"),
      c("C是A和B的对撞节点", "collider", "false"), c("答案：否", "answer", "false")]),
    ("zh-backdoor", "step list, backdoor sets", BAS,
     "第一步：A和E之间不存在后门路径。第二步：F是A的子节点，{D, F}满足后门准则。"
     "第三步：对于(A, E)，{B, D}满足后门准则。答案：选项二",
     [c("A和E之间不存在后门路径", "backdoor_path", "true"), c("F是A的子节点", "edge", "true"),
      c("{D, F}满足后门准则", "adjustment_set", "false"),
      c("对于(A, E)，{B, D}满足后门准则", "adjustment_set", "true")]),
    ("zh-calm-ate", "CaLM's Chinese chain of thought, effect", ATE,
     "用A代表smku, B代表eons，A到B有一条或多条有向路径(例如A->B)，所以节点A是节点B的原因。"
     "考虑到P(B=0|A=0)=0.8445，P(B=0|A=1)=0.9288，且在该问题中有一个合法的后门调整集合：空集，"
     "所以ATE=0.0712-0.1555=-0.0843<0。ATE为-0.0843。",
     [c("A到B有一条或多条有向路径", "cause", "true"), c("A是节点B的原因", "cause", "true"),
      c("P(B=0|A=0)=0.8445", "number", "not_decidable"),
      c("P(B=0|A=1)=0.9288", "number", "not_decidable"),
      c("ATE为-0.0843", "number", "true")]),
    ("zh-ate-wrong", "effect, planted false", ATE,
     "smku对eons有直接影响，arbu是eons的父节点。P(eons=0|smku=0)=0.8445。ATE为0.2，ATE是正的。",
     [c("smku对eons有直接影响", "edge", "true"), c("arbu是eons的父节点", "edge", "true"),
      c("P(eons=0|smku=0)=0.8445", "number", "not_decidable"), c("ATE为0.2", "number", "false"),
      c("ATE是正的", "comparison", "false")]),
    ("zh-hedges", "hedged, no claims", FA,
     "如果A导致F，那么A可能是F的祖先。也许D导致E。A是否导致E？我不确定答案。",
     []),
    ("zh-any-node", "any node, planted false", FA,
     "E没有导致任何节点，E不是任何节点的祖先节点。A没有父节点，没有节点导致B。D没有子节点。"
     "任何节点都不是C的父节点。所有节点都是A的后代。并非所有节点都是E的祖先。"
     "如果没有节点导致F，F就是根节点。答案：否",
     [every("E没有导致任何节点", "cause", "true"),
      every("E不是任何节点的祖先节点", "cause", "true"),
      every("A没有父节点", "edge", "true"), every("没有节点导致B", "cause", "true"),
      every("D没有子节点", "edge", "false"), every("任何节点都不是C的父节点", "edge", "true"),
      every("所有节点都是A的后代", "cause", "false"), c("答案：否", "answer", "true")]),
    ("zh-dsep", "d-separation and any node, hidden confounder, planted false", CEI2,
     "第一步：C和G d-分离。第二步：给定E，C和G是d-分离的。第三步：C和G被{A, E}d-分离，"
     "A与B条件独立，A和B不是d-分离的。E和F被D d分离。没有节点导致C，G没有子节点，"
     "F没有父节点。C和G是d-分离的吗？如果给定F，C和G可能不是d-分离的。{\"ANSWER\":\"是\"}",
     [c("C和G d-分离", "d_separation", "true"),
      c("给定E，C和G是d-分离的", "d_separation", "false"),
      c("C和G被{A, E}d-分离", "d_separation", "true"),
      c("A与B条件独立", "independence", "true"),
      c("A和B不是d-分离的", "d_separation", "false"),
      c("E和F被D d分离", "d_separation", "false"),
      every("没有节点导致C", "cause", "true"), every("G没有子节点", "edge", "true"),
      every("F没有父节点", "edge", "false"),
      c("{\"ANSWER\":\"是\"}", "answer", "true")]),
    ("zh-prob-words", "probabilities in words, JSON answer, planted false", ATE,
     "当smku为0时，eons为0的概率为0.8445。在smku为1的条件下，eons为0的概率是0.9288。"
     "smku为1时eons为0的概率为0.8445。在smku为低的条件下，eons为低的概率为0.8445。"
     "eons为0的概率为0.9。ATE为-0.0843。因此答案为{\"ANSWER\":\"否\",\"PROB\":\"-0.0843\"}。",
     [c("当smku为0时，eons为0的概率为0.8445", "number", "not_decidable"),
      c("在smku为1的条件下，eons为0的概率是0.9288", "number", "not_decidable"),
      c("smku为1时eons为0的概率为0.8445", "number", "not_decidable"),
      c("在smku为低的条件下，eons为低的概率为0.8445", "number", "true"),
      c("eons为0的概率为0.9", "number", "not_decidable"),
      c("ATE为-0.0843", "number", "true"),
      c("答案为{\"ANSWER\":\"否\",\"PROB\":\"-0.0843\"}", "answer", "not_decidable")]),
    ("zh-class-size", "Corr2Cause item, Chinese reply: class size, planted false", C2C,
     "B和C在给定A的条件下独立，所以A不是对撞节点。B和C被A d-分离。等价类中有3个图。"
     "马尔可夫等价类的大小为1。A直接导致B。B和C条件独立。等价类可能有2个图。答案：否",
     [c("B和C在给定A的条件下独立", "independence", "true"),
      c("A不是对撞节点", "collider", "true"), c("B和C被A d-分离", "d_separation", "true"),
      c("等价类中有3个图", "class_size", "true"),
      c("马尔可夫等价类的大小为1", "class_size", "false"),
      c("A直接导致B", "edge", "not_decidable"),
      c("B和C条件独立", "independence", "false"), c("答案：否", "answer", "true")]),
]

#: the graphs of the items above (CEI's hidden confounder as U), for ``check_truths``
GRAPHS = {FA: "A>E A>D A>F B>D B>F C>E D>E", AR: "G>I G>H H>I H>K I>K B>G A>B",
          CEI: "A>B B>C U>A U>C"}


def check_truths() -> None:
    """Re-derive the truth of the cause and edge claims of the small graphs with networkx."""
    for _, _, prompt, _, claims in CHAINS:
        if prompt not in GRAPHS:
            continue
        g = nx.DiGraph(tuple(e.split(">")) for e in GRAPHS[prompt].split())
        for claim in claims:
            text, kind = claim["text"], claim["kind"]
            if kind not in ("cause", "edge") or "节点" in text[:2] or claim.get("every"):
                continue
            names = [ch for ch in text if ch.isascii() and ch.isupper()]
            x, y = names[0], names[1]
            holds = g.has_edge(x, y) if kind == "edge" else nx.has_path(g, x, y)
            negated = "不" in text or "没有" in text
            assert (holds != negated) == (claim["truth"] == "true"), claim


def _dag(edges: str) -> nx.DiGraph:
    return nx.DiGraph(tuple(e.split(">")) for e in edges.split())


def _class_of(nodes: str, separations: set[tuple[str, str, frozenset[str]]]
              ) -> list[nx.DiGraph]:
    """Every DAG on ``nodes`` whose d-separations (pairs, any conditioning set) are
    exactly ``separations``: the Markov equivalence class of a faithful premise."""
    pairs = list(itertools.combinations(nodes, 2))
    out = []
    for choice in itertools.product((None, 0, 1), repeat=len(pairs)):
        g = nx.DiGraph()
        g.add_nodes_from(nodes)
        g.add_edges_from(p if d == 0 else p[::-1]
                         for p, d in zip(pairs, choice, strict=True) if d is not None)
        if not nx.is_directed_acyclic_graph(g):
            continue
        seps = {(x, y, frozenset(z)) for x, y in pairs
                for k in range(len(nodes) - 1)
                for z in itertools.combinations([n for n in nodes if n not in (x, y)], k)
                if nx.is_d_separator(g, {x}, {y}, set(z))}
        if seps == separations:
            out.append(g)
    return out


def check_new_truths() -> None:
    """The truths of the chains written for the new forms, derived here with networkx
    and by hand (nothing shared with the checker); "any node" ranges over every other
    node of the graph."""
    fa = _dag(GRAPHS[FA])
    cei = _dag("A>F A>E A>G B>D B>E C>E D>E D>F E>F U>E U>F")
    cei.add_nodes_from("C")

    def sep(g: nx.DiGraph, x: str, y: str, z: str = "") -> bool:
        return nx.is_d_separator(g, {x}, {y}, set(z))

    def others(g: nx.DiGraph, v: str) -> list[str]:
        return [u for u in g.nodes if u != v]

    def truth(value: bool) -> str:
        return "true" if value else "false"

    members = _class_of("ABC", {("B", "C", frozenset("A"))})
    derived = {
        ("zh-calm-cot", "E没有导致任何节点"): truth(not nx.descendants(fa, "E")),
        ("zh-any-node", "E没有导致任何节点"): truth(not nx.descendants(fa, "E")),
        ("zh-any-node", "E不是任何节点的祖先节点"): truth(not nx.descendants(fa, "E")),
        ("zh-any-node", "A没有父节点"): truth(not any(fa.has_edge(u, "A")
                                                   for u in others(fa, "A"))),
        ("zh-any-node", "没有节点导致B"): truth(not nx.ancestors(fa, "B")),
        ("zh-any-node", "D没有子节点"): truth(not any(fa.has_edge("D", u)
                                                   for u in others(fa, "D"))),
        ("zh-any-node", "任何节点都不是C的父节点"): truth(not any(fa.predecessors("C"))),
        ("zh-any-node", "所有节点都是A的后代"): truth(all(nx.has_path(fa, "A", u)
                                                      for u in others(fa, "A"))),
        ("zh-any-node", "答案：否"): truth("F" not in nx.descendants(fa, "E")),
        ("zh-dsep", "C和G d-分离"): truth(sep(cei, "C", "G")),
        ("zh-dsep", "给定E，C和G是d-分离的"): truth(sep(cei, "C", "G", "E")),
        ("zh-dsep", "C和G被{A, E}d-分离"): truth(sep(cei, "C", "G", "AE")),
        ("zh-dsep", "A与B条件独立"): truth(sep(cei, "A", "B")),
        ("zh-dsep", "A和B不是d-分离的"): truth(not sep(cei, "A", "B")),
        ("zh-dsep", "E和F被D d分离"): truth(sep(cei, "E", "F", "D")),
        ("zh-dsep", "没有节点导致C"): truth(not nx.ancestors(cei, "C")),
        ("zh-dsep", "G没有子节点"): truth(not any(cei.successors("G"))),
        ("zh-dsep", "F没有父节点"): truth(not any(cei.predecessors("F"))),
        # the effect item, by hand: P(eons=低|smku=低) = 0.8445, P(eons=低|smku=高) = 0.9288;
        # the item never says which of 低/高 is 0 or 1, so a probability written with
        # numerals is open (CaLM's own numbering and the reading's are two conventions)
        ("zh-prob-words", "当smku为0时，eons为0的概率为0.8445"): "not_decidable",
        ("zh-prob-words", "在smku为1的条件下，eons为0的概率是0.9288"): "not_decidable",
        ("zh-prob-words", "smku为1时eons为0的概率为0.8445"): "not_decidable",
        ("zh-calm-ate", "P(B=0|A=0)=0.8445"): "not_decidable",
        ("zh-calm-ate", "P(B=0|A=1)=0.9288"): "not_decidable",
        ("zh-ate-wrong", "P(eons=0|smku=0)=0.8445"): "not_decidable",
        ("zh-prob-words", "ATE为-0.0843"): truth(round((1 - 0.9288) - (1 - 0.8445), 4) == -0.0843),
        ("zh-class-size", "B和C在给定A的条件下独立"): truth(all(sep(g, "B", "C", "A")
                                                           for g in members)),
        ("zh-class-size", "A不是对撞节点"): truth(all(g.in_degree("A") < 2 for g in members)),
        ("zh-class-size", "B和C被A d-分离"): truth(all(sep(g, "B", "C", "A") for g in members)),
        ("zh-class-size", "等价类中有3个图"): truth(len(members) == 3),
        ("zh-class-size", "马尔可夫等价类的大小为1"): truth(len(members) == 1),
        ("zh-class-size", "B和C条件独立"): truth(all(sep(g, "B", "C") for g in members)),
    }
    ab = [g.has_edge("A", "B") for g in members]
    derived["zh-class-size", "A直接导致B"] = "true" if all(ab) else \
        "false" if not any(ab) else "not_decidable"
    derived["zh-class-size", "答案：否"] = truth(not all(ab))
    seen = set()
    for name, _, _, _, claims in CHAINS:
        for claim in claims:
            key = (name, claim["text"])
            if key in derived:
                assert derived[key] == claim["truth"], (key, derived[key])
                seen.add(key)
    assert seen == set(derived), set(derived) - seen


def main() -> None:
    check_truths()
    check_new_truths()
    out = Path(__file__).with_name("chains_zh.jsonl")
    lines = [json.dumps({"id": i, "style": style, "prompt": prompt, "reply": reply,
                         "claims": claims}, ensure_ascii=False)
             for i, style, prompt, reply, claims in CHAINS]
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"{len(lines)} chains → {out}")


if __name__ == "__main__":
    main()
