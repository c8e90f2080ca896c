"""Assumed inequalities read at the link's own indices (rule ``inequality``).

An assumption ``u REL v`` whose index i is free (``assume top: x_i <= M``) holds for every value of i in its
declared range, and one with ``for i != m`` for every pair of distinct values.  It is read:

* as written, at the link's own symbols (i where the link has i);
* at each other index value the margin holds that lies in i's range (``Normalizer.in_range``): a free index
  of the link whose declared range lies inside i's (that range is then used, and reported), a literal index
  (``x_1``: a family member the link writes exists), or the bound index of a sum whose summand is proved
  member by member (:func:`member_sign`, for ``kernel/termwise.py``: ``Σ_j (M - x_j) >= 0``).  Where the
  fact asks its indices to differ, the values must be known distinct (``Normalizer.distinct``).

Each reading ``d >= 0`` (``> 0``) proves a margin ``g = d + h`` with ``h`` of proved sign; failing that, the
readings are put in as orderings (kernel/ordered.py).
"""
from __future__ import annotations

import dataclasses
from functools import lru_cache

import sympy

from ..terms.objects import E, as_expr
from .calculus import sign_proof
from .increasing import increasing_proof
from .normal import _expand
from .ordered import ordered_proof

MAX_READINGS = 12  # readings of one fact at the link's index values
MAX_THROUGH = 12  # orderings derived through a shared middle, per fact set


def through_middle(ineqs: list) -> list:
    """``ineqs`` and the orderings their pairs give through a shared middle: ``a <= X`` and ``X <= b`` give
    ``a <= b`` (strict where either is).  Sound for random X too: each fact holds almost surely, so both hold
    together on an event of probability 1, which is not empty.  Only pairs quantified alike (the same free
    indices, the same distinctness asked) whose ends still hold every free index: for every such index value,
    ``a_k <= X_k <= b_k`` gives ``a_k <= b_k``; ``a <= x_k <= b`` over an empty range gives nothing.
    So ``SD(A) <= (b - a)/2`` reads ``b - a >= 0`` from ``a <= A`` and ``A <= b``."""
    return list(ineqs) + list(_through(tuple(ineqs))) if len(ineqs) >= 2 else list(ineqs)


@lru_cache(maxsize=1024)
def _through(ineqs: tuple) -> tuple:
    lower, upper = [], []  # (middle, end, strict, fact)
    for f in ineqs:
        if f.rel not in ("<", "<=", ">", ">="):
            continue
        small, big = (f.lhs, f.rhs) if f.rel in ("<", "<=") else (f.rhs, f.lhs)
        small, big, strict = as_expr(small), as_expr(big), f.rel in ("<", ">")
        upper.append((small, big, strict, f))  # small <= big: an upper end of the middle `small`
        lower.append((big, small, strict, f))  # and a lower end of the middle `big`
    out = []
    for m, a, s1, f1 in lower:
        for m2, b, s2, f2 in upper:
            if f1 is f2 or m != m2 or m.is_number or (a - b).is_number:
                continue
            if (f1.free, f1.distinct) != (f2.free, f2.distinct):
                continue
            if not set(f1.free) <= (a - b).free_symbols:
                continue  # a <= x_k <= b for k in 2..n says nothing at n = 1: a <= b must keep its k
            out.append(dataclasses.replace(f1, lhs=a, rhs=b, rel="<" if s1 or s2 else "<=",
                                           text=f"{f1.text or f1.label} and {f2.text or f2.label}"))
            if len(out) >= MAX_THROUGH:
                return tuple(out)
    return tuple(out)


def readings(prover, nz, f, g, sub, bounds) -> list[tuple]:
    """(lhs, rhs, the free indices whose range the reading needs) of the fact ``f`` at the index values of ``g``."""
    fl, fr = as_expr(f.lhs), as_expr(f.rhs)
    # as written: at the link's own indices, or at an index the link does not have, which presumes that its
    # range holds a member (x_k <= M for k in 2..n says nothing at n = 1)
    written = not f.distinct and all(sub.get(p, p) in nz.free or _nonempty(prover.decls.index_ranges.get(p), nz)
                                     for p in f.free)
    out = [(fl.xreplace(sub), fr.xreplace(sub), frozenset())] if written else []
    if not f.free:
        return out
    vals, present = prover._index_values(g, nz, bounds)
    for asg in prover._assignments(nz, f, vals, present, bounds):
        free = frozenset(v for p, v in asg.items() if v != p and v in nz.free)
        if not free <= nz.range_ok:
            continue  # a free index's range the proof may not use
        got = (fl.xreplace(asg), fr.xreplace(asg), free)
        if all(got[:2] != o[:2] for o in out):
            out.append(got)
        if len(out) >= MAX_READINGS:
            break
    return out


