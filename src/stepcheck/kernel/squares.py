"""Both sides squared (rule ``squared``): ``A <= B`` where both are proved ``>= 0``, as ``A^2 <= B^2``.

x -> x^2 is strictly increasing on [0, oo), so for A, B >= 0 the two claims are one (strict for strict, and
``A = B`` as ``A^2 = B^2``: ``|R| = 1`` for a Rademacher R, whose law gives ``R^2 = 1``).
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
    try:
        if not (bounds(lhs, symbol_domain, signs).nonnegative() and bounds(rhs, symbol_domain, signs).nonnegative()):
            return None
    except KernelLimit:
        return None
    prover._squaring = True
    try:
        p = prover.prove_link(lhs ** 2, rhs ** 2, candidates, rel, deadline, ranges, unroll)
    finally:
        prover._squaring = False
    if not p.holds:
        return None
    rules = RuleSet(p.rules)
    rules.add("squared")
    return dataclasses.replace(p, rules=sorted(rules), signs=sorted(set(p.signs) | signs, key=str))
