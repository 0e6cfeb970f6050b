"""CaLM's ``basic`` prompt templates of its graph tasks, as its prompt builders write them.

``render`` fills a template from a record the way CaLM's ``get_prompt`` does (``%``
substitution of the record's strings, in order); the family uses it for the text a
model sees when it reads a record (``CalmPart.prompt``), and the graph part reads that
text back.  Copied verbatim from ``calm/data_processing/prompt/*.py`` (Apache-2.0), trailing
blanks included.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from causal_oracle.oracle.calm.model import Lang
from causal_oracle.parser.errors import ParseError

_GRAPH = {Lang.EN: "You will be presented with a causal graph in the following form: %s.\n",
          Lang.CN: "给定如下因果图：%s。\n"}
_YN = {Lang.EN: "Answer (Yes or No ?):", Lang.CN: "答案（是或否？）："}
_OPTIONS = {Lang.EN: "Option 1: %s\nOption 2: %s\nOption 3: %s\n"
                     "Answer (Option 1 or Option 2 or Option 3 ?):",
            Lang.CN: "选项一：%s\n选项二：%s\n选项三：%s\n答案（选项一或选项二或选项三？）："}
_PAIR_EN = ("Question: Which %s relative to an ordered pair of variables (%%s, %%s) in the "
            "above causal graph?\n")
_PAIR_CN = "问题：对于上述因果图中的有序变量对 (%%s, %%s)，%s是哪个？\n"

#: task id → (template per language, the record fields substituted, in order)
TEMPLATES: dict[str, tuple[dict[Lang, str], tuple[str, ...]]] = {
    "AR-B_CaLM-AR": ({Lang.EN: "Input Event: If %s.\nQuestion: Does %s cause %s?  \n"
                                "Answer (Yes or No ?): ",
                      Lang.CN: "输入信息：如果%s。\n问题：%s是否导致%s？\n答案（是或否？）："},
                     ("ar_edges", "former", "latter")),
    "CA-B_FA": ({Lang.EN: _GRAPH[Lang.EN] + "Question: Does %s serve as the ancestor node of "
                          "%s?\n" + _YN[Lang.EN],
                 Lang.CN: _GRAPH[Lang.CN] + "问题：%s是%s的祖先节点吗？\n" + _YN[Lang.CN]},
                ("edges", "sampled_ancestor", "attribution")),
    "CA-B_FP": ({Lang.EN: _GRAPH[Lang.EN] + "Question: Does %s serve as the parent node of "
                          "%s?\n" + _YN[Lang.EN],
                 Lang.CN: _GRAPH[Lang.CN] + "问题：%s是%s的父节点吗？\n" + _YN[Lang.CN]},
                ("edges", "sampled_parent", "attribution")),
}
_CEI = ({Lang.EN: _GRAPH[Lang.EN] + "There exist unobserved confounders between: %s.\n"
                  "Question: Whether the causal effect of %s on %s is identified or not? \n"
                  + _YN[Lang.EN],
         Lang.CN: _GRAPH[Lang.CN] + "在这些变量间存在着不可观察的混淆变量：%s。\n"
                  "问题：%s对%s的因果效应是否可以被识别？\n" + _YN[Lang.CN]},
        ("di_edges", "bi_edges", "treatment", "outcome"))
for _density in ("0.2", "0.4", "0.6", "0.8"):
    TEMPLATES[f"CEI-B_{_density}-UC"] = _CEI
_CHOICE_FIELDS = ("edges", "treatment", "outcome", "option1", "option2", "option3")
for _task, _en, _cn in (
        ("BAS-C_min-BAS", "is the minimal set of variables that satisfies the back-door "
                          "criterion", "满足后门准则的最小变量集"),
        ("BAS-C_max-BAS", "is the maximal set of variables that satisfies the back-door "
                          "criterion", "满足后门准则的最大变量集"),
        ("BAS-C_mix-BAS", "set of variables that satisfies the back-door criterion",
         "满足后门准则的变量集"),
        ("FAS-C_FAS", "set of variables that satisfies the front-door criterion",
         "满足前门准则的变量集"),
        ("IV-C_CaLM-IV", "set of variables is the instrumental variables", "工具变量")):
    _tail = "\n" if _task in ("BAS-C_max-BAS", "BAS-C_mix-BAS") else ""  # CaLM's CN newline
    TEMPLATES[_task] = ({Lang.EN: _GRAPH[Lang.EN] + _PAIR_EN % _en + _OPTIONS[Lang.EN],
                         Lang.CN: _GRAPH[Lang.CN] + _PAIR_CN % _cn + _OPTIONS[Lang.CN] + _tail},
                        _CHOICE_FIELDS)


def render(task: str, record: Mapping[str, Any], lang: Lang) -> str:
    """The ``basic`` prompt of ``record`` (a graph task's record as shipped)."""
    templates, fields = TEMPLATES[task]
    values = []
    for key in fields:
        value = record.get(key)
        if not isinstance(value, str):
            raise ParseError(f"cannot parse CaLM record: no text field {key!r}",
                             context=str(dict(record))[:200], what="CaLM record")
        values.append(value)
    return templates[lang] % tuple(values)


__all__ = ["TEMPLATES", "render"]
