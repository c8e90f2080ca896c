"""Exact arithmetic on model values.

Values are :class:`~fractions.Fraction` when rational (fast) and sympy
numbers otherwise (``sqrt(2)``, ``tanh(1)``).  Equality and order are decided
exactly or left undecided (``None``), never guessed.
"""
from __future__ import annotations

import math
from fractions import Fraction

import sympy

from ..terms.magnitude import too_large


MAX_POWER_BITS = 20_000  # a power of a rational with a larger exponent than 64 is computed up to this size


class ModelError(Exception):
    """The expression has no value on this model (undefined, unsupported, too big)."""


def num(x):
    if isinstance(x, Fraction):
        return x
    if isinstance(x, int):
        return Fraction(x)
    if isinstance(x, sympy.Rational):
        return Fraction(int(x.p), int(x.q))
    if isinstance(x, sympy.Basic):
        if x.has(sympy.zoo, sympy.nan, sympy.oo, -sympy.oo):
            raise ModelError("undefined value (division by zero)")
        if x.is_number and x.is_extended_real is False:
            # sqrt(-1), log(-1): the language's expressions are real, so the model lies outside where this
            # one is defined (sqrt(s)^2 = -1 at s = -1 would refute |s| = sqrt(s)^2, which holds where defined)
            raise ModelError(f"no real value: {x}")
        return x
    raise ModelError(f"not a number: {x!r}")


def sym(v):
    if isinstance(v, Fraction):
        return sympy.Rational(v.numerator, v.denominator)
    return v


def _isqrt_exact(n: int):
    if n < 0:
        return None
    r = math.isqrt(n)
    return r if r * r == n else None


def n_add(a, b):
    if isinstance(a, Fraction) and isinstance(b, Fraction):
        return a + b
    return num(sym(a) + sym(b))


def n_mul(a, b):
    if isinstance(a, Fraction) and isinstance(b, Fraction):
        return a * b
    return num(sym(a) * sym(b))


def n_pow(a, b):
    if isinstance(a, Fraction) and isinstance(b, Fraction):
        if b.denominator == 1:
            e = b.numerator
            size = abs(e) * max(a.numerator.bit_length(), a.denominator.bit_length())
            if abs(e) > 64 and size > MAX_POWER_BITS:
                raise ModelError("exponent too large for a model")
            if a == 0 and e < 0:
                raise ModelError("division by zero in this model")
            return a ** e
        if b.denominator == 2 and a >= 0:
            p, q = _isqrt_exact(a.numerator), _isqrt_exact(a.denominator)
            if p is not None and q is not None:
                return n_pow(Fraction(p, q), Fraction(b.numerator))
    if isinstance(a, Fraction) and a == 0 and (sym(b).is_negative):
        raise ModelError("division by zero in this model")
    return num(sympy.Pow(sym(a), sym(b)))


def n_sqrt(a):
    return n_pow(a, Fraction(1, 2))


def n_eq(a, b, need_true: bool = True):
    """True / False when decided exactly, None when undecided.

    ``need_true=False``: the caller acts only on False (a refuted link, a
    violated fact), so a difference that evaluates to about 0 is left
    undecided instead of being proved 0 exactly (sympy's ``equals`` is slow).
    """
    if isinstance(a, Fraction) and isinstance(b, Fraction):
        return a == b
    d = sym(a) - sym(b)
    if d == 0:
        return True
    if not d.is_Rational and too_large(d):  # exp(exp(exp(10))): its digits are never asked for
        return None
    try:
        v = complex(d.evalf(60))
        if abs(v) > 1e-30:
            return False
    except (TypeError, ValueError):
        pass
    if not need_true:
        return None
    try:
        if sympy.radsimp(sympy.expand(d)) == 0:
            return True
        r = d.equals(0)
    except Exception:  # noqa: BLE001 - undecided, never a verdict
        return None
    return r


def n_cmp(a, b, need_true: bool = True):
    """-1, 0, 1 (a < b, a = b, a > b) decided exactly; None when undecided or not real."""
    if isinstance(a, Fraction) and isinstance(b, Fraction):
        return (a > b) - (a < b)
    e = n_eq(a, b, need_true)
    if e is True:
        return 0
    if e is None:
        return None
    try:
        v = complex((sym(a) - sym(b)).evalf(60))
    except (TypeError, ValueError):
        return None
    if abs(v.imag) > 1e-30:
        return None
    return 1 if v.real > 0 else -1


def holds_rel(a, rel: str, b, need_true: bool = True):
    """Whether ``a REL b`` holds exactly: True / False, None when undecided (see :func:`n_eq`)."""
    if rel in ("=", "=="):
        return n_eq(a, b, need_true)
    c = n_cmp(a, b, need_true)
    if c is None:
        return None
    return {"<": c < 0, "<=": c <= 0, ">": c > 0, ">=": c >= 0, "!=": c != 0, "≠": c != 0,
            "≤": c <= 0, "≥": c >= 0}.get(rel)


# A marginal is a tuple of (value, probability) sorted by value, probabilities > 0.


def _marg(pairs):
    d: dict = {}
    for v, p in pairs:
        if p != 0:
            d[v] = d.get(v, 0) + p
    return tuple(sorted(d.items(), key=lambda t: float(sym(t[0]))))
