"""Re-scoring stored rollouts: saved prompt/completion pairs, graded again offline.

A training run leaves its rollouts (a TRL or verl log, a NeMo-Gym rollout file): prompts,
completions and the rewards paid then.  ``causal-oracle rescore ROLLOUTS.jsonl`` reads
such a file in any layout ``grade FILE`` reads (``clients.readers``: JSONL, JSON, CSV/TSV,
Parquet, ``datasets`` folders; ``clients.columns`` finds the completion column), and
scores every pair with the current verifier exactly as the reward functions do
(``rewards.scoring.Verifier``: the question read from the prompt's own text — chat
messages unwrapped as a trainer's — the same statuses, the same ``None`` for no reward).
It prints each sample's reward and status and the counts by status; where the file keeps
the reward paid then (``--reward-column``, default ``reward`` when present), how many
now differ.

``--compare KEY=VALUE,…`` scores every sample a second time under changed settings
(``profile``, ``format_weight``, ``format_pattern``, ``reasoning_weight`` — the weight of
the reasoning term, ``rewards.scoring``) and lists the samples whose reward changes
between the two, so the effect of a verifier setting on a finished run can be seen
before the next one.

    >>> import json, tempfile, os
    >>> item = ("Premise: Suppose there is a closed system of 2 variables, A and B. All the "
    ...         "statistical relations among these 2 variables are as follows: A correlates "
    ...         "with B.\\nHypothesis: A directly causes B.")
    >>> rows = [{"prompt": item, "completion": "<answer>No</answer>", "reward": 1.0},
    ...         {"prompt": item, "completion": "Yes.", "reward": 1.0}]
    >>> path = os.path.join(tempfile.mkdtemp(), "rollouts.jsonl")
    >>> _ = open(path, "w").write("".join(json.dumps(r) + "\\n" for r in rows))
    >>> result = rescore(path, Setting(), Setting(format_weight=0.5))
    >>> [(s.reward.reward, s.other.reward) for s in result.samples]
    [(1.0, 1.5), (0.0, 0.0)]
    >>> result.changed_from_stored, [s.row for s in result.changed]
    (1, [1])
"""

from __future__ import annotations

import argparse
import io
import json
import math
from collections import Counter
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from causal_oracle.clients import columns as roles
from causal_oracle.clients import readers
from causal_oracle.entry import InputError, profile_of
from causal_oracle.rewards.inputs import column_value
from causal_oracle.rewards.scoring import Reward, RewardConfig, Sample, Verifier
from causal_oracle.rewards.trainers import COLUMNS, prompt_text, reply_text, sample_of

SETTINGS = ("profile", "format_weight", "format_pattern", "reasoning_weight")
_NUMBERS = ("format_weight", "reasoning_weight")
SHOWN = 50  # samples listed in the table (all are in --json and --records)
TRAINED = RewardConfig()  # the settings a run has unless it changed them


@dataclass(frozen=True)
class Setting:
    """The verifier settings a rescore may vary (the rest of ``RewardConfig`` as trained)."""

    profile: str = TRAINED.profile
    format_weight: float = TRAINED.format_weight
    format_pattern: str = TRAINED.format_pattern
    reasoning_weight: float = TRAINED.reasoning_weight

    def config(self) -> RewardConfig:
        profile_of(self.profile)  # an unknown profile: InputError naming the choices
        return RewardConfig(workers=0, profile=self.profile, format_weight=self.format_weight,
                            format_pattern=self.format_pattern,
                            reasoning_weight=self.reasoning_weight).checked()

    def changed(self, text: str) -> Setting:
        """This setting with ``text`` (``KEY=VALUE,…``) applied; ``InputError`` naming a key
        that is not one of ``SETTINGS`` or a value that is not of its kind."""
        updates: dict[str, Any] = {}
        for part in text.split(","):
            key, sep, value = part.partition("=")
            key = key.strip().replace("-", "_")
            if not sep or key not in SETTINGS:
                raise InputError(f"--compare takes KEY=VALUE,… with KEY among "
                                 f"{', '.join(SETTINGS)}; got {part.strip()[:80]!r}")
            if key in _NUMBERS:
                try:
                    updates[key] = float(value)
                except ValueError:
                    raise InputError(f"--compare {key}={value[:40]!r} is not a "
                                     "number") from None
            else:
                updates[key] = value.strip() if key == "profile" else value
        return replace(self, **updates)

    def describe(self) -> str:
        """The settings as ``KEY=VALUE, …`` (the reasoning weight only when it is on)."""
        return ", ".join(f"{f.name}={getattr(self, f.name)!r}" for f in fields(self)
                         if f.name != "reasoning_weight" or self.reasoning_weight)


