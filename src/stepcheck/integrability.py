"""Whether a mean written in a derivation exists: E|g(X)|^p < ∞ for one variable of a declared continuous law.

``E[1/U]`` for ``U ~ Uniform(0, 1)`` is infinite, so ``E[1/U] - E[1/U]`` has no
value; the kernel would write it 0 (linearity presupposes finite means).  The
elaborator asks :func:`infinite_moment` when it reads ``E``, ``Var``, ``SD`` and
``Cov`` and reports a mean that is certainly infinite as an error, as it does an
expression with no real value.

Decided only where it is certain, and only for a body in one random variable of a
declared continuous law (Normal, Uniform with number ends; a finite law's means
are finite sums, and a value it cannot take is a guard's business):

* a **pole** ``c`` of the body inside the support (a real zero of its
  denominator), where the body behaves like ``C t^e`` (``C`` real, non-zero,
  perhaps with powers of ``log t``) as ``t = |x - c| → 0`` on a side the law
  has density: ``E|g|^p`` is infinite iff ``p e ≤ -1``;
* the **tails** of a Normal(μ, σ²) with a number σ², for a body with an
  exponential of a polynomial of degree ≥ 2 in the variable, or of another
  exponential of it, or a power with it in the exponent: infinite where
  ``log |g|^p / x^2`` tends to more than ``1 / (2 σ²)`` (``E[exp(Z^2)]``).

Anything else (several variables, symbolic singular points, sympy unable to
tell) is undecided and says nothing: the mean is taken to exist, as the
derivation writes it.
"""
from __future__ import annotations

import sympy
from sympy import Dummy, oo

from .terms.printer import show

MAX_OPS = 60  # bodies larger than this are not analysed (sympy's series and limits on them may run away)
_GROWTH = (sympy.exp, sympy.cosh, sympy.sinh)


def support(dist):
    """The interval of a continuous law's density, or None."""
    if dist.name == "Normal":
        return sympy.Interval(-oo, oo)
    if dist.name == "Uniform" and all(p.is_number for p in dist.params):
        return sympy.Interval(dist.params[0], dist.params[1])
    return None


def infinite_moment(body, p: int, randoms: set, law_of) -> str | None:
    """Why ``E|body|^p`` is infinite (a phrase about the variable), or None when it is finite or undecided.

    ``randoms``: every random atom of ``body`` (Symbols and Indexed, with a declared law or not); exactly one
    is analysed, and only with a declared law: another random quantity beside it (even with no law) could
    cancel the pole.  ``law_of(atom)`` gives the declared :class:`~stepcheck.distributions.Dist` or None."""
    if len(randoms) != 1 or body.has(sympy.Sum) or sympy.count_ops(body) > MAX_OPS:
        return None
    x = next(iter(randoms))
    if law_of(x) is None:
        return None
    dist = law_of(x)
    iv = support(dist) if dist.continuous else None
    if iv is None:
        return None
    v = Dummy("v", real=True)
    g = body.xreplace({x: v})
    if v not in g.free_symbols:
        return None
    try:
        why = _pole(g, v, p, iv) or (_tail(g, v, p, dist) if dist.name == "Normal" else None)
    except (ArithmeticError, TypeError, ValueError, NotImplementedError, AttributeError, RecursionError,
            sympy.PoleError, sympy.PolynomialError):
        return None
    return why and why.replace("{x}", show(x))


def _pole(g, v, p, iv):
    den = sympy.denom(sympy.together(g))
    if not den.has(v):
        return None
    pts = sympy.solveset(den, v, iv)
    if not isinstance(pts, sympy.FiniteSet):
        return None
    t = Dummy("t", positive=True)
    for c in sorted(pts, key=sympy.default_sort_key):
        if not c.is_number:
            continue
        sides = ([c + t] if (c < iv.end) == sympy.true else []) + ([c - t] if (c > iv.start) == sympy.true else [])
        for at in sides:
            coeff, e = g.xreplace({v: at}).leadterm(t)
            if coeff.has(sympy.log(t)):  # C log(t)^m: its size near 0 is that of C's leading term in log(t)
                coeff = sympy.Poly(coeff, sympy.log(t)).LC()
            if not (e.is_number and e.is_real) or coeff.has(v, t) or coeff.is_zero is not False:
                continue
            if coeff.is_extended_real is False or (coeff.is_number and sympy.im(coeff).is_zero is False):
                continue  # no real value on that side: the guard's business (1/sqrt(U) below 0)
            if (p * e <= -1) == sympy.true:
                gap = f"|{{x}} - {c}|" if c != 0 else "|{x}|"
                power = gap if e == -1 else f"{gap}^{show(-e) if (-e).is_Integer else '(' + show(-e) + ')'}"
                return f"near {{x}} = {c} it grows like 1/{power}, and {{x}} has a density there"
    return None


def _tail(g, v, p, dist):
    s2 = dist.params[1]
    if not s2.is_number:
        return None
    fast = [a for a in g.atoms(*_GROWTH) if (a.args[0].is_polynomial(v) and sympy.degree(a.args[0], v) >= 2)
            or any(b.has(v) for b in a.args[0].atoms(*_GROWTH))]  # exp(Z^2), exp(exp(Z))
    fast += [a for a in g.atoms(sympy.Pow) if a.exp.has(v)]
    if not fast:
        return None
    for end in (oo, -oo):
        rate = sympy.limit(p * sympy.log(g**2) / (2 * v**2), v, end)
        if rate == oo or (rate.is_number and rate.is_finite and (rate > 1 / (2 * s2)) == sympy.true):
            scale = show(2 * s2) if (2 * s2).is_Integer else f"({show(2 * s2)})"
            return (f"as {{x}} → {'' if end == oo else '-'}∞ it grows faster than the Normal density "
                    f"exp(-{{x}}^2/{scale}) falls")
    return None
