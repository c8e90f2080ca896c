"""Exact signs of real numbers: the judge's numeric evidence.

``sign(x)`` is -1, 0 or +1 only when it is proved: rationals by comparison,
other numbers by sympy's ``evalf(strict=True)`` (arbitrary precision with an
error bound: a nonzero value at the working precision has that sign) at
increasing precision, exact zero by ``is_zero`` or ``equals(0)``; otherwise
None.  It shares no code with the kernel's normaliser.
"""
from __future__ import annotations

import sympy

from ..terms.magnitude import too_large

PRECISIONS = (15, 30, 60, 100)  # digits tried when deciding a sign


def as_sympy(x):
    """Python numbers to sympy numbers; never parses a string."""
    if isinstance(x, sympy.Basic):
        return x
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        raise TypeError(f"not a number: {type(x).__name__}")
    return sympy.Integer(x) if isinstance(x, int) else sympy.Float(x)


def sign(x):
    """-1, 0, +1 for an exact real number, or None when 100 digits cannot tell."""
    x = as_sympy(x)
    if x.is_Rational:
        return 1 if x > 0 else (-1 if x < 0 else 0)
    if x.is_zero:
        return 0
    if x.has(sympy.nan, sympy.zoo) or too_large(x):  # no sign, or too large to evaluate (exp(exp(exp(10))))
        return None
    if x in (sympy.oo, -sympy.oo):
        return 1 if x == sympy.oo else -1
    for n in PRECISIONS:
        try:
            v = x.evalf(n, strict=True, maxn=n * 4)
        except (sympy.core.evalf.PrecisionExhausted, ValueError, TypeError):
            continue
        except Exception:
            continue
        if v.is_Number and v != 0:
            if v.is_real is False:
                return None
            return 1 if v > 0 else -1
        if v == 0:
            break
    try:
        if x.equals(0):
            return 0
    except Exception:
        pass
    return None


def violates(v, rel: str) -> bool:
    """Is the number ``v`` (lhs - rhs, or an inequality's margin) proved to violate ``rel``?

    For ``=``, ``v`` is lhs - rhs; for an inequality, the margin (positive
    when it holds, see the kernel's sign convention).  Unknown is no.
    """
    if not getattr(v, "is_number", False) or v.has(sympy.zoo, sympy.nan, sympy.oo, -sympy.oo):
        return False
    if v.is_real is False:
        return False
    s = sign(v)
    if s is None:
        return False
    if rel == "=":
        return s != 0
    return s < 0 if rel in ("<=", ">=") else s <= 0
