"""The committed stubs are exactly what grpcio-tools generates from oracle.proto."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
STUBS = ROOT / "proto/causal_oracle/v1"
GENERATED = ("oracle_pb2.py", "oracle_pb2.pyi", "oracle_pb2_grpc.py")


def test_regenerating_the_stubs_gives_identical_files(tmp_path: Path) -> None:
    pytest.importorskip("grpc_tools", reason="grpcio-tools is in the [test] extra")
    subprocess.run([sys.executable, str(ROOT / "scripts/gen_proto.py"), "--out", str(tmp_path)],
                   check=True, capture_output=True)
    for name in GENERATED:
        assert (tmp_path / name).read_bytes() == (STUBS / name).read_bytes(), (
            f"{name} is stale: regenerate with `python scripts/gen_proto.py`")


def test_stubs_import_as_a_package() -> None:
    from causal_oracle.proto.causal_oracle.v1 import oracle_pb2, oracle_pb2_grpc

    service = oracle_pb2.DESCRIPTOR.services_by_name["Oracle"]
    assert service.full_name == "causal_oracle.v1.Oracle"
    assert {m.name for m in service.methods} == {"Verify", "VerifyStream", "Answer",
                                                "VerifyBatch", "AnswerBatch"}
    assert hasattr(oracle_pb2_grpc, "OracleStub")
