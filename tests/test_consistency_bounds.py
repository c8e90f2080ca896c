"""Assumed bounds by numbers that leave a symbol no value are contradictory assumptions (kernel/consistency.py:
_bounds_contradicted): nothing is counted as verified from them."""
import pytest

from stepcheck.checker import check_text


def _inconsistent(text):
    rep = check_text(text, "t.step")
    hit = [d for d in rep.diagnostics if d.code == "E-inconsistent"]
    return hit[0] if hit else None, [lk.status for s in rep.steps for lk in s.links]


@pytest.mark.parametrize("text, labels, why", [
    ("let x: real\nassume a: x > 1\nassume b: x < 0\nstep up: x > 0\n", "`a`, `b`", "x > 1"),
    ("let x: real\nassume a: x >= 1\nassume b: x < 1\nstep up: x > 0\n", "`a`, `b`", "x < 1"),
    ("let x: real\nassume a: 2 < x\nassume b: 1 > x\nstep up: x > 0\n", "`a`, `b`", "x > 2"),
    ("let c: positive real\nassume neg: c < 0\nstep s: c < 0\n", "`neg`", "declared positive"),
    ("let c: nonnegative real\nassume neg: c < 0\nstep s: c < 0\n", "`neg`", "declared nonnegative"),
    ("random X\nassume pos: X > 0\nassume m: E[X] = -1\nstep s: E[X] > 0\n", "`pos`, `m`", "mean"),
    ("random X\nassume pos: X > 0\nassume m: E[X] = 0\nstep s: E[X] >= 0\n", "`pos`, `m`", "mean"),
    ("random X\nassume up: X <= 1\nassume m: E[X] = 2\nassume other: E[X^2] = 5\nstep s: E[X] = 2\n", "`up`, `m`",
     "mean"),
])
def test_bounds_that_leave_no_value_are_contradictory(text, labels, why):
    d, statuses = _inconsistent(text)
    assert d is not None and labels in d.title and any(why in n for n in d.notes), text
    assert "holds" not in statuses


@pytest.mark.parametrize("text", [
    "let x: real\nassume a: x > 1\nassume b: x < 2\nstep up: x > 0\n",
    "let x: real\nassume a: x >= 1\nassume b: x <= 1\nstep up: x > 0\n",           # x = 1
    "let c: positive real\nassume small: c < 1\nstep s: c < 1\n",
    "random X\nassume pos: X > 0\nassume m: E[X] = 1\nstep s: E[X] > 0\n",
    "random X\nassume nn: X >= 0\nassume m: E[X] = 0\nstep s: E[X] >= 0\n",         # X = 0 almost surely
    "random X\nlet x: real\nassume pos: x > 0\nassume m: E[X] = -1\nstep s: x > 0\n",   # another symbol
])
def test_bounds_that_leave_a_value_are_not(text):
    d, statuses = _inconsistent(text)
    assert d is None, text
    assert statuses == ["holds"], text
