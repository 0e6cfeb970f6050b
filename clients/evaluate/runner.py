"""Running a causal language model over prompts, in padded batches.

Two scoring modes (DESIGN.md §3.4 for how answers are read):

``logits``
    one forward pass per batch; the answer is whichever answer word (" Yes" / " No"
    by default) has the larger next-token logit after the prompt.  Every item gets
    an answer; ``p_yes`` is the softmax over the two words.  Only yes/no tasks
    (Corr2Cause, IE) can be scored this way; open answers (CP, BA, FI, CI) are
    always generated.
``generate``
    greedy decoding (``do_sample=False``) of at most ``max_new_tokens`` tokens; the
    answer grammar reads the text afterwards, and an answer it cannot read is
    counted as unreadable, never guessed.

Batching is padding-aware: ``plan_batches`` sorts prompts by token length
(longest first, so a batch that does not fit in memory fails at once) and packs
neighbours, at most ``batch_size`` prompts and at most ``max_tokens`` padded
tokens per batch.  Padding is on the left, and in the logits mode the position
ids skip the padding, so an item's answer does not depend on its batch-mates.

torch and transformers are imported only when a model is loaded: they live in
the optional ``gpu`` extra (``pip install 'causal-oracle[gpu]'``).
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from causal_oracle.clients.evaluate.model_files import gguf_import_error, locate_model
from causal_oracle.clients.evaluate.prompts import ANSWER_WORDS
from causal_oracle.entry import InputError

MODES = ("logits", "generate")
DTYPES = ("auto", "float32", "float16", "bfloat16")


@dataclass(frozen=True)
class Output:
    """What a model (or a baseline) answered to one prompt."""

    text: str                      # the answer text (logits mode: the chosen answer word)
    prediction: int | None = None  # 1 = yes/valid, 0 = no/invalid (logits mode only)
    p_yes: float | None = None     # logits mode: softmax of the two answer words
    tokens_in: int = 0             # prompt tokens (no padding)
    tokens_out: int = 0            # generated tokens (to the first end-of-sequence)


def plan_batches(lengths: Sequence[int], batch_size: int,
                 max_tokens: int | None = None) -> list[list[int]]:
    """Group the indices of ``lengths`` into batches, longest prompts first.

    A batch holds at most ``batch_size`` indices and, when ``max_tokens`` is given,
    at most ``max_tokens`` padded tokens (its size times its longest prompt; a
    prompt longer than ``max_tokens`` goes alone).  Ties keep the original order,
    so the plan is deterministic.

    >>> plan_batches([3, 9, 4, 9, 1], batch_size=2)
    [[1, 3], [2, 0], [4]]
    >>> plan_batches([3, 9, 4, 9, 1], batch_size=4, max_tokens=20)
    [[1, 3], [2, 0, 4]]
    """
    if batch_size < 1:
        raise InputError("the batch size must be at least 1")
    order = sorted(range(len(lengths)), key=lambda i: (-lengths[i], i))
    batches: list[list[int]] = []
    current: list[int] = []
    for i in order:
        if current and (len(current) >= batch_size or (
                max_tokens is not None and (len(current) + 1) * lengths[current[0]] > max_tokens)):
            batches.append(current)
            current = []
        current.append(i)
    if current:
        batches.append(current)
    return batches


def answer_token_ids(tokenizer: Any, word: str) -> list[int]:
    """First token ids of ``word`` with and without a leading space (deduplicated),
    never the unknown token; ``InputError`` when the vocabulary has neither."""
    ids: list[int] = []
    for variant in (" " + word.strip(), word.strip()):
        encoded = tokenizer.encode(variant, add_special_tokens=False)
        if encoded and encoded[0] not in ids and encoded[0] != tokenizer.unk_token_id:
            ids.append(encoded[0])
    if not ids:
        raise InputError(f"the answer word {word!r} is not in the model's vocabulary")
    return ids


def answer_ids_of(tokenizer: Any, words: Sequence[str]) -> tuple[list[int], ...]:
    """``answer_token_ids`` of each answer word; ``InputError`` when the two words
    (yes, no) share a first token, so that their logits could not tell them apart."""
    ids = tuple(answer_token_ids(tokenizer, w) for w in words)
    if set(ids[0]) & set(ids[1]):
        raise InputError(f"the answer words {words[0]!r} and {words[1]!r} share a first token")
    return ids


def cut_at_stop(text: str, stop: Sequence[str]) -> str:
    """``text`` up to (without) the earliest stop string, as vLLM returns it.

    >>> cut_at_stop("Yes.\\nBecause", ["\\n", "."])
    'Yes'
    """
    cut = len(text)
    for s in stop:
        at = text.find(s) if s else -1
        if 0 <= at < cut:
            cut = at
    return text[:cut]


def _import_torch() -> tuple[Any, Any]:
    try:
        import torch
        import transformers
    except ImportError as error:
        raise InputError("running a model needs torch and transformers: "
                         "pip install 'causal-oracle[gpu]' (or use a baseline: majority, "
                         "random-uniform, random-proportional, oracle)") from error
    return torch, transformers


def resolve_device(device: str, torch: Any) -> str:
    if device == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    return device


def resolve_dtype(dtype: str, device: str, torch: Any) -> Any:
    if dtype == "auto":
        if device.startswith("cuda"):
            return torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16
        return torch.float32
    if dtype not in DTYPES:
        raise InputError(f"unknown dtype {dtype!r}; expected one of {', '.join(DTYPES)}")
    return getattr(torch, dtype)


class HFRunner:
    """A Hugging Face causal LM (a local directory, a GGUF file or a hub id:
    ``model_files.locate_model``) and its tokenizer."""

    def __init__(self, model: str, *, device: str = "auto", dtype: str = "auto",
                 seed: int = 0, answer_words: Sequence[str] = ANSWER_WORDS,
                 stop: Sequence[str] = ()) -> None:
        files = locate_model(model)
        torch, transformers = _import_torch()
        transformers.logging.disable_progress_bar()
        model = files.describe()
        self.torch = torch
        torch.manual_seed(seed)
        self.device = resolve_device(device, torch)
        self.dtype = resolve_dtype(dtype, self.device, torch)
        source, kwargs = files.from_pretrained_args()
        try:
            tok = transformers.AutoTokenizer.from_pretrained(source, **kwargs)
            net = transformers.AutoModelForCausalLM.from_pretrained(source, dtype=self.dtype,
                                                                    **kwargs)
        except ImportError as error:
            if files.is_gguf:
                raise gguf_import_error(error, files) from error
            raise
        except (OSError, ValueError) as error:
            raise InputError(f"cannot load model {model!r}: {error}") from error
        tok.padding_side = "left"
        if tok.pad_token is None:
            if tok.eos_token is None:
                raise InputError(f"model {model!r}: the tokenizer has neither a padding nor "
                                 "an end-of-sequence token")
            tok.pad_token = tok.eos_token
        self.tokenizer = tok
        self.model = net.to(self.device).eval()
        self.name = model
        # the lm head on the last position only (transformers >= 4.50 models accept it)
        self._keeps_logits = "logits_to_keep" in inspect.signature(net.forward).parameters
        self.stop = tuple(s for s in stop if s)
        self.answer_words = tuple(answer_words)
        self.answer_ids = answer_ids_of(self.tokenizer, self.answer_words)

    def describe(self) -> dict[str, Any]:
        return {"engine": "hf", "model": self.name, "device": self.device, "dtype": str(self.dtype),
                "answer_words": list(self.answer_words),
                "parameters": sum(p.numel() for p in self.model.parameters())}

    def token_lengths(self, prompts: Sequence[str]) -> list[int]:
        if not prompts:
            return []
        return [len(ids) for ids in self.tokenizer(list(prompts))["input_ids"]]

    def _encode(self, prompts: Sequence[str]) -> Any:
        enc = self.tokenizer(list(prompts), return_tensors="pt", padding=True)
        return {k: v.to(self.device) for k, v in enc.items() if k in ("input_ids",
                                                                     "attention_mask")}

    def logits(self, prompts: Sequence[str]) -> list[Output]:
        torch = self.torch
        enc = self._encode(prompts)
        mask = enc["attention_mask"]
        positions = (mask.long().cumsum(-1) - 1).clamp(min=0)
        extra = {"logits_to_keep": 1} if self._keeps_logits else {}
        with torch.inference_mode():
            last = self.model(**enc, position_ids=positions, **extra).logits[:, -1, :].float()
        yes = torch.logsumexp(last[:, self.answer_ids[0]], dim=-1)
        no = torch.logsumexp(last[:, self.answer_ids[1]], dim=-1)
        p_yes = torch.sigmoid(yes - no).tolist()
        lengths = mask.sum(-1).tolist()
        out = []
        for p, y, n, length in zip(p_yes, yes.tolist(), no.tolist(), lengths, strict=True):
            pred = int(y > n)
            out.append(Output(self.answer_words[0] if pred else self.answer_words[1], pred,
                              round(float(p), 6), int(length), 0))
        return out

    def generate(self, prompts: Sequence[str], max_new_tokens: int) -> list[Output]:
        torch = self.torch
        enc = self._encode(prompts)
        width = enc["input_ids"].shape[1]
        # stop strings cut the text afterwards (transformers' own ``stop_strings`` cannot
        # read every tokenizer's vocabulary, e.g. a word-level one)
        with torch.inference_mode():
            seqs = self.model.generate(**enc, max_new_tokens=max_new_tokens, do_sample=False,
                                       num_beams=1, pad_token_id=self.tokenizer.pad_token_id)
        new = seqs[:, width:].tolist()
        eos = self.tokenizer.eos_token_id
        lengths = enc["attention_mask"].sum(-1).tolist()
        out = []
        for ids, length in zip(new, lengths, strict=True):
            if eos is not None and eos in ids:
                ids = ids[:ids.index(eos) + 1]
            text = self.tokenizer.decode(ids, skip_special_tokens=True)
            text = cut_at_stop(text, self.stop)  # as vLLM returns it
            out.append(Output(text.strip(), None, None, int(length), len(ids)))
        return out
