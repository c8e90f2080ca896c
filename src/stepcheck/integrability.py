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
  has density: ``E|g|^p`` is infinite iff ``p e ≤ -1`` (the zeros of a function's argument's denominator are
  poles too: ``exp(1/U)``; where no series exists there, infinite where |g|^p grows at least like 1/t,
  :func:`_grows_at_least`);
* the **tails** of a Normal(μ, σ²) with a number σ², for a body with an
  exponential of anything but a linear polynomial in the variable (``Z^2``,
  ``exp(Z)``, ``Z^2 tanh(Z)``, ``Z |Z|``), or a power with it in the exponent: infinite where
  ``log |g|^p / x^2`` tends to more than ``1 / (2 σ²)`` (``E[exp(Z^2)]``);
* the **tails** of a heavy-tailed law (Cauchy, Student's t with ν degrees of
  freedom; tail index a = 1 or ν), whose density falls like ``|x|^-(a+1)``:
  where the body grows like ``C |x|^r`` (C ≠ 0) at +∞ or -∞, ``E|g|^p`` is
  infinite iff ``p r ≥ a`` (``E[X]`` and ``Var(X)`` of a Cauchy X; ``Var(T)``
  for ``T ~ StudentT(2)``); with a growing power of ``log |x|`` beside it the same, with a falling one only
  ``p r > a`` is decided; a body growing faster than every power
  (``exp(X)``) is infinite; with no series at infinity (``X tanh(X)``), by the order of growth and, at
  ``p r = a``, the size (:func:`_grows_at_least`).

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


def moment_needs(kind: str, args) -> list:
    """(body, p) for each E|body|^p < ∞ the moment ``kind`` of ``args`` presupposes: E[g] needs E|g|; Var(g) and
    SD(g) need E|g|^2; Cov(a, b) needs E|a|, E|b| and E|a b|."""
    if kind == "Cov":
        return [(args[0], 1), (args[1], 1), (args[0] * args[1], 1)]
    return [(args[0], 2 if kind in ("Var", "SD") else 1)]


def support(dist):
    """The interval of a continuous law's density, or None."""
    if dist.name == "Normal" or dist.tail_index is not None:
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
        why = _pole(g, v, p, iv) or (_tail(g, v, p, dist) if dist.name == "Normal" else
                                     _heavy_tail(g, v, p, dist) if dist.tail_index is not None else None)
    except (ArithmeticError, TypeError, ValueError, NotImplementedError, AttributeError, RecursionError,
            sympy.PoleError, sympy.PolynomialError):
        return None
    return why and why.replace("{x}", show(x))


def _singular_points(g, v, iv) -> list:
    """The real zeros in ``iv`` of the denominator of the body and of every function's argument in it (the pole
    of ``exp(1/v)`` at 0 is inside the exp), or None where sympy cannot list them."""
    dens = {sympy.denom(sympy.together(g))} | {sympy.denom(sympy.together(a)) for f in g.atoms(sympy.Function)
                                               for a in f.args if a.has(v)}
    out: set = set()
    for den in dens:
        if not den.has(v):
            continue
        pts = sympy.solveset(den, v, iv)
        if not isinstance(pts, sympy.FiniteSet):
            return None
        out |= set(pts)
    return sorted(out, key=sympy.default_sort_key)


def _grows_at_least(g, t, p, bound) -> bool:
    """Where a series does not say (``exp(1/t)``, ``tanh(1/t)/t``): |g|^p grows at least like ``1/t^bound`` as
    t → 0+, by the limits of ``log|g| / log(1/t)`` (its order r, faster than every power at ∞) and, at the
    edge ``p r = bound``, of ``|g| t^r`` (not tending to 0).  False where sympy cannot tell."""
    try:
        r = sympy.limit(sympy.log(g**2) / (2 * sympy.log(1 / t)), t, 0, "+")
        if r is oo:
            return True
        if not (r.is_number and r.is_finite) or (p * r >= bound) != sympy.true:
            return False
        if (p * r > bound) == sympy.true:
            return True
        size = sympy.limit(sympy.sqrt(g**2) * t**r, t, 0, "+")
        return size is oo or bool(size.is_number and size.is_finite and (size > 0) == sympy.true)
    except (ValueError, NotImplementedError, TypeError, sympy.PoleError, ArithmeticError):
        return False


