"""An inequality's margin rewritten by the equation facts, each solved for one quantity (part of ``inequality``).

Under ``Var(X) = 4`` the margin ``E[X^2] - 4`` of ``E[X^2] >= 4`` is not of any sign the interval evaluator
can see, but solved for ``E[X^2]`` the fact turns it into ``E[X]^2``.  :func:`by_equation` solves each fact
polynomial for each quantity of the margin it is linear in with a number coefficient, puts the solution in,
and asks for the sign again; where that fails, a second fact is solved the same way in the result
(``Var(X) = Var(Y) = 1``: ``E[X^2] + E[Y^2] - 2`` is ``E[X]^2 + E[Y]^2``).  Sound: the margin equals each
rewritten one wherever the facts hold.
"""
from __future__ import annotations

import sympy
from sympy import Indexed

from ..terms.objects import DSum, E
from .calculus import sign_proof
from .expansion import _expand

MAX_SOLVED = 24  # (fact, quantity) pairs tried for one margin


def by_equation(prover, nz, g, strict: bool, eqs, domain) -> tuple[bool, set]:
    """(proved, the signs used) for ``g >= 0`` (``> 0``) by the equations ``eqs`` solved into it."""
    polys, tried = prover.instances(nz, eqs, g, ()), [0]

    def solve(h, skip):
        for k, p in enumerate(polys):
            for q in sorted(h.atoms(E, DSum, sympy.Symbol, Indexed) & p.atoms(E, DSum, sympy.Symbol, Indexed),
                            key=sympy.default_sort_key):
                c = p.coeff(q)
                if k in skip or not (c.is_number and c != 0) or (p - c * q).has(q):
                    continue
                tried[0] += 1
                if tried[0] > MAX_SOLVED:
                    return False, set()
                h2 = _expand(h.xreplace({q: q - p / c}))
                ok, signs = sign_proof(h2, strict=strict, domain=domain)
                if ok:
                    return True, signs
                if not skip and (deeper := solve(h2, {k}))[0]:  # a second fact, in the rewritten margin
                    return deeper
        return False, set()

    return solve(g, set())
