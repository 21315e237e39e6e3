"""Regenerate the Python code of the API from proto/typhoon/v1/*.proto.

    python -m service.protogen            # rewrite service/gen/
    python -m service.protogen --check    # exit 1 if service/gen/ is not what the protos give

The generated modules import each other as ``typhoon.v1.x_pb2``; they live in the package
``service.gen.typhoon.v1``, so the imports are rewritten to that. The output depends on the
grpcio-tools version (pinned in pyproject.toml), recorded in service/gen/GENERATED_BY.
"""

from __future__ import annotations

import argparse
import filecmp
import re
import shutil
import sys
import tempfile
from importlib import metadata, resources
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROTO_DIR = ROOT / "proto"
GEN_DIR = ROOT / "service" / "gen"
PACKAGE = "service.gen"

_INIT = '"""Generated code: do not edit; run `python -m service.protogen`."""\n'


def proto_files() -> list[Path]:
    return sorted(PROTO_DIR.glob("typhoon/v1/*.proto"))


def generate(out: Path) -> None:
    """Write the generated package tree (without the top-level service/gen itself) into ``out``."""
    from grpc_tools import protoc

    out.mkdir(parents=True, exist_ok=True)
    include = str(resources.files("grpc_tools") / "_proto")
    sources = [str(p.relative_to(PROTO_DIR)) for p in proto_files()]
    args = ["protoc", f"-I{PROTO_DIR}", f"-I{include}", f"--python_out={out}", f"--pyi_out={out}",
            f"--grpc_python_out={out}", *sources]
    code = protoc.main(args)
    if code != 0:
        raise SystemExit(f"protoc failed ({code})")
    for path in sorted(out.rglob("*.py")) + sorted(out.rglob("*.pyi")):
        text = path.read_text()
        text = re.sub(r"^from typhoon\.v1 import", f"from {PACKAGE}.typhoon.v1 import", text, flags=re.M)
        text = re.sub(r"^import typhoon\.v1\.", f"import {PACKAGE}.typhoon.v1.", text, flags=re.M)
        path.write_text(text)
    for package in (out, out / "typhoon", out / "typhoon" / "v1"):
        (package / "__init__.py").write_text(_INIT)
    (out / "GENERATED_BY").write_text(f"grpcio-tools {metadata.version('grpcio-tools')}\n")


def _tree(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*")
                  if p.is_file() and "__pycache__" not in p.parts)


def differences(expected: Path, actual: Path) -> list[str]:
    """Files that differ between two generated trees (missing, extra or changed)."""
    left, right = _tree(expected), _tree(actual)
    problems = [f"missing {name}" for name in sorted(set(left) - set(right))]
    problems += [f"extra {name}" for name in sorted(set(right) - set(left))]
    problems += [f"changed {name}" for name in sorted(set(left) & set(right))
                 if not filecmp.cmp(expected / name, actual / name, shallow=False)]
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only compare; exit 1 on a difference")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        fresh = Path(tmp) / "gen"
        generate(fresh)
        if args.check:
            problems = differences(fresh, GEN_DIR)
            for problem in problems:
                print(problem)
            return 1 if problems else 0
        if GEN_DIR.exists():
            shutil.rmtree(GEN_DIR)
        shutil.copytree(fresh, GEN_DIR)
    print(f"generated {GEN_DIR.relative_to(ROOT)} from {len(proto_files())} proto files")
    return 0


if __name__ == "__main__":
    sys.exit(main())