def _nonempty(rng, nz) -> bool:
    """Is the declared range ``rng`` (lo, hi) proved to hold a member: by the declarations or by the link's facts?"""
    if rng is None:
        return False
    size = _expand(_num(rng[1]) - _num(rng[0]))
    if size.is_nonnegative:
        return True
    domain = getattr(nz, "domain", None)
    return domain is not None and sign_proof(size, strict=False, domain=domain)[0]


def _num(v):
    return sympy.Integer(v) if isinstance(v, int) else v


def by_inequality_fact(prover, nz, g, strict: bool, ineqs, eqs, sub, domain, bounds=(), factors=True) -> tuple[bool, set]:
    """``g >= 0`` (``> 0``) as ``g = d + h``: ``d >= 0`` an assumed inequality read at the link's indices (``b <= ε``
    gives ``ε - b``), ``h >= 0`` proved by signs; strict when either part is.  ``bounds``: the bound indices
    (sym, lo, hi) of the sum whose summand ``g`` is (read without the equation facts)."""
    diffs, needed = [], set()  # each reading as d > 0 (d >= 0), for kernel/ordered.py
    saved = nz.enclosing, nz.reducer
    if bounds:
        nz.enclosing, nz.reducer, eqs = list(bounds) + list(nz.enclosing), None, []
    try:
        for f in ineqs:
            if f.rel not in ("<", "<=", ">", ">="):
                continue
            for fl, fr, free in readings(prover, nz, f, g, sub or {}, bounds):
                d = prover.normal_difference(nz, fl, fr, eqs)
                d = -d if f.rel in ("<", "<=") else d
                h, fstrict = _expand(g - d), f.rel in ("<", ">")
                diffs.append((d, fstrict))
                needed |= free
                for lam in _scales(g, d):  # g = λ d + h, λ > 0: 1 first, then what matches one value's coefficient
                    h = _expand(g - lam * d)
                    if not lam.is_number:  # g = λ d exactly, λ an expression proved > 0 (exp(-a) (b - exp(a)))
                        ok, signs = _positive_scale(lam, domain) if h == 0 and (fstrict or not strict) \
                            else (False, set())
                    else:
                        ok, signs = (fstrict or not strict, set()) if h == 0 else \
                            sign_proof(h, strict=strict and not fstrict, domain=domain)
                    if ok:
                        nz.trace.ranges |= free
                        return True, signs
        ok, signs = ordered_proof(g, strict, diffs, domain, prover.decls.is_rv)  # 2 a > 2 b under a > b
        if not ok and factors:
            ok, signs = factorwise(g, strict, lambda y, s: got if (got := sign_proof(y, s, domain))[0] else
                                   by_inequality_fact(prover, nz, y, s, ineqs, eqs, sub, domain, bounds, False))
    finally:
        nz.enclosing, nz.reducer = saved
    if ok:
        nz.trace.ranges |= needed  # attribution drops the ranges the proof holds without
    return ok, signs


MAX_SCALES = 3


