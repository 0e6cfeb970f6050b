"""The HTTP reward endpoint's error contract (the contract issue's reproducer
``http_500.py``, kept) and its security options.

Every response is strict JSON — errors too (400, 401, 404, 405, 413); a lone surrogate
escape is scored, never a 500; NaN, Infinity and overflowing numbers are 400; a bad item
of a batch is that item's ``invalid`` result; a chunked body past the limit is refused as
it streams.  ``serve --http-port`` with TLS files that are missing exits 2 naming the
file, serves HTTPS (and mutual TLS) when they are there, and with ``--auth-token-file``
answers 401 without the token (gRPC: ``UNAUTHENTICATED``).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import ssl
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

httpx = pytest.importorskip("httpx")
pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

from starlette.testclient import TestClient  # noqa: E402

from causal_oracle.rewards import RewardConfig, Scorer  # noqa: E402
from causal_oracle.rewards.http import MAX_BODY_BYTES, application  # noqa: E402

PREMISE = ("Suppose there is a closed system of 2 variables, A and B. All the statistical "
           "relations among these 2 variables are as follows: A correlates with B.")
ITEM = f"Premise: {PREMISE}\nHypothesis: A directly causes B."
TOKEN = "s3cret-token-for-tests"


def strict(text: str | bytes) -> Any:
    """``text`` parsed as RFC 8259 JSON (no NaN or Infinity)."""
    def refuse(name: str) -> None:
        raise ValueError(f"non-standard JSON constant {name}")
    return json.loads(text, parse_constant=refuse)


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    with Scorer(RewardConfig(workers=0)) as scorer:
        yield TestClient(application(scorer), raise_server_exceptions=False)


def test_the_reproducer_cases(client: TestClient) -> None:
    batch = client.post("/batch", content=b'{"items": [{"prompt": "\\ud800", '
                        b'"completion": "Yes"}, {"prompt": "' + ITEM.encode().replace(
                            b"\n", b"\\n") + b'", "completion": "No."}]}')
    assert batch.status_code == 200
    results = strict(batch.text)["results"]
    assert results[0]["reward"] is None and results[0]["valid"] is False
    assert results[1]["reward"] == 1.0 and results[1]["valid"] is True
    verify = client.post("/verify", content=b'{"responses_create_params": {"input": '
                         b'"\\ud800"}, "response": "Yes", "x": "\\udfff"}')
    body = strict(verify.text)
    assert verify.status_code == 200 and body["reward"] is None and body["valid"] is False
    assert body["x"] == "\udfff"  # echoed as an escape: ASCII JSON, never an encoding error
    for constant in (b"NaN", b"Infinity", b"-Infinity", b"1e400", b"-1e999"):
        r = client.post("/verify", content=b'{"responses_create_params": {"input": "Toy?"}, '
                        b'"response": "Yes", "meta": ' + constant + b"}")
        assert r.status_code == 400 and "JSON" in strict(r.text)["error"]
    wrong_method = client.get("/verify")
    assert wrong_method.status_code == 405 and "/verify" in strict(wrong_method.text)["error"]
    missing = client.get("/nope")
    assert missing.status_code == 404 and "/health" in strict(missing.text)["error"]
    assert client.get("/health").json()["status"] == "ok"


def test_bad_items_are_their_own_results(client: TestClient) -> None:
    items = [{"prompt": ITEM, "completion": "No.", "premise": 5}, "not an object",
             {"prompt": ITEM, "completion": "No.", "task": None, "hypothesis": ""},
             {"prompt": ITEM, "completion": "No.", "ground_truth": {"a": 1}}]
    results = strict(client.post("/batch", json={"items": items}).text)["results"]
    assert [r["status"] for r in results] == ["invalid", "invalid", "correct", "invalid"]
    assert "items[0].premise" in results[0]["reason"]
    assert "items[1]" in results[1]["reason"]
    assert "items[3].ground_truth" in results[3]["reason"]
    r = client.post("/verify", json={"responses_create_params": {"input": ITEM},
                                     "response": "No.", "task": 3})
    assert r.status_code == 400 and "task" in strict(r.text)["error"]


def test_get_reward_is_strict_json(client: TestClient) -> None:
    r = client.post("/get_reward", json={"query": [ITEM + "\nNo.", None, "What?"],
                                         "prompts": [ITEM, ITEM, "What?"]})
    out = strict(r.text)
    assert out["rewards"] == [1.0, None, None] and out["valid"] == [True, False, False]
    assert out["reasons"][0] is None and "queries[1]" in out["reasons"][1]
    assert out["extra_logs"]["verifier_failed"] == [0.0, 1.0, 1.0]


def test_nested_and_odd_bodies_are_4xx(client: TestClient) -> None:
    deep = b'{"items": [' + b"[" * 100_000 + b"]" * 100_000 + b"]}"
    assert client.post("/batch", content=deep).status_code == 400
    assert client.post("/batch", content=b"\xff\xfe{").status_code == 400
    assert client.post("/batch", content=b"[1, 2]").status_code == 400
    big_int = b'{"items": [], "n": ' + b"9" * 5000 + b"}"
    assert client.post("/batch", content=big_int).status_code in (200, 400)


def test_a_chunked_body_past_the_limit_is_refused_as_it_streams(client: TestClient) -> None:
    chunk = b" " * (1 << 20)
    sent = 0

    def body() -> Iterator[bytes]:
        nonlocal sent
        yield b'{"items": ['
        while sent < MAX_BODY_BYTES + (8 << 20):
            sent += len(chunk)
            yield chunk
        yield b"]}"

    start = time.perf_counter()
    r = client.post("/batch", content=body())
    assert r.status_code == 413 and "bytes" in strict(r.text)["error"]
    assert time.perf_counter() - start < 10  # a loose bound: linear, not 4 s of copying


def test_the_token_gate() -> None:
    with Scorer(RewardConfig(workers=0)) as scorer:
        gated = TestClient(application(scorer, TOKEN))
        denied = gated.get("/health")
        assert denied.status_code == 401 and "authorization" in strict(denied.text)["error"]
        assert gated.get("/health", headers={"Authorization": "Bearer wrong-token"}
                         ).status_code == 401
        assert gated.get("/health", headers={"Authorization": f"Bearer {TOKEN}"}
                         ).status_code == 200


# ---- the server as users start it ---------------------------------------------------------

def _serve(*options: str, wait_for: str = "over HTTP on") -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "causal_oracle.clients.cli", "serve", "--workers", "1",
         *options], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"})
    assert proc.stdout is not None
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        if found := re.search(r"over HTTP on (https?://127\.0\.0\.1:\d+)", line):
            return proc, found.group(1)
    proc.kill()
    pytest.fail(f"the server did not start: {proc.stdout.read()}")


def _stop(proc: subprocess.Popen[str]) -> None:
    proc.send_signal(signal.SIGTERM)
    try:
        assert proc.wait(20) == 0
    finally:
        proc.kill()


def _refused(*options: str) -> str:
    r = subprocess.run([sys.executable, "-m", "causal_oracle.clients.cli", "serve",
                        "--workers", "1", *options], capture_output=True, text=True, timeout=60)
    assert r.returncode == 2, r.stderr
    return r.stderr


def test_serve_refuses_unusable_security_options(tmp_path: Path) -> None:
    assert "--tls-cert /nonexistent.pem" in _refused(
        "--http-port", "0", "--tls-cert", "/nonexistent.pem", "--tls-key", "/nonexistent.key")
    assert "--tls-key" in _refused("--http-port", "0", "--tls-cert", "/etc/hostname")
    assert "--auth-token-file" in _refused("--http-port", "0", "--host", "0.0.0.0")
    assert "--auth-token-file" in _refused("--port", "0", "--host", "0.0.0.0")
    assert "/no/token" in _refused("--http-port", "0", "--auth-token-file", "/no/token")
    busy = subprocess.Popen([sys.executable, "-c", "import socket,time; s=socket.socket(); "
                             "s.bind(('127.0.0.1',0)); s.listen(); print(s.getsockname()[1],"
                             " flush=True); time.sleep(60)"], stdout=subprocess.PIPE, text=True)
    try:
        assert busy.stdout is not None
        port = busy.stdout.readline().strip()
        assert "cannot bind" in _refused("--http-port", port)
    finally:
        busy.kill()


def test_real_socket_errors_are_json_and_fast() -> None:
    proc, url = _serve("--http-port", "0")
    try:
        r = httpx.post(f"{url}/verify", content=b'{"responses_create_params": {"input": '
                       b'"Toy?"}, "response": "Yes", "meta": NaN}')
        assert r.status_code == 400 and strict(r.text)["error"]
        assert httpx.get(f"{url}/nope").status_code == 404

        def body() -> Iterator[bytes]:
            chunk = b" " * (1 << 20)
            for _ in range(MAX_BODY_BYTES // len(chunk) + 8):
                yield chunk

        start = time.perf_counter()
        try:
            big = httpx.post(f"{url}/batch", content=body(), timeout=30)
            assert big.status_code == 413
        except httpx.TransportError:  # the server may close the connection mid-upload
            pass
        assert time.perf_counter() - start < 10
        assert httpx.get(f"{url}/health").status_code == 200
    finally:
        _stop(proc)


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if shutil.which("openssl") is None:
        pytest.skip("needs the openssl command")
    d = tmp_path_factory.mktemp("pki")

    def run(*args: str) -> None:
        subprocess.run(["openssl", *args], check=True, capture_output=True, cwd=d)

    run("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-keyout", "ca.key",
        "-out", "ca.pem", "-subj", "/CN=test-ca")
    for name, san in (("server", "subjectAltName=IP:127.0.0.1,DNS:localhost"),
                      ("client", "subjectAltName=DNS:client")):
        run("req", "-newkey", "rsa:2048", "-nodes", "-keyout", f"{name}.key", "-out",
            f"{name}.csr", "-subj", f"/CN={name}")
        (d / f"{name}.ext").write_text(san + "\n")
        run("x509", "-req", "-in", f"{name}.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
            "-CAcreateserial", "-days", "1", "-out", f"{name}.pem", "-extfile", f"{name}.ext")
    (d / "token").write_text(TOKEN + "\n")
    return d


def _trust(pki: Path) -> ssl.SSLContext:
    return ssl.create_default_context(cafile=str(pki / "ca.pem"))


def test_https_with_token_and_mutual_tls(pki: Path) -> None:
    proc, url = _serve("--http-port", "0", "--tls-cert", str(pki / "server.pem"),
                       "--tls-key", str(pki / "server.key"), "--auth-token-file",
                       str(pki / "token"))
    try:
        assert url.startswith("https://")
        with httpx.Client(verify=_trust(pki)) as c:
            assert c.get(f"{url}/health").status_code == 401
            ok = c.get(f"{url}/health", headers={"authorization": f"Bearer {TOKEN}"})
            assert ok.status_code == 200
        with pytest.raises(httpx.TransportError):
            httpx.get(url.replace("https://", "http://") + "/health", timeout=5)
    finally:
        _stop(proc)
    proc, url = _serve("--http-port", "0", "--tls-cert", str(pki / "server.pem"),
                       "--tls-key", str(pki / "server.key"), "--tls-client-ca",
                       str(pki / "ca.pem"))
    try:
        with pytest.raises(httpx.TransportError), httpx.Client(verify=_trust(pki)) as c:
            c.get(f"{url}/health")
        context = ssl.create_default_context(cafile=str(pki / "ca.pem"))
        context.load_cert_chain(str(pki / "client.pem"), str(pki / "client.key"))
        with httpx.Client(verify=context) as c:
            assert c.get(f"{url}/health").status_code == 200
    finally:
        _stop(proc)


def test_grpc_token_interceptor(pki: Path) -> None:
    grpc = pytest.importorskip("grpc")
    from test_grpc_service import ServerThread

    from causal_oracle.proto.causal_oracle.v1 import oracle_pb2 as pb
    from causal_oracle.proto.causal_oracle.v1 import oracle_pb2_grpc as pbg

    thread = ServerThread(workers=1, auth_token_file=str(pki / "token"))
    thread.start()
    try:
        with grpc.insecure_channel(thread.target) as channel:
            stub = pbg.OracleStub(channel)
            request = pb.VerifyRequest(premise=PREMISE, hypothesis="A directly causes B.")
            with pytest.raises(grpc.RpcError) as denied:
                stub.Verify(request, timeout=30)
            assert denied.value.code() == grpc.StatusCode.UNAUTHENTICATED
            with pytest.raises(grpc.RpcError) as wrong:
                stub.Verify(request, timeout=30, metadata=(("authorization", "Bearer nope"),))
            assert wrong.value.code() == grpc.StatusCode.UNAUTHENTICATED
            ok = stub.Verify(request, timeout=30,
                             metadata=(("authorization", f"Bearer {TOKEN}"),))
            assert ok.label in (0, 1)
            with pytest.raises(grpc.RpcError) as stream:
                list(stub.VerifyStream(iter([pb.VerifyStreamRequest(id=1, request=request)]),
                                       timeout=30))
            assert stream.value.code() == grpc.StatusCode.UNAUTHENTICATED
    finally:
        thread.stop()


def test_the_clients_send_the_token(pki: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The library client (``token=``) and the CLI (``--server-token-file``) reach a server
    that requires the token; without it the CLI says so and exits 2."""
    pytest.importorskip("grpc")
    from test_grpc_service import ServerThread

    from causal_oracle.clients import cli
    from causal_oracle.clients.remote import OracleClient
    from causal_oracle.clients.remote_codec import make_request

    thread = ServerThread(workers=1, auth_token_file=str(pki / "token"))
    thread.start()
    try:
        with OracleClient(thread.target, token=TOKEN, retries=0) as remote:
            assert remote.verify(PREMISE, "A directly causes B.").label in (0, 1)
            streamed = list(remote.verify_many([make_request(PREMISE, "A directly causes B.")]))
            assert streamed[0].label in (0, 1)
        args = ["verify", "--server", thread.target, "--premise", PREMISE,
                "--hypothesis", "A directly causes B."]
        assert cli.main([*args, "--server-token-file", str(pki / "token")]) == 0
        assert cli.main(args) == 2
        assert "UNAUTHENTICATED" in capsys.readouterr().err
    finally:
        thread.stop()


def test_doctests_of_the_security_module() -> None:
    import doctest

    from causal_oracle.rewards import http_security

    result = doctest.testmod(http_security)
    assert result.attempted and not result.failed
