"""Margins that are a covariance (or second-moment) form with a positive semidefinite matrix.

For random variables X_1..X_k the covariance matrix C (C_ij = E[X_i X_j] -
E[X_i] E[X_j]) is positive semidefinite, and so is the second-moment matrix
S (S_ij = E[X_i X_j]).  A margin ``g`` that is, identically as a polynomial in
the moment atoms, ``Σ_ij M_ij C_ij`` (or ``Σ_ij M_ij S_ij``) for a symmetric
matrix M of numbers that is positive semidefinite is ``trace(M C) ≥ 0`` in
every model: ``2 Var(X) + 2 Var(Y) - Var(X + Y) = Var(X - Y)``, ``Var(X) +
Var(Y) ≥ 2 Cov(X, Y)``, ``E[X^2] + E[Y^2] ≥ 2 E[X Y]``.  M is found by
matching coefficients (a linear system); no sign is read from a declaration.
Only ``≥ 0`` (never strict).  A pure function of sympy expressions.
"""
from __future__ import annotations

import itertools

import sympy

from ..terms.objects import E

MAX_VARIABLES = 6


def _variables(g):
    """The random variables of the first and second moments in ``g``, or None when another atom is there."""
    out = set()
    for a in g.atoms(E):
        mono = a.args[0]
        factors = sympy.Mul.make_args(mono)
        if mono.is_Pow and mono.exp == 2 and isinstance(mono.base, (sympy.Symbol, sympy.Indexed)):
            out.add(mono.base)
        elif len(factors) <= 2 and all(isinstance(f, (sympy.Symbol, sympy.Indexed)) for f in factors):
            out |= set(factors)
        else:
            return None
    return sorted(out, key=sympy.default_sort_key)


def psd_form(g) -> bool:
    """Is ``g`` a covariance or second-moment form with a positive semidefinite matrix of numbers?"""
    if not g.has(E) or g.free_symbols - {s for a in g.atoms(E) for s in a.free_symbols}:
        return False  # (a name outside every moment: its sign is another matter)
    xs = _variables(g)
    if not xs or len(xs) > MAX_VARIABLES:
        return False
    pairs = list(itertools.combinations_with_replacement(range(len(xs)), 2))
    m = sympy.symbols(f"m0:{len(pairs)}")
    for centred in (True, False):
        form = sympy.Integer(0)
        for (i, j), mij in zip(pairs, m):
            entry = E(xs[i] * xs[j]) - (E(xs[i]) * E(xs[j]) if centred else 0)
            form += (1 if i == j else 2) * mij * entry
        diff = sympy.expand(form - g)
        atoms = sorted(diff.atoms(E), key=sympy.default_sort_key)
        try:
            eqs = sympy.Poly(diff, *atoms).coeffs() if atoms else [diff]
        except sympy.PolynomialError:
            return False
        sol = sympy.solve(eqs, m, dict=True)
        if not sol:
            continue
        values = [sol[0].get(x, sympy.Integer(0)) for x in m]  # a free entry taken as 0 (any solution will do)
        if not all(v.is_number and v.is_real for v in values):
            continue
        M = sympy.zeros(len(xs))
        for (i, j), v in zip(pairs, values):
            M[i, j] = M[j, i] = v
        if M.is_positive_semidefinite:
            return True
    return False
