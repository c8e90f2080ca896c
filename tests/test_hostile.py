"""The hostile corpus (tests/hostile/, benchmarks/hostile.py): attacks by class, each with its expected verdict.

Every case: no false `holds`, no internal error, and the expected status or
diagnostic.  The harness itself is tested on a report it must reject.
"""
from __future__ import annotations

import os

import pytest

from benchmarks import hostile as H

CASES = H.cases()


def test_every_class_has_its_corpus():
    counts = {}
    for c in CASES:
        counts.setdefault(c.klass, [0, 0])
        counts[c.klass][c.default == "holds" and not c.named] += 1
    assert len(counts) == 10, sorted(counts)
    for klass, (attacks, true_ones) in counts.items():
        assert attacks >= 10, f"{klass}: only {attacks} attacks"
        assert true_ones >= 3, f"{klass}: only {true_ones} true cases (the rule must still apply)"


@pytest.mark.parametrize("case", CASES, ids=[os.path.relpath(c.path, H.ROOT) for c in CASES])
def test_hostile_case(case):
    r = H.check(case)
    assert not r.false_holds, f"false holds: {r.false_holds} ({case.what})"
    assert r.right, "; ".join(r.problems)


def test_the_harness_rejects_a_false_holds_and_a_missing_diagnostic():
    from stepcheck.checker import check_text

    case = H.Case("x.step", "x", "attack", "not-holds")
    r = H.judge(case, check_text("random X\nassume m: E[X] = 0\nstep s: E[2 X] = 0 by m\n"))
    assert r.false_holds == ["s"] and not r.right
    case = H.Case("x.step", "x", "attack", "code E-inconsistent")
    r = H.judge(case, check_text("random X\nassume m: E[X] = 0\nstep s: E[2 X] = 1 by m\n"))
    assert not r.right and any("E-inconsistent" in p for p in r.problems)
    case = H.Case("x.step", "x", "attack", "holds")
    r = H.judge(case, check_text("random X\nstep s: E[X] = 1\n"))
    assert not r.right and not r.false_holds


def test_the_harness_reads_its_expectations(tmp_path):
    p = tmp_path / "c.step"
    p.write_text("# hostile: two statements\n# expect: not-holds\n# expect t: holds\n# expect u: contradiction\n"
                 "check t: 1 = 1\n", encoding="utf-8")
    c = H.read_case(str(p))
    assert (c.default, c.named) == ("not-holds", {"t": "holds", "u": "code E-inconsistent"})
    p.write_text("# hostile: no expectation\ncheck t: 1 = 1\n", encoding="utf-8")
    with pytest.raises(ValueError):
        H.read_case(str(p))
