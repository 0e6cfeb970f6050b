"""A NeMo-Gym resources server: the verifier behind NeMo-Gym's ``/verify``.

NeMo-Gym collects rollouts through an *agent* server that sends each dataset row's
``responses_create_params`` to the model and posts the request and the model's
``response`` to the environment's *resources server*, ``POST /verify``
(``BaseVerifyRequest`` → ``BaseVerifyResponse``, mirrored in ``rewards.nemo_gym_models``).
This module is that server for every registered benchmark family, on the project's
ASGI stack (Starlette, served by uvicorn: the ``rl`` extra) — NeMo-Gym's own runtime
needs Python >= 3.12 — with NeMo-Gym's routes:

==========================  ===============================================================
``GET /``                   liveness: ``{"status": "ok"}``
``POST /seed_session``      ``{}`` (nothing to seed: each verify is self-contained)
``POST /verify``            ``CausalOracleVerifyRequest`` → ``CausalOracleVerifyResponse``
``POST /aggregate_metrics`` ``AggregateMetricsRequest`` → ``AggregateMetrics``
==========================  ===============================================================

``/verify`` reads the question from the request's last user message
(``responses_create_params.input``; the row's ``premise``/``hypothesis``/``task``
fields take precedence, as the trainers' columns do) and the reply from the response's
output messages (reasoning items left out), scores it on a ``Scorer`` (worker
processes, the hard per-sample cap) and answers with the request, its ``reward`` and
its ``reward_components``:

* ``correct`` — 1 when the reply gives the certified answer;
* ``readable`` — 1 when the reply gives an answer at all (0: unreadable);
* ``format`` — 1 when the reply matches the format pattern (``<answer>…</answer>``);
* with a reasoning weight (``reasoning_weight`` in the server config, ``--reasoning-
  weight``; 0 by default, and these absent): ``reasoning`` — the share of the reply's
  checkable causal claims that are true (0 without one), ``lucky`` — 1 for a right
  answer with a false claim, ``unsupported`` — 1 for a right answer with no checkable
  claim (``rewards.scoring``).

``reward`` is the project's reward: ``correct`` plus ``format_weight`` × ``format``
(plus ``reasoning_weight`` × ``reasoning``).
When the verifier could not finish (no family reads the prompt, the budget or the cap,
an ungradable item, a bug) the sample has **no reward**: ``valid`` is false,
``verifier_failed`` true, ``reward_components`` null, the reason is in ``details``, and
the response carries NeMo-Gym's failure sentinels ``_ng_failure_class`` (and
``_ng_failure_terminal`` when a retry cannot help), which route the rollout to the
failures file instead of the rollouts file: dropped, not paid.  ``reward`` itself must
be a number in NeMo-Gym's schema; it is 0.0 there and means nothing.  Every response is
strict JSON; a body that is not strict JSON is a 400, one that is not of the schema a
422 naming the fields (NeMo-Gym's FastAPI answers the same), never a 500.

``main`` runs it: under NeMo-Gym (``NEMO_GYM_CONFIG_DICT`` and ``NEMO_GYM_CONFIG_PATH``
set by its launcher) on the host and port of its server config, else on ``--host`` and
``--port`` (``examples/nemo_gym/``: the resources-server folder with its config YAML).
"""

from __future__ import annotations

import argparse
import os
import re
from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import ConfigDict, Field, ValidationError
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from causal_oracle.rewards.http import BadRequest, _http_error, _json, reply
from causal_oracle.rewards.inputs import excerpt
from causal_oracle.rewards.nemo_gym_models import (
    AggregateMetrics,
    AggregateMetricsRequest,
    BaseSeedSessionRequest,
    BaseSeedSessionResponse,
    BaseVerifyRequest,
    BaseVerifyResponse,
)
from causal_oracle.rewards.pool import Scorer
from causal_oracle.rewards.scoring import Reward, RewardConfig, Sample
from causal_oracle.rewards.trainers import COLUMNS, prompt_text, reply_text, sample_of

#: NeMo-Gym's failure sentinels (``nemo_gym/rollout_collection.py``)
FAILURE_CLASS_KEY = "_ng_failure_class"
TERMINAL_KEY = "_ng_failure_terminal"
TASK_INDEX_KEY = "_ng_task_index"
#: statuses a second attempt cannot change
TERMINAL = ("invalid", "ungradable", "no_question")
MAX_ERRORS = 5  # validation errors quoted in a 422


