"""An evaluation job: its configuration, its items and references, resumable results,
the batches it runs, how each answer is scored, and the report it ends with.

The pieces that every way of running an evaluation shares — the single-process loop
(``run.run_eval``) and the Ray Data pipeline (``ray_pipeline``) — so that both plan the
same batches, score through the same oracle calls and write the same files:

* ``EvalConfig`` — what to evaluate and where to write it;
* ``prepare`` — read the items (``data.load_items``), pick the scorer and the prompter,
  and skip the items already in ``OUT.results.jsonl`` (its first line holds the
  configuration; a rerun with the same configuration resumes, a different one is
  refused, ``fresh=True`` starts over);
* ``references`` / ``score`` — each item's reference answer from the oracle, and one
  result record per answer graded against it;
* ``plan_job`` — the prompts packed into batches by mode, sorted by token length
  (padding-aware, ``runner.plan_batches``);
* ``finish`` — the metrics over all results, and ``OUT.json``, ``OUT.md`` (the Markdown
  table) and ``OUT.png`` (per-relation F1).
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from causal_oracle.clients.evaluate.baselines import Reference
from causal_oracle.clients.evaluate.data import CORR2CAUSE, Item, load_items
from causal_oracle.clients.evaluate.metrics import compute_metrics
from causal_oracle.clients.evaluate.prompts import ANSWER_WORDS, Prompter
from causal_oracle.clients.evaluate.report import bar_chart, markdown_table
from causal_oracle.clients.evaluate.runner import MODES, Output, plan_batches
from causal_oracle.clients.evaluate.scoring import make_scorer, meta_of
from causal_oracle.clients.outputs import atomic_output, check_output, check_outputs
from causal_oracle.entry import UNREADABLE, BudgetExceeded, InputError, binary_gold

BINARY_NEW_TOKENS, OPEN_NEW_TOKENS = 8, 256
Progress = Callable[[int, int, float, int], None]


@dataclass
class EvalConfig:
    model: str
    data: Path
    report: Path
    tasks: tuple[str, ...] | None = None
    mode: str = "logits"
    batch_size: int = 8
    max_batch_tokens: int | None = None
    device: str = "auto"
    dtype: str = "auto"
    seed: int = 0
    template: Path | None = None
    max_new_tokens: int | None = None
    limit: int | None = None
    server: str | None = None
    profile: str = "corr2cause"
    answer_words: tuple[str, str] = ANSWER_WORDS
    fresh: bool = False
    engine: str = "hf"               # hf or vllm (engines.ENGINES)
    stop: tuple[str, ...] = ()       # generate mode: cut answers at these strings
    ray: str | None = None           # run as a Ray Data pipeline on this cluster
    replicas: int | None = None      # Ray: model replicas (default: one per GPU, else CPUs/2)
    graders: int | None = None       # Ray: CPU oracle actors (default: replicas with GPUs,
                                     # else 0 = grade inside the replicas)
    reasoning: bool = False          # also check the replies' causal claims
    progress: Progress | None = field(default=None, repr=False)
    columns: dict[str, str] = field(default_factory=dict)  # role → the data's column name

    def results_path(self) -> Path:
        return self.report.with_name(self.report.stem + ".results.jsonl")


def yes_no_of(normalised: str | None) -> int | None:
    """1 / 0 of a yes/no family's reply as the grader read it (a 3-class word: 1 for
    entailment), None when it could not be read."""
    if normalised in ("yes", "entailment"):
        return 1
    if normalised in ("no", "neutral", "contradiction"):
        return 0
    return None


def references(items: list[Item], scorer: Any) -> dict[str, Reference]:
    """The oracle's answer to every item (errors become ``Reference.error``)."""
    out: dict[str, Reference] = {}
    for item in items:
        try:
            if item.task == CORR2CAUSE:
                lab, rel = scorer.label(item.premise, item.hypothesis)
                text = "" if lab is None else (ANSWER_WORDS[0] if lab else ANSWER_WORDS[1])
                ref = Reference(lab, rel, text)
            else:
                answered = scorer.answer(item.prompt, item.task)
                text = answered.answer_text
                lab = binary_gold(text) if item.binary else None
                agree = scorer.agrees_with_truth(item.raw) if not item.binary else None
                ref = Reference(lab, None, text, agree, answer=answered.answer)
                if not text.strip():  # e.g. an FI/CI item whose query names no event
                    ref = Reference(truth_agrees=agree, error="the question asks about "
                                    "nothing (empty query): no answer can be graded")
                elif not item.binary and scorer.grade(item.prompt, text, item.task)[0] is None:
                    # e.g. a CaLM question that is degenerate, or none of whose options
                    # meets the criterion: the oracle's own answer is neither right nor wrong
                    ref = Reference(truth_agrees=agree, error=f"no answer is right: {text}")
        except (InputError, BudgetExceeded) as error:
            ref = Reference(error=error.describe() if isinstance(error, InputError)
                            else f"budget exceeded: {error}")
        out[item.key] = ref
    return out


