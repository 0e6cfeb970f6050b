"""The evaluation as a Ray Data pipeline: model replicas across GPUs and machines.

``causal-oracle eval --ray [ADDRESS] …`` runs the same job as the single-process
loop (``run.run_eval``) and writes the same files — ``OUT.results.jsonl``,
``OUT.json``, ``OUT.md``, ``OUT.png`` — but spreads the model over a Ray cluster:

1. **Plan, on the driver.**  The items are read by ``data.load_items`` (one
   reading of every file layout and of the item keys that resuming relies on);
   the items already in the results file are skipped, as in a single-process
   rerun.  The model's *tokenizer* alone (no weights) measures the prompts and
   ``job.plan_job`` packs them into exactly the batches the single-process loop
   would run — grouped by mode, sorted by length, padding-aware.  Same batches
   means same padding, so an item's answer is the same as without Ray.
2. **Stream, on the cluster.**  Each planned batch is one row of a Ray Dataset;
   ``map_batches`` sends the rows through a pool of ``Replica`` actors — one per
   GPU (``num_gpus=1``) when the cluster has GPUs, else CPU actors — each holding
   one engine (``engines.make_engine``: ``hf`` or ``vllm``).  A ``Grader`` — the
   in-process oracle — asks for each item's reference answer and grades the
   prediction (``job.references`` / ``job.score``), one finished result record per
   item: scoring happens inside the pipeline, never as a second pass.  On a CPU
   cluster the grader runs inside each replica (the CPU is the shared resource
   anyway); with GPUs it is a second stage of CPU actors (``graders``, default
   one per replica), so a GPU never waits for the oracle: Ray Data streams the
   replicas' outputs to the graders while the next batches are predicted.
3. **Write, on the driver.**  Records are appended to the results file as they
   stream back (in whatever order replicas finish; ``job.finish`` orders them by
   item), so an interrupted run resumes from what was written.  The metrics and
   the report are computed by ``job.finish``, the same code as without Ray.

Baselines need every item's reference before predicting; they run in one process
(leave ``--ray`` out).  On a multi-machine cluster every node needs
``causal-oracle`` (with the ``gpu`` or ``vllm`` extra) installed, and the model
path must be readable there.  Ray comes with the optional ``ray`` extra
(``pip install 'causal-oracle[ray]'``).
"""

from __future__ import annotations

import json
import logging
import time
from dataclasses import asdict
from typing import Any

from causal_oracle.clients.evaluate.baselines import BASELINES
from causal_oracle.clients.evaluate.data import Item
from causal_oracle.clients.evaluate.engines import load_tokenizer, make_engine
from causal_oracle.clients.evaluate.job import (
    EvalConfig,
    finish,
    plan_job,
    prepare,
    references,
    score,
)
from causal_oracle.clients.evaluate.runner import Output
from causal_oracle.clients.evaluate.scoring import make_scorer
from causal_oracle.entry import InputError

RAY_INSTALL_HINT = "pip install 'causal-oracle[ray]'"


def _import_ray() -> Any:
    try:
        import ray
        import ray.data
    except ImportError as error:
        raise InputError(f"--ray needs Ray Data, which is not installed: "
                         f"{RAY_INSTALL_HINT}") from error
    return ray


def _item_to_row(item: Item) -> dict[str, Any]:
    return asdict(item)


def _item_of_row(row: dict[str, Any]) -> Item:
    return Item(**row)


