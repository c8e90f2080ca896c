"""Calculus and real analysis in the kernel.

* derivatives: sympy's ``diff`` (Kronecker deltas for indexed variables); the
  normaliser then decides the deltas from the declared index ranges;
* limits: in :mod:`.limits`;
* extrema on closed intervals: the function must be continuous on [a, b];
  candidates are the endpoints and the critical points (a finite set found by
  ``solveset`` on the interval), compared exactly;
* inequalities: a sound interval evaluator (:func:`bounds`) with open and
  closed endpoints, applied to the factors of ``rhs - lhs``.  It only ever
  answers "proved"; anything else is ``unknown``.
"""
from __future__ import annotations

from dataclasses import dataclass

import sympy
from sympy import Abs, Add, Dummy, Interval, Mul, Pow, oo

from ..terms.facts import KernelLimit
from ..terms.objects import SD, DSum, E, Var
from .real_roots import polynomial_sign
from .reduce import within_link_time


# ---------------------------------------------------------------- intervals


@dataclass(frozen=True)
class Iv:
    """An interval of extended reals; ``lo_open``/``hi_open`` exclude the ends."""

    lo: object
    hi: object
    lo_open: bool = False
    hi_open: bool = False

    @staticmethod
    def point(v):
        return Iv(v, v)

    def positive(self) -> bool:
        return _gt(self.lo, 0) or (self.lo == 0 and self.lo_open)


    def nonnegative(self) -> bool:
        return _ge(self.lo, 0)

    def negative(self) -> bool:
        return _lt(self.hi, 0) or (self.hi == 0 and self.hi_open)

    def nonpositive(self) -> bool:
        return _le(self.hi, 0)


REALS = Iv(-oo, oo, True, True)


def _cmp(a, b):
    if a == b:
        return 0
    d = a - b
    if d.is_number:
        if d.is_zero:
            return 0
        if d.is_extended_positive:
            return 1
        if d.is_extended_negative:
            return -1
    if a == b:
        return 0
    return None


def _gt(a, b):
    return _cmp(a, b) == 1


def _ge(a, b):
    return _cmp(a, b) in (0, 1)


def _lt(a, b):
    return _cmp(a, b) == -1


def _le(a, b):
    return _cmp(a, b) in (0, -1)


def _add(a: Iv, b: Iv) -> Iv:
    return Iv(a.lo + b.lo, a.hi + b.hi, a.lo_open or b.lo_open, a.hi_open or b.hi_open)


def _neg(a: Iv) -> Iv:
    return Iv(-a.hi, -a.lo, a.hi_open, a.lo_open)


def _mul(a: Iv, b: Iv) -> Iv:
    # products of endpoints, with openness; 0 * oo treated as 0 only when the
    # zero end is closed (an open end never reaches it)
    cands = []
    for x, xo in ((a.lo, a.lo_open), (a.hi, a.hi_open)):
        for y, yo in ((b.lo, b.lo_open), (b.hi, b.hi_open)):
            if (x == 0 and y in (oo, -oo)) or (y == 0 and x in (oo, -oo)):
                v = sympy.Integer(0)
                op = (x == 0 and xo) or (y == 0 and yo)
            else:
                v = x * y
                # 0 is reached where either factor reaches 0, whatever the other is ((0, 2) * [0, oo) holds 0)
                op = (xo or yo) if v != 0 else not ((x == 0 and not xo) or (y == 0 and not yo))
            if v is sympy.nan:
                raise KernelLimit("undefined product in interval bound")
            cands.append((v, op))
    lo = _extreme(cands, lowest=True)
    hi = _extreme(cands, lowest=False)
    if lo is None or hi is None:
        raise KernelLimit("interval bound could not be ordered")
    return Iv(lo[0], hi[0], lo[1], hi[1])


MAX_STEPS = 16  # integer powers past this are bounded through their ends (x^(2^40) is never multiplied out)


def _big_power(v, n: int, is_open: bool, low: bool):
    """(an end of the interval of x^n, open?) from the end ``v`` of x's (x -> x^n increasing there), without
    computing a huge power: past |v| > 1 the end is ±oo; for 0 < |v| < 1, x^n lies between 0 and v, so the end is
    0 (not reached) or v itself (a wider interval: neither ``2^(2^40)`` nor ``(1/2)^(2^40)`` is computed)."""
    if v in (oo, -oo) or v in (0, 1, -1):
        return v ** n, is_open
    c = _cmp(abs(v), sympy.Integer(1))
    if c is None:
        raise KernelLimit("an interval end of a large power could not be compared with 1")
    if c > 0:
        return (-oo if _cmp(v, sympy.Integer(0)) == -1 and n % 2 else oo), True
    positive = _cmp(v, sympy.Integer(0)) == 1
    if low:
        return (sympy.Integer(0), True) if positive else (v, is_open)  # v^n > 0; v <= v^n < 0 (n odd)
    return (v, is_open) if positive else (sympy.Integer(0), True)     # 0 < v^n <= v; v^n < 0


