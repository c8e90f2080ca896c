"""Exponentials as monomials in positive unknowns (part of the rule ``monotone``, through ``exp_margin_proof``).

A margin in which every real symbol s appears only inside exponentials whose arguments are linear in the
symbols with rational coefficients and no constant term (``exp(a) + exp(b) - 2 exp((a + b)/2)``) is a
Laurent polynomial in ``u_s = exp(s / L_s)``, with ``L_s`` the least common denominator of s's coefficients:
``exp(Σ_s c_s s) = Π_s u_s^(c_s L_s)``, every exponent a whole number.  As s runs over the reals (or any part
of them), u_s runs over (a part of) (0, oo), so the margin is >= 0 (> 0) wherever a polynomial ``P`` in
positive unknowns is, ``P`` being the margin times a monomial that clears the negative exponents (a positive
factor: the sign is kept, strict or not).  Proving ``P`` for every positive u is proving more than asked,
never less.  ``exp(a) + exp(b) - 2 exp((a + b)/2)`` is ``(u_a - u_b)^2`` with ``u = exp(s/2)``: AM-GM, and
with it ``log(exp(a) + exp(b)) >= (a + b)/2 + log 2``.
"""
from __future__ import annotations

import math

import sympy

from ..terms.objects import DSum, E
from .calculus import sign_proof

MAX_EXPS = 8  # distinct exponentials in one margin
MAX_DEGREE = 12  # |exponent| of one unknown after clearing


def exp_monomial_proof(g, strict: bool, domain) -> tuple[bool, set]:
    """(proved, signs used) for ``g > 0`` (``>= 0``) through the substitution of the module, or (False, set())."""
    p = exp_monomials(g)
    if p is None:
        return False, set()
    ok, signs = sign_proof(p, strict, domain)
    return ok, {s for s in signs if not isinstance(s, sympy.Dummy)}  # u > 0 is the substitution's, not a fact


def exp_monomials(g):
    """The polynomial ``P`` of the module (in fresh positive symbols), or None where the substitution does not
    apply: a symbol outside every exponential, an argument not linear with rational coefficients, a constant
    term, too many exponentials or too high a degree."""
    exps = sorted(g.atoms(sympy.exp), key=sympy.default_sort_key)
    if not exps or len(exps) > MAX_EXPS or g.has(sympy.log, sympy.Indexed, sympy.Derivative, E, DSum):
        return None  # (inside a mean an exponential is no value of the symbol's)
    args = [e.args[0] for e in exps]
    syms = sorted(set().union(*(a.free_symbols for a in args)), key=lambda s: s.name)
    if not syms or not all(isinstance(s, sympy.Symbol) and s.is_real for s in syms):
        return None
    hidden = g.xreplace({e: sympy.Dummy() for e in exps})
    if hidden.free_symbols & set(syms) or any(a.has(sympy.exp) for a in args):
        return None  # a symbol outside the exponentials, or an exponential inside another
    coeffs = []
    for a in args:
        if not a.is_polynomial(*syms):
            return None  # |a - b|, 1/a: not linear
        poly = sympy.Poly(a, *syms)
        if poly.total_degree() != 1 or poly.coeff_monomial(1) != 0 or not all(c.is_Rational for c in poly.coeffs()):
            return None
        coeffs.append([poly.coeff_monomial(s) for s in syms])
    lcd = [math.lcm(*(int(c[k].q) for c in coeffs)) for k in range(len(syms))]
    units = [sympy.Dummy(f"u_{s.name}", positive=True) for s in syms]
    powers = [[int(c[k] * lcd[k]) for k in range(len(syms))] for c in coeffs]
    if any(abs(e) > MAX_DEGREE for row in powers for e in row):
        return None
    sub = {e: sympy.Mul(*(u ** k for u, k in zip(units, row))) for e, row in zip(exps, powers)}
    clear = sympy.Mul(*(u ** max(0, -min(row[k] for row in powers)) for k, u in enumerate(units)))
    p = sympy.expand(g.xreplace(sub) * clear)
    if p.free_symbols - set(units) - g.free_symbols or any(x.exp.is_negative for x in p.atoms(sympy.Pow)
                                                               if x.base in units):
        return None
    return p
