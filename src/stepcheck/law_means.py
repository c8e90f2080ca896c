"""Means of one function of one variable of a declared law, in closed form: exp(a X + b) by the moment
generating function, X^j |X|^k by the absolute moments, X^j by the moments (the laws' own methods,
``Dist.exp_moment``, ``Dist.abs_moment``, ``Dist.moment``).  Shared by the kernel's law facts
(``distributions``), the numeric ``check`` and the witness re-check."""
from __future__ import annotations

import sympy
from sympy import Integer


def exp_linear(g, x):
    """(a, b) where ``g`` is exp(a x + b) with a and b real and free of x (a ≠ 0 not required), else None."""
    if not isinstance(g, sympy.exp):
        return None
    u = sympy.expand(g.args[0])
    if not u.is_polynomial(x) or sympy.degree(u, x) != 1:
        return None
    a = u.coeff(x)
    b = sympy.expand(u - a * x)
    if a.has(x) or b.has(x) or not (a.is_real and b.is_real):
        return None
    return a, b


def abs_power(g, x):
    """(j, k) where ``g`` is x^j |x|^k with integers j >= 0, k >= 1 (at most 64 in all), else None."""
    j = k = 0
    for f in sympy.Mul.make_args(g):
        b, e = f.as_base_exp()
        if not (e.is_Integer and e > 0):
            return None
        if b == x:
            j += int(e)
        elif isinstance(b, sympy.Abs) and b.args[0] == x:
            k += int(e)
        else:
            return None
    return (j, k) if k >= 1 and j + k <= 64 else None


def mean_by_law(y, vs, laws):
    """E[y] for y a sum of terms c h(X), one variable X of ``vs`` each (its law in ``laws``, at the same
    place), c free of them, h one of exp(a X + b) (the moment generating function), X^j |X|^k (absolute
    moments) or X^j (moments); None otherwise."""
    tot = Integer(0)
    for term in sympy.Add.make_args(sympy.expand(y)):
        coeff, rest = term.as_independent(*vs, as_Add=False)
        inside = [v for v in vs if rest.has(v)]
        if not inside:
            tot += term
            continue
        value = _mean_of_one(rest, inside[0], laws[vs.index(inside[0])]) if len(inside) == 1 else None
        if value is None:
            return None
        tot += coeff * value
    return tot


def _mean_of_one(h, v, law):
    got = exp_linear(h, v)
    if got is not None:
        m = law.exp_moment(got[0])
        return None if m is None else m * sympy.exp(got[1])
    jk = abs_power(h, v)
    if jk is not None:
        return law.abs_moment(*jk)
    b, e = h.as_base_exp()
    return law.moment(int(e)) if b == v and e.is_Integer and 0 < e <= 64 and law.has_moment(int(e)) else None
