"""Evaluation throughput per engine and batch size, and the oracle's share of the time.

Run from the repository root with the ``gpu`` extra (and ``ray`` for the Ray rows):

    .venv/bin/python bench/eval_throughput.py                      # tiny random model, hf + ray
    .venv/bin/python bench/eval_throughput.py --engines hf,ray,vllm --batch-sizes 1,16,64
    .venv/bin/python bench/eval_throughput.py --model PATH_OR_ID --data FILE --items 5000
    .venv/bin/python bench/eval_throughput.py --mode generate --max-new-tokens 8

Without ``--model`` it builds the tiny randomly initialised Llama of
``clients/evaluate/tiny.py`` (word-level tokenizer, no download) in a temporary
folder.  Every row is one full ``causal-oracle eval`` job (``run_eval``, fresh) on
the first ``--items`` items of ``--data``: read, predict in the evaluator's
padding-aware batches, score every answer through the in-process oracle, write
the results and the report.  Engines:

``hf``    transformers in this process (``--engine hf``);
``ray``   the Ray Data pipeline (``--ray``) on a local cluster of ``--ray-cpus``
          CPUs with ``--replicas`` CPU replicas (one per GPU when there are GPUs)
          and ``--graders`` oracle actors;
``vllm``  ``--engine vllm``; skipped, with the reason, without vllm or a CUDA GPU.

The oracle's caches are emptied before each row.  Reported per row: items/s and
tokens/s of the model alone (prompt tokens without padding plus generated tokens,
over the seconds in the model — summed over replicas under Ray), items/s end to
end (the prediction loop with its scoring and writing; under Ray also the
replicas' start-up), the oracle's seconds (reference
answers and grading) and its share of the time (``score_share``: of the wall time
in one process, of the replicas' summed busy time under Ray — 0 when graders
score beside them; target < 2 %), and
each end-to-end rate's ratio to the first row's, measured in the same run.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

from causal_oracle.clients.evaluate.data import load_items  # noqa: E402
from causal_oracle.clients.evaluate.prompts import Prompter  # noqa: E402
from causal_oracle.clients.evaluate.run import EvalConfig, run_eval  # noqa: E402
from causal_oracle.clients.evaluate.tiny import build_tiny_model  # noqa: E402
from causal_oracle.oracle.errors import InputError  # noqa: E402


def vllm_unavailable() -> str | None:
    """Why the vllm engine cannot run here (None: it can)."""
    try:
        import vllm  # noqa: F401
    except ImportError:
        return "the vllm package is not installed (pip install 'causal-oracle[vllm]')"
    import torch

    if not torch.cuda.is_available():
        return "no CUDA GPU is visible"
    return None


KEEP = {"load_grammar", "all_dags", "_signatures"}  # built once per process, not content


def cold_oracle() -> None:
    """Empty the oracle's content caches, so every row pays for its own reasoning."""
    for name, module in list(sys.modules.items()):
        if name.startswith("causal_oracle.") and module is not None:
            for key, value in list(vars(module).items()):
                if key not in KEEP and callable(getattr(value, "cache_clear", None)):
                    value.cache_clear()


