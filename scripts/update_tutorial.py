#!/usr/bin/env python3
"""Re-generate the outputs and sources shown in docs/tutorial.md and README.md.

The tutorial marks every command whose output it shows:

    <!-- tutorial-output: verify --no-color docs/tutorial/stage1.step -->
    ```text
    ...output...
    ```

and every `.step` file whose source it shows:

    <!-- tutorial-source: docs/tutorial/stage1.step -->
    ```step
    ...source...
    ```

This script re-runs each command (``python -m stepcheck ARGS`` from the
repository root, with PYTHONPATH=src, NO_COLOR=1, COLUMNS=100), re-reads each
source, and rewrites the blocks in place.  ``tests/test_docs.py`` uses the
same functions to check that the tutorial is up to date.

Usage: python scripts/update_tutorial.py [--check]
"""
from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TUTORIAL = ROOT / "docs" / "tutorial.md"
README = ROOT / "README.md"
TARGETS = [TUTORIAL, README]  # every file with output marks

OUTPUT_RE = re.compile(r"(<!-- tutorial-output: verify (?P<args>.*?) -->\n```text\n)(?P<body>.*?)(```)", re.S)
SOURCE_RE = re.compile(r"(<!-- tutorial-source: (?P<path>.*?) -->\n```step\n)(?P<body>.*?)(```)", re.S)


def normalise(text: str) -> str:
    """Remove what differs between machines: absolute paths, timings, trailing spaces."""
    text = text.replace(str(ROOT) + os.sep, "").replace(str(ROOT), ".")
    text = re.sub(r"\b\d+(\.\d+)? ?(s|ms|seconds)\b(?= |\)|$)", "<time>", text, flags=re.M)
    lines = [ln.rstrip() for ln in text.splitlines()]
    while lines and not lines[-1]:
        lines.pop()
    return "\n".join(lines) + "\n" if lines else ""


def run_verify(args: str) -> str:
    """The output of ``verify ARGS`` (stdout, then stderr), normalised."""
    env = dict(os.environ)
    env.update(PYTHONPATH=str(ROOT / "src"), NO_COLOR="1", COLUMNS="100")
    env.pop("STEPCHECK_DEBUG", None)
    proc = subprocess.run([sys.executable, "-m", "stepcheck", *shlex.split(args)], cwd=ROOT, env=env,
                          capture_output=True, text=True, encoding="utf-8", timeout=120)
    return normalise(proc.stdout + proc.stderr)


def output_marks(text: str) -> list[str]:
    return [m.group("args") for m in OUTPUT_RE.finditer(text)]


def source_marks(text: str) -> list[str]:
    return [m.group("path") for m in SOURCE_RE.finditer(text)]


def shown_outputs(text: str) -> dict[str, str]:
    return {m.group("args"): m.group("body") for m in OUTPUT_RE.finditer(text)}


def shown_sources(text: str) -> dict[str, str]:
    return {m.group("path"): m.group("body") for m in SOURCE_RE.finditer(text)}


def run_all(text: str) -> dict[str, str]:
    """Run every marked command (in parallel); args -> output."""
    marks = list(dict.fromkeys(output_marks(text)))
    with ThreadPoolExecutor(max_workers=4) as pool:
        return dict(zip(marks, pool.map(run_verify, marks)))


def read_source(path: str) -> str:
    body = (ROOT / path).read_text(encoding="utf-8")
    return body if body.endswith("\n") else body + "\n"


def update(text: str) -> str:
    outputs = run_all(text)
    text = OUTPUT_RE.sub(lambda m: m.group(1) + outputs[m.group("args")] + m.group(4), text)
    return SOURCE_RE.sub(lambda m: m.group(1) + read_source(m.group("path")) + m.group(4), text)


def main(argv: list[str]) -> int:
    stale = []
    for path in TARGETS:
        old = path.read_text(encoding="utf-8")
        new = update(old)
        name = path.relative_to(ROOT)
        if new == old:
            print(f"{name} is up to date")
        elif "--check" in argv:
            stale.append(name)
            print(f"{name} is out of date: run python scripts/update_tutorial.py", file=sys.stderr)
        else:
            path.write_text(new, encoding="utf-8")
            print(f"updated {name}")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