def _extreme(cands, lowest):
    best = None
    for v, op in cands:
        if best is None:
            best = (v, op)
            continue
        c = _cmp(v, best[0])
        if c is None:
            return None
        if (c < 0) if lowest else (c > 0):
            best = (v, op)
        elif c == 0:
            best = (v, best[1] and op)
    return best


def _inv(a: Iv) -> Iv:
    """1/v for v in ``a``, where it is defined: an interval that reaches 0 only at a closed end (``x^2`` in
    [0, ∞)) gives 1/v for the v ≠ 0 of it (``1/x^2`` in (0, ∞)).  A link holds where its sides are defined,
    and the condition (``x ≠ 0``) is recorded from the parse tree and shown with it (``conditions.py``)."""
    if a.nonnegative() and a.lo == 0 and not a.lo_open and _gt(a.hi, 0):
        a = Iv(a.lo, a.hi, True, a.hi_open)
    elif a.nonpositive() and a.hi == 0 and not a.hi_open and _gt(0, a.lo):
        a = Iv(a.lo, a.hi, a.lo_open, True)
    if a.positive():
        lo = sympy.Integer(0) if a.hi == oo else 1 / a.hi
        hi = oo if a.lo == 0 else 1 / a.lo
        return Iv(lo, hi, a.hi_open or a.hi == oo, a.lo_open or a.lo == 0)
    if a.negative():
        return _neg(_inv(_neg(a)))
    raise KernelLimit("division by an interval containing 0")


def _monotone(f, a: Iv, lo_lim, hi_lim, lo_open_lim=True, hi_open_lim=True) -> Iv:
    """An increasing function with range (lo_lim, hi_lim)."""
    lo = lo_lim if a.lo == -oo else f(a.lo)
    hi = hi_lim if a.hi == oo else f(a.hi)
    return Iv(lo, hi, a.lo_open or a.lo == -oo and lo_open_lim, a.hi_open or a.hi == oo and hi_open_lim)


