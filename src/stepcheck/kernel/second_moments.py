"""Margins quadratic in one value, and the second moment of a surely bounded variable.

* A margin whose numerator (the denominator proved positive) is ``a m^2 + b m + c`` in one of its atoms m, with
  ``a`` proved positive and ``4 a c - b^2`` proved ``>= 0`` (``> 0``), is ``a (m + b/(2a))^2 + (4 a c - b^2)/(4 a)``:
  ``>= 0`` (``> 0``) for every real m (part of the rule ``inequality``).
* Where ``lo <= X <= hi`` on every outcome (assumed bounds by numbers on a random symbol, read from the domain, or
  two facts ``lo <= X``, ``X <= hi`` with deterministic other sides: ``Var(G) <= (hi - lo)^2/4`` for names lo, hi),
  ``(X - lo)(hi - X) >= 0`` on every outcome, so ``E[X^2] = (lo + hi) E[X] - lo hi - G`` with
  ``G = E[(X - lo)(hi - X)] >= 0`` (``> 0`` where both bounds are strict): in a margin where ``E[X^2]`` has a coefficient proved ``<= 0``, it is written
  so, with G a fresh value ``>= 0``, and the margin proved for every such G by the interval evaluator or as a
  quadratic in one value (part of the rule ``bounded``).  So ``Var(B) <= E[B] (1 - E[B])`` and
  ``Var(B) <= 1/4`` hold under ``0 <= B <= 1`` (Popoviciu's inequality), each in one link.
"""
from __future__ import annotations

import sympy
from sympy import Dummy

from ..terms.facts import KernelLimit
from ..terms.objects import E, as_expr
from .calculus import sign_proof
from .cross_squares import numerator_poly

def quadratic_proof(g, strict: bool, domain) -> tuple[bool, set]:
    """``g > 0`` (``>= 0``) as a quadratic in one of its atoms with a discriminant of proved sign."""
    got = numerator_poly(g, domain)
    if got is None:
        return False, set()
    poly, used = got
    num, gens = poly.as_expr(), poly.gens
    for m in gens:
        try:
            p = sympy.Poly(num, m)
        except (sympy.PolynomialError, NotImplementedError, ValueError, TypeError):
            continue
        if p.degree() != 2:
            continue
        a, b, c = p.all_coeffs()
        ok_a, sa = sign_proof(a, True, domain)
        if not ok_a:
            continue
        ok, sd = sign_proof(sympy.expand(4 * a * c - b ** 2), strict, domain)
        if ok:
            return True, used | set(sa) | set(sd)
    return False, set()


def bounded_second_moment_proof(g, strict: bool, domain, is_rv, trace, ineqs=()) -> tuple[bool, set]:
    """``g > 0`` (``>= 0``) with each ``E[X^2]`` of a surely bounded random symbol X written through its bounds:
    by numbers, from the domain, or by deterministic expressions, from the facts ``ineqs`` (``lo <= G``,
    ``G <= hi``: then ``Var(G) <= (hi - lo)^2/4``); ``trace`` gets the rule ``bounded`` where it is proved so."""
    sub, used, gaps = {}, set(), set()
    for a in sorted(g.atoms(E), key=sympy.default_sort_key):
        x = a.args[0]
        if not (isinstance(x, sympy.Pow) and x.exp == 2 and is_rv(x.base) and isinstance(x.base, (sympy.Symbol, sympy.Indexed))):
            continue
        mine: set = set()
        try:
            iv = domain(x.base, mine)
            coeff = sympy.expand(g).coeff(a)
            if coeff == 0 or not sign_proof(-coeff, False, domain)[0]:
                continue
            ends = (iv.lo, iv.hi, iv.lo_open, iv.hi_open) if iv.lo.is_finite and iv.hi.is_finite else \
                _bounds_by_facts(x.base, ineqs, is_rv)
        except (KernelLimit, AttributeError, TypeError):
            continue
        if ends is None:
            continue
        lo, hi, lo_open, hi_open = ends
        # (X - lo)(hi - X) > 0 on every outcome where both bounds are strict: its mean is then positive
        G = Dummy("spread", positive=True) if lo_open and hi_open else Dummy("spread", nonnegative=True)
        gaps.add(G)
        sub[a] = (lo + hi) * E(x.base) - lo * hi - G
        used |= mine
    if not sub:
        return False, set()
    h = sympy.expand(g.xreplace(sub))
    for attempt in (lambda: sign_proof(h, strict, domain), lambda: quadratic_proof(h, strict, domain)):
        ok, signs = attempt()
        if ok:
            trace.rules.add("bounded")
            return True, (used | set(signs)) - gaps
    return False, set()


def _bounds_by_facts(x, ineqs, is_rv):
    """``(lo, hi, lo strict, hi strict)`` from two unquantified facts ``lo <= x`` and ``x <= hi`` (``<`` for a
    strict one, either side written first) whose other sides are deterministic (no mean, no random
    variable), or None.  On every outcome then ``(x - lo)(hi - x) >= 0``: the facts are about the values of
    x, read as holding almost surely."""
    low = high = None
    for f in ineqs:
        if f.free or f.rel not in ("<", "<=", ">", ">="):
            continue
        a, b = (as_expr(f.lhs), as_expr(f.rhs))[::1 if f.rel in ("<", "<=") else -1]  # a < b or a <= b
        for other, upper in ((b, True), (a, False)) if (a == x) != (b == x) else ():
            if (a if upper else b) != x or other.has(E, sympy.Sum) or other.has(x) or any(
                    is_rv(s) for s in other.free_symbols | other.atoms(sympy.Indexed)):
                continue
            if upper and high is None:
                high = (other, f.rel in ("<", ">"))
            elif not upper and low is None:
                low = (other, f.rel in ("<", ">"))
    if low is None or high is None:
        return None
    return low[0], high[0], low[1], high[1]
