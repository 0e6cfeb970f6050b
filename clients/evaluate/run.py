"""The evaluation loop: references, predictions in batches, scoring, resumable results.

1. Read the items (``data.load_items``) and ask the oracle for each item's
   reference answer (``Scorer.label`` / ``Scorer.answer``) — the baselines need
   them, and every metric is computed against them.
2. Predict: a baseline answers item by item; a model answers batch by batch
   (``runner.plan_batches``: sorted by token length, padding-aware).
3. Score each answer through the oracle as its batch completes and append one
   JSON line per item to the results file (``OUT.results.jsonl`` next to
   ``OUT.json``).  Its first line holds the configuration; a rerun with the same
   configuration skips the items already there, a different one is refused
   (``fresh=True`` starts over).
4. Compute the metrics over all results and write ``OUT.json``, ``OUT.md`` (the
   Markdown table) and ``OUT.png`` (per-relation F1).

Timing covers the items predicted in this run: ``items_per_s`` and
``tokens_per_s`` (prompt plus generated tokens) over the seconds spent in the
model (or baseline), and the end-to-end rate including the oracle's scoring.
"""

from __future__ import annotations

import json
import time
from typing import Any

from causal_oracle.clients.evaluate.baselines import BASELINES, Baseline
from causal_oracle.clients.evaluate.data import Item
from causal_oracle.clients.evaluate.engines import Engine, make_engine
from causal_oracle.clients.evaluate.job import (
    EvalConfig,
    effective_mode,
    finish,
    plan_job,
    prepare,
    references,
    score,
)
from causal_oracle.clients.evaluate.runner import Output


def run_eval(cfg: EvalConfig) -> dict[str, Any]:
    """Run the evaluation described by ``cfg`` and write its outputs; returns the report.

    With ``cfg.ray`` set the job runs as a Ray Data pipeline (``ray_pipeline``)."""
    if cfg.ray is not None:
        from causal_oracle.clients.evaluate.ray_pipeline import run_ray

        return run_ray(cfg)
    job = prepare(cfg)
    items, scorer, pending, done = job.items, job.scorer, job.pending, job.done
    t0 = time.perf_counter()
    refs = references(items, scorer)
    reference_seconds = time.perf_counter() - t0

    t0 = time.perf_counter()
    runner: Baseline | Engine
    if cfg.model in BASELINES:
        runner = Baseline(cfg.model, items, refs, cfg.seed)
    else:
        runner = make_engine(cfg.engine, cfg.model, device=cfg.device, dtype=cfg.dtype,
                             seed=cfg.seed, answer_words=cfg.answer_words, stop=cfg.stop)
    load_seconds = time.perf_counter() - t0

    model_seconds = score_seconds = 0.0
    tokens_in = tokens_out = finished = 0
    start = time.perf_counter()
    with job.results_path.open("a", encoding="utf-8") as sink:
        def emit(batch: list[Item], outputs: list[Output]) -> None:
            nonlocal finished, tokens_in, tokens_out, score_seconds
            t = time.perf_counter()
            for item, output in zip(batch, outputs, strict=True):
                rec = score(item, refs[item.key], output, scorer)
                rec["mode"] = "baseline" if isinstance(runner, Baseline) else \
                    effective_mode(cfg, item)[0]
                done[item.key] = rec
                sink.write(json.dumps(rec, ensure_ascii=False) + "\n")
                tokens_in += output.tokens_in
                tokens_out += output.tokens_out
            sink.flush()
            score_seconds += time.perf_counter() - t
            finished += len(batch)
            if cfg.progress:
                cfg.progress(finished, len(pending), time.perf_counter() - start,
                             tokens_in + tokens_out)

        if isinstance(runner, Baseline):
            for i in range(0, len(pending), cfg.batch_size):
                batch = pending[i:i + cfg.batch_size]
                t = time.perf_counter()
                outputs = [runner.predict(item, refs[item.key]) for item in batch]
                model_seconds += time.perf_counter() - t
                emit(batch, outputs)
        else:
            for (mode, new_tokens), group, batch_ids, prompts in plan_job(
                    cfg, job.prompter, pending, runner.token_lengths):
                t = time.perf_counter()
                outputs = (runner.logits(prompts) if mode == "logits"
                           else runner.generate(prompts, new_tokens))
                model_seconds += time.perf_counter() - t
                emit([group[i] for i in batch_ids], outputs)
    run_seconds = time.perf_counter() - start
    timing = {"items_run": finished, "model_seconds": model_seconds,
              "score_seconds": score_seconds + reference_seconds, "run_seconds": run_seconds,
              "load_seconds": load_seconds, "reference_seconds": reference_seconds,
              "tokens_in": tokens_in, "tokens_out": tokens_out}
    return finish(job, timing, runner.describe())


__all__ = ["EvalConfig", "run_eval"]