@dataclass(frozen=True)
class Rescored:
    """One sample: its row reference, the reward stored with it (None: none stored),
    its reward now and, with ``--compare``, under the other setting."""

    row: int
    stored: float | None
    reward: Reward
    other: Reward | None = None

    @property
    def differs(self) -> bool:
        return self.other is not None and _value(self.other) != _value(self.reward)

    def to_json(self) -> dict[str, Any]:
        stored = None if self.stored is None or math.isnan(self.stored) else self.stored
        out: dict[str, Any] = {"row": self.row, "stored": stored,  # strict JSON: no NaN
                               "reward": self.reward.reward, "status": self.reward.status,
                               "reason": self.reward.reason, "task": self.reward.task,
                               "family": self.reward.family}
        if self.other is not None:
            out.update(compared_reward=self.other.reward, compared_status=self.other.status,
                       changed=self.differs)
        return out


def _value(r: Reward) -> float | None:
    return None if r.reward is None else round(r.reward, 9)


@dataclass
class RescoreResult:
    source: dict[str, Any]
    setting: Setting
    compared: Setting | None
    samples: list[Rescored] = field(default_factory=list)

    @property
    def changed(self) -> list[Rescored]:
        return [s for s in self.samples if s.differs]

    @property
    def changed_from_stored(self) -> int:
        """Samples whose reward now is not the one stored (a stored NaN or null matches
        no reward now)."""
        return sum(_stored_differs(s) for s in self.samples)

    def counts(self, other: bool = False) -> dict[str, int]:
        rewards = [s.other if other else s.reward for s in self.samples]
        return dict(sorted(Counter(r.status for r in rewards if r is not None).items()))

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"source": self.source, "setting": self.setting.describe(),
                               "samples": len(self.samples), "by_status": self.counts(),
                               "changed_from_stored": self.changed_from_stored}
        if self.compared is not None:
            out.update(compared_setting=self.compared.describe(),
                       compared_by_status=self.counts(other=True),
                       changed=len(self.changed))
        out["records"] = [s.to_json() for s in self.samples]
        return out


def _stored_differs(s: Rescored) -> bool:
    if s.stored is None:
        return False
    now, paid = _value(s.reward), None if math.isnan(s.stored) else round(s.stored, 9)
    return now != paid


def _stored(row: dict[str, Any], column: str | None) -> float | None:
    if column is None:
        return None
    value = row.get(column)
    if value is None:
        return float("nan")  # null: the run paid no reward
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def _sample(row: dict[str, Any], reply: str, prompt: str) -> Sample:
    return sample_of(lambda: Sample(
        prompt_text(row.get(prompt, "")), reply_text(row.get(reply, "")),
        **{c: column_value(row.get(c), c) for c in COLUMNS},
        fallback=column_value(row.get("ground_truth"), "ground_truth")))


def rescore(path: str | Path, setting: Setting | None = None, compare: Setting | None = None,
            *, reply_column: str | None = None, prompt_column: str | None = None,
            reward_column: str | None = None) -> RescoreResult:
    """Score every prompt/completion pair of ``path`` with the current verifier under
    ``setting`` (and ``compare``); ``InputError`` for a missing file or column."""
    setting = setting or Setting()
    first = Verifier(setting.config())
    second = None if compare is None else Verifier(compare.config())
    source = readers.open_source(path)
    columns = source.columns()
    for option, name in (("--reply-column", reply_column), ("--prompt-column", prompt_column),
                         ("--reward-column", reward_column)):
        if name is not None and not source.has_column(name):
            raise roles.missing_column(option, name, columns)
    reply = roles.reply_column(columns, reply_column)
    prompt = prompt_column or next((c for c in roles.PROMPT_CANDIDATES if c in columns
                                    and c != reply), None)
    if prompt is None:
        raise InputError(f"no prompt column: expected one of "
                         f"{', '.join(roles.PROMPT_CANDIDATES)}, or --prompt-column (columns: "
                         f"{', '.join(columns) or 'none'})")
    stored = reward_column or ("reward" if "reward" in columns else None)
    result = RescoreResult({"path": str(path), "format": source.describe(), "columns": columns,
                            "reply_column": reply, "prompt_column": prompt,
                            "reward_column": stored}, setting, compare)
    for record in source.records():
        if record.row is None:
            sample = Sample("", "", problem=readers.at_row(source.unit, record.ref,
                                                            record.error))
            row: dict[str, Any] = {}
        else:
            row = record.row
            sample = _sample(row, reply, prompt)
        now = first.score(sample)
        other = None if second is None else second.score(sample)
        result.samples.append(Rescored(record.ref, _stored(row, stored), now, other))
    if not result.samples:
        raise InputError(f"{path}: no rows; columns found: {', '.join(columns) or 'none'}")
    return result


