"""The long fuzzing run: thousands of hypothesis examples through parse and check_text.

    python benchmarks/fuzz_long.py [--examples N]

Runs every strategy of tests/test_fuzz.py with N examples each (default
500) and prints how many inputs went through without a traceback or a
hang.  Exit code 1 on the first failure (hypothesis prints the shrunk input).
"""
from __future__ import annotations

import argparse
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "src"))
sys.path.insert(0, os.path.join(ROOT, "tests"))

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import test_fuzz as F  # noqa: E402


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--examples", type=int, default=500, help="examples per strategy")
    a = ap.parse_args(argv)
    count = {"n": 0}

    def run(text):
        F.run_both(text)
        count["n"] += 1

    cases = {
        "token soup": st.lists(st.sampled_from(F.TOKENS), max_size=80).map(" ".join),
        "glued tokens": st.lists(st.sampled_from(F.TOKENS), max_size=120).map("".join),
        "unicode": st.text(max_size=500),
        "grammar-shaped": F.programs(),
        "truncated": st.tuples(st.sampled_from(F.NAMES_SHIPPED), st.floats(0, 1)).map(
            lambda t: F.SHIPPED[t[0]][: int(len(F.SHIPPED[t[0]]) * t[1])]),
        "spliced": st.tuples(st.sampled_from(F.NAMES_SHIPPED), st.sampled_from(F.NAMES_SHIPPED), st.floats(0, 1),
                             st.floats(0, 1)).map(
            lambda t: F.SHIPPED[t[0]][: int(len(F.SHIPPED[t[0]]) * t[2])] + F.SHIPPED[t[1]][int(len(F.SHIPPED[t[1]]) * t[3]):]),
    }
    t0 = time.perf_counter()
    for name, strat in cases.items():
        before = count["n"]
        test = settings(max_examples=a.examples, deadline=None, suppress_health_check=list(HealthCheck),
                        database=None)(given(strat)(run))
        test()
        print(f"{name:16} {count['n'] - before:6} examples", flush=True)
    print(f"total            {count['n']:6} examples in {time.perf_counter() - t0:.0f} s: "
          "no traceback, no hang")
    return 0


if __name__ == "__main__":
    sys.exit(main())