def _pole(g, v, p, iv):
    pts = _singular_points(g, v, iv)
    if not pts:
        return None
    t = Dummy("t", positive=True)
    for c in pts:
        if not c.is_number:
            continue
        sides = ([c + t] if (c < iv.end) == sympy.true else []) + ([c - t] if (c > iv.start) == sympy.true else [])
        for at in sides:
            near = g.xreplace({v: at})
            try:
                coeff, e = near.leadterm(t)
            except (ValueError, NotImplementedError, TypeError, sympy.PoleError):
                coeff = e = None
            if coeff is None or not (e.is_number and e.is_real) or coeff.has(v, t):
                if near.is_extended_real is not False and _grows_at_least(near, t, p, 1):
                    gap = f"|{{x}} - {c}|" if c != 0 else "|{x}|"
                    return f"near {{x}} = {c} it grows at least like 1/{gap}, and {{x}} has a density there"
                continue
            if coeff.has(sympy.log(t)):  # C log(t)^m: its size near 0 is that of C's leading term in log(t)
                coeff = sympy.Poly(coeff, sympy.log(t)).LC()
            if coeff.is_zero is not False:
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
    # exp(Z^2), exp(exp(Z)), and any exponent not linear in Z (exp(Z^2 tanh(Z)), exp(Z |Z|)): the limit decides
    fast = [a for a in g.atoms(*_GROWTH) if a.args[0].has(v) and not (a.args[0].is_polynomial(v)
                                                                      and sympy.degree(a.args[0], v) <= 1)]
    fast += [a for a in g.atoms(sympy.Pow) if a.exp.has(v)]
    if not fast:
        return None
    for end in (oo, -oo):
        rate = sympy.limit(p * sympy.log(g**2) / (2 * v**2), v, end)
        scale = show(2 * s2) if (2 * s2).is_Integer else f"({show(2 * s2)})"
        side = '' if end == oo else '-'
        if rate == oo or (rate.is_number and rate.is_finite and (rate > 1 / (2 * s2)) == sympy.true):
            return f"as {{x}} → {side}∞ it grows faster than the Normal density exp(-{{x}}^2/{scale}) falls"
        if rate.is_number and (rate - 1 / (2 * s2)).is_zero:
            # the borderline rate: |g|^p times the density is at least c/|x| in that tail where the log of
            # |g|^p exp(-(x - μ)^2/(2 σ^2)) |x| does not tend to -∞ (exp(Z^2/2), exp(Z^2/2 + Z)): infinite
            rest = sympy.limit(p * sympy.log(g**2) / 2 - (v - dist.params[0]) ** 2 / (2 * s2) + sympy.log(v**2) / 2,
                               v, end)
            if rest == oo or (rest.is_number and rest.is_finite):
                return f"as {{x}} → {side}∞ it grows as fast as the Normal density exp(-{{x}}^2/{scale}) falls"
    return None


def _heavy_tail(g, v, p, dist):
    """Why E|g(X)|^p is infinite in a tail of a law whose density falls like |x|^-(a+1), or None."""
    a = dist.tail_index
    t = Dummy("t", positive=True)
    for end in (oo, -oo):
        at = g.xreplace({v: (1 if end == oo else -1) / t})  # x = ±1/t, t → 0+
        try:
            coeff, e = at.leadterm(t)
        except (ValueError, NotImplementedError, TypeError, sympy.PoleError):
            coeff = e = None
        logs = coeff is not None and coeff.has(sympy.log(t))
        if logs:  # C log(t)^m: a growing log (m >= 1) decides as the power alone does; else only strictly
            poly = sympy.Poly(coeff, sympy.log(t))
            coeff, logs = poly.LC(), poly.degree() < 1
        if coeff is None or not (e.is_number and e.is_real) or coeff.has(v, t) or coeff.is_zero is not False:
            rate = _growth_rate(g, v, end)
            side = "" if end == oo else "-"
            if rate is oo:
                return f"as {{x}} → {side}∞ it grows faster than every power of {{x}}, and {_heavy_text(dist)}"
            if at.is_extended_real is not False and _grows_at_least(at, t, p, a):  # x tanh(x): like |x|
                return f"as {{x}} → {side}∞ it grows at least like |{{x}}|^({show(a / p)}), and {_heavy_text(dist)}"
            continue
        if coeff.is_extended_real is False or (coeff.is_number and sympy.im(coeff).is_zero is False):
            continue
        r = -e  # |g| ~ |C| |x|^r
        if ((p * r > a) if logs else (p * r >= a)) == sympy.true:
            side = "" if end == oo else "-"
            grows = "|{x}|" if r == 1 else f"|{{x}}|^{show(r) if r.is_Integer else '(' + show(r) + ')'}"
            return f"as {{x}} → {side}∞ it grows like {grows}, and {_heavy_text(dist)}"
    return None


