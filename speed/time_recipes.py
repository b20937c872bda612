"""Run the Python recipes of docs/ecosystem.md as written and print how long each took.

Each ``python`` code block runs in a fresh interpreter (the one running this
script, or ``--python``), from the repository's root, and is timed from start
to exit. ``--threads default`` first removes the recipes'
``torch.set_num_threads(1)`` lines, to measure what torch's default thread pool
costs. A block whose library is missing fails with its ImportError (run the
RLlib and AgileRL blocks with the interpreter of their own environment).

    python speed/time_recipes.py                       # every block, one thread
    python speed/time_recipes.py --only Tianshou --threads default --timeout 600
    .venv-rllib/bin/python speed/time_recipes.py --only RLlib

numpy's BLAS on one thread (torch's threads as they are) and how long it took, on stderr:
:mod:`sixtysix_env.util.scripts`.
"""

from __future__ import annotations

import os
import sys
import time

_STARTED = time.perf_counter()
sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from sixtysix_env.util.scripts import one_blas_thread, say_how_long_at_exit

one_blas_thread(keep_torch_threads=True)

import argparse
import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "ecosystem.md"
ONE_THREAD = re.compile(r"^torch\.set_num_threads\(1\).*$", re.MULTILINE)


def recipes(text: str) -> list[tuple[str, str]]:
    """(heading, code) of every python block, under the nearest heading above it."""
    blocks = []
    heading = ""
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("#"):
            heading = line.lstrip("#").strip()
        elif line.strip() == "```python":
            j = i + 1
            while lines[j].strip() != "```":
                j += 1
            blocks.append((heading, "\n".join(lines[i + 1 : j]) + "\n"))
            i = j
        i += 1
    return blocks


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--only", action="append", default=[], help="headings containing this text")
    ap.add_argument("--threads", choices=("one", "default"), default="one")
    ap.add_argument("--python", default=sys.executable, help="interpreter to run the blocks")
    ap.add_argument("--timeout", type=float, default=1800.0, help="seconds per block")
    args = ap.parse_args(argv)

    chosen = [
        (heading, code)
        for heading, code in recipes(DOC.read_text(encoding="utf-8"))
        if not args.only or any(o.lower() in heading.lower() for o in args.only)
    ]
    if not chosen:
        ap.error(f"no python block under a heading containing {args.only}")
    print(f"{os.cpu_count()} cores, threads: {args.threads}, python: {args.python}")
    failed = 0
    for heading, code in chosen:
        if args.threads == "default":
            code = ONE_THREAD.sub("pass  # torch's default threads", code)
        start = time.perf_counter()
        try:
            proc = subprocess.run(
                [args.python, "-c", code],
                check=False,
                cwd=ROOT,
                capture_output=True,
                text=True,
                timeout=args.timeout,
            )
            elapsed = time.perf_counter() - start
            status = "ok" if proc.returncode == 0 else f"exit {proc.returncode}"
            if proc.returncode != 0:
                failed += 1
                tail = proc.stderr.strip().splitlines()[-1:] or ["(no output)"]
                status += f": {tail[0][:160]}"
        except subprocess.TimeoutExpired:
            elapsed = time.perf_counter() - start
            status = f"stopped after the {args.timeout:.0f} s timeout"
        print(f"{heading:<50} {elapsed:8.1f} s  {status}", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    say_how_long_at_exit(__file__, _STARTED)
    raise SystemExit(main())