class Grader:
    """The in-process oracle as a pipeline stage: turns (item, model output) rows into
    result records.  Runs inside each ``Replica`` (the default on CPU clusters), or as
    its own pool of CPU actors (``graders`` > 0, the default with GPUs) so that GPU
    replicas never wait for the oracle.  Each actor keeps the oracle's caches."""

    def __init__(self, cfg: dict[str, Any]) -> None:
        self.scorer = make_scorer(cfg.get("server"), cfg.get("profile", "corr2cause"),
                                  bool(cfg.get("reasoning")))

    def __call__(self, batch: dict[str, Any]) -> dict[str, list[Any]]:
        t = time.perf_counter()
        items = [_item_of_row(json.loads(row)) for row in batch["item"]]
        refs = references(items, self.scorer)
        records = []
        for item, output, mode in zip(items, batch["output"], batch["mode"], strict=True):
            rec = score(item, refs[item.key], Output(**json.loads(output)), self.scorer)
            rec["mode"] = str(mode)
            records.append(json.dumps(rec, ensure_ascii=False))
        seconds = (time.perf_counter() - t) / max(1, len(items))
        return {"record": records, "model_seconds": list(batch["model_seconds"]),
                "score_seconds": [seconds] * len(items), "engine": list(batch["engine"])}


class Replica:
    """One model replica in the pool: an engine (and, when ``grade``, an oracle).

    Called by Ray Data with a batch of planned batches (``batch_size=1``: one);
    returns one row per item: the item and the model's output (JSON), the mode, and
    the seconds spent in the model shared evenly over the batch's items — or, when
    ``grade``, the ``Grader``'s finished result rows."""

    def __init__(self, cfg: dict[str, Any], grade: bool) -> None:
        c = EvalConfig(**cfg)
        self.engine = make_engine(c.engine, c.model, device=c.device, dtype=c.dtype,
                                  seed=c.seed, answer_words=c.answer_words, stop=c.stop)
        self.grader = Grader(cfg) if grade else None
        self.description = json.dumps(self.engine.describe())

    def __call__(self, batch: dict[str, Any]) -> dict[str, list[Any]]:
        out: dict[str, list[Any]] = {"item": [], "output": [], "mode": [],
                                     "model_seconds": [], "engine": []}
        for mode, new_tokens, items_json, prompts_json in zip(
                batch["mode"], batch["new_tokens"], batch["items"], batch["prompts"],
                strict=True):
            rows = json.loads(items_json)
            prompts = json.loads(prompts_json)
            t = time.perf_counter()
            outputs = (self.engine.logits(prompts) if mode == "logits"
                       else self.engine.generate(prompts, int(new_tokens)))
            seconds = (time.perf_counter() - t) / len(rows)
            out["item"] += [json.dumps(row, ensure_ascii=False) for row in rows]
            out["output"] += [json.dumps(asdict(o), ensure_ascii=False) for o in outputs]
            out["mode"] += [str(mode)] * len(rows)
            out["model_seconds"] += [seconds] * len(rows)
            out["engine"] += [self.description] * len(rows)
        return self.grader(out) if self.grader is not None else out