def score(item: Item, ref: Reference, output: Output, scorer: Any) -> dict[str, Any]:
    """One result record: the answer, graded against the oracle and the gold."""
    kind, n = meta_of(item)
    rec: dict[str, Any] = {"id": item.key, "row": item.row, "task": item.task,
                           "answer_text": output.text, "p_yes": output.p_yes,
                           "tokens_in": output.tokens_in, "tokens_out": output.tokens_out,
                           "relation": kind, "num_nodes": n, "gold": item.gold,
                           "oracle_label": ref.label, "oracle_relation": ref.relation,
                           "oracle_error": ref.error}
    if item.binary:
        if output.prediction is not None or ref.error:  # logits mode, or nothing to grade by
            pred = output.prediction
            correct = None if pred is None or ref.label is None else pred == ref.label
            normalised = UNREADABLE if pred is None else ("yes" if pred else "no")
        else:  # the reply read as every surface reads it (``Service.grade``)
            correct, normalised = scorer.grade(item.prompt, output.text, item.task)
            pred = yes_no_of(normalised)
        rec["prediction"] = pred
        rec["normalised"] = normalised
        rec["correct_oracle"] = correct
        rec["correct_gold"] = None if pred is None or item.gold is None else pred == item.gold
        rec["oracle_gold_agree"] = (None if ref.label is None or item.gold is None
                                    else ref.label == item.gold)
        # an item the oracle cannot label (inconsistent premise) has no right answer: a
        # missing verdict there is not an "unreadable answer" (counted in no_oracle_label)
        rec["unreadable"] = pred is None and (ref.label is not None or item.task != CORR2CAUSE)
        return _reasoned(rec, item, ref, output, scorer)
    rec["prediction"] = None
    if ref.error:
        rec.update(correct_oracle=None, normalised=None, unreadable=False)
    else:
        correct, normalised = scorer.grade(item.prompt, output.text, item.task)
        rec.update(correct_oracle=correct, normalised=normalised,
                   unreadable=correct is None)
    rec["correct_gold"] = None
    rec["oracle_gold_agree"] = ref.truth_agrees
    return _reasoned(rec, item, ref, output, scorer)


def _reasoned(rec: dict[str, Any], item: Item, ref: Reference, output: Output, scorer: Any
              ) -> dict[str, Any]:
    """``rec`` with the reply's checked claims (``reasoning``) when the scorer checks
    them and there is a reply and an answer to check it against."""
    if getattr(scorer, "reasoning", False) and output.text and not ref.error:
        try:
            rec["reasoning"] = scorer.check(item.prompt, output.text, item.task)
        except InputError:
            rec["reasoning"] = None
    return rec


def _fingerprint(cfg: EvalConfig, prompter: Prompter) -> dict[str, Any]:
    """What decides the answers: a rerun may resume only under the same values."""
    template = prompter.template or ""
    return {"model": cfg.model, "data": str(cfg.data), "mode": cfg.mode, "seed": cfg.seed,
            "dtype": cfg.dtype, "max_new_tokens": cfg.max_new_tokens,
            "answer_words": list(cfg.answer_words), "profile": cfg.profile,
            "template_sha256": hashlib.sha256(template.encode()).hexdigest()[:16],
            **({"stop": list(cfg.stop)} if cfg.stop else {}),
            **({"reasoning": True} if cfg.reasoning else {})}