class CausalOracleVerifyRequest(BaseVerifyRequest):
    """``BaseVerifyRequest`` and the row's own fields (kept and echoed back); ``task``,
    ``premise`` and ``hypothesis`` take precedence over the prompt's text."""

    model_config = ConfigDict(extra="allow")

    task: str | None = None
    premise: str | None = None
    hypothesis: str | None = None


class CausalOracleVerifyResponse(BaseVerifyResponse):
    """``BaseVerifyResponse`` with the components and why a sample has no reward."""

    model_config = ConfigDict(extra="allow")

    reward_components: dict[str, float] | None = None
    valid: bool = True
    verifier_failed: bool = False
    details: dict[str, Any] = Field(default_factory=dict)


def texts(body: CausalOracleVerifyRequest) -> tuple[str, str]:
    """(the question's text, the reply's text) of a verify request."""
    prompt = prompt_text(body.responses_create_params.model_dump(mode="json"))
    return prompt, reply_text(body.response.model_dump(mode="json"))


def components(r: Reward, reply: str, pattern: re.Pattern[str]) -> dict[str, float] | None:
    """correct, readable, format (and reasoning, lucky, unsupported when they were
    computed) — None without a reward."""
    if r.failed:
        return None
    out = {"correct": float(r.status == "correct"),
           "readable": float(r.status != "unreadable"),
           "format": float(r.format_ok if r.format_ok is not None
                           else pattern.search(reply) is not None)}
    if r.parts is not None:
        out.update(reasoning=r.parts.reasoning or 0.0, lucky=float(r.parts.lucky),
                   unsupported=float(r.parts.unsupported))
    return out


