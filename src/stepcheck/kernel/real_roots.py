"""The sign of a polynomial in one variable, or of a form in two, decided by its real roots (part of
``inequality``).

Interval bounds lose the sign of ``x^4 - 4 x + 3`` (which is ``(x - 1)^2 (x^2 + 2 x + 3)``) and of
``a^4 + b^4 - a^3 b - a b^3``: their terms have opposite signs.  Both are decided exactly here.

* **One variable** ``x`` over an interval ``I`` (its enclosure from the domain, which may be larger than
  the values ``x`` takes: proving a sign over more values is sound).  Write ``p = c f_1^m_1 ... f_k^m_k``
  (its square-free factorisation).  Where the product ``r`` of the ``f_i`` of odd multiplicity has no
  root inside ``I``, ``p`` keeps one sign inside ``I`` between its roots, read off at one point that is
  no root; the ends follow by continuity.  ``p > 0`` holds on ``I`` when that sign is + and ``p`` has no
  root in ``I`` (its closed ends included).  Roots are counted exactly (Sturm sequences, sympy's
  ``Poly.count_roots``) over ``QQ``; an end that is not rational is moved outwards to a rational one.
* **A form** ``p(a, b)`` homogeneous of degree ``d`` in two variables: for ``b != 0``,
  ``p(a, b) = b^d q(a / b)`` with ``q(t) = p(t, 1)``; ``b^d > 0`` when ``d`` is even or ``b > 0``, and
  ``t = a / b`` ranges over the reals, or over ``[0, ∞)`` when ``a`` and ``b`` are both known ``≥ 0`` (an
  end ``≤ 0`` is reflected first).  The values at ``b = 0`` are ``p(a, 0) = c a^d``, bounded apart.

The variables are the polynomial's generators (symbols, moments, ``exp(x)``, ...), each ranging over its
own enclosure independently of the others: again more values than they may take together.  Only
polynomials over ``QQ`` of small degree are tried; anything else is "not decided" (``None``).
"""
from __future__ import annotations

from functools import lru_cache

import sympy
from sympy import Poly, QQ, Rational, oo

from ..terms.facts import KernelLimit
from .reduce import memo

MAX_DEGREE = 24
MAX_TERMS = 40
MAX_BITS = 2000  # of a coefficient's numerator or denominator: root counting works on them exactly

POSITIVE, NONNEGATIVE, NEGATIVE, NONPOSITIVE, ZERO = "> 0", ">= 0", "< 0", "<= 0", "= 0"


def polynomial_sign(f, enclose) -> str | None:
    """The sign of ``f`` proved over the enclosures of its generators (``enclose(generator) -> Iv``), or
    None.  ``f`` must be a polynomial over QQ in one generator, or a form in two."""
    got = _as_poly(f)
    if got is None:
        return None
    p, ivs = got
    xs = p.gens
    try:
        if len(xs) == 1:
            iv = enclose(ivs[xs[0]])
            got = _on_interval(p, iv)
            if ivs[xs[0]].is_integer and got not in (POSITIVE, NEGATIVE):  # a root between integers: none hit
                return _on_integers(p, iv) or got
            return got
        return _form(p, lambda x: enclose(ivs[x]))
    except (KernelLimit, sympy.polys.polyerrors.CoercionFailed):
        return None


@memo
@lru_cache(maxsize=4096)
def _as_poly(f):
    """``f`` as a polynomial over QQ in fresh variables, one per generator of its own (log(1 + b) beside b
    is not a function of b here), and {variable: generator}; None where the rule does not try it (a number,
    more than two generators, a degree below 2 -- intervals are exact on those -- or past the limits)."""
    if f.is_number or len(sympy.Add.make_args(f)) > MAX_TERMS or _high_powers(f):
        return None
    try:
        p = Poly(f, domain=QQ)
    except (sympy.PolynomialError, sympy.polys.polyerrors.CoercionFailed, sympy.GeneratorsNeeded):
        return None
    if p.is_zero or not 1 <= len(p.gens) <= 2 or not 2 <= p.total_degree() <= MAX_DEGREE or huge_coefficients(p):
        return None
    xs = tuple(sympy.Dummy(f"x{k}") for k in range(len(p.gens)))
    return Poly.from_dict(p.as_dict(), *xs, domain=QQ), dict(zip(xs, p.gens))


def _high_powers(f) -> bool:
    """A power or an exponential past MAX_DEGREE in a number multiple (``exp(10^300 x)``, which Poly would write
    as ``exp(x)^(10^300)``, densely): never made a polynomial."""
    for a in f.atoms(sympy.Pow, sympy.exp):
        k = a.exp if isinstance(a, sympy.Pow) else a.args[0].as_coeff_Mul()[0]
        if k.is_Rational and abs(k) > MAX_DEGREE:
            return True
    return False


