"""Inference engines: what runs the model, behind one small interface.

The evaluation loop (``run``) and the Ray pipeline (``ray_pipeline``) ask an
``Engine`` for four things and nothing else:

``token_lengths(prompts)``
    prompt lengths in tokens, for padding-aware batching (``runner.plan_batches``);
``logits(prompts)``
    the logits mode: which answer word ("Yes"/"No" by default) is likelier as the
    next token, and ``p_yes``, the softmax over the two words;
``generate(prompts, max_new_tokens)``
    greedy decoding of at most ``max_new_tokens`` tokens, cut at the first stop
    string (the answer grammar reads the text afterwards);
``describe()``
    what the report records about the engine.

Two engines:

``hf`` (default, ``runner.HFRunner``)
    Hugging Face ``transformers`` in this process: padded batches, one forward
    pass per batch in the logits mode, ``generate(do_sample=False)`` otherwise.
    Runs on CPU or GPU (the ``gpu`` extra); reads a GGUF file too
    (``model_files``: dequantised on load, e.g. the ``smollm`` extra's
    SmolLM2-135M-Instruct — a real instruct model with no download).
``vllm`` (``VLLMEngine``)
    vLLM's offline ``LLM`` (the ``vllm`` extra; a CUDA GPU is required): paged
    attention, continuous batching and automatic prefix caching — every
    Corr2Cause prompt shares the long instruction of the template, so its KV
    cache is computed once.  Greedy ``SamplingParams(temperature=0)`` with
    ``max_tokens`` and ``stop`` for the generate mode.  The logits mode scores
    each answer-word token by its log-probability as a continuation of the
    prompt: one request ``prompt + [token]`` with ``prompt_logprobs=0`` and
    ``max_tokens=1`` per candidate token (the way lm-evaluation-harness scores
    log-likelihoods on vLLM), then ``p_yes = sigmoid(logsumexp(yes) -
    logsumexp(no))`` — the same quantity the ``hf`` engine computes from raw
    logits, since both log-probabilities share one normaliser.

Both engines read answer words the same way (``answer_ids_of``: the first
token of the word with and without a leading space), so an item's answer does
not depend on the engine beyond floating-point noise.  ``make_engine`` picks one
by name and turns every missing piece (package, GPU) into an ``InputError``
(CLI exit status 2) that says what to install or use instead.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Protocol

from causal_oracle.clients.evaluate.model_files import gguf_import_error, locate_model
from causal_oracle.clients.evaluate.prompts import ANSWER_WORDS
from causal_oracle.clients.evaluate.runner import HFRunner, Output, answer_ids_of
from causal_oracle.entry import InputError

ENGINES = ("hf", "vllm")
VLLM_INSTALL_HINT = ("pip install 'causal-oracle[vllm]' on a machine with a CUDA GPU "
                     "(or use --engine hf)")


class Engine(Protocol):
    """What the evaluation loop needs from an inference engine."""

    def describe(self) -> dict[str, Any]: ...

    def token_lengths(self, prompts: Sequence[str]) -> list[int]: ...

    def logits(self, prompts: Sequence[str]) -> list[Output]: ...

    def generate(self, prompts: Sequence[str], max_new_tokens: int) -> list[Output]: ...


def _logsumexp(values: Sequence[float]) -> float:
    top = max(values)
    if top == -math.inf:
        return top
    return top + math.log(sum(math.exp(v - top) for v in values))


def _sigmoid(x: float) -> float:
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


def _import_vllm() -> Any:
    try:
        import vllm
    except ImportError as error:
        raise InputError(f"--engine vllm needs the vllm package, which is not installed: "
                         f"{VLLM_INSTALL_HINT}") from error
    return vllm


def _has_cuda() -> bool:
    try:
        import torch
    except ImportError:
        return False
    return bool(torch.cuda.is_available())


class VLLMEngine:
    """vLLM's offline ``LLM`` on the GPU(s) of this process (see the module docstring)."""

    def __init__(self, model: str, *, device: str = "auto", dtype: str = "auto",
                 seed: int = 0, answer_words: Sequence[str] = ANSWER_WORDS,
                 stop: Sequence[str] = (), tensor_parallel_size: int = 1,
                 gpu_memory_utilization: float = 0.9) -> None:
        # vLLM reads a GGUF file given as the model itself (its tokenizer too, slowly)
        model = locate_model(model).describe()
        vllm = _import_vllm()
        if device != "auto" and not device.startswith("cuda"):
            raise InputError(f"--engine vllm runs on a CUDA GPU, not on {device!r}; "
                             "use --engine hf for the CPU")
        if not _has_cuda():
            raise InputError("--engine vllm needs a CUDA GPU and none is visible here "
                             "(torch.cuda.is_available() is False); use --engine hf")
        self.vllm, self.model_name, self.seed = vllm, model, seed
        self.dtype = dtype
        self.stop = tuple(stop)
        try:
            self.llm = vllm.LLM(model=model, dtype=dtype, seed=seed,
                                enable_prefix_caching=True,
                                tensor_parallel_size=tensor_parallel_size,
                                gpu_memory_utilization=gpu_memory_utilization)
        except (OSError, ValueError) as error:
            raise InputError(f"cannot load model {model!r} into vLLM: {error}") from error
        self.tokenizer = self.llm.get_tokenizer()
        self.answer_words = tuple(answer_words)
        self.answer_ids = answer_ids_of(self.tokenizer, self.answer_words)

    def describe(self) -> dict[str, Any]:
        return {"engine": "vllm", "model": self.model_name, "device": "cuda", "dtype": self.dtype,
                "answer_words": list(self.answer_words), "prefix_caching": True,
                "stop": list(self.stop),
                "vllm_version": str(getattr(self.vllm, "__version__", "unknown"))}

    def _encode(self, prompts: Sequence[str]) -> list[list[int]]:
        return [list(self.tokenizer.encode(p)) for p in prompts]

    def token_lengths(self, prompts: Sequence[str]) -> list[int]:
        return [len(ids) for ids in self._encode(prompts)]

    def logit_requests(self, prompts: Sequence[str]) -> tuple[list[dict[str, Any]], Any]:
        """One ``prompt + [candidate]`` token prompt per prompt and candidate token (the
        positive word's candidates first), and the ``SamplingParams`` that return the
        candidate's log-probability as the last prompt log-prob."""
        candidates = [*self.answer_ids[0], *self.answer_ids[1]]
        requests = [{"prompt_token_ids": [*ids, c]}
                    for ids in self._encode(prompts) for c in candidates]
        params = self.vllm.SamplingParams(temperature=0.0, max_tokens=1, prompt_logprobs=0,
                                          detokenize=False, seed=self.seed)
        return requests, params

    def logits(self, prompts: Sequence[str]) -> list[Output]:
        requests, params = self.logit_requests(prompts)
        results = self.llm.generate(requests, params, use_tqdm=False)
        n_yes, width = len(self.answer_ids[0]), len(self.answer_ids[0]) + len(self.answer_ids[1])
        out = []
        for k in range(len(prompts)):
            scores = []
            for j in range(width):
                result = results[k * width + j]
                token = result.prompt_token_ids[-1]
                scores.append(float(result.prompt_logprobs[-1][token].logprob))
            yes, no = _logsumexp(scores[:n_yes]), _logsumexp(scores[n_yes:])
            pred = int(yes > no)
            out.append(Output(self.answer_words[0] if pred else self.answer_words[1], pred,
                              round(_sigmoid(yes - no), 6),
                              len(results[k * width].prompt_token_ids) - 1, 0))
        return out

    def generate_params(self, max_new_tokens: int) -> Any:
        """Greedy decoding: temperature 0, at most ``max_new_tokens``, cut at ``stop``."""
        return self.vllm.SamplingParams(temperature=0.0, max_tokens=max_new_tokens,
                                        stop=list(self.stop) or None, seed=self.seed)

    def generate(self, prompts: Sequence[str], max_new_tokens: int) -> list[Output]:
        requests = [{"prompt_token_ids": ids} for ids in self._encode(prompts)]
        results = self.llm.generate(requests, self.generate_params(max_new_tokens),
                                    use_tqdm=False)
        out = []
        for result in results:
            completion = result.outputs[0]
            out.append(Output(completion.text.strip(), None, None,
                              len(result.prompt_token_ids), len(completion.token_ids)))
        return out


