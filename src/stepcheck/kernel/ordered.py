"""Assumed orderings put in (part of the rule ``inequality``).

A fact ``u > v`` (``u >= v``) says that ``d = u - v`` is positive (nonnegative).  Where ``d = c t + r`` for a
value ``t`` (a deterministic real symbol or family member, c a nonzero number or a declared positive or
negative name, c and r free of t), writing
``t = (G - r)/c`` with a fresh ``G > 0`` (``G >= 0``) is an identity wherever the fact holds (G names d), so a
sign proved for every such G is proved under the fact.  The facts are put in one after another, each in the
values the earlier ones left: ``2 a > 2 b`` and ``exp(a) > exp(b)`` under ``a > b``; ``a > c`` under
``a > b, b > c``.  Whole numbers (dimensions, indices) are never written so: a sum's range or a member's index
must stay a whole number; their assumed bounds are read as intervals instead (``twins.refined_domain``).
"""
from __future__ import annotations

import sympy
from sympy import Dummy, Indexed, Symbol

from .calculus import sign_proof
from ..terms.objects import DSum, E

MAX_FACTS = 8  # orderings put in at once


def _values(d, g, is_rv) -> list:
    """The values ``d`` may be written through: deterministic reals of no whole-number kind, never an index nor
    an end of a sum's range (in ``d`` or in ``g``)."""
    indices = {s for x in (d, g) for ix in x.atoms(Indexed) for s in ix.indices}
    indices |= {s for x in (d, g) for a in x.atoms(DSum) for s in a.args[1].free_symbols}
    out = [t for t in d.atoms(Symbol, Indexed) if t not in indices and not t.is_integer and not is_rv(t)
           and not isinstance(t, Dummy) and not (isinstance(t, Indexed) and not all(i.is_Integer or (
               isinstance(i, Symbol) and not i.name.startswith("_b")) for i in t.indices))]
    # the smaller side's value first (a > b: b = a - G), as the limits do
    return sorted(out, key=lambda t: (not (d.coeff(t).is_number and d.coeff(t) < 0), sympy.default_sort_key(t)))


def ordered_proof(g, strict: bool, diffs, domain, is_rv) -> tuple[bool, set]:
    """``g > 0`` (strict) or ``g >= 0`` with the orderings ``diffs`` ([(d, strict)]: d > 0 or d >= 0) put in;
    (proved, the signs used)."""
    sub, fresh = {}, set()
    for d0, dstrict in diffs[:MAX_FACTS]:
        d = sympy.expand(d0.xreplace(sub))
        outside = d.xreplace({m: Dummy() for m in d.atoms(E)})
        if any(is_rv(a) for a in outside.atoms(Symbol, Indexed)):
            continue  # X > a holds on each outcome: G would be a random variable, not one number
        for t in _values(d, g, is_rv):
            c = d.coeff(t)
            r = sympy.expand(d - c * t)
            # a coefficient nonzero by the numbers or by the declarations (p u >= p w for a positive p)
            if not (c.is_number and c != 0 or c.is_positive or c.is_negative) or c.has(t) or r.has(t):
                continue
            G = Dummy("gap", positive=True) if dstrict else Dummy("gap", nonnegative=True)
            fresh.add(G)
            sub = {k: v.xreplace({t: (G - r) / c}) for k, v in sub.items()}
            sub[t] = (G - r) / c
            break
    if not sub:
        return False, set()
    h = sympy.expand(g.xreplace(sub))
    for form in (h, sympy.factor_terms(h)):
        ok, signs = sign_proof(form, strict, domain)
        if ok:
            return True, set(signs) - fresh
    return False, set()
