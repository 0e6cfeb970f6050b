"""``eval --reasoning --server``: the reasoning columns through the gRPC ``Answer`` call
with ``reasoning``, equal to the in-process ones (a server started here)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_grpc_service import ServerThread

from causal_oracle.clients.evaluate import EvalConfig, run_eval
from causal_oracle.clients.evaluate.baselines import Reference
from causal_oracle.clients.evaluate.data import Item
from causal_oracle.clients.evaluate.job import score
from causal_oracle.clients.evaluate.runner import Output
from causal_oracle.clients.evaluate.scoring import make_scorer
from causal_oracle.clients.remote import OracleClient
from causal_oracle.clients.remote_oracle import RemoteOracle
from causal_oracle.entry import InputError, default, split_input
from causal_oracle.entry.reasoning import check_reasoning

DATA = Path(__file__).parent / "data"
COLLIDER = ("Premise: Suppose there is a closed system of 3 variables, A, B and C. All the "
            "statistical relations among these 3 variables are as follows: A correlates with "
            "C. B correlates with C. However, A is independent of B.\nHypothesis: A directly "
            "causes C.")
CALM = ("给定如下因果图：A导致E, A导致D, A导致F, B导致D, B导致F, C导致E, 以及D导致E。\n"
        "问题：E是F的祖先节点吗？\n答案（是或否？）：")


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    thread = ServerThread(workers=1, grace=1.0)
    thread.start()
    try:
        yield thread.target
    finally:
        thread.stop(grace=1.0)


def _items() -> list[tuple[Item, Reference, str]]:
    premise, hypothesis = split_input(COLLIDER)
    yes = Reference(label=1, relation="entailment", answer_text="Yes")
    out = [(Item(key="c", row=1, task="corr2cause", prompt=COLLIDER, premise=premise,
                 hypothesis=hypothesis, gold=1), yes, reply)
           for reply in ("C is a collider between A and B. C causes A. Answer: Yes",
                         "A and B are independent. Answer: No", "Yes",
                         "A correlates with C. A and C are independent given B. Answer: Yes")]
    no = Reference(label=None, relation=None, answer_text="否")
    out += [(Item(key="z", row=2, task="CA-B_FA", prompt=CALM, gold="否"), no, reply)
            for reply in ("A导致D，D导致E，所以A是E的祖先节点。E不是F的祖先节点。因此答案为“否”。",
                          "E导致F，所以E是F的祖先节点。答案：是")]
    for line in (DATA / "reasoning" / "chains.jsonl").read_text().splitlines()[:6]:
        r = json.loads(line)
        if r["prompt"].startswith("Premise:"):
            premise, hypothesis = split_input(r["prompt"])
            out.append((Item(key=r["id"], row=3, task="corr2cause", prompt=r["prompt"],
                             premise=premise, hypothesis=hypothesis, gold=None),
                        Reference(label=None, relation=None, answer_text=""), r["reply"]))
    return out


def test_the_remote_scorer_gives_the_in_process_reasoning_columns(server: str) -> None:
    local, remote = make_scorer(reasoning=True), make_scorer(server, reasoning=True)
    assert remote.name == "grpc" and remote.reasoning
    seen = []
    for item, ref, reply in _items():
        here = score(item, ref, Output(reply), local)
        there = score(item, ref, Output(reply), remote)
        assert there["reasoning"] == here["reasoning"], (item.key, reply)
        seen.append(here["reasoning"])
    assert any(r["lucky"] for r in seen) and any(r["false_claims"] for r in seen)
    assert any(r["unsupported"] for r in seen) and any(r["claims"] >= 3 for r in seen)


def test_the_claims_and_witnesses_come_back_whole(server: str) -> None:
    reply = "E导致F，所以E是F的祖先节点。答案：是"
    with OracleClient(server, timeout=60) as client:
        got = RemoteOracle(client).check_reasoning(CALM, reply, "CA-B_FA")
        with pytest.raises(InputError, match="profile"):
            RemoteOracle(client).check_reasoning(CALM, reply, profile="strict")
    want = check_reasoning(default(), CALM, reply, "CA-B_FA").to_json()
    assert got == {k: v for k, v in want.items() if k not in ("family", "task", "final")}
    assert [c["verdict"] for c in got["claims"]] == ["false", "false", "false"]


def test_eval_reasoning_with_server_equals_in_process(server: str, tmp_path: Path) -> None:
    data = tmp_path / "small.jsonl"
    lines = (DATA.parent.parent / "examples" / "corr2cause_sample.jsonl").read_text(
    ).splitlines()[:12]
    data.write_text("\n".join(lines) + "\n")
    cfg = {"model": "oracle", "data": data, "seed": 3, "reasoning": True}
    local = run_eval(EvalConfig(report=tmp_path / "local.json", **cfg))
    remote = run_eval(EvalConfig(report=tmp_path / "remote.json", server=server, **cfg))
    assert remote["config"]["scorer"] == "grpc"
    assert remote["metrics"]["reasoning"] == local["metrics"]["reasoning"]
    assert local["metrics"]["reasoning"]["reasoned"] == 12
