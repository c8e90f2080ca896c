"""A margin with a positive denominator, read as the sign of a margin without it (rule ``quotient``).

A margin ``g = a / D^k + b`` (k a positive whole number), where ``D > 0`` and ``b ≠ 0`` have proved
signs and neither ``a`` nor ``b`` holds ``D``, is the product of the positive ``|b| / D^k`` and

    ``a / |b| - D^k``  (b < 0)      or      ``a / |b| + D^k``  (b > 0),

an identity wherever D ≠ 0 and b ≠ 0.  So g ≥ 0 (> 0) exactly where that margin is, and the latter is
proved by the prover's other tries (a caller's callback): ``π_i ≥ exp(h_i − M)/n`` for ``π_i = exp(h_i)/S``
is ``n exp(M) − S ≥ 0``, a sum bounded term by term.  Nothing is assumed about ``a``: its sign comes
through the second margin.  Never where the sign of b or of D is not proved (then g may change sign as
D does), and one denominator at a time.
"""
from __future__ import annotations

import sympy
from sympy import Add, Dummy, Mul, Pow

from .calculus import sign_proof
from ..terms.objects import DSum
from ..terms.facts import KernelLimit
from .normal import Term, _expand

MAX_DENOMINATORS = 3  # denominators of a margin tried, each on its own


def _denominators(g) -> list:
    """``(D, k)`` for the atoms ``D^(-k)`` of ``g`` whose base is an expression of names (not a number)."""
    out = {}
    for p in g.atoms(Pow):
        if p.exp.is_Integer and p.exp < 0 and not p.base.is_number:
            out[(p.base, int(-p.exp))] = None
    return sorted(out, key=lambda dk: sympy.default_sort_key(dk[0]))[:MAX_DENOMINATORS]


def _split(g, d, k):
    """``(a, b)`` with ``g = a / d^k + b``, neither holding ``d``, or None."""
    g = _expand(g)
    a, b = [], []
    for t in Add.make_args(g):
        rest = []
        hit = False
        for f in Mul.make_args(t):
            if f == Pow(d, -k):
                if hit:
                    return None
                hit = True
            else:
                rest.append(f)
        (a if hit else b).append(Mul(*rest))
    a, b = Add(*a), Add(*b)
    if a == 0 or a.has(d) or b.has(d) or b == 0:
        return None
    return a, b


def _merged(h, split_out):
    """``h`` with each sum that leaves out free indices (``Σ_{b ≠ i} f(b)``, as the normal form writes a sum
    beside a free index of its range) written whole where ``h`` also holds its left-out members with the same
    coefficient: ``c Σ_{b ≠ i} f(b) + c f(i) = c Σ_b f(b)``, true where i lies in the sum's range, which
    ``split_out(i, range)`` (the normaliser's own test for leaving it out) says.  So a margin over the
    denominator ``exp(h_i) + Σ_{b ≠ i} exp(h_b)`` meets a bound on the whole sum.  Also the indices used."""
    used: set = set()
    done = False
    while not done:
        done = True
        terms = Add.make_args(_expand(h))
        for t in terms:
            c, sums = t.as_independent(DSum, as_Add=False)
            if not (isinstance(sums, DSum) and c.is_number):
                continue
            summand, bounds, excl = sums.args
            if len(bounds) != 1 or not excl.args or not all(split_out(e, bounds[0][1:]) for e in excl.args):
                continue
            members = [c * summand.xreplace({bounds[0][0]: e}) for e in excl.args]
            if all(m in terms for m in members):
                h = _expand(h - t - Add(*members) + c * DSum(summand, bounds, sympy.Tuple()))
                used |= set(excl.args)
                done = False
                break
    return h, used


def normal_power(nz, d, k: int):
    """``d^k`` in normal form, for a ``d`` the normaliser ``nz`` wrote (sums of its own world): ``d`` read back as
    terms, checked by collecting them again, then multiplied out by the normaliser (a square of a sum as its
    diagonal and its pairs of distinct members).  ``d^k`` itself where that cannot be done."""
    if k != 2 or not d.has(DSum):
        return d ** k
    ts = []
    for t in Add.make_args(d):
        c, s = t.as_independent(DSum, as_Add=False)
        if not isinstance(s, DSum):
            ts.append(Term(t))
            continue
        ren = {b: Dummy("b", integer=True) for b, _, _ in s.args[1]}  # not canonical: the normaliser names them
        ts.append(Term(c * s.args[0].xreplace(ren), tuple((ren[b], lo, hi) for b, lo, hi in s.args[1])))
    try:
        if nz.collect(ts) != d:
            return d ** k
        return nz.collect(nz.mul(ts, ts))
    except KernelLimit:
        return d ** k


def quotient_proof(g, strict: bool, domain, prove_margin, split_out=lambda e, rng: False,
                   power=None) -> tuple[bool, set, set]:
    """Prove ``g ≥ 0`` (``> 0``) through ``prove_margin(h, strict)`` on the margin without the denominator
    (its sums written whole where the normal form left out free indices of their ranges: :func:`_merged`).
    The signs used, and the free indices whose ranges the rewriting used.  ``power(D, k)``, where given, is
    ``D^k`` in normal form (:func:`normal_power`: so ``n Σ a^2 - (Σ a)^2`` meets the sums it is compared with)."""
    for d, k in _denominators(g):
        parts = _split(g, d, k)
        if parts is None:
            continue
        a, b = parts
        ok_d, used_d = sign_proof(d, True, domain)
        if not ok_d:
            continue
        neg, used_b = sign_proof(-b, True, domain)
        pos, used_p = (False, set()) if neg else sign_proof(b, True, domain)
        if not (neg or pos):
            continue
        size = -b if neg else b
        h, ranges = _merged(_expand(a / size) + (-1 if neg else 1) * (power(d, k) if power else d ** k), split_out)
        ok, used = prove_margin(h, strict)
        if ok:
            return True, used | used_d | used_b | used_p, ranges
    return False, set(), set()