def one_job(args: argparse.Namespace, model: str, data: Path, engine: str, batch: int,
            out: Path) -> dict[str, Any]:
    cfg = EvalConfig(model=model, data=data, report=out / f"{engine}-{batch}.json",
                     mode=args.mode, batch_size=batch, device=args.device, dtype=args.dtype,
                     max_new_tokens=args.max_new_tokens, limit=args.items, fresh=True,
                     engine="vllm" if engine == "vllm" else "hf",
                     ray="local" if engine == "ray" else None, replicas=args.replicas,
                     graders=args.graders)
    cold_oracle()
    report = run_eval(cfg)
    t = report["timing"]
    model_s = t["model_seconds"]
    return {"engine": engine, "batch_size": batch, "items": t["items_run"],
            "items_per_s": t["items_per_s"], "tokens_per_s": t["tokens_per_s"],
            "items_per_s_end_to_end": t["items_per_s_end_to_end"],
            "model_seconds": model_s, "run_seconds": t["run_seconds"],
            "score_seconds": t["score_seconds"], "score_share": t["score_share"],
            "oracle_ms_per_item": round(1000 * t["score_seconds"] / max(1, t["items_run"]), 3),
            "runner": report["config"]["runner"]}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", help="model directory or hub id (default: a tiny random model)")
    ap.add_argument("--data", default=str(ROOT / "tests" / "data" / "n4.jsonl"))
    ap.add_argument("--items", type=int, default=256)
    ap.add_argument("--engines", default="hf,ray,vllm",
                    help="comma-separated: hf, ray, vllm (default all; unavailable ones are "
                         "skipped with the reason)")
    ap.add_argument("--batch-sizes", default="1,16")
    ap.add_argument("--mode", choices=("logits", "generate"), default="logits")
    ap.add_argument("--max-new-tokens", type=int, default=8)
    ap.add_argument("--device", default="auto")
    ap.add_argument("--dtype", default="auto")
    ap.add_argument("--hidden", type=int, default=64, help="tiny model width (default 64)")
    ap.add_argument("--layers", type=int, default=2, help="tiny model depth (default 2)")
    ap.add_argument("--threads", type=int, default=1,
                    help="CPU threads for torch in this process (default 1, as each CPU "
                         "replica under Ray; 0 = torch's default)")
    ap.add_argument("--ray-cpus", type=int, default=2, help="CPUs of the local Ray cluster")
    ap.add_argument("--replicas", type=int, default=None,
                    help="Ray replicas (default: one per GPU, else half the CPUs)")
    ap.add_argument("--graders", type=int, default=None,
                    help="Ray oracle actors beside the replicas (default: one per GPU "
                         "replica, else 0: the replicas grade)")
    ap.add_argument("--json", help="also write the results here")
    args = ap.parse_args()

    engines = [e.strip() for e in args.engines.split(",") if e.strip()]
    sizes = [int(b) for b in args.batch_sizes.split(",")]
    data = Path(args.data)
    items = load_items(data, limit=args.items)
    prompter = Prompter()
    skipped: dict[str, str] = {}
    if "vllm" in engines and (why := vllm_unavailable()):
        skipped["vllm"] = why
    if "ray" in engines:
        try:
            import ray

            ray.init(num_cpus=args.ray_cpus, include_dashboard=False, log_to_driver=False)
            ray.data.DataContext.get_current().enable_progress_bars = False
        except ImportError:
            skipped["ray"] = "ray[data] is not installed (pip install 'causal-oracle[ray]')"
    if args.threads:
        import torch

        torch.set_num_threads(args.threads)
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        texts = [prompter.render(item) for item in items]
        model = args.model or str(build_tiny_model(Path(tmp) / "tiny", texts, seed=0,
                                                   hidden=args.hidden, layers=args.layers))
        for engine in engines:
            if engine in skipped:
                continue
            for batch in sizes:
                try:
                    rows.append(one_job(args, model, data, engine, batch, Path(tmp)))
                except InputError as error:
                    skipped[engine] = error.describe()
                    break
    if rows:
        ref = rows[0]["items_per_s_end_to_end"]
        for row in rows:
            row["vs_first"] = round(row["items_per_s_end_to_end"] / ref, 2) if ref else 0.0
        runner = rows[0]["runner"]
        name = args.model or f"tiny random Llama (hidden {args.hidden}, {args.layers} layers)"
        print(f"model {name}, "
              f"{runner.get('parameters', 0):,} parameters, {runner.get('device')} "
              f"{runner.get('dtype')}, {args.mode} mode, {len(items)} items of {data.name}")
        print(f"{'engine':>7}{'batch':>6}{'items/s':>9}{'tokens/s':>10}{'e2e items/s':>13}"
              f"{'oracle ms/item':>16}{'oracle share':>14}{'e2e vs first':>14}")
        for row in rows:
            print(f"{row['engine']:>7}{row['batch_size']:>6}{row['items_per_s']:>9,.1f}"
                  f"{row['tokens_per_s']:>10,.0f}{row['items_per_s_end_to_end']:>13,.1f}"
                  f"{row['oracle_ms_per_item']:>16.3f}{100 * row['score_share']:>13.1f}%"
                  f"{row['vs_first']:>13.2f}x")
    for engine, why in skipped.items():
        print(f"{engine}: skipped — {why}")
    if args.json:
        Path(args.json).write_text(json.dumps({"config": vars(args), "results": rows,
                                               "skipped": skipped}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