def make_engine(engine: str, model: str, *, device: str = "auto", dtype: str = "auto",
                seed: int = 0, answer_words: Sequence[str] = ANSWER_WORDS,
                stop: Sequence[str] = ()) -> Engine:
    """The engine called ``engine`` (``hf`` or ``vllm``) with ``model`` loaded."""
    if engine == "hf":
        return HFRunner(model, device=device, dtype=dtype, seed=seed,
                        answer_words=answer_words, stop=stop)
    if engine == "vllm":
        return VLLMEngine(model, device=device, dtype=dtype, seed=seed,
                          answer_words=answer_words, stop=stop)
    raise InputError(f"unknown engine {engine!r}; expected one of {', '.join(ENGINES)}")


def load_tokenizer(model: str) -> Any:
    """The model's tokenizer alone (no weights): what plans batches on a Ray driver."""
    try:
        import transformers
    except ImportError as error:
        raise InputError("planning batches needs transformers: pip install "
                         "'causal-oracle[gpu]'") from error
    files = locate_model(model)
    source, kwargs = files.from_pretrained_args()
    try:
        return transformers.AutoTokenizer.from_pretrained(source, **kwargs)
    except ImportError as error:
        if files.is_gguf:
            raise gguf_import_error(error, files) from error
        raise
    except (OSError, ValueError) as error:
        raise InputError(f"cannot load the tokenizer of {model!r}: {error}") from error


__all__ = ["ENGINES", "Engine", "VLLMEngine", "load_tokenizer", "make_engine"]
