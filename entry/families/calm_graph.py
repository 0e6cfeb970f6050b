"""The CaLM part that answers its graph tasks: AR-B, CA-B FA/FP, CEI-B, BAS-C, FAS-C, IV-C.

* AR-B ("Does X cause Y?"), CA-B FA ("ancestor node"), CA-B FP ("parent node"): yes/no,
  a proper ancestor / a parent (``oracle.calm.choose.relation``);
* CEI-B at each confounding density: yes/no, is P(y|do(x)) identified (the ID algorithm,
  ``oracle.calm.identify``; a hedge certifies "No");
* BAS-C min/max/mix, FAS-C, IV-C: one of three options (``oracle.calm.choose.choose``),
  in CaLM's readings (vertex A unobserved in BAS-C and FAS-C, as its CoT prompts say);
  several valid options or none make the question ambiguous, treatment = outcome
  degenerate, and the items whose answer another reading changes are reported.

A prompt is answered as its text asks: CaLM's CN one- and three-shot-IcL max-BAS
templates ask for the *minimal* set (the items' gold is for the maximal one); such an
item is answered for the minimal set and flagged ``translation_reverses_question``.

``oracle.calm.check_graph`` re-derives every answer (no code shared with the solvers).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from causal_oracle.entry.audit_record import Picture
from causal_oracle.entry.families.calm_part import (
    DEGENERATE,
    NO_VALID,
    REVERSED,
    SEVERAL_VALID,
    CalmPart,
    CalmQuestion,
)
from causal_oracle.entry.families.drawing import digraph
from causal_oracle.entry.registry import GoldJudgement, Judgement, Rendered
from causal_oracle.oracle.calm.choose import choose, relation
from causal_oracle.oracle.calm.identify import identify
from causal_oracle.oracle.calm.model import (
    Choice,
    Criterion,
    GraphQuestion,
    Identify,
    Lang,
    Picked,
    Relation,
    RelationKind,
    Solution,
    Verdict,
)
from causal_oracle.oracle.errors import CertificateRejected, InputError
from causal_oracle.oracle.reasoning.facts import dag_facts
from causal_oracle.oracle.reasoning.model import Facts
from causal_oracle.parser import calm_graph as read
from causal_oracle.parser.calm_graph_prompts import render as render_prompt
from causal_oracle.parser.calm_prompt import item_text
from causal_oracle.parser.calm_reply import read_option, read_yes_no

CEI = ("CEI-B_0.2-UC", "CEI-B_0.4-UC", "CEI-B_0.6-UC", "CEI-B_0.8-UC")
CEI_ANY = "CEI-B"  #: a CEI item whose confounding density is not known (a bare prompt)
CHOICES = {"BAS-C_min-BAS": Criterion.BACKDOOR_MIN, "BAS-C_max-BAS": Criterion.BACKDOOR_MAX,
           "BAS-C_mix-BAS": Criterion.BACKDOOR_ANY, "FAS-C_FAS": Criterion.FRONTDOOR,
           "IV-C_CaLM-IV": Criterion.INSTRUMENT}
#: the tasks whose CoT prompts say "A is unobserved" (and whose gold follows it)
HIDDEN_A = frozenset(("BAS-C_min-BAS", "BAS-C_max-BAS", "BAS-C_mix-BAS", "FAS-C_FAS"))
RELATIONS = {"AR-B_CaLM-AR": (RelationKind.ANCESTOR, "ar_edges", "former", "latter"),
             "CA-B_FA": (RelationKind.ANCESTOR, "edges", "sampled_ancestor", "attribution"),
             "CA-B_FP": (RelationKind.PARENT, "edges", "sampled_parent", "attribution")}
_YES_NO = {Lang.EN: ("No", "Yes"), Lang.CN: ("否", "是")}
_OPTION = {Lang.EN: "Option {}", Lang.CN: "选项{}"}
_CN_DIGITS = "一二三"
_OPENERS = {lang: read.GRAPH_OPENERS[lang] + read.AR_OPENERS[lang] for lang in Lang}


def _option_text(lang: Lang, k: int) -> str:
    return _OPTION[lang].format(_CN_DIGITS[k - 1] if lang is Lang.CN else k)


def _hidden(task: str) -> frozenset[str]:
    return frozenset("A") if task in HIDDEN_A else frozenset()


class GraphPart(CalmPart[GraphQuestion, Solution]):
    """CaLM's graph tasks (see the module docstring)."""

    name = "graph"
    tasks = (*RELATIONS, *CEI, CEI_ANY, *CHOICES)
    openers: ClassVar[Mapping[Lang, tuple[str, ...]]] = _OPENERS

    # -- reading ---------------------------------------------------------------------
    def recognise(self, text: str, lang: Lang) -> str | None:
        if not any(o in text for o in _OPENERS[lang]):
            return None
        try:
            item = item_text(text, _OPENERS[lang])
        except InputError:
            return None
        if item.startswith(read.AR_OPENERS[lang]):
            return "AR-B_CaLM-AR"
        if ("unobserved confounders" if lang is Lang.EN else "混淆变量") in item:
            return CEI_ANY
        for words, task in (("ancestor node", "CA-B_FA"), ("parent node", "CA-B_FP"),
                            ("祖先节点", "CA-B_FA"), ("父节点", "CA-B_FP")):
            if words in item:
                return task
        question = item[item.find("\n") + 1:]
        try:
            criterion = read.criterion_of(question[:question.find("\n")], lang)
        except InputError:
            return None
        return next(t for t, c in CHOICES.items() if c is criterion)

    def task_of_record(self, record: Mapping[str, Any]) -> str | None:
        if "ar_edges" in record:
            return "AR-B_CaLM-AR"
        if "di_edges" in record and "bi_edges" in record:
            return CEI_ANY
        if "sampled_ancestor" in record:
            return "CA-B_FA"
        if "sampled_parent" in record:
            return "CA-B_FP"
        return None  # BAS-C / FAS-C / IV-C records share their fields: the task is needed

    def from_record(self, task: str, record: Mapping[str, Any], lang: Lang) -> GraphQuestion:
        task = self.canonical(task)
        if task in RELATIONS:
            kind, edges, first, second = RELATIONS[task]
            return read.relation_record(record, kind, lang, edges, first, second)
        if task in CHOICES:
            return read.choice_record(record, CHOICES[task], lang, _hidden(task))
        return read.identify_record(record, lang)

    def from_prompt(self, task: str, text: str, lang: Lang) -> GraphQuestion:
        task = self.canonical(task)
        item = item_text(text, _OPENERS[lang])
        if task in RELATIONS:
            return read.relation_item(item, RELATIONS[task][0], lang, task == "AR-B_CaLM-AR")
        if task in CHOICES:
            return read.choice_item(item, lang, _hidden(task))
        return read.identify_item(item, lang)

    def prompt(self, task: str, record: Mapping[str, Any], lang: Lang) -> str:
        task = self.canonical(task)
        return render_prompt(CEI[0] if task == CEI_ANY else task, record, lang)

    def gold(self, task: str, record: Mapping[str, Any]) -> Any:
        if "gt_answer" not in record:
            return None
        value = record["gt_answer"]
        allowed = (1, 2, 3) if self.canonical(task) in CHOICES else (0, 1)
        if isinstance(value, bool) or value not in allowed:
            raise InputError(f"gt_answer {value!r} is not one of {allowed}")
        return int(value)

    # -- answering -------------------------------------------------------------------
    def solve(self, question: CalmQuestion) -> Solution:
        q = question.formal
        if isinstance(q, Relation):
            return relation(q)
        if isinstance(q, Identify):
            return identify(q.graph, q.treatment, q.outcome)
        return choose(q)

    def check(self, question: CalmQuestion, solution: Solution) -> Solution:
        from causal_oracle.oracle.calm.check_graph import check

        why = check(question.formal, solution)
        if why is not None:
            raise CertificateRejected(f"the CaLM graph checker rejected the answer: {why}")
        return solution

    def render(self, question: CalmQuestion, solution: Solution) -> Rendered:
        lang = question.lang
        if isinstance(solution, Verdict):
            return Rendered(solution.answer, _YES_NO[lang][solution.answer])
        if solution.degenerate:
            return Rendered(None, "degenerate question: the treatment is the outcome")
        shown = [_option_text(lang, k) for k in solution.valid]
        if len(shown) == 1:
            return Rendered(solution.valid[0], shown[0])
        if not shown:
            return Rendered([], "no option meets the criterion")
        return Rendered(list(solution.valid), " or ".join(shown) + " (several options meet "
                        "the criterion)")

    def explain(self, question: CalmQuestion, solution: Solution) -> str:
        q = question.formal
        if isinstance(q, Relation) and isinstance(solution, Verdict):
            word = q.kind.value
            if solution.degenerate:
                return f"{q.first} is the vertex itself, not its proper {word} (degenerate)"
            if solution.answer:
                return f"{q.first} is a{'n' if word[0] == 'a' else ''} {word} of {q.second}: " \
                       + "->".join(solution.path)
            return f"no directed path{' of one edge' if word == 'parent' else ''} leads " \
                   f"from {q.first} to {q.second}"
        if isinstance(q, Identify) and isinstance(solution, Verdict):
            if solution.hedge is not None:
                h = solution.hedge
                return (f"not identified: the hedge F = {{{', '.join(sorted(h.forest))}}} ⊃ "
                        f"F′ = {{{', '.join(sorted(h.inner))}}} (roots "
                        f"{{{', '.join(sorted(h.roots))}}}; forest edges "
                        f"{', '.join(f'{a}->{b}' for a, b in h.edges) or 'none'})")
            return "identified (ID algorithm): " + solution.expression
        assert isinstance(q, Choice) and isinstance(solution, Picked)
        lines = [f"{q.criterion.value} for ({q.treatment}, {q.outcome})"
                 + (f", {', '.join(sorted(q.hidden))} unobserved" if q.hidden else "")]
        for k, (option, why) in enumerate(zip(q.options, solution.reasons, strict=True)):
            lines.append(f"Option {k + 1} {{{', '.join(sorted(option))}}}: {why}")
        for reading in solution.depends_on():
            valid = dict(solution.readings)[reading]
            lines.append(f"with {reading.value}: valid options {list(valid)}")
        return "; ".join(lines)

    # -- grading ---------------------------------------------------------------------
    def read_reply(self, question: CalmQuestion, text: str) -> Any:
        if isinstance(question.formal, Choice):
            return read_option(text, len(question.formal.options))
        return read_yes_no(text)

    def judge(self, question: CalmQuestion, solution: Solution, claim: Any) -> Judgement:
        lang = question.lang
        if isinstance(solution, Verdict):
            ok = bool(claim) == solution.answer
            return Judgement(ok, _YES_NO[lang][bool(claim)], "matches" if ok else "differs")
        shown = _option_text(lang, int(claim))
        if solution.degenerate:
            return Judgement(None, shown, "the treatment is the outcome", gradable=False)
        if not solution.valid:
            return Judgement(None, shown, "no option meets the criterion", gradable=False)
        ok = int(claim) in solution.valid
        why = solution.reasons[int(claim) - 1]
        return Judgement(ok, shown, f"option {claim}: {why}")

    def judge_gold(self, question: CalmQuestion, solution: Solution, gold: Any
                   ) -> GoldJudgement:
        derived = self.render(question, solution).text
        if gold is None:
            return GoldJudgement(None, None, derived, reason="the record has no gold")
        if isinstance(solution, Verdict):
            agree = bool(gold) == solution.answer
            why = None if agree else f"oracle: {self.explain(question, solution)}"
            return GoldJudgement(agree, gold, derived, reason=why)
        if solution.degenerate:
            return GoldJudgement(None, gold, derived, reason="degenerate question: the "
                                 "treatment is the outcome")
        if len(solution.valid) != 1:
            why = ("no option meets the criterion" if not solution.valid else
                   f"options {list(solution.valid)} all meet the criterion")
            return GoldJudgement(gold in solution.valid if solution.valid else None, gold,
                                 derived, ambiguous=True, reason=why)
        agree = gold == solution.valid[0]
        return GoldJudgement(agree, gold, derived, reason=None if agree else
                             f"option {gold}: {solution.reasons[gold - 1]}")

    def causes(self, question: CalmQuestion, solution: Solution, gold: Any) -> tuple[str, ...]:
        out = []
        q = question.formal
        if isinstance(q, Choice) and CHOICES.get(question.task, q.criterion) is not q.criterion:
            out.append(REVERSED)  # the prompt asks another question than its task's gold
        if solution.degenerate:
            out.append(DEGENERATE)
        if isinstance(solution, Picked) and not solution.degenerate:
            if len(solution.valid) > 1:
                out.append(SEVERAL_VALID)
            elif not solution.valid:
                out.append(NO_VALID)
            out.extend("reading_" + r.name.lower() for r in solution.depends_on())
        return tuple(out)

    @staticmethod
    def _marks(question: CalmQuestion, solution: Solution
               ) -> tuple[set[str], set[tuple[str, str]], frozenset[str]]:
        """What a drawing marks: the vertices asked about, the edges of the path or hedge
        that decides, and the hedge's forest (empty without one)."""
        q = question.formal
        named = ({q.first, q.second} if isinstance(q, Relation)
                 else {q.treatment, q.outcome})
        edges: set[tuple[str, str]] = set()
        forest: frozenset[str] = frozenset()
        if isinstance(solution, Verdict):
            edges = set(zip(solution.path, solution.path[1:], strict=False))
            if solution.hedge is not None:
                edges |= set(solution.hedge.edges)
                forest = solution.hedge.forest
        return named, edges, forest

    def dot(self, question: CalmQuestion, solution: Solution) -> str | None:
        q = question.formal
        g = q.graph
        named, marked_edges, forest = self._marks(question, solution)
        named |= forest
        hidden = q.hidden if isinstance(q, Choice) else frozenset()
        return digraph("calm", g.names, g.directed_edges(), bidirected=g.bidirected_edges(),
                       marked_nodes=named, marked_edges=marked_edges, hidden=hidden,
                       title=f"{question.task}: {self.render(question, solution).text}")

    def picture(self, question: CalmQuestion, solution: Solution) -> Picture | None:
        g = question.formal.graph
        named, marked, _forest = self._marks(question, solution)
        return Picture(f"{question.task}: {self.render(question, solution).text}",
                       tuple(g.names), tuple(g.directed_edges()),
                       bidirected=tuple(g.bidirected_edges()),
                       highlight=tuple(sorted(marked)), marked=tuple(sorted(named)))

    def derivation(self, question: CalmQuestion, solution: Solution) -> Any:
        if isinstance(solution, Picked):
            return {"valid": list(solution.valid), "reasons": list(solution.reasons),
                    "readings": {r.value: list(v) for r, v in solution.readings},
                    "degenerate": solution.degenerate}
        out: dict[str, Any] = {"answer": solution.answer, "degenerate": solution.degenerate}
        if solution.path:
            out["path"] = list(solution.path)
        if solution.hedge is not None:
            h = solution.hedge
            out["hedge"] = {"F": sorted(h.forest), "F_prime": sorted(h.inner),
                            "roots": sorted(h.roots), "edges": [list(e) for e in h.edges]}
        if solution.expression:
            out["expression"] = solution.expression
        return out

    def reasoning_facts(self, question: CalmQuestion, solution: Solution) -> Facts:
        """The graph, each bidirected edge ``E<->F`` a hidden common cause ``U[E,F]`` of
        its ends (so separation and confounding claims are judged as the ADMG says, and
        identifiability is not decided by the checker); the query's pair; the yes/no."""
        q = question.formal
        g = q.graph
        pairs = g.bidirected_edges()
        latent = tuple(f"U[{a},{b}]" for a, b in pairs)
        n = len(g.names)
        edges = list(g.dag.edges())
        for k, (a, b) in enumerate(pairs):
            edges += [(n + k, g.index(a)), (n + k, g.index(b))]
        hidden = sum(1 << (n + k) for k in range(len(pairs)))
        if isinstance(q, Choice):
            hidden |= g.mask(q.hidden)
        first, second = (q.first, q.second) if isinstance(q, Relation) else \
            (q.treatment, q.outcome)
        answer = solution.answer if isinstance(solution, Verdict) and \
            not solution.degenerate else None
        return dag_facts((*g.names, *latent), edges, hidden=hidden,
                         query=(g.index(first), g.index(second)), answer=answer)


PART = GraphPart()

__all__ = ["CEI", "CEI_ANY", "CHOICES", "HIDDEN_A", "PART", "GraphPart"]
