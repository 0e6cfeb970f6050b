"""The engine layer of ``causal-oracle eval``: ``--engine hf|vllm``.

vLLM needs a CUDA GPU and a CUDA build of torch, so it is never installed for the
tests.  Its engine is exercised against a fake ``vllm`` module put in
``sys.modules``: the fake records what the engine asks for (the ``LLM`` options,
the token prompts, the ``SamplingParams``) and answers with log-probabilities
chosen here, so the engine's request building and its reading of the answers
are checked exactly.  The errors a user meets without the package or without a
GPU are checked through the CLI (exit status 2, a hint, no traceback).
"""

from __future__ import annotations

import json
import math
import sys
import types
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import pytest

from causal_oracle.clients.cli import main
from causal_oracle.clients.evaluate import engines
from causal_oracle.clients.evaluate.engines import VLLMEngine, make_engine
from causal_oracle.clients.evaluate.runner import cut_at_stop
from causal_oracle.oracle.errors import InputError

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "examples" / "corr2cause_sample.jsonl"


class WordTokenizer:
    """Whitespace words; a fixed vocabulary grown on first sight; BOS = 1, UNK = 0."""

    unk_token_id = 0

    def __init__(self) -> None:
        self.vocab: dict[str, int] = {"[UNK]": 0, "[BOS]": 1, "Yes": 2, "No": 3}

    def encode(self, text: str, add_special_tokens: bool = True) -> list[int]:
        ids = [self.vocab.setdefault(w, len(self.vocab)) for w in text.split()]
        return [1, *ids] if add_special_tokens else ids

    def decode(self, ids: list[int]) -> str:
        words = {i: w for w, i in self.vocab.items()}
        return " ".join(words[i] for i in ids)


@dataclass
class Logprob:
    logprob: float


@dataclass
class Completion:
    text: str
    token_ids: list[int]


@dataclass
class Result:
    prompt_token_ids: list[int]
    prompt_logprobs: list[dict[int, Logprob] | None] | None
    outputs: list[Completion] = field(default_factory=list)


class SamplingParams:
    def __init__(self, **kwargs: Any) -> None:
        self.kwargs = kwargs


class FakeLLM:
    """Answers "Yes" (log-prob -0.5, "No" -1.5) when the prompt has an even number of
    tokens, the other way round when odd; generates "Yes . because" (cut at stop)."""

    instances: ClassVar[list[FakeLLM]] = []

    def __init__(self, **kwargs: Any) -> None:
        self.kwargs = kwargs
        self.tokenizer = WordTokenizer()
        self.calls: list[tuple[list[dict[str, Any]], SamplingParams]] = []
        FakeLLM.instances.append(self)

    def get_tokenizer(self) -> WordTokenizer:
        return self.tokenizer

    @staticmethod
    def logprob(prompt: list[int], token: int) -> float:
        yes_first = len(prompt) % 2 == 0
        return {2: -0.5 if yes_first else -1.5, 3: -1.5 if yes_first else -0.5}[token]

    def generate(self, requests: list[dict[str, Any]], params: SamplingParams,
                 use_tqdm: bool = True) -> list[Result]:
        self.calls.append((requests, params))
        out = []
        for request in requests:
            ids = request["prompt_token_ids"]
            if params.kwargs.get("prompt_logprobs") is not None:
                last = {ids[-1]: Logprob(self.logprob(ids[:-1], ids[-1]))}
                out.append(Result(ids, [None] * (len(ids) - 1) + [last],
                                  [Completion("", [5])]))
            else:
                text = "Yes . because"
                for stop in params.kwargs.get("stop") or ():
                    text = text.split(stop, 1)[0]
                out.append(Result(ids, None, [Completion(text, [2, 7, 9][:len(text.split())
                                                                          + 1])]))
        return out


@pytest.fixture
def fake_vllm(monkeypatch: pytest.MonkeyPatch) -> types.ModuleType:
    module = types.ModuleType("vllm")
    module.__version__ = "0.0-fake"  # type: ignore[attr-defined]
    module.LLM = FakeLLM  # type: ignore[attr-defined]
    module.SamplingParams = SamplingParams  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "vllm", module)
    monkeypatch.setattr(engines, "_has_cuda", lambda: True)
    FakeLLM.instances.clear()
    return module


def _eval(tmp_path: Path, *extra: str) -> int:
    return main(["eval", "--model", str(tmp_path), "--data", str(SAMPLE), "--limit", "3",
                 "--report", str(tmp_path / "out" / "r.json"), "--quiet", *extra])


def test_vllm_missing_is_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setitem(sys.modules, "vllm", None)  # import vllm raises ImportError
    assert _eval(tmp_path, "--engine", "vllm") == 2
    err = capsys.readouterr().err
    assert "vllm package, which is not installed" in err
    assert "pip install 'causal-oracle[vllm]'" in err and "Traceback" not in err


