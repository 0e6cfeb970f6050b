"""Certified procedural datasets: the part every causal environment shares.

A *procedural dataset* (Reasoning Gym's ``ProceduralDataset``) is an endless, seeded
supply of items: ``dataset[idx]`` is a pure function of ``seed + idx``, each item is
``{"question", "answer", "metadata"}``, and ``score_answer(answer, entry)`` grades a
model's reply.  A ``CertifiedDataset`` draws each item with the entry layer (a
generator in ``entry/`` that writes a benchmark's own text and lets the oracle answer
it), so every answer is certified, and it grades a reply through the entry layer as
every surface does:

* 1.0 — the reply is right;
* 0.0 — it is wrong, or cannot be read as an answer;
* NaN (with a logged reason) — the verifier could not finish (budget, limits), or the
  item has no right answer; never a silent 0.

With the ``reasoning_weight`` knob (0 by default: off, every score unchanged) a scored
reply also earns that weight × ``reasoning_score``: the share of its checkable causal
claims that are true against the certificate (``entry.reasoning``; 0 without one).

A configuration is checked when it is made (``environments.knobs``: every knob's type,
unknown knobs), then its ranges (the knobs' own ``validate``), and a dataset *probes*
its configuration once when made: every relation, task or balanced target an item may
ask for is searched once with a fixed seed (the generator's ``probe``), so a
combination no item can meet fails at creation, not at the item that first asks for it.

``metadata["item"]`` is the text the oracle answered and ``metadata["task"]`` the task
it was read as, so a reply is graded against the text itself, not a stored label.

Without ``reasoning-gym`` installed the same classes work standalone: the fallback
``ProceduralDataset`` below has Reasoning Gym's interface (``config``, ``seed``,
``size``, ``len``, indexing, iteration, ``score_answer``).

    >>> HAVE_REASONING_GYM in (True, False)
    True
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import math
import random
from abc import abstractmethod
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from causal_oracle.entry import BudgetExceeded, InputError, default
from causal_oracle.entry.reasoning import check_reasoning
from causal_oracle.environments.knobs import check_knobs, configuration

#: further seeds an item is drawn from when one draw's search runs out (``_drawn``)
REDRAWS = 4

log = logging.getLogger("causal_oracle.environments")

try:  # Reasoning Gym's base class when it is installed (the rl extra)
    from reasoning_gym.dataset import ProceduralDataset
    HAVE_REASONING_GYM = True
except ImportError:  # the same interface, standalone
    HAVE_REASONING_GYM = False

    class ProceduralDataset:  # type: ignore[no-redef]
        """Reasoning Gym's dataset interface: ``config``, ``seed``, ``size``, indexing,
        iteration and ``score_answer``."""

        def __init__(self, config: Any, seed: int | None = None, size: int = 500) -> None:
            if hasattr(config, "validate"):
                config.validate()
            self.config, self.size = config, size
            self.seed = seed if seed is not None else random.Random().randint(0, 2 ** 32)

        def __len__(self) -> int:
            return self.size

        def __iter__(self) -> Iterator[dict[str, Any]]:
            return (self[i] for i in range(self.size))

        def __getitem__(self, idx: int) -> dict[str, Any]:
            raise NotImplementedError


@dataclass
class SeedAndSize:
    """A dataset config's ``seed`` and ``size``, put before its knobs:
    ``class MyConfig(SeedAndSize, MyKnobs)`` (its ``validate`` checks every knob's type,
    the size, then the knobs' own ranges)."""

    seed: int | None = None
    size: int = 500
    #: × the share of the reply's checkable causal claims that are true (0: off)
    reasoning_weight: float = 0.0

    def validate(self) -> None:
        check_knobs(self)
        if self.size < 0:
            raise InputError(f"size must be a whole number >= 0, not {self.size!r}")
        knobs = getattr(super(), "validate", None)
        if knobs is not None:
            knobs()


class CertifiedDataset(ProceduralDataset):  # type: ignore[misc]
    """A dataset whose item ``idx`` is ``draw(random.Random(seed + idx))`` and whose
    replies are graded by the oracle (see the module docstring).

    Subclasses set ``name`` and implement ``draw``, which returns the item's
    ``question`` and ``answer`` and whatever else belongs in its metadata, including
    ``item`` (the text the oracle answers), ``task`` and ``difficulty`` (the measured
    knobs).  ``accepts`` may refuse replies that read correctly but are not of the
    asked form (a 3-class dataset wants a relation word).
    """

    name: str = ""

    def __init__(self, config: Any) -> None:
        config.validate()
        super().__init__(config=config, seed=config.seed, size=config.size)
        key = (type(self), knob_values(config))
        if key not in _PROBED:
            try:
                self.probe()
                found = None
            except InputError as error:
                found = error
            if len(_PROBED) >= PROBES_KEPT:
                _PROBED.clear()
            _PROBED[key] = found
        infeasible = _PROBED[key]
        if infeasible is not None:
            raise InputError(infeasible.message)

    def probe(self) -> None:
        """``InputError`` naming the knobs when some item the configuration may ask for
        cannot be drawn (each dataset asks its generator; run once per configuration)."""

    @abstractmethod
    def draw(self, rng: random.Random) -> dict[str, Any]:
        """One item drawn with ``rng`` (deterministic in its state)."""

    def __getitem__(self, idx: int) -> dict[str, Any]:
        if isinstance(idx, bool) or not isinstance(idx, int) or idx < 0:
            raise IndexError(f"index {idx!r}: items are numbered 0, 1, 2, … (size bounds "
                             f"iteration only: item idx is drawn from seed + idx)")
        item = self._drawn(idx)
        metadata = {k: v for k, v in item.items() if k not in ("question", "answer")}
        metadata.update(source_dataset=self.name, source_index=idx)
        return {"question": item["question"], "answer": item["answer"],
                "metadata": metadata}

    def _drawn(self, idx: int) -> dict[str, Any]:
        """Item ``idx``: ``draw(Random(seed + idx))``.  A configuration its probe accepted
        can still make some items rare (a tight knob met by few structures); rather than
        fail mid-training when one draw's search runs out, the item is drawn again from
        ``REDRAWS`` further seeds derived from ``(seed, idx)`` — still deterministic —
        before the ``InputError`` reaches the caller."""
        try:
            return self.draw(random.Random(self.seed + idx))
        except InputError:
            for attempt in range(1, REDRAWS + 1):
                with contextlib.suppress(InputError):
                    return self.draw(random.Random(f"{self.seed}:{idx}:{attempt}"))
            raise

    def accepts(self, normalised: str, entry: dict[str, Any]) -> bool:
        """Whether a reply read as ``normalised`` is of the form the item asks for."""
        return True

    def score_answer(self, answer: str | None, entry: dict[str, Any]) -> float:
        """1.0 correct, 0.0 wrong or unreadable, NaN when the verifier could not finish
        (the reason is logged)."""
        score, reason = self.scored(answer, entry)
        if reason is not None:
            log.warning("no score for %s item %s: %s", self.name,
                        entry["metadata"].get("source_index"), reason)
        return score

    def scored(self, answer: str | None, entry: dict[str, Any]) -> tuple[float, str | None]:
        """``score_answer``'s score and, when it is NaN, why (else None)."""
        if not isinstance(answer, str) or not answer.strip():
            return 0.0, None
        meta = entry["metadata"]
        try:
            grade = default().grade(meta["item"], answer, meta.get("task"))
        except (BudgetExceeded, InputError) as error:
            return math.nan, str(error)
        if not grade.gradable:
            return math.nan, grade.reason
        score = 1.0 if grade.readable and grade.correct and \
            self.accepts(grade.normalised, entry) else 0.0
        weight = getattr(self.config, "reasoning_weight", 0.0)
        if weight:
            share, reason = self.reasoning_score(answer, entry)
            if reason is not None:
                return math.nan, reason
            score += weight * share
        return score, None

    def reasoning_score(self, answer: str | None, entry: dict[str, Any]
                        ) -> tuple[float, str | None]:
        """The share of the reply's checkable causal claims that are true (0.0 without
        one), and NaN with why when the verifier could not finish."""
        if not isinstance(answer, str) or not answer.strip():
            return 0.0, None
        meta = entry["metadata"]
        try:
            checked = check_reasoning(default(), meta["item"], answer, meta.get("task"))
        except (BudgetExceeded, InputError) as error:
            return math.nan, str(error)
        return checked.score or 0.0, None


def knob_values(config: Any) -> tuple[Any, ...]:
    """The knobs of ``config`` (all but its seed and size), hashable."""
    return tuple((f.name, getattr(config, f.name)) for f in dataclasses.fields(config)
                 if f.name not in ("seed", "size"))


#: the probe's finding per configuration (dataset class and knobs): None when feasible
_PROBED: dict[tuple[type, tuple[Any, ...]], InputError | None] = {}
PROBES_KEPT = 4096


#: every certified dataset by name: (dataset class, config class, curriculum class or None)
CATALOGUE: dict[str, tuple[type, type, type | None]] = {}


def register_dataset(name: str, dataset: type, config: type, curriculum: type | None) -> bool:
    """Add ``dataset`` to ``CATALOGUE`` and register it (and its curriculum) with Reasoning
    Gym under ``name``; False without Reasoning Gym or when the name is already
    registered there."""
    CATALOGUE[name] = (dataset, config, curriculum)
    if not HAVE_REASONING_GYM:
        return False
    from reasoning_gym.factory import DATASETS
    from reasoning_gym.factory import register_dataset as rg_register

    if name in DATASETS:
        return False
    if curriculum is None:
        rg_register(name, dataset, config)
    else:
        rg_register(name, dataset, config, curriculum)
    return True


def create(name: str, **config: Any) -> CertifiedDataset:
    """The catalogued dataset ``name`` with its config built from ``config`` (``seed``,
    ``size`` and the dataset's knobs) — ``reasoning_gym.create_dataset``'s shape, with or
    without Reasoning Gym; ``InputError`` naming the choices for an unknown name or knob."""
    if name not in CATALOGUE:
        known = ", ".join(sorted(CATALOGUE)) or "none"
        raise InputError(f"unknown dataset {name!r}; known: {known}")
    dataset, config_class, _ = CATALOGUE[name]
    try:
        made = config_class(**config)
    except InputError as error:
        raise InputError(f"{name}: {error.message}") from None
    return dataset(made)  # type: ignore[no-any-return]


__all__ = ["CATALOGUE", "HAVE_REASONING_GYM", "CertifiedDataset", "ProceduralDataset",
           "SeedAndSize", "configuration", "create", "knob_values", "register_dataset"]
