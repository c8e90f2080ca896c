"""Differences of one increasing function (part of the rule ``monotone``).

For a function f strictly increasing on a set holding A and B, ``f(A) - f(B)`` has the sign of ``A - B``: it
is ``> 0`` where ``A - B > 0`` and ``>= 0`` where ``A - B >= 0``.  A margin ``k (f(A) - f(B))`` (two terms, k
proved positive by the interval evaluator) is proved by proving ``A - B`` (with the facts: ``prove``), so
``tanh(x) > tanh(y)``, ``log(1 + exp(x)) > log(1 + exp(y))`` and ``x^3 > y^3`` hold under ``x > y``.  The
functions: exp, tanh, sinh (on the reals), log (where A and B are proved positive), odd
powers, and a positive power p (``sqrt``) where A and B are proved nonnegative.  Nested: the arguments are
tried the same way (``log(1 + exp(x)) - log(1 + exp(y))`` through ``exp(x) - exp(y)``), at most 4 deep.
"""
from __future__ import annotations

import sympy
from sympy import Pow

from .calculus import bounds

ON_REALS = (sympy.exp, sympy.tanh, sympy.sinh)  # the language's (sinh: sympy's rewriting of tanh)
DEPTH = 4


def _head(t):
    """(number or positive factor k, the increasing part f(A)) of one term, or None."""
    k, rest = sympy.Integer(1), []
    for f in sympy.Mul.make_args(t):
        if isinstance(f, ON_REALS + (sympy.log,)) or (isinstance(f, Pow) and not f.base.is_number
                                                      and f.exp.is_Rational and f.exp > 0):
            rest.append(f)
        else:
            k *= f
    return (k, rest[0]) if len(rest) == 1 else None


def _args(fa, fb, prove, used: set):
    """(A, B) where ``fa = f(A)`` and ``fb = f(B)`` for one function f increasing on a set proved (``prove``,
    with the facts) to hold them, else None."""
    def inside(xs, strict):
        for x in xs:
            ok, signs = prove(x, strict)
            if not ok:
                return False
            used.update(signs)
        return True

    if isinstance(fa, ON_REALS) and fa.func == fb.func:
        return fa.args[0], fb.args[0]
    if isinstance(fa, sympy.log) and isinstance(fb, sympy.log):
        return (fa.args[0], fb.args[0]) if inside((fa.args[0], fb.args[0]), True) else None
    if isinstance(fa, Pow) and isinstance(fb, Pow) and fa.exp == fb.exp and fa.exp.is_Rational and fa.exp > 0:
        if (fa.exp.is_Integer and fa.exp % 2 == 1) or inside((fa.base, fb.base), False):
            return fa.base, fb.base
    return None


def increasing_proof(g, strict: bool, domain, prove, depth: int = 0) -> tuple[bool, set]:
    """``g > 0`` (strict) or ``g >= 0`` for ``g = k (f(A) - f(B))``, by ``prove(A - B, strict)``."""
    terms = sympy.Add.make_args(sympy.expand(g, power_base=False, power_exp=False, log=False, mul=True,
                                             multinomial=False))
    if depth >= DEPTH or len(terms) != 2:
        return False, set()
    heads = [_head(t) for t in terms]
    if None in heads:
        return False, set()
    (ka, fa), (kb, fb) = heads
    if sympy.expand(ka + kb) != 0:
        return False, set()
    used: set = set()
    if not bounds(ka, domain, used).positive():
        if not bounds(kb, domain, used).positive():
            return False, set()
        (ka, fa), (kb, fb) = (kb, fb), (ka, fa)
    got = _args(fa, fb, prove, used)
    if got is None:
        return False, set()
    diff = sympy.expand(got[0] - got[1])
    ok, signs = prove(diff, strict)
    if not ok:
        ok, signs = increasing_proof(diff, strict, domain, prove, depth + 1)
    return (True, used | set(signs)) if ok else (False, set())