def test_vllm_without_gpu_is_a_clear_error(tmp_path: Path, fake_vllm: types.ModuleType,
                                           monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(engines, "_has_cuda", lambda: False)
    assert _eval(tmp_path, "--engine", "vllm") == 2
    assert "needs a CUDA GPU and none is visible" in capsys.readouterr().err
    monkeypatch.setattr(engines, "_has_cuda", lambda: True)
    assert _eval(tmp_path, "--engine", "vllm", "--device", "cpu") == 2
    assert "use --engine hf for the CPU" in capsys.readouterr().err
    assert not FakeLLM.instances  # refused before any model was loaded


def test_unknown_engine_and_missing_model_dir() -> None:
    with pytest.raises(InputError, match="unknown engine"):
        make_engine("tgi", "m")
    with pytest.raises(InputError, match="no such model directory"):
        VLLMEngine("/nonexistent/model/dir")


def test_vllm_engine_builds_its_requests(tmp_path: Path, fake_vllm: types.ModuleType) -> None:
    engine = VLLMEngine(str(tmp_path), seed=7, stop=("\n",))
    llm = FakeLLM.instances[0]
    assert llm.kwargs["enable_prefix_caching"] is True
    assert llm.kwargs["model"] == str(tmp_path) and llm.kwargs["seed"] == 7
    assert engine.answer_ids == ([2], [3])

    prompts = ["a b c", "a b c d"]  # 4 and 5 tokens with BOS
    requests, params = engine.logit_requests(prompts)
    bos_a = [1, *llm.tokenizer.encode("a b c", add_special_tokens=False)]
    assert requests[0] == {"prompt_token_ids": [*bos_a, 2]}  # prompt + " Yes"
    assert requests[1] == {"prompt_token_ids": [*bos_a, 3]}  # prompt + " No"
    assert len(requests) == 4
    assert params.kwargs["prompt_logprobs"] == 0 and params.kwargs["max_tokens"] == 1
    assert params.kwargs["temperature"] == 0.0

    out = engine.logits(prompts)
    assert [o.prediction for o in out] == [1, 0] and [o.text for o in out] == ["Yes", "No"]
    assert out[0].p_yes == pytest.approx(1 / (1 + math.exp(-1.0)), abs=1e-6)
    assert out[1].p_yes == pytest.approx(1 - out[0].p_yes, abs=1e-6)
    assert [o.tokens_in for o in out] == [4, 5]

    gen = engine.generate_params(6)
    assert gen.kwargs["temperature"] == 0.0 and gen.kwargs["max_tokens"] == 6
    assert gen.kwargs["stop"] == ["\n"]
    generated = engine.generate(["a b"], 6)
    assert generated[0].text == "Yes . because" and generated[0].tokens_in == 3
    assert engine.describe()["prefix_caching"] is True


def test_eval_engine_vllm_end_to_end_with_the_fake(tmp_path: Path,
                                                   fake_vllm: types.ModuleType) -> None:
    assert _eval(tmp_path, "--engine", "vllm", "--batch-size", "2") == 0
    report = json.loads((tmp_path / "out" / "r.json").read_text(encoding="utf-8"))
    assert report["config"]["runner"]["engine"] == "vllm"
    lines = (tmp_path / "out" / "r.results.jsonl").read_text(encoding="utf-8").splitlines()
    records = [json.loads(line) for line in lines[1:]]
    assert len(records) == 3 and all(r["mode"] == "logits" for r in records)
    # the fake's rule: "Yes" iff the prompt (BOS included) has an even number of tokens
    assert all(r["prediction"] == int(r["tokens_in"] % 2 == 0) for r in records)
    assert {r["prediction"] for r in records} <= {0, 1}

    assert _eval(tmp_path, "--engine", "vllm", "--mode", "generate", "--stop", ".",
                 "--fresh") == 0
    lines = (tmp_path / "out" / "r.results.jsonl").read_text(encoding="utf-8").splitlines()
    records = [json.loads(line) for line in lines[1:]]
    assert all(r["answer_text"] == "Yes" and r["prediction"] == 1 for r in records)
    assert json.loads(lines[0])["config"]["stop"] == ["."]


def test_cut_at_stop() -> None:
    assert cut_at_stop("Yes.\nNo", ["\n"]) == "Yes."
    assert cut_at_stop("Yes.\nNo", ["\n", "."]) == "Yes"
    assert cut_at_stop("Yes", []) == "Yes"
    assert cut_at_stop("Yes", [""]) == "Yes"


def test_hf_engine_cuts_generation_at_stop_strings(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch")
    pytest.importorskip("transformers")
    from causal_oracle.clients.evaluate.tiny import build_tiny_model

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        texts = ["Yes . No , A B C D correlates with"]
        model = build_tiny_model(tmp_path / "tiny", texts, seed=1, answer_scale=3.0)
        free = make_engine("hf", str(model), device="cpu")
        stopped = make_engine("hf", str(model), device="cpu", stop=(".", ","))
        prompts = ["A correlates with B", "C correlates with D ."]
        plain = free.generate(prompts, 8)
        cut = stopped.generate(prompts, 8)
        assert any("." in a.text or "," in a.text for a in plain)  # something to cut
        for a, b in zip(plain, cut, strict=True):
            assert "." not in b.text and "," not in b.text
            assert b.text == cut_at_stop(a.text, (".", ",")).strip()
        assert stopped.describe()["engine"] == "hf"
    finally:
        torch.set_num_threads(threads)


def test_ray_missing_is_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray raises ImportError
    monkeypatch.setitem(sys.modules, "ray.data", None)
    assert _eval(tmp_path, "--ray") == 2
    err = capsys.readouterr().err
    assert "--ray needs Ray Data" in err and "causal-oracle[ray]" in err