def _load_results(path: Path, fingerprint: dict[str, Any], fresh: bool
                  ) -> dict[str, dict[str, Any]]:
    if fresh or not path.exists():
        _start_results(path, fingerprint)
        return {}
    done: dict[str, dict[str, Any]] = {}
    with path.open(encoding="utf-8") as handle:
        lines = handle.read().splitlines()
    if not lines:
        _start_results(path, fingerprint)
        return {}
    try:
        header = json.loads(lines[0])
    except json.JSONDecodeError:
        header = None
    if not isinstance(header, dict) or header.get("config") != fingerprint:
        raise InputError(f"{path} holds results of another configuration "
                         f"({header.get('config') if isinstance(header, dict) else 'unreadable'}"
                         "); pass --fresh to start over, or choose another --report")
    for line in lines[1:]:
        try:
            rec = json.loads(line)
        except json.JSONDecodeError:  # a line cut short by an interrupted run
            continue
        if isinstance(rec, dict) and "id" in rec:
            done[str(rec["id"])] = rec
    return done


def _start_results(path: Path, fingerprint: dict[str, Any]) -> None:
    """A new results file: its configuration line (the items are appended to it)."""
    with atomic_output(path) as handle:
        handle.write(json.dumps({"config": fingerprint}) + "\n")


def output_paths(cfg: EvalConfig) -> dict[str, Path]:
    """Every file an evaluation writes, checked before any work (``outputs``): none is
    an input, a folder or unwritable, and no two are the same file."""
    inputs = [cfg.data, cfg.template]
    check_output(cfg.report, inputs=inputs, what="--report", regular=True)
    return check_outputs({"--report": cfg.report,
                          "its table": cfg.report.with_suffix(".md"),
                          "its chart": cfg.report.with_suffix(".png"),
                          "its results file": cfg.results_path()},
                         inputs=inputs, regular=True)


def effective_mode(cfg: EvalConfig, item: Item) -> tuple[str, int]:
    if cfg.mode == "logits" and item.binary:
        return "logits", 0
    default = BINARY_NEW_TOKENS if item.binary else OPEN_NEW_TOKENS
    return "generate", cfg.max_new_tokens or default


@dataclass
class Job:
    """What every way of running an evaluation shares: the items, the oracle, the
    results file and the items still to predict."""

    cfg: EvalConfig
    prompter: Prompter
    items: list[Item]
    scorer: Any
    fingerprint: dict[str, Any]
    results_path: Path
    done: dict[str, dict[str, Any]]
    pending: list[Item]
    started: float
    #: rows of the data left out as unreadable ("line N: why"), reported as a warning
    skipped: list[str] = field(default_factory=list)


def prepare(cfg: EvalConfig) -> Job:
    """Check ``cfg``, read the items, open (or resume) the results file."""
    if cfg.mode not in MODES:
        raise InputError(f"unknown mode {cfg.mode!r}; expected one of {', '.join(MODES)}")
    started = time.perf_counter()
    output_paths(cfg)
    prompter = Prompter.from_file(cfg.template)
    skipped: list[str] = []
    items = load_items(cfg.data, cfg.tasks, cfg.limit, skipped, cfg.columns)
    scorer = make_scorer(cfg.server, cfg.profile, cfg.reasoning)
    cfg.report.parent.mkdir(parents=True, exist_ok=True)
    fingerprint = _fingerprint(cfg, prompter)
    results_path = cfg.results_path()
    done = _load_results(results_path, fingerprint, cfg.fresh)
    pending = [item for item in items if item.key not in done]
    return Job(cfg, prompter, items, scorer, fingerprint, results_path, done, pending, started,
               skipped)


