"""Covariance and second-moment matrices the facts fix as numbers must be positive semidefinite.

``Var(Σ a_k g_k) = Σ a_j a_k Cov(g_j, g_k) >= 0`` for every vector a (and ``E[(Σ a_k g_k)^2] >= 0``), so a
matrix of numbers the facts give these entries that has a negative eigenvalue is a contradiction.  Read on
the facts' normal forms reduced modulo their equations (``_gram_violated``), and first on the facts as
written (``_written_gram``: no polynomial system to solve).
"""
from __future__ import annotations

import itertools

import sympy

from ..terms.facts import KernelLimit
from ..terms.objects import Cov, E, Var
from ..terms.printer import show
from .normal import Normalizer
from .reduce import reduce_modulo

MAX_PAIRS_OF = 10


def _form(nz: Normalizer, q, forms: dict):
    """``q`` normalised, memoised in ``forms``; KernelLimit passes."""
    if q not in forms:
        forms[q] = nz.expr(q)
    return forms[q]


def _value(nz: Normalizer, q, polys, forms: dict):
    """``q`` normalised (memoised in ``forms``) and reduced modulo the facts ``polys``; KernelLimit passes."""
    return reduce_modulo(_form(nz, q, forms), polys)


def _gram_violated(nz: Normalizer, quantities, polys, forms: dict) -> str | None:
    """Three or more quantities whose covariances (or second moments E[g h]) the facts fix as real numbers:
    that matrix must be positive semidefinite, since ``Var(Σ a_k g_k) = Σ a_j a_k Cov(g_j, g_k) >= 0`` for
    every vector a (and ``E[(Σ a_k g_k)^2] >= 0``).  Pairs are Cauchy--Schwarz (``_inequalities``); three
    variables with pairwise covariances -9/10 pass it, yet Var(X + Y + Z) would be -12/5.  Every principal
    submatrix of a positive semidefinite matrix is one too, so the largest sets of quantities whose entries
    are all fixed are checked, whatever the other quantities' entries are."""
    qs = quantities[:MAX_PAIRS_OF]
    if len(qs) < 3:
        return None
    for what, entry in (("covariance", Cov), ("second-moment", lambda g, h: E(g * h))):
        fixed: dict = {}

        def value(j, k):
            try:
                r = _value(nz, entry(qs[j], qs[k]), polys, forms)
            except KernelLimit:
                return False
            if r.is_number and r.is_extended_real:
                fixed[(j, k)] = fixed[(k, j)] = r
            return True

        if not all(value(k, k) for k in range(len(qs))):
            return None
        known = [k for k in range(len(qs)) if (k, k) in fixed]
        if not all(value(j, k) for j, k in itertools.combinations(known, 2)):
            return None
        why = _not_psd(qs, known, fixed, what)
        if why:
            return why
    return None


def _not_psd(qs, known, fixed: dict, what: str) -> str | None:
    """Why the largest sets of the quantities ``known`` whose entries ``fixed`` holds all give a matrix that
    is not positive semidefinite (None: every such matrix is)."""
    checked: list = []
    for size in range(len(known), 1, -1):
        for sub in itertools.combinations(known, size):
            if any(set(sub) <= c for c in checked) or \
                    not all((j, k) in fixed for j, k in itertools.combinations(sub, 2)):
                continue
            checked.append(set(sub))
            if sympy.Matrix([[fixed[(j, k)] for k in sub] for j in sub]).is_positive_semidefinite is False:
                if size == 2 and what == "covariance":
                    (a, b), c = (show(qs[k]) for k in sub), fixed[sub]
                    return (f"Cauchy-Schwarz: Cov({a}, {b})^2 <= Var({a}) Var({b}), but they give "
                            f"{show(c ** 2)} > {show(fixed[(sub[0], sub[0])] * fixed[(sub[1], sub[1])])}")
                names = ", ".join(show(qs[k]) for k in sub)
                return (f"the {what} matrix of {names} is not positive semidefinite, so some combination of "
                        f"them would have a negative {'variance' if what == 'covariance' else 'second moment'}")
    return None


def _written_gram(exprs) -> tuple | None:
    """(label list, why) when the covariances and variances the facts state as numbers, as written
    (``Var(q_i) = 1`` and ``Cov(q_i, q_j) = -1/2`` at the members of a small range), give a matrix that is not
    positive semidefinite: seen before any polynomial system is solved (that basis can take longer than a
    link has; checked on it alone, the contradiction went unseen on a loaded machine)."""
    qs: list = []
    fixed: dict = {}
    owners: list = []
    for lab, x in exprs:
        moments = [t for t in sympy.Add.make_args(x) if t.has(Cov, Var)]
        if len(moments) != 1:
            continue
        k, m = moments[0].as_coeff_Mul()
        rest = x - moments[0]
        if not (isinstance(m, (Cov, Var)) and k.is_nonzero and rest.is_number and rest.is_extended_real):
            continue
        pair = (m.args[0], m.args[0]) if isinstance(m, Var) else m.args
        ij = []
        for q in pair:
            if q not in qs:
                qs.append(q)
            ij.append(qs.index(q))
        value = -rest / k
        if fixed.setdefault((ij[0], ij[1]), value) != value:
            return None  # two values for one entry: the equations say so (no common solution)
        fixed[(ij[1], ij[0])] = value
        if lab not in owners:
            owners.append(lab)
    known = [k for k in range(len(qs)) if (k, k) in fixed]
    why = _not_psd(qs, known, fixed, "covariance") if len(known) >= 2 and len(qs) <= 2 * MAX_PAIRS_OF else None
    return (owners, why) if why else None
