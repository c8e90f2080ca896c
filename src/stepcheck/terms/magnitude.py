"""A cheap upper estimate of a number's size, so that nothing asks sympy for the digits of a number too large to
write down: ``exp(exp(exp(exp(exp(2)))))`` has about 10^(10^700) digits before its point, and ``evalf`` would try
to compute e to that precision.  :func:`too_large` walks the expression once with floats (log10 of magnitudes,
``inf`` past what a float holds); an estimate past :data:`LIMIT` means "not evaluated": the caller treats the
number as undecided, which is never a verdict.  Only an estimate: it guards work, never decides a value."""
from __future__ import annotations

import math

import sympy

#: log10 of the largest magnitude evaluated: evalf works on a float's exponent as a big integer, so exp(10^8) is
#: cheap; past 10^(10^12) the argument of the outer exp alone needs more digits than are worth computing
LIMIT = 1e12
#: log10 of the largest exact rational computed (2^(2^40) has 3.3·10^11 digits: never built)
EXACT_LIMIT = 1e5


def too_large(x, limit: float = LIMIT) -> bool:
    """Whether the number ``x`` (a sympy expression) may be larger than 10^limit in absolute value (or smaller
    than 10^-limit)."""
    if not isinstance(x, sympy.Basic):
        return True  # (never parsed from anything: the callers pass sympy numbers)
    try:
        return _log10(x) > limit
    except (OverflowError, ValueError, TypeError, RecursionError):
        return True


def _log10(x) -> float:
    """An estimate of |log10 |x|| (the size of x and of 1/x alike; 0 for 0)."""
    if x.is_Rational:
        if x == 0:
            return 0.0
        return abs(math.log10(abs(int(x.p))) - math.log10(int(x.q)))
    if x.is_Float:
        return abs(math.log10(abs(float(x)))) if x != 0 else 0.0
    if x.is_NumberSymbol or x is sympy.I:
        return 0.5
    args = [_log10(a) for a in x.args] if x.args else [1.0]
    if isinstance(x, sympy.exp):
        return _size(args[0]) * math.log10(math.e)  # |log10 exp(a)| <= |a| log10(e)
    if isinstance(x, sympy.Pow):
        b, e = args
        if x.exp.is_number and x.exp.is_real:
            return b * max(1.0, abs(float(x.exp)))
        return _size(e) * b  # |e log10 b|
    if isinstance(x, sympy.Add):
        return max(args) + math.log10(len(args))
    if isinstance(x, sympy.Mul):
        return sum(args)
    return max(args)  # log, sqrt, tanh, abs, ...: no larger than their arguments, in this estimate


def _size(logsize: float) -> float:
    """|a| from |log10 |a||, at most."""
    return math.inf if logsize > 300 else 10 ** logsize
