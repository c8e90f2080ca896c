"""The kernel-reach corpus (tests/corpus/, issue 14): true variants and false near misses of the shipped claims.

Every case runs: a false claim must never hold, nothing may end in an
internal error, and the expected verdict must come out, except for the
cases listed in UNREACHED, which need a capability the kernel does not have
yet.  Those are strict expected failures: when one starts to pass, the test
says so and the entry must go.  The right fraction is reported in
docs/kernel.md (``python -m benchmarks.hostile tests/corpus/*/*.step``).
"""
from __future__ import annotations

import glob
import os

import pytest

from benchmarks import hostile as H

ROOT = os.path.join(H.REPO, "tests", "corpus")
CASES = H.cases(sorted(glob.glob(os.path.join(ROOT, "*", "*.step"))))

#: case -> the capability it needs (all true claims that stay `unknown` today; none may be a false claim)
UNREACHED = {
    "02-index-ranges/split_triangle.step": "a triangular sum whose summand mentions the inner index (sums swapped)",
}


def _id(c):
    return os.path.relpath(c.path, ROOT)


def test_the_corpus_has_its_size():
    true = sum(1 for c in CASES if c.default == "holds")
    false = sum(1 for c in CASES if c.default == "not-holds")
    assert true >= 60 and false >= 30, (true, false)


def test_the_unreached_list_names_real_cases():
    assert set(UNREACHED) <= {_id(c) for c in CASES}


@pytest.mark.parametrize("case", CASES, ids=[_id(c) for c in CASES])
def test_corpus_case(case):
    r = H.check(case)
    assert not r.false_holds, f"false holds: {r.false_holds} ({case.what})"
    assert not any(p.startswith("internal error") for p in r.problems), r.problems
    if _id(case) in UNREACHED:
        if r.right:
            pytest.fail(f"now right: remove it from UNREACHED ({UNREACHED[_id(case)]})")
        pytest.xfail(UNREACHED[_id(case)])
    assert r.right, "; ".join(r.problems)
