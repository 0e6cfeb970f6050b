"""Model throughput of the batch evaluator: items/s and tokens/s per batch size.

Run from the repository root with the ``gpu`` extra installed:

    .venv/bin/python bench/eval_throughput.py                        # tiny random model, CPU/GPU
    .venv/bin/python bench/eval_throughput.py --model PATH_OR_ID --batch-sizes 1,8,32,64
    .venv/bin/python bench/eval_throughput.py --mode generate --max-new-tokens 8
    .venv/bin/python bench/eval_throughput.py --threads 1   # steadier on a busy CPU

Without ``--model`` it builds the tiny randomly initialised Llama of
``clients/evaluate/tiny.py`` (word-level tokenizer, no download) in a temporary
folder.  The prompts are the evaluator's own (Corr2Cause default template) for
the first ``--items`` items of ``--data``.  It uses CUDA when present (``--device
auto``), else the CPU.

For each batch size, in this one run: one warm-up batch, then every item once in
the evaluator's padding-aware batches (sorted by length).  Reported: items/s,
tokens/s (prompt tokens without padding, plus generated tokens), the share of
padded positions that are real tokens, and the ratio of each rate to the first
batch size's (the reference measured in the same run).  Only the model's time
is counted; the oracle's scoring is not part of it.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

from causal_oracle.clients.evaluate.data import load_items  # noqa: E402
from causal_oracle.clients.evaluate.prompts import Prompter  # noqa: E402
from causal_oracle.clients.evaluate.runner import HFRunner, plan_batches  # noqa: E402
from causal_oracle.clients.evaluate.tiny import build_tiny_model  # noqa: E402


def measure(runner: HFRunner, prompts: list[str], batch_size: int, mode: str,
            max_new_tokens: int) -> dict[str, float]:
    lengths = runner.token_lengths(prompts)
    plan = plan_batches(lengths, batch_size)

    def run(batch: list[str]) -> int:
        outs = (runner.logits(batch) if mode == "logits"
                else runner.generate(batch, max_new_tokens))
        return sum(o.tokens_in + o.tokens_out for o in outs)

    run([prompts[i] for i in plan[0]])  # warm-up
    if runner.device.startswith("cuda"):
        runner.torch.cuda.synchronize()
    start = time.perf_counter()
    tokens = 0
    for batch in plan:
        tokens += run([prompts[i] for i in batch])
    if runner.device.startswith("cuda"):
        runner.torch.cuda.synchronize()
    seconds = time.perf_counter() - start
    padded = sum(len(b) * max(lengths[i] for i in b) for b in plan)
    return {"batch_size": batch_size, "batches": len(plan), "seconds": round(seconds, 4),
            "items_per_s": round(len(prompts) / seconds, 2),
            "tokens_per_s": round(tokens / seconds, 1),
            "padding_efficiency": round(sum(lengths) / padded, 4)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", help="model directory or hub id (default: a tiny random model)")
    ap.add_argument("--data", default=str(ROOT / "tests" / "data" / "n4.jsonl"))
    ap.add_argument("--items", type=int, default=256)
    ap.add_argument("--batch-sizes", default="1,16")
    ap.add_argument("--mode", choices=("logits", "generate"), default="logits")
    ap.add_argument("--max-new-tokens", type=int, default=8)
    ap.add_argument("--device", default="auto")
    ap.add_argument("--dtype", default="auto")
    ap.add_argument("--hidden", type=int, default=64, help="tiny model width (default 64)")
    ap.add_argument("--layers", type=int, default=2, help="tiny model depth (default 2)")
    ap.add_argument("--threads", type=int, default=0,
                    help="CPU threads for torch (0 = torch's default); 1 is steadier on a "
                         "shared machine")
    ap.add_argument("--json", help="also write the results here")
    args = ap.parse_args()

    items = load_items(Path(args.data), limit=args.items)
    prompter = Prompter()
    prompts = [prompter.render(item) for item in items]
    with tempfile.TemporaryDirectory() as tmp:
        model = args.model or str(build_tiny_model(Path(tmp) / "tiny", prompts, seed=0,
                                                   hidden=args.hidden, layers=args.layers))
        runner = HFRunner(model, device=args.device, dtype=args.dtype)
        if args.threads:
            runner.torch.set_num_threads(args.threads)
        rows = [measure(runner, prompts, int(b), args.mode, args.max_new_tokens)
                for b in args.batch_sizes.split(",")]
    ref = rows[0]
    for row in rows:
        row["items_ratio"] = round(row["items_per_s"] / ref["items_per_s"], 2)
    info = runner.describe()
    print(f"model {args.model or f'tiny random Llama (hidden {args.hidden}, {args.layers} layers)'}"
          f", {info['parameters']:,} parameters, {info['device']} {info['dtype']}, "
          f"{runner.torch.get_num_threads()} CPU thread(s), {args.mode} mode, "
          f"{len(prompts)} items of {Path(args.data).name}")
    print(f"{'batch':>6}{'batches':>9}{'items/s':>10}{'tokens/s':>11}{'padding eff.':>14}"
          f"{'vs first':>10}")
    for row in rows:
        print(f"{row['batch_size']:>6}{row['batches']:>9}{row['items_per_s']:>10,.1f}"
              f"{row['tokens_per_s']:>11,.0f}{row['padding_efficiency']:>14.3f}"
              f"{row['items_ratio']:>9.2f}x")
    if args.json:
        Path(args.json).write_text(json.dumps({"config": vars(args), "runner": info,
                                               "results": rows}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
