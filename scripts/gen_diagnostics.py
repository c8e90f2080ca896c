#!/usr/bin/env python3
"""Re-generate docs/diagnostics.md from the table of diagnostic codes (src/stepcheck/codes.py).

``tests/test_codes.py`` fails when the file is out of date.

Usage: python scripts/gen_diagnostics.py [--check]
"""
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from stepcheck import codes  # noqa: E402  (after the path is set)

TARGET = ROOT / codes.DOC_PATH


def main(argv: list[str]) -> int:
    text = codes.markdown()
    old = TARGET.read_text(encoding="utf-8") if TARGET.exists() else None
    if "--check" in argv:
        if old != text:
            print(f"{codes.DOC_PATH} is out of date: run python scripts/gen_diagnostics.py", file=sys.stderr)
            return 1
        return 0
    if old != text:
        TARGET.write_text(text, encoding="utf-8", newline="\n")
        print(f"wrote {codes.DOC_PATH} ({len(codes.CODES)} codes)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