def _scales(g, d) -> list:
    """λ to try in ``g = λ d + h``: 1, then ``c_g / c_d`` for values (a name, a member, a mean) with number coefficients
    in both (``E[W] - 3/2`` from ``2 E[W] - 3 > 0``: λ = 1/2).  Then expressions, whose sign the caller proves: that
    ratio where the coefficients are not numbers (``log(n)/t + t/2 - E[M]`` from ``log(n) + t^2/2 - t E[M] >= 0``:
    λ = 1/t), and, where ``g`` and ``d`` hold exponentials, their ratio when it cancels to an expression without a sum
    (``b exp(-a) - 1`` over ``b - exp(a)`` is ``exp(-a)``: what ``monotone`` leaves of ``a <= log(b)`` from
    ``exp(a) <= b``); the caller proves λ and its denominator positive (:func:`_positive_scale`)."""
    out = [sympy.Integer(1)]
    ratios = []
    for q in sorted(d.atoms(sympy.Symbol, sympy.Indexed, E), key=sympy.default_sort_key):
        cd, cg = d.coeff(q), g.coeff(q)
        if cd.is_number and cg.is_number and cd != 0 and (lam := cg / cd) > 0 and lam not in out:
            out.append(lam)
        elif cd != 0 and cg != 0 and not (cd.is_number and cg.is_number) and not cd.has(q) and not cg.has(q):
            ratios.append(cg / cd)
        if len(out) > MAX_SCALES:
            break
    if g.has(sympy.exp) and d.has(sympy.exp) and sympy.count_ops(g) + sympy.count_ops(d) <= MAX_FACTOR_OPS:
        ratios.append(g / d)
    for r in ratios[:MAX_SCALES]:
        try:
            r = sympy.cancel(r)
        except (sympy.PolynomialError, NotImplementedError, ValueError, TypeError):
            continue
        if not r.is_number and not r.has(sympy.Add) and r not in out:
            out.append(r)
    return out


def _positive_scale(lam, domain) -> tuple[bool, set]:
    """λ > 0 proved, and each factor of its denominator > 0 (so never 0: ``g = λ d`` then holds everywhere, not
    only off a pole); numbers and exponentials need no proof."""
    den = [f for f in sympy.Mul.make_args(sympy.fraction(lam)[1]) if not (f.is_number and f != 0 or isinstance(f, sympy.exp))]
    signs: set = set()
    for part in [lam] + den:
        ok, used = sign_proof(part, strict=True, domain=domain)
        if not ok:
            return False, set()
        signs |= set(used)
    return True, signs


MAX_FACTOR_OPS = 40


def factorwise(g, strict: bool, prove) -> tuple[bool, set]:
    """``g >= 0`` (``> 0``) where ``g`` factors into a positive number times factors each proved ``>= 0`` (``> 0``) or
    ``<= 0`` (``< 0``) by ``prove`` (an even number of them ``<= 0``): ``w_b (M - x_b) >= 0`` from ``w_i >= 0`` and
    ``x_i <= M``."""
    if sympy.count_ops(g) > MAX_FACTOR_OPS:
        return False, set()
    try:
        c, fs = sympy.factor_list(sympy.factor_terms(g))
    except (sympy.PolynomialError, NotImplementedError, ValueError, TypeError):
        return False, set()
    factors = [(f, k) for f, k in fs if not f.is_number]
    if len(factors) < 2 and not (factors and factors[0][1] > 1) or not c.is_number or c == 0:
        return False, set()
    negative, used = c < 0, set()
    for f, k in factors:
        got = prove(f, strict)
        if not got[0]:
            got = prove(-f, strict)
            if not got[0]:
                return False, set()
            negative ^= bool(k % 2)
        used |= set(got[1])
    return (False, set()) if negative else (True, used)


def member_sign(prover, nz, ineqs, eqs, sub, domain):
    """``sign(x, strict, bound, excl)``: is the summand ``x`` of a sum over ``bound = (b, lo, hi)`` leaving out the
    free indices ``excl`` ``>= 0`` (``> 0``) for every member b, by signs, the facts read at b, or an increasing
    function of a difference so proved?  Only where the sum leaves out every free index the normaliser splits
    out of its range (``Normalizer.distinct`` then rightly reads b as differing from them)."""
    def sign(x, strict, bound, excl) -> tuple[bool, set]:
        b, lo, hi = bound
        if set(excl) != {v for v in nz.free if nz.split_out(v, (lo, hi))}:
            return False, set()
        bounds = ((b, lo, hi),)

        def prove(y, s):
            got = sign_proof(y, s, domain)
            return got if got[0] else by_inequality_fact(prover, nz, y, s, ineqs, eqs, sub, domain, bounds)
        got = prove(x, strict)
        if got[0]:
            return got
        got = increasing_proof(x, strict, domain, prove)
        if got[0]:
            nz.trace.rules.add("monotone")
        return got
    return sign