def bounds(x, domain, used: set) -> Iv:
    """A sound enclosure of ``x`` given ``domain(symbol) -> Iv``; raises KernelLimit when unsure."""
    if x.is_number:
        if x.is_real is False or x.has(sympy.zoo, sympy.nan):
            raise KernelLimit("not a real number")
        return Iv.point(x)
    if x.is_Symbol or isinstance(x, (sympy.Indexed,)):
        return domain(x, used)
    if isinstance(x, Add):
        acc = bounds(x.args[0], domain, used)
        for a in x.args[1:]:
            acc = _add(acc, bounds(a, domain, used))
        return acc
    if isinstance(x, Mul):
        acc = bounds(x.args[0], domain, used)
        for a in x.args[1:]:
            acc = _mul(acc, bounds(a, domain, used))
        return acc
    if isinstance(x, Pow):
        b, e = x.args
        bi = bounds(b, domain, used)
        if e.is_Integer:
            n = int(e)
            if n < 0:
                return _inv(bounds(Pow(b, -n), domain, used))
            if n == 0:
                return Iv.point(sympy.Integer(1))
            m = bi if n % 2 == 1 or bi.nonnegative() else _abs_iv(bi)  # (|.|: an even power of a sign change)
            if n > MAX_STEPS:  # x -> x^n is increasing on m: its ends raised, never multiplied out n times
                (lo, lo_open), (hi, hi_open) = _big_power(m.lo, n, m.lo_open, True), _big_power(m.hi, n, m.hi_open, False)
                return Iv(lo, hi, lo_open, hi_open)
            acc = m
            for _ in range(n - 1):
                acc = _mul(acc, m)
            return acc
        if e.is_Rational and e > 0 and bi.nonnegative():
            return _monotone(lambda v: v**e, bi, sympy.Integer(0), oo)
        if e.is_Rational and e < 0 and bi.positive():
            return _inv(bounds(Pow(b, -e), domain, used))
        if b == sympy.E:
            return bounds(sympy.exp(e), domain, used)
        raise KernelLimit("cannot bound this power")
    if isinstance(x, sympy.exp):
        a = bounds(x.args[0], domain, used)
        return _monotone(sympy.exp, a, sympy.Integer(0), oo)
    if isinstance(x, sympy.tanh):
        a = bounds(x.args[0], domain, used)
        return _monotone(sympy.tanh, a, sympy.Integer(-1), sympy.Integer(1))
    if isinstance(x, sympy.log):
        a = bounds(x.args[0], domain, used)
        if not a.positive():
            raise KernelLimit("log of a quantity not known to be positive")
        return _monotone(sympy.log, a, -oo, oo)
    if isinstance(x, Abs):
        return _abs_iv(bounds(x.args[0], domain, used))
    if isinstance(x, (sympy.Sum, DSum)):
        # a finite sum of terms of known sign (possibly empty)
        body = x.args[0] if isinstance(x, DSum) else x.function
        bi = bounds(body, domain, used)
        # positive terms over ranges that have a member (a DSum leaving no index out: 1..n without i is empty
        # at n = 1)
        limits = x.limits if isinstance(x, sympy.Sum) else None if x.args[2].args else x.args[1]
        if bi.positive() and limits is not None and _nonempty(limits, domain, used, isinstance(x, DSum)):
            return Iv(sympy.Integer(0), oo, True, True)
        if bi.nonnegative():
            return Iv(sympy.Integer(0), oo, False, True)
        if bi.nonpositive():
            return Iv(-oo, sympy.Integer(0), True, False)
        return REALS
    if isinstance(x, (SD, Var)):  # a standard deviation, a variance: never negative
        return Iv(sympy.Integer(0), oo, False, True)
    if isinstance(x, E):
        # E of an even power (or a product of even powers) is nonnegative
        if all(isinstance(f, Pow) and f.exp.is_Integer and f.exp % 2 == 0 for f in Mul.make_args(x.args[0])):
            return Iv(sympy.Integer(0), oo, False, True)
        return REALS
    if x.is_real is True:  # a real value of no known sign (max(s) of a real family): every real number
        return REALS
    raise KernelLimit(f"cannot bound {type(x).__name__}")


def _nonempty(limits, domain, used, distinct: bool = False) -> bool:
    """Whether every range lo..hi of a sum has a member (hi - lo + 1 >= 1 for integers), outermost first.
    ``distinct``: the k bound indices take pairwise distinct values (a DSum over pairs, Σ_{m ≠ t}): every range
    must have k members (then the ranges have distinct representatives; Σ_{m ≠ t} over 1..n is empty at n = 1)."""
    for _, lo, hi in limits:
        size = hi - lo + 1 - (len(limits) - 1 if distinct else 0)
        if size.free_symbols & {v for v, _, _ in limits}:
            return False  # an inner range that depends on an outer index: not decided here
        try:
            if not (size.is_integer and bounds(size, domain, used).positive()):
                return False
        except KernelLimit:
            return False
    return True


def _abs_iv(a: Iv) -> Iv:
    if a.nonnegative():
        return a
    if a.nonpositive():
        return _neg(a)
    hi_c = _cmp(-a.lo, a.hi)
    if hi_c is None:
        raise KernelLimit("cannot order interval ends")
    if hi_c > 0:
        hi, ho = -a.lo, a.lo_open
    elif hi_c < 0:
        hi, ho = a.hi, a.hi_open
    else:
        hi, ho = a.hi, a.hi_open and a.lo_open
    return Iv(sympy.Integer(0), hi, False, ho)


def symbol_domain(s, used: set) -> Iv:
    """The interval a symbol's declared assumptions give it; records signs used."""
    if getattr(s, "is_positive", None):
        used.add(s)
        if getattr(s, "is_integer", None):  # a positive whole number is at least 1
            return Iv(sympy.Integer(1), oo, False, True)
        return Iv(sympy.Integer(0), oo, True, True)
    if getattr(s, "is_nonnegative", None):
        used.add(s)
        return Iv(sympy.Integer(0), oo, False, True)
    if getattr(s, "is_negative", None):
        used.add(s)
        return Iv(-oo, sympy.Integer(0), True, True)
    if getattr(s, "is_real", None) or isinstance(s, sympy.Indexed):
        return REALS
    raise KernelLimit(f"`{s}` is not known to be real")