def _resources(ray: Any, cfg: EvalConfig) -> tuple[int, dict[str, Any], str]:
    """(replicas, Ray resources per replica, device) for the cluster at hand."""
    gpus = int(ray.cluster_resources().get("GPU", 0))
    cpus = int(ray.cluster_resources().get("CPU", 1))
    if cfg.replicas is not None and cfg.replicas < 1:
        raise InputError("--replicas must be at least 1")
    if gpus and cfg.device != "cpu":
        replicas = cfg.replicas or gpus
        return replicas, {"num_gpus": 1}, "cuda" if cfg.device == "auto" else cfg.device
    if cfg.engine == "vllm":
        raise InputError("--engine vllm needs a CUDA GPU and the Ray cluster has none; "
                         "use --engine hf")
    return cfg.replicas or max(1, cpus // 2), {"num_cpus": 1}, "cpu"


def run_ray(cfg: EvalConfig) -> dict[str, Any]:
    """Run ``cfg`` as a Ray Data pipeline (see the module docstring); returns the report."""
    if cfg.model in BASELINES:
        raise InputError(f"--ray runs a model; the baseline {cfg.model!r} runs in one "
                         "process (leave --ray out)")
    ray = _import_ray()
    job = prepare(cfg)
    started_ray = False
    if not ray.is_initialized():
        address = None if cfg.ray in (None, "", "local") else cfg.ray
        try:
            ray.init(address=address, include_dashboard=False,
                     log_to_driver=cfg.progress is not None)
        except (ConnectionError, ValueError, RuntimeError) as error:
            raise InputError(f"cannot reach the Ray cluster at {cfg.ray!r}: {error}") \
                from error
        started_ray = True
    try:
        return _run(ray, cfg, job)
    finally:
        if started_ray:
            ray.shutdown()


def _run(ray: Any, cfg: EvalConfig, job: Any) -> dict[str, Any]:
    context = ray.data.DataContext.get_current()
    context.enable_progress_bars = cfg.progress is not None
    context.print_on_execution_start = cfg.progress is not None
    if cfg.progress is None:  # --quiet: no "execution finished" lines on stderr
        logging.getLogger("ray.data").setLevel(logging.WARNING)
    t0 = time.perf_counter()
    tokenizer = load_tokenizer(cfg.model)
    plan = plan_job(cfg, job.prompter, job.pending,
                    lambda prompts: [len(ids) for ids in tokenizer(list(prompts))["input_ids"]])
    rows = [{"mode": mode, "new_tokens": new_tokens,
             "items": json.dumps([_item_to_row(group[i]) for i in ids], ensure_ascii=False),
             "prompts": json.dumps(prompts, ensure_ascii=False)}
            for (mode, new_tokens), group, ids, prompts in plan]
    replicas, resources, device = _resources(ray, cfg)
    replicas = max(1, min(replicas, len(rows)))
    if cfg.graders is not None and cfg.graders < 0:
        raise InputError("--graders must be at least 0")
    graders = cfg.graders if cfg.graders is not None else (
        replicas if "num_gpus" in resources else 0)
    plan_seconds = time.perf_counter() - t0

    actor_cfg = {k: v for k, v in vars(cfg).items() if k != "progress"}
    actor_cfg.update(device=device, ray=None)
    model_seconds = score_seconds = 0.0
    tokens_in = tokens_out = finished = 0
    engine: dict[str, Any] = {}
    start = time.perf_counter()
    if rows:
        ds = ray.data.from_items(rows, override_num_blocks=len(rows)).map_batches(
            Replica, fn_constructor_kwargs={"cfg": actor_cfg, "grade": not graders},
            batch_size=1, compute=ray.data.ActorPoolStrategy(size=replicas), **resources)
        if graders:
            ds = ds.map_batches(Grader, fn_constructor_kwargs={"cfg": actor_cfg},
                                batch_size=cfg.batch_size, num_cpus=1,
                                compute=ray.data.ActorPoolStrategy(size=graders))
        with job.results_path.open("a", encoding="utf-8") as sink:
            for out in ds.iter_rows():
                rec = json.loads(out["record"])
                job.done[rec["id"]] = rec
                sink.write(out["record"] + "\n")
                sink.flush()
                model_seconds += float(out["model_seconds"])
                score_seconds += float(out["score_seconds"])
                tokens_in += int(rec["tokens_in"])
                tokens_out += int(rec["tokens_out"])
                engine = engine or json.loads(out["engine"])
                finished += 1
                if cfg.progress:
                    cfg.progress(finished, len(job.pending), time.perf_counter() - start,
                                 tokens_in + tokens_out)
    run_seconds = time.perf_counter() - start
    timing = {"items_run": finished, "model_seconds": model_seconds,
              "score_seconds": score_seconds, "run_seconds": run_seconds,
              "load_seconds": plan_seconds, "reference_seconds": 0.0,
              "tokens_in": tokens_in, "tokens_out": tokens_out,
              # the replicas' time: the oracle's only when it runs inside them
              "blocking_score_seconds": 0.0 if graders else score_seconds,
              "busy_seconds": model_seconds + (0.0 if graders else score_seconds)}
    runner = {**engine, "ray": {"address": cfg.ray or "local", "replicas": replicas,
                                "resources_per_replica": resources, "graders": graders,
                                "batches": len(rows)}}
    return finish(job, timing, runner)


__all__ = ["Grader", "Replica", "run_ray"]