def _heavy_text(dist) -> str:
    a = dist.tail_index
    b = show(a + 1) if (a + 1).is_Integer else f"({show(a + 1)})"
    return f"{{x}} ~ {dist.text} has E|{{x}}|^k = ∞ for every k ≥ {show(a)} (its density falls like 1/|{{x}}|^{b})"


def _growth_rate(g, v, end):
    """lim log|g| / log|x| at ``end`` (oo for growth faster than every power), or None when sympy cannot tell."""
    try:
        return sympy.limit(sympy.log(g**2) / sympy.log(v**2), v, end)
    except (ValueError, NotImplementedError, TypeError, sympy.PoleError, ArithmeticError):
        return None


def unproved_heavy_mean(body, p: int, randoms: set, law_of) -> str | None:
    """Why the finiteness of ``E|body|^p`` is not shown, where it rests on a heavy-tailed law, or None.

    A mean of one variable is :func:`infinite_moment`'s business (infinite where certain, else taken to
    exist).  A body of several random variables, one of them of a law with a finite tail index (Cauchy,
    Student's t), is shown finite only as a polynomial whose every monomial ``Π X_i^(e_i)`` has
    ``Σ_i p e_i / a_i < 1`` (``a_i`` the tail index, ∞ for every other law or none), a sum (a ``Sum`` too) where
    each term is: Hölder's inequality then
    bounds ``E|monomial|^p`` by a product of finite moments, whatever the dependence.  Otherwise the mean may
    not exist (``E[C T]`` for independent Cauchy C and Student T is ∞): the link is not checked."""
    heavy = [x for x in randoms if law_of(x) is not None and law_of(x).tail_index is not None]
    if not heavy or (len(randoms) == 1 and not body.has(sympy.Sum)):
        return None
    laws = "; ".join(f"{show(x)} ~ {law_of(x).text} has finite moments only of order below {show(law_of(x).tail_index)}"
                     for x in sorted(heavy, key=sympy.default_sort_key))
    return _unshown(body, p, sorted(randoms, key=sympy.default_sort_key), law_of, laws)


def _unshown(body, p, randoms, law_of, why):
    """Why ``E|body|^p`` is not shown finite by Hölder, term by term: ``E|a + b|^p <= 2^(p-1) (E|a|^p + E|b|^p)``,
    so a sum (a ``Sum`` over a range too) is finite where each of its terms is."""
    for term in sympy.Add.make_args(sympy.expand(body) if not body.has(sympy.Sum) else body):
        inside = [x for x in randoms if term.has(x)]
        if not inside:
            continue
        coeff, rest = term.as_independent(*inside, as_Add=False)
        if isinstance(rest, sympy.Sum) and not coeff.has(sympy.Sum):
            got = _unshown(rest.function, p, [x for x in randoms if rest.function.has(x)], law_of, why)
            if got is not None:
                return got
            continue
        if rest.has(sympy.Sum) or not rest.is_polynomial(*inside):
            return f"{why}; such a mean is shown finite only for a sum of polynomials in the random variables"
        ranks = [law_of(x).tail_index if law_of(x) is not None else None for x in inside]
        for mon in sympy.Poly(rest, *inside).monoms():
            load = sum((p * e / a for e, a in zip(mon, ranks) if e and a is not None), sympy.Integer(0))
            if (load < 1) != sympy.true:
                return (f"{why}; E|{show(rest)}|{'^' + str(p) if p != 1 else ''} is shown finite only where "
                        f"Σ p·e/a < 1 over its factors X^e, a the order X's moments stay below (Hölder): "
                        f"here {show(load)}")
    return None

