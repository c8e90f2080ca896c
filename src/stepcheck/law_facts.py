"""The declared laws' own values that facts mention, beyond the moments a declaration gives the kernel: the
moments E[X^k] above FACT_MOMENTS, and E[g(X)] of a finite law by a sum over its support (or of a continuous
law in closed form: the moment generating function, the absolute moments).  Used by the kernel's facts when a
residual mentions them (``judge.link``) and by the consistency check (``assumptions``)."""
from __future__ import annotations

import sympy
from sympy import Integer

from .distributions import FACT_MOMENTS, lookup
from .law_means import abs_power, exp_linear

RANDOM_ATOMS = (sympy.Symbol, sympy.Indexed)
MAX_LAW_TERMS = 64  # support points summed for E[g(X)] of a finite law
_ELEMENTARY = (sympy.Add, sympy.Mul, sympy.Pow, sympy.Symbol, sympy.Indexed, sympy.IndexedBase, sympy.Number,
               sympy.NumberSymbol)


def _finite_law_value(state, g):
    """(the law, E[g(X)]) when X is the one random variable in ``g``, its declared law is finite with
    numeric parameters, and ``g`` is elementary (no moment, sum or limit inside); else (None, None).

    The value is the sum of g(x) P(X = x) over the support (the law of the unconscious statistician).
    A point of probability 0 is left out.  Each other term must be a real number, or have a real value for
    every real value of the deterministic names in it (exp(c), c^2): a term that has no real value, or one
    only for some values of a name (1/(c + 1)), gives no fact."""
    rv = {x for x in g.atoms(sympy.Symbol) if x in state.scope.random_symbols}
    rv |= {x for x in g.atoms(sympy.Indexed)
           if str(x.base.label) in state.scope.families and state.scope.families[str(x.base.label)].random}
    rv |= {x for x in g.atoms(sympy.Function) if type(x).__name__ == "FamilyExtremum"}  # max(q) of a family
    if len(rv) != 1 or not isinstance(next(iter(rv)), RANDOM_ATOMS):
        return None, None
    (x,) = rv
    dec = lookup(state, x)
    if dec is not None and dec.dist.continuous:  # E[exp(a X + b)]: the moment generating function
        got = exp_linear(g, x)
        value = dec.dist.exp_moment(got[0]) if got is not None else None
        if got is None and (jk := abs_power(g, x)) is not None:  # E[X |X|], E|X|^3: absolute moments
            return (dec, value) if (value := dec.dist.abs_moment(*jk)) is not None else (None, None)
        return (dec, sympy.exp(got[1]) * value) if value is not None else (None, None)
    sup = dec.dist.support() if dec is not None else None
    if sup is None or len(sup) > MAX_LAW_TERMS:
        return None, None
    if not all(isinstance(h, _ELEMENTARY) or type(h).__module__.startswith("sympy.functions.elementary")
               for h in sympy.preorder_traversal(g)):
        return None, None
    total = Integer(0)
    for v, p in sup:
        if p == 0:
            continue
        if _huge_at(g, x, v):
            return None, None
        t = g.xreplace({x: v})
        if not (t.is_extended_real and t.is_finite if t.is_number else _total(t)):
            return None, None
        total += p * t
    return dec, sympy.expand(total)


MAX_POWER = 10**4  # an integer power computed exactly at a support point (2^(2^40) would not fit in memory)


def _huge_at(g, x, v) -> bool:
    """Would ``g`` at x = v hold a power with an exponent past MAX_POWER (decided before sympy computes it)?"""
    with sympy.evaluate(False):
        t = g.xreplace({x: v})
    for node in sympy.preorder_traversal(t):
        if isinstance(node, sympy.Pow) and node.base.is_number:  # (exp(10^8) stays a symbol: harmless)
            e = node.exp
            if e.is_number and abs(sympy.N(e, 15)) > MAX_POWER:
                return True
    return False


_TOTAL = (sympy.exp, sympy.sin, sympy.cos, sympy.tanh, sympy.sinh, sympy.cosh, sympy.atan, sympy.Abs, sympy.sign,
          sympy.Max, sympy.Min, sympy.Add, sympy.Mul, sympy.Symbol, sympy.Indexed, sympy.IndexedBase)


def _total(t) -> bool:
    """Whether ``t`` has a real value for every real value of its names (1/(c + 1) has not)."""
    for h in sympy.preorder_traversal(t):
        if isinstance(h, sympy.Number):
            ok = h.is_finite
        elif isinstance(h, sympy.Pow):
            ok = (h.exp.is_Integer and h.exp >= 0) or (h.base.is_number and h.base.is_positive)
        else:
            ok = isinstance(h, _TOTAL) or h.is_number and h.is_extended_real and h.is_finite
        if not ok:
            return False
    return True


def higher_moment_facts(state, facts: dict) -> dict:
    """The declared laws' own values that ``facts`` mention (for the kernel, and the consistency check):
    the moments E[X^k], k > FACT_MOMENTS, and E[g(X)] of a finite law (:func:`_finite_law_value`).

    The kernel is given the first FACT_MOMENTS moments of a law; an
    assumption about a higher one (``E[X^6] = 5`` for a Rademacher X), or
    about ``E[1/(1 + B)]`` for a Bernoulli B, is checked against the law's
    exact value too.  Returns {law label: [facts]}.
    """
    from .terms.facts import EqFact
    from .terms.objects import E, as_expr

    out: dict = {}
    for fs in facts.values():
        for f in fs:
            if not isinstance(f, EqFact):
                continue
            for a in (as_expr(f.lhs) - as_expr(f.rhs)).atoms(E):
                g = a.args[0]
                free = tuple(s for s in g.free_symbols if s in state.scope.index_ranges)
                if isinstance(g, sympy.Pow) and g.exp.is_Integer and g.exp > 0 and isinstance(g.base, RANDOM_ATOMS):
                    dec = lookup(state, g.base)
                    if dec is None or not FACT_MOMENTS < int(g.exp) <= 64 or not dec.dist.has_moment(int(g.exp)):
                        continue
                    fact = EqFact(dec.label, a, dec.dist.moment(int(g.exp)), free=free, text=f"{a} = law moment")
                else:  # E[g(X)] for X of a finite law: the sum over its support
                    dec, value = _finite_law_value(state, g)
                    if dec is None:
                        continue
                    fact = EqFact(dec.label, a, value, free=free, text=f"{a} = sum over the law's support")
                if fact not in out.setdefault(dec.label, []):
                    out[dec.label].append(fact)
    return {lab: list(facts.get(lab, [])) + fs for lab, fs in out.items()}