def _form(p: Poly, enclose) -> str | None:
    if not p.is_homogeneous:
        return None
    d = p.total_degree()
    for a, b in (p.gens, p.gens[::-1]):
        got = _form_over(p, a, b, d, enclose(a), enclose(b))
        if got is not None:
            return got
    return None


def _form_over(p: Poly, a, b, d: int, ia, ib) -> str | None:
    """``p`` through ``q(t) = p(t, 1)`` with ``t = a / b`` (see the module's docstring)."""
    Iv = type(ia)  # calculus.Iv, not imported (calculus imports this module)
    flip_a, flip_b = ia.nonpositive() and not ia.nonnegative(), ib.nonpositive() and not ib.nonnegative()
    # p(a, b) for a in ia is p(-a', b) for a' in -ia: the reflected form over the reflected enclosure
    expr = p.as_expr().xreplace({a: -a if flip_a else a, b: -b if flip_b else b})
    ia, ib = (_reflect(ia) if flip_a else ia), (_reflect(ib) if flip_b else ib)
    if not (d % 2 == 0 or ib.nonnegative()):
        return None  # b^d takes both signs
    both = ia.nonnegative() and ib.nonnegative()
    t = Iv(sympy.Integer(0), oo, ia.positive(), True) if both else Iv(-oo, oo, True, True)
    q = Poly(expr.xreplace({b: sympy.Integer(1)}), a, domain=QQ)
    if q.is_zero:
        return None
    inner = _on_interval(q, t)
    if inner is None or ib.positive():
        return inner
    # b = 0 is a value of b: there p(a, 0) = c a^d, c the coefficient of t^d in q
    return _meet(inner, _monomial_sign(q.coeff_monomial(a**d), d, ia))


def _monomial_sign(c, d: int, ia) -> str | None:
    """The sign of ``c a^d`` for a in ``ia``."""
    if c == 0:
        return ZERO
    if d % 2 == 0:
        s = POSITIVE if ia.positive() or ia.negative() else NONNEGATIVE
    elif ia.positive() or ia.negative():
        s = POSITIVE if ia.positive() else NEGATIVE
    elif ia.nonnegative() or ia.nonpositive():
        s = NONNEGATIVE if ia.nonnegative() else NONPOSITIVE
    else:
        return None
    return s if c > 0 else _OPPOSITE[s]


_OPPOSITE = {POSITIVE: NEGATIVE, NEGATIVE: POSITIVE, NONNEGATIVE: NONPOSITIVE, NONPOSITIVE: NONNEGATIVE}


def _meet(inner: str, at_zero: str | None) -> str | None:
    """The sign over both parts of the values (b != 0: ``inner``; b = 0: ``at_zero``)."""
    up = inner in (POSITIVE, NONNEGATIVE)
    if at_zero == ZERO:
        return NONNEGATIVE if up else NONPOSITIVE
    if at_zero is None or up != (at_zero in (POSITIVE, NONNEGATIVE)):
        return None
    strict = inner in (POSITIVE, NEGATIVE) and at_zero in (POSITIVE, NEGATIVE)
    return (POSITIVE if strict else NONNEGATIVE) if up else (NEGATIVE if strict else NONPOSITIVE)


def _reflect(iv):
    return type(iv)(-iv.hi, -iv.lo, iv.hi_open, iv.lo_open)


def _on_interval(p: Poly, iv) -> str | None:
    """The sign of the univariate ``p`` over ``iv`` (an Iv with number or infinite ends)."""
    lo, hi = _outer(iv.lo, below=True), _outer(iv.hi, below=False)
    lo_open = iv.lo_open if lo == iv.lo else False  # a moved end is a closed one beyond: more values
    hi_open = iv.hi_open if hi == iv.hi else False
    if lo is not None and hi is not None:
        if lo > hi or lo == hi and (lo_open or hi_open):
            return None  # an empty enclosure: nothing to read
        if lo == hi:
            v = p(lo)
            return POSITIVE if v > 0 else NEGATIVE if v < 0 else NONNEGATIVE
    _, factors = p.sqf_list()
    odd = Poly(1, p.gens[0], domain=QQ)
    whole = Poly(1, p.gens[0], domain=QQ)
    for f, m in factors:
        whole *= f
        if m % 2:
            odd *= f
    if _roots_inside(odd, lo, hi, True, True):
        return None  # a root of odd multiplicity inside: the sign changes there
    v = _sample(p, lo, hi)
    if v is None:
        return None
    strict = not _roots_inside(whole, lo, hi, lo_open, hi_open)
    if v > 0:
        return POSITIVE if strict else NONNEGATIVE
    return NEGATIVE if strict else NONPOSITIVE


