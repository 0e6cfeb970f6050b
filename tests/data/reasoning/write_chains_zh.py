"""Write ``chains_zh.jsonl``: hand-written Chinese reasoning chains for CaLM's Chinese
graph and effect items, in the styles models use (CaLM's own Chinese chain-of-thought
examples, step lists, prose, markdown, a hedged reply), every claim annotated by hand.

Same record as ``chains.jsonl`` (``write_chains.py``): ``id``, ``style``, ``prompt``,
``reply``, ``claims`` (``text`` as it stands in the reply, ``kind``, ``truth`` decided by
hand from the item's graph; ``check_truths`` below re-derives the graph claims' truth
with networkx, sharing nothing with the checker).  Sentences that state nothing
checkable are not annotated; claims a human reads but the templates do not cover are.
"""

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


def c(text: str, kind: str, truth: str) -> dict[str, str]:
    return {"text": text, "kind": kind, "truth": truth}


CHAINS = [
    ("zh-calm-cot", "CaLM's Chinese chain of thought", FA,
     "A导致D，D导致E，所以A是E的祖先节点。E没有导致任何节点，E不是F的祖先节点。因此答案为“否”。",
     [c("A导致D", "cause", "true"), c("D导致E", "cause", "true"),
      c("A是E的祖先节点", "cause", "true"), c("E不是F的祖先节点", "cause", "true"),
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
      c("P(B=0|A=0)=0.8445", "number", "true"), c("P(B=0|A=1)=0.9288", "number", "true"),
      c("ATE为-0.0843", "number", "true")]),
    ("zh-ate-wrong", "effect, planted false", ATE,
     "smku对eons有直接影响，arbu是eons的父节点。P(eons=0|smku=0)=0.8445。ATE为0.2，ATE是正的。",
     [c("smku对eons有直接影响", "edge", "true"), c("arbu是eons的父节点", "edge", "true"),
      c("P(eons=0|smku=0)=0.8445", "number", "true"), c("ATE为0.2", "number", "false"),
      c("ATE是正的", "comparison", "false")]),
    ("zh-hedges", "hedged, no claims", FA,
     "如果A导致F，那么A可能是F的祖先。也许D导致E。A是否导致E？我不确定答案。",
     []),
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
            if kind not in ("cause", "edge") or "节点" in text[:2]:
                continue
            names = [ch for ch in text if ch.isascii() and ch.isupper()]
            x, y = names[0], names[1]
            holds = g.has_edge(x, y) if kind == "edge" else nx.has_path(g, x, y)
            negated = "不" in text or "没有" in text
            assert (holds != negated) == (claim["truth"] == "true"), claim


def main() -> None:
    check_truths()
    out = Path(__file__).with_name("chains_zh.jsonl")
    lines = [json.dumps({"id": i, "style": style, "prompt": prompt, "reply": reply,
                         "claims": claims}, ensure_ascii=False)
             for i, style, prompt, reply, claims in CHAINS]
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"{len(lines)} chains → {out}")


if __name__ == "__main__":
    main()
