"""Shrink a fuzz reproducer while it keeps its finding signature (triage aid).

`python -m tests.fuzz.reduce FILE --target spirv [-I DIR]` prints the reduced source.  Greedy:
drop chunks of lines, then chunks of tokens, halving the chunk size; in-process compiles, so
use it on internal errors, bad diagnostics and invalid outputs (not on hangs or crashes).
"""

from __future__ import annotations

import argparse
import sys
import tempfile

from .mutators import _tokens
from .worker import compile_one


def reduce(data: bytes, target: str, options: dict | None = None) -> bytes:
    options = options or {}
    with tempfile.TemporaryDirectory(prefix="sbreduce-") as workdir:
        validate = False

        def sig(d: bytes) -> str:
            return compile_one(d, "repro.hlsl", target, validate, options, workdir).signature

        want = sig(data)
        if want.startswith("ok|"):  # maybe only the external validator objects
            validate = True
            want = sig(data)
        if want.startswith(("ok|", "error|")):
            raise SystemExit(f"does not reproduce a finding on the current compiler ({want})")
        for split, join in ((lambda d: d.split(b"\n"), b"\n".join), (_tokens, b"".join)):
            parts = split(data)
            chunk = max(1, len(parts) // 2)
            while chunk >= 1:
                i = 0
                while i < len(parts):
                    trial = parts[:i] + parts[i + chunk:]
                    if sig(join(trial)) == want:
                        parts = trial
                    else:
                        i += chunk
                chunk //= 2
            data = join(parts)
    return data


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tests.fuzz.reduce")
    ap.add_argument("file")
    ap.add_argument("--target", default="spirv")
    ap.add_argument("-I", dest="include_dirs", action="append", default=[])
    args = ap.parse_args(argv)
    with open(args.file, "rb") as f:
        data = f.read()
    opts = {"include_dirs": args.include_dirs} if args.include_dirs else {}
    sys.stdout.write(reduce(data, args.target, opts).decode(errors="replace") + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
