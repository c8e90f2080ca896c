"""Both sides squared (rule ``squared``): ``A <= B`` where ``B`` is proved ``>= 0``, as ``A^2 <= B^2``.

x -> x^2 is strictly increasing on [0, oo), so for B >= 0, ``A^2 <= B^2`` gives ``A <= |A| <= B`` (strict for
strict) whatever the sign of A (``E[X Y] <= sqrt(E[X^2] E[Y^2])``), and for A <= 0, ``B^2 <= A^2`` gives
``-|B| >= A`` so ``A <= B`` (``-sqrt(E[X^2] E[Y^2]) <= E[X Y]``); an equation ``A = B`` needs both proved
``>= 0`` (``|R| = 1`` for a Rademacher R, whose law gives ``R^2 = 1``).
The sides' signs are proved by the interval evaluator on the link as written (``|Σ_i a_i b_i|``,
``sqrt(Σ a^2) sqrt(Σ b^2)``); the squared link is proved by the same prover, from the same facts, once
(it is never squared again).  So Cauchy-Schwarz under a square root holds:
``|Σ_i a_i b_i| <= sqrt(Σ_i a_i^2) sqrt(Σ_i b_i^2)``.  Tried only where a side holds a square root, an SD or an
absolute value (elsewhere squaring gains nothing), and only where a link is otherwise unproved.
"""
from __future__ import annotations

import dataclasses

import sympy

from ..terms.facts import KernelLimit
from ..terms.objects import SD, as_expr
from .calculus import bounds, symbol_domain
from .normal import RuleSet
from .termwise import reached

_FLIP = {">": "<", ">=": "<="}


def squared_proof(prover, lhs, rhs, candidates, rel: str, deadline, ranges, unroll):
    """A proof of ``lhs REL rhs`` from the squared link, or None (see the module)."""
    lhs, rhs = as_expr(lhs), as_expr(rhs)
    if rel in _FLIP:
        lhs, rhs, rel = rhs, lhs, _FLIP[rel]
    if rel not in ("<", "<=", "=") or getattr(prover, "_squaring", False) or deadline.remaining() <= 0:
        return None
    if not any(x.has(sympy.Abs, SD) or any(p.exp == sympy.Rational(1, 2) for p in x.atoms(sympy.Pow)) for x in (lhs, rhs)):
        return None
    if rel == "=" and not any(reached(x, lambda y: isinstance(y, sympy.Abs)) for x in (lhs, rhs)):
        # square roots and SDs of an equation are normalised as written: only an |.| the squaring reaches (through
        # +, * and ^, not inside a mean) gains from it
        return None
    signs: set = set()
    prover._squaring = True
    try:
        sided = [_nonnegative(prover, x, signs, candidates, deadline, ranges, unroll)
                 for x in ((lhs, rhs) if rel == "=" else (rhs,))]  # A <= |A| <= B: only B's sign is needed
        small, large = lhs, rhs
        if not all(sided) and rel != "=":  # else -B <= |B| <= -A where -A >= 0: -sqrt(E[X^2] E[Y^2]) <= E[X Y]
            sided, small, large = [_nonnegative(prover, -lhs, signs, candidates, deadline, ranges, unroll)], rhs, lhs
        if not all(sided):
            return None
        p = prover.prove_link(small ** 2, large ** 2, candidates, rel, deadline, ranges, unroll)
    finally:
        prover._squaring = False
    if not p.holds:
        return None
    rules = RuleSet(p.rules)
    for got in sided:
        rules |= set(got) if not isinstance(got, bool) else set()
    rules.add("squared")
    return dataclasses.replace(p, rules=sorted(rules), signs=sorted(set(p.signs) | signs, key=str))


def _nonnegative(prover, x, signs: set, candidates, deadline, ranges, unroll):
    """Is the side ``x`` proved ``>= 0``: True by the interval evaluator on the declared signs, else the rules of
    the prover's proof of ``x >= 0`` from the same facts (``(b - a)/2`` under ``a <= A <= b``), else False."""
    try:
        if bounds(x, symbol_domain, signs).nonnegative():
            return True
    except KernelLimit:
        pass
    if not candidates or x.has(SD) or any(p.exp == sympy.Rational(1, 2) for p in x.atoms(sympy.Pow)):
        return False  # (a root's or an SD's sign needs no facts: the evaluator above reads it)
    p = prover.prove_link(x, sympy.Integer(0), candidates, ">=", deadline, ranges, unroll)
    return tuple(p.rules) or ("inequality",) if p.holds else False