def verify_response(body: CausalOracleVerifyRequest, r: Reward, reply: str,
                    pattern: re.Pattern[str]) -> dict[str, Any]:
    """The verify response as JSON (NeMo-Gym's failure sentinels on a sample without a
    reward)."""
    out = CausalOracleVerifyResponse(
        **body.model_dump(), reward=0.0 if r.reward is None else r.reward,
        reward_components=components(r, reply, pattern), valid=not r.failed,
        verifier_failed=r.failed,
        details={k: v for k, v in r.as_dict().items() if k != "reward"},
    ).model_dump(mode="json")
    if r.failed:
        out[FAILURE_CLASS_KEY] = "verifier_failed"
        if r.status in TERMINAL:
            out[TERMINAL_KEY] = True
    return out


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def aggregate(rows: Sequence[Mapping[str, Any]]) -> AggregateMetrics:
    """Per task (``_ng_task_index``) and overall: mean reward and components over the
    scored rollouts, the share the verifier could not score."""
    by_task: dict[Any, list[Mapping[str, Any]]] = defaultdict(list)
    for row in rows:
        by_task[row.get(TASK_INDEX_KEY, 0)].append(row)

    def stats(group: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
        scored = [g for g in group if g.get("valid", True) and not g.get("verifier_failed")]
        out: dict[str, Any] = {"num_rollouts": len(group), "num_scored": len(scored),
                               "verifier_failed": _mean([float(g not in scored)
                                                         for g in group]),
                               "mean/reward": _mean([float(g.get("reward", 0.0))
                                                     for g in scored])}
        for name in ("correct", "readable", "format"):
            out[f"mean/{name}"] = _mean([float((g.get("reward_components") or {})
                                               .get(name, 0.0)) for g in scored])
        return out

    overall = stats(rows)
    return AggregateMetrics(
        group_level_metrics=[{TASK_INDEX_KEY: k, **stats(g)} for k, g in by_task.items()],
        agent_metrics=overall,
        key_metrics={k: overall[k] for k in ("mean/reward", "mean/correct")})


def _validated(model: type[Any], body: Any) -> Any:
    try:
        return model.model_validate(body)
    except ValidationError as error:
        detail = [{"loc": list(e["loc"]), "msg": excerpt(e["msg"], 200)}
                  for e in error.errors()[:MAX_ERRORS]]
        raise Invalid(detail) from None


class Invalid(Exception):
    """A body not of the route's schema (422, FastAPI's ``detail`` shape)."""

    def __init__(self, detail: list[dict[str, Any]]) -> None:
        super().__init__("the body does not match the schema")
        self.detail = detail


def application(scorer: Scorer) -> Starlette:
    """The resources server's ASGI application, scoring on ``scorer``."""
    pattern = re.compile(scorer.config.format_pattern, re.S)

    def route(handler: Any) -> Any:
        async def endpoint(request: Request) -> Response:
            try:
                return reply(await handler(await _json(request)))
            except BadRequest as error:
                return reply({"error": str(error)}, error.status)
            except Invalid as error:
                return reply({"error": str(error), "detail": error.detail}, 422)
        return endpoint

    async def liveness(request: Request) -> Response:
        return reply({"status": "ok"})

    async def seed_session(body: Any) -> dict[str, Any]:
        _validated(BaseSeedSessionRequest, body)
        return BaseSeedSessionResponse().model_dump()

    async def verify(body: Any) -> dict[str, Any]:
        request = _validated(CausalOracleVerifyRequest, body)

        def sample() -> Sample:
            prompt, reply = texts(request)
            extra = {c: getattr(request, c) or None for c in COLUMNS}
            return Sample(prompt, reply, **extra)
        one = sample_of(sample)
        [r] = await scorer.score_many_async([one])
        return verify_response(request, r, one.completion, pattern)

    async def aggregate_metrics(body: Any) -> dict[str, Any]:
        request = _validated(AggregateMetricsRequest, body)
        return aggregate(request.verify_responses).model_dump(mode="json")

    app = Starlette(routes=[
        Route("/", liveness, methods=["GET"]),
        Route("/seed_session", route(seed_session), methods=["POST"]),
        Route("/verify", route(verify), methods=["POST"]),
        Route("/aggregate_metrics", route(aggregate_metrics), methods=["POST"]),
    ], exception_handlers={HTTPException: _http_error, Exception: _http_error})
    app.router.redirect_slashes = False
    return app


def server_config(environ: Mapping[str, str] | None = None) -> dict[str, Any]:
    """This server's entry of NeMo-Gym's config (``NEMO_GYM_CONFIG_DICT`` at
    ``NEMO_GYM_CONFIG_PATH``: three levels down, as NeMo-Gym reads it), or {} when not
    launched by NeMo-Gym."""
    env = os.environ if environ is None else environ
    text, path = env.get("NEMO_GYM_CONFIG_DICT"), env.get("NEMO_GYM_CONFIG_PATH")
    if not text or not path:
        return {}
    import yaml  # NeMo-Gym's launcher writes YAML (OmegaConf); JSON is YAML too

    entry = yaml.safe_load(text)[path]
    for _ in range(2):
        entry = next(iter(entry.values()))
    return dict(entry)


def main(argv: Sequence[str] | None = None) -> int:
    """Serve the resources server (under NeMo-Gym: its host and port)."""
    import uvicorn

    parser = argparse.ArgumentParser(description="causal-oracle NeMo-Gym resources server")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--workers", type=int, default=RewardConfig().workers)
    parser.add_argument("--reward-cap", type=float, default=RewardConfig().cap_s)
    parser.add_argument("--format-weight", type=float, default=0.0)
    parser.add_argument("--reasoning-weight", type=float, default=0.0)
    args = parser.parse_args(argv)
    config = server_config()
    host, port = config.get("host", args.host), int(config.get("port", args.port))
    reward = RewardConfig.within(float(config.get("cap_s", args.reward_cap)),
                                 workers=int(config.get("workers", args.workers)),
                                 format_weight=float(config.get("format_weight",
                                                                args.format_weight)),
                                 reasoning_weight=float(config.get("reasoning_weight",
                                                                   args.reasoning_weight)))
    with Scorer(reward) as scorer:
        uvicorn.run(application(scorer), host=host, port=port, log_level="warning")
    return 0


__all__ = ["FAILURE_CLASS_KEY", "TERMINAL_KEY", "CausalOracleVerifyRequest",
           "CausalOracleVerifyResponse", "aggregate", "application", "main", "server_config",
           "verify_response"]


if __name__ == "__main__":  # python -m causal_oracle.rewards.nemo_gym --port 8000
    raise SystemExit(main())
