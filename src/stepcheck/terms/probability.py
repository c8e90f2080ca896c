"""Sympy objects for numeric claims: ``P(event)``.

``Prob(event)`` is an unevaluated probability; ``event`` is a sympy
relational (``Eq``, ``Le``, ...) or a conjunction of them (``P(a <= Z <= b)``
is ``Prob(And(a <= Z, Z <= b))``).  Only :mod:`stepcheck.numeric` gives it a
value (exact enumeration or closed forms); the kernel treats it as an opaque
atom.
"""
from __future__ import annotations

import sympy
from sympy import Function

# canonical relation of the AST -> sympy relational class
RELATIONS = {
    "=": sympy.Eq,
    "!=": sympy.Ne,
    "<": sympy.Lt,
    "<=": sympy.Le,
    ">": sympy.Gt,
    ">=": sympy.Ge,
}


class Prob(Function):
    """P(event) (unevaluated)."""

    nargs = 1
    is_real = True
    is_nonnegative = True


def relation(op: str, a, b):
    """The sympy relational ``a op b``, left unevaluated when it has free symbols."""
    cls = RELATIONS[op]
    return cls(a, b, evaluate=not (a.free_symbols or b.free_symbols)) if op != "!=" else sympy.Ne(a, b)
