"""Sums of the kernel's normal forms that have a closed form: a power of the bound index alone,
Σ_{b=lo..hi} b^k (Faulhaber), so ``sum(u=1..n, u) = n (n + 1)/2`` is seen; and a summand a fact has made
free of its bound index (:func:`recount`).  Pure functions of sympy expressions (no facts, no state)."""
from __future__ import annotations

import sympy
from sympy import Dummy, Integer, Pow

MAX_POWER_SUM = 12  # the largest power of a bound index summed in closed form (Faulhaber)


def power_sum(summand, keep, excl, not_reversed=lambda size: size.is_nonnegative):
    """Σ_{b=lo..hi, b ∉ excl} b^k (k <= MAX_POWER_SUM) in closed form, the summand a power of its one bound
    index: Faulhaber's polynomial in lo and hi, less each left-out index.  Only where hi - lo + 1 >= 0 is
    known (the closed form of a reversed range is not the empty sum's 0); the left-out indices are the
    case's distinct free indices in the range, as for any DSum.  ``not_reversed(size)``: is size >= 0 known
    (the caller may read the declared ranges of free indices).  None where it does not apply."""
    if len(keep) != 1:
        return None
    b, lo, hi = keep[0]
    k = Integer(1) if summand == b else summand.exp if isinstance(summand, Pow) and summand.base == b else None
    if k is None or not (k.is_Integer and 0 < k <= MAX_POWER_SUM) or not not_reversed(hi - lo + 1):
        return None
    x = Dummy("x")
    top = sympy.expand((sympy.bernoulli(k + 1, x + 1) - sympy.bernoulli(k + 1, Integer(0))) / (k + 1))  # Σ_{1..x}
    upto = lambda v: top.xreplace({x: v})
    return sympy.expand(upto(hi) - upto(lo - 1) - sum(e**k for e in excl))


def recount(d, not_reversed=lambda size: size.is_nonnegative, used=lambda rule: None):
    """``d`` with every sum of one bound index whose summand does not mention it written as its number of
    members times the summand: Σ_{b=lo..hi, b ∉ E} c = (hi - lo + 1 - |E|) c.  Such a sum appears when a fact
    is put into a summand (``Σ_m E[exp(t s_m)]`` with ``E[exp(t s_m)] = exp(t^2/2)``); the left-out indices E
    are the case's distinct free indices, each in lo..hi (the normaliser leaves them out only there), and the
    range must not be reversed (``not_reversed(hi - lo + 1)``; a reversed range has no members).  ``used("sums")``
    is called when a sum was counted."""
    from ..terms.objects import DSum

    sub = {}
    for a in d.atoms(DSum):
        summand, bounds, excl = a.args
        if summand == 0:  # no term, whatever the range
            sub[a] = Integer(0)
            continue
        if len(bounds) != 1 or bounds[0][0] in summand.free_symbols or not not_reversed(bounds[0][2] - bounds[0][1] + 1):
            continue
        b, lo, hi = bounds[0]
        sub[a] = (hi - lo + 1 - len(excl.args)) * summand
    if not sub:
        return d
    used("sums")
    return sympy.expand(d.xreplace(sub))
