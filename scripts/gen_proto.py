"""Regenerate the gRPC stubs under ``proto/causal_oracle/v1/`` from ``oracle.proto``.

The repository root is installed as the package ``causal_oracle`` (pyproject's
``package-dir``), so the stubs must import each other as
``causal_oracle.proto.causal_oracle.v1``.  protoc derives that import path from the
file's path below the include root, so the ``.proto`` is copied to
``causal_oracle/proto/causal_oracle/v1/`` in a scratch folder and compiled there.

    python scripts/gen_proto.py            # rewrite the committed stubs
    python scripts/gen_proto.py --out DIR  # write them into DIR instead (tests compare)
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROTO = Path("proto/causal_oracle/v1/oracle.proto")
LOGICAL = Path("causal_oracle") / PROTO
GENERATED = ("oracle_pb2.py", "oracle_pb2.pyi", "oracle_pb2_grpc.py")


def generate(out: Path) -> list[Path]:
    """Compile ``oracle.proto`` and copy the three stubs into ``out``."""
    with tempfile.TemporaryDirectory() as scratch:
        source = Path(scratch) / LOGICAL
        source.parent.mkdir(parents=True)
        shutil.copy(ROOT / PROTO, source)
        subprocess.run([sys.executable, "-m", "grpc_tools.protoc", "-I.", "--python_out=.",
                        "--grpc_python_out=.", "--pyi_out=.", str(LOGICAL)],
                       cwd=scratch, check=True)
        out.mkdir(parents=True, exist_ok=True)
        written = []
        for name in GENERATED:
            shutil.copy(source.parent / name, out / name)
            written.append(out / name)
        return written


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / PROTO.parent,
                        help="where to write the stubs (default: next to oracle.proto)")
    for path in generate(parser.parse_args().out):
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