def _r(value: float | None) -> str:
    return "null" if value is None else "NaN" if value != value else f"{value:g}"


def table(result: RescoreResult) -> str:
    """The summary ``rescore`` prints."""
    buf = io.StringIO()
    buf.write(f"{len(result.samples)} samples from {result.source['path']} (prompt: "
              f"{result.source['prompt_column']}, completion: {result.source['reply_column']})"
              f"\nsetting: {result.setting.describe()}\n")
    buf.write("by status: " + ", ".join(f"{k} {v}" for k, v in result.counts().items()) + "\n")
    if result.source["reward_column"] is not None:
        buf.write(f"differ from the stored {result.source['reward_column']!r}: "
                  f"{result.changed_from_stored}\n")
    shown = result.samples
    if result.compared is not None:
        buf.write(f"compared: {result.compared.describe()}\nby status: "
                  + ", ".join(f"{k} {v}" for k, v in result.counts(other=True).items())
                  + f"\nrewards that change: {len(result.changed)}\n")
        shown = result.changed
    head = f"{'row':>6} {'stored':>7} {'reward':>7} {'status':<12}"
    if result.compared is not None:
        head += f" {'compared':>8} {'status':<12}"
    buf.write(head.rstrip() + "\n")
    for s in shown[:SHOWN]:
        line = f"{s.row:>6} {_r(s.stored):>7} {_r(s.reward.reward):>7} {s.reward.status:<12}"
        if s.other is not None:
            line += f" {_r(s.other.reward):>8} {s.other.status:<12}"
        buf.write(line.rstrip() + "\n")
    if len(shown) > SHOWN:
        buf.write(f"… {len(shown) - SHOWN} more (all in --json / --records)\n")
    return buf.getvalue()


def cmd_rescore(args: argparse.Namespace) -> int:
    setting = Setting(profile=args.profile, format_weight=args.format_weight,
                      format_pattern=args.format_pattern)
    compare = None if args.compare is None else setting.changed(args.compare)
    result = rescore(args.path, setting, compare, reply_column=args.reply_column,
                     prompt_column=args.prompt_column, reward_column=args.reward_column)
    if args.records:
        from causal_oracle.clients.outputs import atomic_output
        with atomic_output(args.records, "w") as out:
            for s in result.samples:
                out.write(json.dumps(s.to_json(), allow_nan=False) + "\n")
    if args.json:
        print(json.dumps(result.to_json(), ensure_ascii=False, allow_nan=False))
    else:
        print(table(result), end="")
    return 0


def add_cli_command(sub: Any) -> None:
    p = sub.add_parser("rescore", help="re-score stored rollouts (prompt/completion pairs) "
                                       "with the current verifier, offline")
    p.add_argument("path", help="rollouts: JSONL, JSON, CSV/TSV, Parquet or a datasets folder")
    p.add_argument("--profile", default=TRAINED.profile,
                   help="Corr2Cause semantics profile (default corr2cause)")
    p.add_argument("--format-weight", type=float, default=TRAINED.format_weight,
                   help="reward added when --format-pattern occurs in the completion "
                        "(default 0)")
    p.add_argument("--format-pattern", default=TRAINED.format_pattern,
                   help=f"the format term's pattern (default {TRAINED.format_pattern!r})")
    p.add_argument("--compare", metavar="KEY=VALUE,…",
                   help=f"score again with these settings changed ({', '.join(SETTINGS)}) "
                        "and list the samples whose reward changes")
    p.add_argument("--reply-column", metavar="NAME",
                   help=f"completion column (default: the one of "
                        f"{', '.join(roles.REPLY_CANDIDATES)} present)")
    p.add_argument("--prompt-column", metavar="NAME",
                   help=f"prompt column (default: the first of "
                        f"{', '.join(roles.PROMPT_CANDIDATES)})")
    p.add_argument("--reward-column", metavar="NAME",
                   help="the reward stored with each sample (default: 'reward' when present)")
    p.add_argument("--records", metavar="OUT.jsonl", help="write one JSON record per sample")
    p.add_argument("--json", action="store_true", help="print the JSON report")
    p.set_defaults(func=cmd_rescore)


__all__ = ["RescoreResult", "Rescored", "Setting", "add_cli_command", "rescore", "table"]
