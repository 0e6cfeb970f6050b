"""The human-readable forms of an eval report: a Markdown table and a PNG bar chart.

``markdown_table(report)`` has one row per scope — Corr2Cause overall, per
relation, per number of variables, then one per CI-Bench/IE task — with the
scores against the oracle and, where the data has gold, against gold.
``bar_chart(report, path)`` draws per-relation F1 (per-task accuracy when there
are no Corr2Cause items) with matplotlib's Agg backend; without matplotlib it
returns a warning instead of a file.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from causal_oracle.clients.evaluate.data import CORR2CAUSE
from causal_oracle.clients.outputs import atomic_output


def _pct(x: float | None) -> str:
    return "—" if x is None else f"{100 * x:.1f}"


def _rows(report: dict[str, Any]) -> list[tuple[str, dict[str, Any], dict[str, Any] | None]]:
    metrics = report["metrics"]
    rows: list[tuple[str, dict[str, Any], dict[str, Any] | None]] = []
    c2c = metrics.get(CORR2CAUSE)
    if c2c:
        oracle, gold = c2c["oracle"], c2c.get("gold")
        rows.append(("Corr2Cause, all", oracle["overall"], gold and gold["overall"]))
        for name, s in oracle["by_relation"].items():
            rows.append((f"relation {name}", s, gold and gold["by_relation"].get(name)))
        for n, s in oracle["by_num_nodes"].items():
            rows.append((f"{n} variables", s, gold and gold["by_num_nodes"].get(n)))
    for task, entry in metrics.get("tasks", {}).items():
        rows.append((f"task {task}", entry["oracle"], entry.get("gold")))
    return rows


def _speed(timing: dict[str, Any]) -> str:
    """The model's speed, or that nothing ran (every item resumed from a results file)."""
    if timing.get("items_per_s") is None:
        return f"all {timing.get('items_resumed', 0)} items resumed from the results file"
    resumed = timing.get("items_resumed", 0)
    return (f"{timing['items_per_s']:,.1f} items/s, {timing['tokens_per_s']:,.0f} tokens/s"
            + (f" ({resumed} items resumed)" if resumed else ""))


def markdown_table(report: dict[str, Any]) -> str:
    """The report as a Markdown table, with a line of context above it."""
    cfg, timing, metrics = report["config"], report["timing"], report["metrics"]
    differ = sum(s.get("oracle_gold_differ", 0) for s in
                 [metrics.get(CORR2CAUSE, {}), *metrics.get("tasks", {}).values()])
    head = (f"Model `{cfg['model']}` on `{Path(cfg['data']).name}` ({cfg['mode']} mode): "
            f"{metrics['items']} items, {metrics['unreadable']} unreadable answers, "
            f"{metrics.get(CORR2CAUSE, {}).get('no_oracle_label', 0)} without an oracle "
            f"label (inconsistent premise); "
            f"oracle and gold differ on {differ} items; {_speed(timing)}.\n\n")
    lines = ["| scope | items | accuracy | precision | recall | F1 | unreadable "
             "| gold accuracy | gold F1 |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for name, s, g in _rows(report):
        lines.append(f"| {name} | {s['items']} | {_pct(s['accuracy'])} | "
                     f"{_pct(s.get('precision'))} | {_pct(s.get('recall'))} | "
                     f"{_pct(s.get('f1'))} | {s['unreadable']} | "
                     f"{_pct(g['accuracy']) if g else '—'} | "
                     f"{_pct(g.get('f1')) if g else '—'} |")
    foot = "\n\nScores in %, against the oracle's labels; \"gold\" columns against the " \
        "dataset's labels.\n"
    r = metrics.get("reasoning")
    if r:
        foot += (f"\nReasoning: {r['claims']} checkable claims in {r['reasoned']} replies, "
                 f"{r['false_claims']} false (score {_pct(r['reasoning_score'])} %); right "
                 f"answers that rest on a false claim: {r['lucky']} of {r['correct']} "
                 f"({_pct(r['lucky_share'])} %).\n")
    return head + "\n".join(lines) + foot


def bar_chart(report: dict[str, Any], path: Path) -> str | None:
    """Write the PNG chart to ``path``; returns a warning (and writes nothing) when
    matplotlib is missing or there is nothing to draw."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return "matplotlib is not installed: no chart (pip install 'causal-oracle[gpu]')"
    metrics = report["metrics"]
    c2c = metrics.get(CORR2CAUSE)
    series: dict[str, list[float]] = {}
    if c2c:
        names = list(c2c["oracle"]["by_relation"])
        series["F1 vs oracle"] = [c2c["oracle"]["by_relation"][n]["f1"] for n in names]
        if c2c.get("gold"):
            series["F1 vs gold"] = [c2c["gold"]["by_relation"].get(n, {}).get("f1", 0.0)
                                    for n in names]
        title, ylabel = "Corr2Cause F1 per relation", "F1"
    elif metrics.get("tasks"):
        names = list(metrics["tasks"])
        series["accuracy vs oracle"] = [metrics["tasks"][t]["oracle"]["accuracy"] for t in names]
        title, ylabel = "Accuracy per task", "accuracy"
    else:
        return "nothing to chart"
    fig, ax = plt.subplots(figsize=(max(4.0, 1.6 * len(names)), 3.6), dpi=100)
    width = 0.8 / len(series)
    for k, (label, values) in enumerate(series.items()):
        xs = [i + (k - (len(series) - 1) / 2) * width for i in range(len(names))]
        bars = ax.bar(xs, values, width, label=label)
        ax.bar_label(bars, labels=[f"{v:.2f}" for v in values], fontsize=7)
    ax.set_xticks(range(len(names)), [n.replace("_", " ") for n in names], fontsize=8)
    ax.set_ylim(0, 1.1)
    ax.set_ylabel(ylabel)
    ax.set_title(f"{title} — {report['config']['model']}", fontsize=9)
    ax.legend(fontsize=7, loc="upper right")
    fig.tight_layout()
    with atomic_output(path, "wb") as handle:
        fig.savefig(handle, format="png")
    plt.close(fig)
    return None