def plan_job(cfg: EvalConfig, prompter: Prompter, pending: list[Item],
             token_lengths: Callable[[list[str]], list[int]]
             ) -> list[tuple[tuple[str, int], list[Item], list[int], list[str]]]:
    """The model's batches: items grouped by how they are answered (mode, new tokens),
    each group packed by ``plan_batches``; one (mode key, group, indices into the group,
    rendered prompts) per batch, in the order the single-process loop runs them."""
    groups: dict[tuple[str, int], list[Item]] = {}
    for item in pending:
        groups.setdefault(effective_mode(cfg, item), []).append(item)
    out = []
    for key, group in sorted(groups.items()):
        prompts = [prompter.render(item) for item in group]
        lengths = token_lengths(prompts)
        for batch_ids in plan_batches(lengths, cfg.batch_size, cfg.max_batch_tokens):
            out.append((key, group, batch_ids, [prompts[i] for i in batch_ids]))
    return out


def finish(job: Job, timing: dict[str, Any], runner: dict[str, Any]) -> dict[str, Any]:
    """Metrics over every result (resumed ones too) and the report files.

    ``timing`` holds items_run, model_seconds, score_seconds (the oracle: references
    and grading), run_seconds, load_seconds, reference_seconds, tokens_in/out, and
    optionally busy_seconds and blocking_score_seconds: ``score_share``, the share of
    the time the model waits for the oracle, is blocking / busy — by default the
    oracle's seconds over the wall time; under Ray, the oracle's seconds inside the
    replicas over the replicas' summed time (0 when graders score beside them)."""
    cfg, items = job.cfg, job.items
    records = [job.done[item.key] for item in items]
    metrics = compute_metrics(records)
    finished, model_seconds = timing["items_run"], timing["model_seconds"]
    run_seconds, tokens = timing["run_seconds"], timing["tokens_in"] + timing["tokens_out"]
    wall = time.perf_counter() - job.started
    busy = timing.get("busy_seconds", wall)
    blocking = timing.get("blocking_score_seconds", timing["score_seconds"])
    timing = {
        "items_run": finished, "items_resumed": len(items) - finished,
        **{k: round(timing[k], 4) for k in ("model_seconds", "run_seconds", "load_seconds",
                                            "reference_seconds", "score_seconds")},
        "wall_seconds": round(wall, 4),
        "score_share": round(blocking / busy, 4) if busy else 0.0,
        "tokens_in": timing["tokens_in"], "tokens_out": timing["tokens_out"],
        # None when no item ran (all resumed): a rate of nothing is not a rate
        "items_per_s": round(finished / model_seconds, 3) if finished and model_seconds
        else None,
        "tokens_per_s": round(tokens / model_seconds, 3) if finished and model_seconds
        else None,
        "items_per_s_end_to_end": round(finished / run_seconds, 3) if finished and run_seconds
        else None,
    }
    config = {**job.fingerprint, "tasks": list(cfg.tasks) if cfg.tasks else None,
              "batch_size": cfg.batch_size, "max_batch_tokens": cfg.max_batch_tokens,
              "device": cfg.device, "limit": cfg.limit, "template": str(cfg.template)
              if cfg.template else None, "server": cfg.server,
              "scorer": getattr(job.scorer, "name", type(job.scorer).__name__),
              "runner": runner}
    report: dict[str, Any] = {
        "config": config, "timing": timing, "metrics": metrics,
        "files": {"results": str(job.results_path),
                  "table": str(cfg.report.with_suffix(".md")),
                  "chart": str(cfg.report.with_suffix(".png"))},
        "oracle_errors": [{"id": rec["id"], "row": rec["row"], "error": rec["oracle_error"]}
                          for rec in records if rec.get("oracle_error")],
        "warnings": [f"{len(job.skipped)} unreadable rows left out, first: {job.skipped[0]}"]
        if job.skipped else [],
    }
    warning = bar_chart(report, cfg.report.with_suffix(".png"))
    if warning:
        report["warnings"].append(warning)
        report["files"]["chart"] = None
    table = markdown_table(report)
    with atomic_output(cfg.report.with_suffix(".md")) as handle:
        handle.write(table)
    with atomic_output(cfg.report) as handle:
        handle.write(json.dumps(report, indent=1, ensure_ascii=False) + "\n")
    return report


__all__ = ["EvalConfig", "Job", "effective_mode", "finish", "output_paths", "plan_job",
           "prepare", "references", "score"]
