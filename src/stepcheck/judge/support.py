"""Guards a declared law breaks whatever its names stand for.

``E[sqrt(Z)^2] = m`` for ``Z ~ Normal(m, 1)`` holds only "where Z ≥ 0 almost
surely", and no value of m makes that true: a Normal puts mass on every
interval.  Where the probability of a guard cannot be computed (the law's
parameters or the guard hold names), :func:`surely_violated` looks for an
outcome of positive probability, for every admissible value of the names,
at which the guard provably fails: a value the law always charges
(``Dist.sure_points``: Rademacher's -1 and 1, Binomial(n, p)'s 0 where
p < 1, a Normal's mean) with the guard's sign proved there from the
declared signs and the assumed bounds in scope, or, for a Normal, a
polynomial guard that tends to -oo in a tail.  Never a probability, never a
float: a proof that the guard fails on a set of positive probability, or
no answer.
"""
from __future__ import annotations

import sympy

from ..distributions import lookup
from ..kernel.calculus import sign_proof
from ..kernel.prove import refined_domain
from ..terms.facts import IneqFact, KernelLimit
from ..terms.objects import FamilyExtremum
from ..terms.printer import show

#: functions continuous wherever they are defined: a strict violation at a point spreads to a neighbourhood
_JUMPS = (sympy.floor, sympy.ceiling, sympy.sign, sympy.Piecewise, sympy.Heaviside, sympy.frac,
          sympy.KroneckerDelta, sympy.Mod, sympy.DiracDelta)


def surely_violated(state, event) -> str | None:
    """Where ``event`` (``x >= 0``, ``x > 0`` or ``x != 0`` about one random variable of a declared law) fails
    on outcomes of positive probability, for every value of the names that the declarations and the
    assumed bounds of the file allow, in words (None: not shown)."""
    if not isinstance(event, (sympy.GreaterThan, sympy.StrictGreaterThan, sympy.Unequality)) or event.rhs != 0:
        return None
    x = event.lhs
    labels = {ix.base.label for ix in x.atoms(sympy.Indexed)}
    rvs = [a for a in x.atoms(sympy.Symbol, sympy.Indexed) if a not in labels and _random(state, a)]
    # one random variable, of a declared law, and nothing else random: another variable (Y ≥ Z assumed) or
    # max(X) of its family moves with it, and the guard may hold on every outcome
    if len(rvs) != 1 or x.has(*_JUMPS) or x.has(FamilyExtremum):
        return None
    v = rvs[0]
    law = lookup(state, v)
    if law is None:
        return None
    domain = refined_domain([f for fs in state.facts.values() for f in fs if isinstance(f, IneqFact) and not f.free])
    try:
        for point, weight, continuous in law.dist.sure_points():
            if weight is not None and not _proved(weight, True, domain):
                continue
            val = x.xreplace({v: point})
            if _fails_at(val, event, continuous, domain):
                broken = "< 0" if continuous or isinstance(event, sympy.GreaterThan) else \
                    ("≤ 0" if isinstance(event, sympy.StrictGreaterThan) else "= 0")
                return (f"{'near' if continuous else 'at'} {show(v)} = {show(point)} (positive probability under "
                        f"`{law.label}`), {show(x)} {broken}" + (" by the declared signs and the assumed bounds"
                                                                 if val.free_symbols else ""))
        if (law.dist.name == "Normal" or law.dist.tail_index is not None) and not isinstance(event, sympy.Unequality) \
                and _tail(x, v):  # (a density positive on the whole line)
            return f"{show(x)} < 0 for {show(v)} far enough out in one tail (positive probability under `{law.label}`)"
    except (KernelLimit, ArithmeticError, TypeError, ValueError, AttributeError, NotImplementedError, RecursionError):
        return None
    return None


def _random(state, a) -> bool:
    """A random variable, with a declared law or not."""
    if isinstance(a, sympy.Indexed):
        fam = state.scope.families.get(str(a.base.label))
        return str(a.base.label) in state.laws or (fam is not None and fam.random)
    return a in state.scope.random_symbols or (str(a) in state.laws and a not in state.scope.index_ranges)


def _proved(g, strict: bool, domain) -> bool:
    return sign_proof(sympy.expand(g), strict, domain)[0]


def _fails_at(val, event, continuous: bool, domain) -> bool:
    """Is the guard provably broken at this outcome (on a neighbourhood of it, for a continuous law: a strict
    violation where every root, logarithm and divisor inside is strictly defined)?"""
    if continuous:
        if isinstance(event, sympy.Unequality) or not all(_proved(g, True, domain) for g in _inner(val)):
            return False
        return _proved(-val, True, domain)
    if isinstance(event, sympy.Unequality):
        return sympy.expand(val) == 0
    return _proved(-val, isinstance(event, sympy.GreaterThan), domain)


def _inner(x):
    """What must be > 0 (or ≠ 0, as its square > 0) for ``x`` to be defined near a point."""
    for a in sympy.preorder_traversal(x):
        if isinstance(a, sympy.log):
            yield a.args[0]
        elif isinstance(a, sympy.Pow) and not a.exp.is_Integer:
            yield a.base
        elif isinstance(a, sympy.Pow) and a.exp.is_negative:
            yield a.base ** 2


def _tail(x, v) -> bool:
    """A polynomial in ``v`` whose leading coefficient is a number and that tends to -oo in one tail (odd
    degree, or even with a negative leading coefficient): below 0 on a half-line, which a Normal charges."""
    if not x.is_polynomial(v):
        return False
    p = sympy.Poly(x, v)
    lead = p.LC()
    return p.degree() >= 1 and lead.is_number and lead.is_real and (p.degree() % 2 == 1 or lead < 0)