def sign_proof(g, strict: bool, domain=symbol_domain) -> tuple[bool, set]:
    """Prove g > 0 (strict) or g >= 0; returns (proved, symbols whose sign was used).

    First on the factors of ``factor_terms(g)``; then, for small expressions,
    on the factors of ``factor(together(g))`` (which finds squares such as
    1/4 - p + p^2 = (2p - 1)^2 / 4).
    """
    g = _variances_nonnegative(g)
    ok, used = _sign_of_factors(sympy.factor_terms(g), strict, domain)
    if ok or sympy.count_ops(g) > 200:
        return ok, used
    if len(g.free_symbols) == 1 and next(iter(g.free_symbols)).is_integer:  # m (m - 1) >= 0 at every integer m
        ok, used = _sign_of_factors(sympy.expand(g), strict, domain)
        if ok:
            return ok, used
    try:
        with within_link_time("factoring a margin"):  # (sympy's factor cannot be stopped otherwise)
            f = sympy.factor(sympy.together(g))
    except (sympy.PolynomialError, NotImplementedError, ValueError, TypeError):
        return False, used
    ok, used = _sign_of_factors(f, strict, domain)
    # square roots of rationals among the coefficients: factored over the field they make too, so
    # y^3 - 6 y + 4 sqrt(2) is (y - sqrt(2))^2 (y + 2 sqrt(2))
    roots = sorted({p for p in g.atoms(sympy.Pow) if p.exp == sympy.Rational(1, 2) and p.base.is_Rational},
                   key=sympy.default_sort_key)
    if ok or not roots or len(roots) > 2:
        return ok, used
    try:
        with within_link_time("factoring a margin"):
            f = sympy.factor(sympy.together(g), extension=roots)
    except (sympy.PolynomialError, NotImplementedError, ValueError, TypeError):
        return False, used
    return _sign_of_factors(f, strict, domain)


def _sign_of_factors(g, strict: bool, domain) -> tuple[bool, set]:
    used: set = set()
    try:
        factors = Mul.make_args(g)
        sign = 1
        all_strict = True
        for f in factors:
            iv = _factor_bounds(f, domain, used)
            if iv.positive():
                continue
            if iv.negative():
                sign = -sign
                continue
            if iv.nonnegative():
                all_strict = False
                continue
            if iv.nonpositive():
                sign = -sign
                all_strict = False
                continue
            # one sign-changing factor: try the factor's own expansion
            return False, used
        if sign != 1:
            return False, used
        return (all_strict or not strict), used
    except KernelLimit:
        return False, used


def _factor_bounds(f, domain, used: set) -> Iv:
    """An enclosure of a factor: by intervals, or where they leave its sign open, by the real roots of a
    polynomial in one variable or a form in two (``real_roots``), over its generators' enclosures."""
    try:
        iv = bounds(f, domain, used)
    except KernelLimit:
        iv = REALS
    if iv.positive() or iv.negative() or iv.nonnegative() or iv.nonpositive() or f.is_number:
        return iv
    got = polynomial_sign(f, lambda x: bounds(x, domain, used))
    if got is None:
        raise KernelLimit("the sign of a factor is not decided")
    zero = sympy.Integer(0)
    return {">= 0": Iv(zero, oo, False, True), "> 0": Iv(zero, oo, True, True),
            "<= 0": Iv(-oo, zero, True, False), "< 0": Iv(-oo, zero, True, True)}[got]


def _variances_nonnegative(g):
    """Write E[Y^2] as v + E[Y]^2 with v = Var(Y) >= 0 (a fresh nonnegative constant).

    Sound for every Y with a finite second moment: the variance is never negative.
    """
    subs = {}
    for a in g.atoms(E):
        y = a.args[0]
        sq = E(y**2)
        if sq in g.atoms(E) and sq not in subs:
            from ..terms.printer import show

            subs[sq] = Dummy(f"Var({show(y)})", nonnegative=True) + a**2
    return sympy.expand(g.xreplace(subs)) if subs else g


# ---------------------------------------------------------------- limits, extrema

_EXTREMA: dict = {}


def _cached(cache: dict, key, fn):
    """Memoise ``fn()`` under ``key``, including the KernelLimit it raises."""
    if key not in cache:
        if len(cache) > 2048:
            cache.clear()
        try:
            cache[key] = ("ok", fn())
        except KernelLimit as e:
            cache[key] = ("limit", str(e))
    tag, val = cache[key]
    if tag == "limit":
        raise KernelLimit(val)
    return val


def has_sign(s) -> bool:
    """Whether a symbol's declaration gives it a sign (positive, nonnegative, negative or nonpositive)."""
    return bool(s.is_positive or s.is_nonnegative or s.is_negative or s.is_nonpositive)


