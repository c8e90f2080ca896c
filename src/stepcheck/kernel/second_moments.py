"""Margins quadratic in one value, and the second moment of a surely bounded variable.

* A margin whose numerator (the denominator proved positive) is ``a m^2 + b m + c`` in one of its atoms m, with
  ``a`` proved positive and ``4 a c - b^2`` proved ``>= 0`` (``> 0``), is ``a (m + b/(2a))^2 + (4 a c - b^2)/(4 a)``:
  ``>= 0`` (``> 0``) for every real m (part of the rule ``inequality``).
* Where ``lo <= X <= hi`` on every outcome (assumed bounds by numbers on a random symbol, read from the domain),
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
from ..terms.objects import E
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


def bounded_second_moment_proof(g, strict: bool, domain, is_rv, trace) -> tuple[bool, set]:
    """``g > 0`` (``>= 0``) with each ``E[X^2]`` of a surely bounded random symbol X written through its bounds;
    ``trace`` gets the rule ``bounded`` where it is proved so."""
    sub, used, gaps = {}, set(), set()
    for a in sorted(g.atoms(E), key=sympy.default_sort_key):
        x = a.args[0]
        if not (isinstance(x, sympy.Pow) and x.exp == 2 and is_rv(x.base) and isinstance(x.base, (sympy.Symbol, sympy.Indexed))):
            continue
        mine: set = set()
        try:
            iv = domain(x.base, mine)
            coeff = sympy.expand(g).coeff(a)
            if coeff == 0 or not (iv.lo.is_finite and iv.hi.is_finite) or not sign_proof(-coeff, False, domain)[0]:
                continue
        except (KernelLimit, AttributeError, TypeError):
            continue
        # (X - lo)(hi - X) > 0 on every outcome where both bounds are strict: its mean is then positive
        G = Dummy("spread", positive=True) if iv.lo_open and iv.hi_open else Dummy("spread", nonnegative=True)
        gaps.add(G)
        sub[a] = (iv.lo + iv.hi) * E(x.base) - iv.lo * iv.hi - G
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