MAX_INTEGERS = 64  # integer points evaluated one by one by _on_integers


def _on_integers(p: Poly, iv) -> str | None:
    """The sign of ``p`` over the integers of ``iv``, for a generator declared integer (``m^2 >= m``,
    false between 0 and 1, holds at every integer).  Every real root lies in (-B, B), B Cauchy's bound
    ``1 + max |a_k / a_n|``: beyond it ``p`` has the sign of its leading term (at -oo times (-1)^deg),
    and the integers of ``iv`` within [-B, B] are evaluated exactly, one by one (at most MAX_INTEGERS
    of them, else not decided)."""
    coeffs = p.all_coeffs()
    lead, deg = coeffs[0], p.degree()
    bound = int(sympy.ceiling(1 + max(abs(c / lead) for c in coeffs[1:])))
    lo = None if iv.lo in (oo, -oo) else int(sympy.floor(iv.lo)) + 1 if iv.lo_open and iv.lo.is_Integer \
        else int(sympy.ceiling(iv.lo))
    hi = None if iv.hi in (oo, -oo) else int(sympy.ceiling(iv.hi)) - 1 if iv.hi_open and iv.hi.is_Integer \
        else int(sympy.floor(iv.hi))
    first, last = max(-bound, lo) if lo is not None else -bound, min(bound, hi) if hi is not None else bound
    if last - first + 1 > MAX_INTEGERS or (lo is not None and hi is not None and lo > hi):
        return None
    values = [p(Rational(k)) for k in range(first, last + 1)]
    if hi is None or hi > bound:  # past every root: the sign of the leading term
        values.append(lead)
    if lo is None or lo < -bound:
        values.append(lead if deg % 2 == 0 else -lead)
    if not values:
        return None
    if all(v > 0 for v in values):
        return POSITIVE
    if all(v < 0 for v in values):
        return NEGATIVE
    if all(v >= 0 for v in values):
        return NONNEGATIVE
    if all(v <= 0 for v in values):
        return NONPOSITIVE
    return None


def _roots_inside(f: Poly, lo, hi, lo_open: bool, hi_open: bool) -> bool:
    """Whether ``f`` (square-free or not: only whether there is one) has a real root between ``lo`` and
    ``hi`` (None: unbounded), each end included unless open."""
    if f.degree() <= 0:
        return False
    n = f.count_roots(lo, hi)
    if lo is not None and lo_open and f(lo) == 0:
        n -= 1
    if hi is not None and hi_open and f(hi) == 0 and hi != lo:
        n -= 1
    return n > 0


def _sample(p: Poly, lo, hi):
    """``p`` at a rational point strictly inside (lo, hi) (None: unbounded) where it is not 0: of
    ``degree + 1`` distinct points inside, one is no root."""
    n = p.degree() + 1
    if lo is not None and hi is not None:
        points = [lo + (hi - lo) * Rational(j, n + 1) for j in range(1, n + 1)]
    elif lo is not None:
        points = [lo + j for j in range(1, n + 1)]
    elif hi is not None:
        points = [hi - j for j in range(1, n + 1)]
    else:
        points = [Rational(j) for j in range(n)]
    for x in points:
        v = p(x)
        if v != 0:
            return v
    return None


def _outer(v, below: bool):
    """An end as a rational number, moved outwards when it is not one (None for an infinite end)."""
    if v in (oo, -oo):
        return None
    if isinstance(v, int):
        return Rational(v)
    if v.is_Rational:
        return v
    if not (v.is_number and v.is_extended_real):
        raise KernelLimit("an interval end that is not a number")
    scaled = sympy.floor(v * 10**6) - 1 if below else sympy.ceiling(v * 10**6) + 1
    if not scaled.is_Integer:
        raise KernelLimit("an interval end could not be moved outwards")
    r = Rational(int(scaled), 10**6)
    if not ((v - r).is_positive if below else (r - v).is_positive):  # strictly outwards, proved
        raise KernelLimit("an interval end could not be moved outwards")
    return r


def huge_coefficients(p: Poly) -> bool:
    """A coefficient past MAX_BITS: exact root isolation on it is slow (also the witness search's guard)."""
    return any(max(abs(c.numerator).bit_length(), c.denominator.bit_length()) > MAX_BITS for c in p.coeffs())
