"""The per-sample cap, configured once: ``RewardConfig``, the environment, ``serve
--reward-cap`` and the docs agree (5 s by default); a sample past it gets no reward
(``valid`` false, status ``timeout``, a reason), never 0 — in-process and over HTTP.

The slow samples come from ``tests/slow_family.py`` ("Slow toy: wait N." ignores the
cooperative budget: only the hard cap stops it).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from causal_oracle.entry.limits import REWARD_CAP_S
from causal_oracle.rewards import RewardConfig, Sample, Scorer
from causal_oracle.rewards.trainers import config_from_env
from causal_oracle.serve_options import add_arguments, add_http_arguments

TESTS = Path(__file__).parent
ROOT = TESTS.parent


def _serve_args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    add_http_arguments(parser)
    return parser.parse_args(list(argv))


def test_one_default_everywhere() -> None:
    pytest.importorskip("starlette")
    from causal_oracle.rewards.http import config_of

    assert REWARD_CAP_S == 5.0
    assert RewardConfig().cap_s == config_from_env({}).cap_s == REWARD_CAP_S
    served = config_of(_serve_args("--http-port", "0"))
    assert served.cap_s == REWARD_CAP_S and served.budget_s <= served.cap_s
    assert config_of(_serve_args("--http-port", "0", "--reward-cap", "2")).cap_s == 2.0
    # the budget always fits inside the cap, whichever is set
    assert config_from_env({"CAUSAL_ORACLE_REWARD_CAP_S": "1"}).budget_s <= 1.0
    assert RewardConfig.within(10.0, 3.0).budget_s == 3.0
    assert RewardConfig.within(1.0, 60.0).budget_s == pytest.approx(0.8)
    for doc in ("docs/http.md", "docs/trainers.md"):
        text = (ROOT / doc).read_text()
        assert "--reward-cap" in text and "5 s" in text, doc


@pytest.mark.parametrize("value", ["0", "nan", "inf", "-1", "soon"])
def test_a_bad_cap_is_refused_at_parse_time(value: str, capsys: pytest.CaptureFixture[str]
                                            ) -> None:
    with pytest.raises(SystemExit) as stop:
        _serve_args("--http-port", "0", "--reward-cap", value)
    assert stop.value.code == 2 and "--reward-cap" in capsys.readouterr().err


def test_in_process_a_sample_past_the_cap_is_invalid_not_zero() -> None:
    sys.path.insert(0, str(TESTS))
    import slow_family

    from causal_oracle.entry import REGISTRY, register
    register(slow_family.FAMILY)
    try:
        start = time.monotonic()
        with Scorer(RewardConfig.within(1.0, workers=1)) as scorer:
            slow, quick = scorer.score_many([Sample("Slow toy: wait 30.", "yes"),
                                             Sample("Slow toy: wait 0.", "yes")])
        assert time.monotonic() - start < 20
        assert slow.reward is None and slow.failed and slow.status == "timeout"
        assert "cap of 1 s" in slow.reason
        assert quick.reward == 1.0
    finally:
        REGISTRY.unregister(slow_family.FAMILY.name)


def test_over_http_a_sample_past_the_cap_is_invalid_not_zero() -> None:
    httpx = pytest.importorskip("httpx")
    pytest.importorskip("uvicorn")
    boot = ("import sys; sys.path.insert(0, sys.argv[1]); import slow_family; "
            "from causal_oracle.clients.cli import main; sys.exit(main(sys.argv[2:]))")
    proc = subprocess.Popen(
        [sys.executable, "-c", boot, str(TESTS), "serve", "--workers", "1", "--http-port",
         "0", "--reward-cap", "1"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        assert proc.stdout is not None
        url = None
        deadline = time.monotonic() + 60
        while url is None and time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line:
                break
            if found := re.search(r"over HTTP on (http://127\.0\.0\.1:\d+) .*1 s cap", line):
                url = found.group(1)
        assert url is not None, "the server did not start with a 1 s cap"
        assert httpx.get(f"{url}/health").json()["cap_s"] == 1.0
        start = time.monotonic()
        response = httpx.post(f"{url}/batch", json={"items": [
            {"prompt": "Slow toy: wait 30.", "completion": "yes"},
            {"prompt": "Slow toy: wait 0.", "completion": "yes"}]}, timeout=30)
        assert time.monotonic() - start < 20
        body = json.loads(response.text, parse_constant=lambda c: pytest.fail(c))
        slow, quick = body["results"]
        assert slow["reward"] is None and slow["valid"] is False
        assert slow["status"] == "timeout" and "cap of 1 s" in slow["reason"]
        assert quick["reward"] == 1.0 and quick["valid"] is True
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(20)
        finally:
            proc.kill()