def signed_real(s) -> bool:
    """A declared real name with a sign (``let c: positive real``): not a dimension, not a bound variable.
    These are the signs attribution reports as uses (a dimension's sign is what makes its ranges non-empty)."""
    return isinstance(s, sympy.Symbol) and not isinstance(s, Dummy) and not s.is_integer and has_sign(s)


def extremum(f, x, a, b, kind: str):
    """max / min / argmax / argmin of f over x in [a, b] (exact, cached), or KernelLimit."""
    return _cached(_EXTREMA, (f, x, a, b, kind), lambda: _extremum(f, x, a, b, kind))


def _candidates(f, x, I) -> list:
    """The points of ``I`` where an extremum of a smooth ``f`` can be: finite ends, zeros of f', and points
    where f' is undefined (f = x^(2/3) at 0).  KernelLimit when they cannot be listed exactly."""
    df = sympy.diff(f, x)
    if df == 0 or not df.has(x) and df.is_zero:
        return sorted({e for e in (I.inf, I.sup) if e.is_finite}, key=float)  # a constant: attained everywhere
    crit = sympy.solveset(df, x, I)
    try:
        smooth = sympy.calculus.util.continuous_domain(df, x, I)
    except (NotImplementedError, ValueError, TypeError):
        raise KernelLimit("the derivative's domain could not be established")
    rough = sympy.Complement(I, smooth)
    for part in (crit, rough):
        if not isinstance(part, sympy.FiniteSet) and part != sympy.EmptySet:
            raise KernelLimit("the critical points could not be listed exactly")
    ends = {e for e in (I.inf, I.sup) if e.is_finite}
    return sorted(set(crit) | set(rough) | ends, key=lambda v: float(v))


def _extremum(f, x, a, b, kind: str):
    if not (a.is_number and b.is_number) or sympy.Gt(a, b) == sympy.true:
        raise KernelLimit("extrema need an interval with numeric ends a <= b")
    others = f.free_symbols - {x}
    if others:
        raise KernelLimit("extrema of expressions with other free symbols are not supported")
    from sympy.calculus.util import continuous_domain

    I = Interval(a, b)
    try:
        dom = continuous_domain(f, x, I)
    except (NotImplementedError, ValueError, TypeError):
        raise KernelLimit("continuity on the interval could not be established")
    if dom != I:
        raise KernelLimit("the function is not continuous on the whole interval")
    # points where f is not differentiable are candidates too (|x| ...)
    if f.has(Abs, sympy.Max, sympy.Min, sympy.Piecewise):
        raise KernelLimit("non-smooth functions are not supported for extrema")
    pts = _candidates(f, x, I)
    best = None
    for p in pts:
        v = f.xreplace({x: p})
        if not v.is_number:
            raise KernelLimit("a candidate value is not a number")
        if best is None:
            best = [(v, p)]
            continue
        c = _cmp(v, best[0][0])
        if c is None:
            raise KernelLimit("candidate values could not be compared exactly")
        if (c > 0 and kind in ("max", "argmax")) or (c < 0 and kind in ("min", "argmin")):
            best = [(v, p)]
        elif c == 0:
            best.append((v, p))
    # an infinite end is not a point of the interval: its limit bounds the values, it is never attained
    for end in (a, b):
        if end.is_finite:
            continue
        try:
            lim = sympy.limit(f, x, end)
        except (NotImplementedError, ValueError, TypeError):
            raise KernelLimit("the behaviour at an infinite end could not be determined")
        if lim.has(sympy.Limit, sympy.nan, sympy.zoo):
            raise KernelLimit("the behaviour at an infinite end could not be determined")
        if best is None:
            raise KernelLimit("no point of the interval attains the extremum")
        c = _cmp(lim, best[0][0]) if not lim.has(sympy.AccumBounds) else None
        if c is None:
            raise KernelLimit("the values near an infinite end could not be compared with the candidates")
        if (c > 0 and kind in ("max", "argmax")) or (c < 0 and kind in ("min", "argmin")):
            raise KernelLimit(f"the {'supremum' if kind.endswith('max') else 'infimum'} is approached at "
                              f"{end} but not attained: there is no {kind[-3:]}imum")
    if best is None:
        raise KernelLimit("no point of the interval attains the extremum")
    if kind in ("max", "min"):
        return best[0][0]
    if len(best) != 1:
        raise KernelLimit("the extremum is attained at several points")
    return best[0][1]
