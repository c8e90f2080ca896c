"""Bound-variable capture in nested sums: random nested sums, kernel verdicts against exact evaluation.

A nested sum ``sum(a=LO..HI, sum(b=LO'..HI', s_a^p s_b^q))`` is generated at
random (inner limits may mention the outer index: triangular sums), two of
them are compared by ``verify``, and whenever the checker says ``holds`` the
two sides are evaluated here, by plain Python loops with the language's
convention (an empty range sums to 0), for n = 1..4 and random integer
values of s.  Pairs made equal on purpose (renaming, swapping the order of a
rectangular sum) check that the kernel still proves something.
"""
from __future__ import annotations

import random

import pytest

from stepcheck.checker import check_text

HEAD = "let n: positive integer\nreal s_i for i in 1..n\n"
LIMITS = [("1", "n"), ("1", "a"), ("a", "n"), ("2", "n"), ("1", "n-1")]


def _limit(text: str, n: int, a: int | None) -> int:
    """The value of one of LIMITS' ends: a number, `n`, `a` or `n-1`."""
    return {"n": n, "a": a, "n-1": n - 1}.get(text) if not text.isdigit() else int(text)


def value(t, n: int, s: dict) -> int:
    (olo, ohi), (ilo, ihi), p, q = t
    tot = 0
    for a in range(_limit(olo, n, None), _limit(ohi, n, None) + 1):
        for b in range(_limit(ilo, n, a), _limit(ihi, n, a) + 1):
            tot += s[a] ** p * s[b] ** q
    return tot


def text(t, outer="a", inner="b") -> str:
    (olo, ohi), (ilo, ihi), p, q = t
    ren = {"a": outer}

    def lim(x):
        return "".join(ren.get(c, c) for c in x)

    return f"sum({outer}={olo}..{ohi}, sum({inner}={lim(ilo)}..{lim(ihi)}, s_{outer}^{p} s_{inner}^{q}))"


def templates(rng):
    outer = rng.choice([("1", "n"), ("2", "n"), ("1", "n-1")])
    inner = rng.choice(LIMITS[:3])
    return (outer, inner, rng.choice([0, 1, 2]), rng.choice([1, 2]))


def _pairs():
    rng = random.Random(21)
    out = []
    for _ in range(30):
        t, u = templates(rng), templates(rng)
        out.append((t, u, "a", "b"))
    for _ in range(8):  # equal on purpose: renamed bound indices
        t = templates(rng)
        out.append((t, t, "c", "d"))
    for _ in range(12):  # the powers of the outer and inner index swapped: equal only on a square range
        (olo, ohi), inner, p, q = templates(rng)
        inner = rng.choice([(olo, ohi), ("1", "n")])
        out.append((((olo, ohi), inner, p, q), ((olo, ohi), inner, q, p), "a", "b"))
    return out


def _defined(t, n) -> bool:
    (olo, ohi), (ilo, ihi), _, _ = t
    for a in range(_limit(olo, n, None), _limit(ohi, n, None) + 1):
        if not 1 <= a <= n:
            return False
        lo, hi = _limit(ilo, n, a), _limit(ihi, n, a)
        if lo <= hi and not (1 <= lo and hi <= n):
            return False
    return True


@pytest.mark.parametrize("t,u,outer,inner", _pairs())
def test_a_holds_between_nested_sums_is_true(t, u, outer, inner):
    src = HEAD + f"step eq: {text(t)} = {text(u, outer, inner)}\n"
    rep = check_text(src, timeout=3, cross_check=False)
    status = rep.steps[0].status if rep.steps else "error"
    rng = random.Random(0)
    differ = False
    for n in range(1, 5):
        if not (_defined(t, n) and _defined(u, n)):
            continue
        for _ in range(4):
            s = {k: rng.randint(-3, 3) for k in range(1, n + 1)}
            differ |= value(t, n, s) != value(u, n, s)
    if status == "holds":
        assert not differ, f"false holds: {src}"
    if status == "fails":
        assert differ, f"a refutation this test cannot reproduce: {src}"


def test_the_evaluator_sees_a_shifted_triangle():
    """The test's own evaluator tells the leaked-bound example apart (it can fail)."""
    t = (("1", "n"), ("1", "a"), 0, 1)
    u = (("1", "n-1"), ("1", "a"), 0, 1)
    s = {1: 1, 2: 2}
    assert value(t, 2, s) != value(u, 2, s)


def test_renamed_rectangular_sums_still_hold():
    t = (("1", "n"), ("1", "n"), 2, 1)
    src = HEAD + f"step eq: {text(t)} = {text(t, 'c', 'd')}\n"
    assert check_text(src, timeout=3).steps[0].status == "holds"


# ------------------------------------------------------------------ triangular counts

INNER_COUNTS = [("1", "a"), ("a", "n"), ("a+1", "n"), ("a+2", "n"), ("1", "a-1"), ("1", "a-2"), ("2", "a")]


def _end(x: str, n: int, a: int) -> int:
    """A range end of INNER_COUNTS: a number, or `n` or `a` plus or minus a number."""
    base, _, off = x.replace("-", "+-").partition("+")
    return {"n": n, "a": a}.get(base, int(base) if base.isdigit() else 0) + (int(off) if off else 0)


def _count_pairs():
    """Σ_a Σ_{b in an inner range} s_a^p, against Σ_a (hi - lo + 1) s_a^p: equal exactly where the inner range
    is never reversed (then the count is hi - lo + 1), not where it can be (an empty range counts 0, not -1)."""
    out = []
    for outer in [("1", "n"), ("2", "n")]:
        for inner in INNER_COUNTS:
            for p in (0, 1):
                out.append((outer, inner, p))
    return out


@pytest.mark.parametrize("outer,inner,p", _count_pairs())
def test_a_triangular_count_holds_only_where_it_is_true(outer, inner, p):
    (olo, ohi), (ilo, ihi) = outer, inner
    left = f"sum(a={olo}..{ohi}, sum(b={ilo}..{ihi}, s_a^{p}))"
    right = f"sum(a={olo}..{ohi}, (({ihi}) - ({ilo}) + 1) s_a^{p})"
    rep = check_text(HEAD + f"step eq: {left} = {right}\n", timeout=3, cross_check=False)
    status = rep.steps[0].status
    rng = random.Random(1)
    differ = False
    for n in range(1, 6):
        for _ in range(3):
            s = {k: rng.randint(-3, 3) for k in range(1, n + 1)}
            lv = rv = 0
            for a in range(_end(olo, n, 0), _end(ohi, n, 0) + 1):
                lv += sum(s[a] ** p for _ in range(_end(ilo, n, a), _end(ihi, n, a) + 1))
                rv += (_end(ihi, n, a) - _end(ilo, n, a) + 1) * s[a] ** p
            differ |= lv != rv
    if status == "holds":
        assert not differ, f"false holds: {left} = {right}"
    else:
        assert differ or status == "unknown", (left, right, status)
    if not differ and ilo in ("1", "a", "2") and (olo, ilo) != ("1", "2"):
        assert status == "holds", (left, right, status)  # a count over a range never reversed is reached
