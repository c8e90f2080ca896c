"""Limits in the kernel.

* ``take_limit``: sympy's ``limit`` (or :mod:`.rational_limit` first) after opaque sub-terms that do not
  depend on the limit variable (sums, moment atoms) are replaced by fresh constants carrying the sign the
  interval evaluator proves for them; facts ``u > v`` in scope are used by writing one symbol of ``u - v``
  through a positive constant; the declared signs the value rests on are reported.
* limits whose variable occurs inside a sum over a symbolic range: see :func:`parts_limit`.
"""
from __future__ import annotations

import contextvars
import zlib

import sympy
from sympy import Add, Dummy, Mul, Pow

from ..terms.facts import IneqFact, KernelLimit
from ..terms.objects import DSum, E, as_expr
from .calculus import REALS, _cached, bounds, has_sign, symbol_domain
from .rational_limit import rational_limit

_LIMITS: dict = {}
#: the symbols' intervals of the limit being taken (``take_limit``'s ``domain``): the ranges of sums are read there
_DOMAIN: contextvars.ContextVar = contextvars.ContextVar("limit_domain", default=symbol_domain)


def take_limit(f, x, a, side: str = "+-", gaps=(), signs: set | None = None, member=(), domain=None):
    """sympy.limit with x-free opaque atoms replaced by constants of known sign (cached).

    ``side``: ``"+-"`` (two-sided: both one-sided limits exist and agree),
    ``"+"`` or ``"-"``; ignored at infinity.  A two-sided limit whose sides
    differ, or that sympy cannot take, is a KernelLimit (not proved).
    ``gaps``: expressions known positive (from facts ``u > v``); the limit is
    taken with one symbol of each written through a positive constant, so
    that ``exp(s_1/T)/(exp(s_1/T) + exp(s_2/T)) -> 1`` as T -> 0+ under
    ``s_1 > s_2``.
    ``signs``: receives the declared symbols whose sign the value rests on (:func:`_signs_used`).
    ``member``: facts about every member of a family, for a limit through a sum (:func:`parts_limit`).
    ``domain``: the symbols' intervals narrowed by assumed bounds (``N >= 2``), for the ranges of those sums.
    """
    if not a.is_finite:
        side = "-" if a == sympy.oo else "+"
    gaps = tuple(gaps)

    member = tuple(member)

    def one(g, gs):
        return _limit_with_gaps(g, x, a, side, gs, member) if gs else _take_limit(g, x, a, side, member)

    token = _DOMAIN.set(domain or symbol_domain)
    try:
        value, used = _cached(_LIMITS, (f, x, a, side, gaps, member, getattr(domain, "key", None)),
                              lambda: _signs_used(one, f, gaps, x))
    finally:
        _DOMAIN.reset(token)
    if signs is not None:
        signs |= used
    return value


def _signs_used(take, f, gaps, x) -> tuple:
    """``take(f, gaps)``, and the declared symbols whose sign it rests on.

    sympy's ``limit`` reads the signs of the symbols it meets (``exp(-c t) -> 0`` for a positive c) and
    does not say which: each declared sign is dropped in turn (the symbol made a real of no sign) and
    the limit taken again; a sign whose loss changes the value or leaves it undecided is one the value
    rests on, and stays for the next trials (so the signs reported suffice together, and none of them
    can be dropped alone).
    """
    value = take(f, gaps)
    used = set()
    signed = sorted((s for s in f.free_symbols.union(*(g.free_symbols for g in gaps))
                     if s != x and not isinstance(s, Dummy) and has_sign(s)), key=str)
    for s in signed:
        twin = Dummy(s.name, real=True, integer=s.is_integer or None)
        g, gs = f.xreplace({s: twin}), tuple(gp.xreplace({s: twin}) for gp in gaps)
        try:
            other = take(g, gs).xreplace({twin: s})
            same = other == value or (value.is_finite and other.is_finite and sympy.expand(other - value) == 0)
        except (KernelLimit, ArithmeticError, ValueError, TypeError, AttributeError, NotImplementedError,
                RecursionError):  # not answered without the sign: it stays (the value above stands)
            same = False
        if same:
            f, gaps = g, gs
        else:
            used.add(s)
    return value, frozenset(used)


def _limit_with_gaps(f, x, a, side, gaps, member=()):
    """Write t = (G - r)/c for a gap g = c t + r > 0 (G a positive constant), take the limit, put g back."""
    back, sub = {}, {}
    f = _split(f, member) if member else f  # members written out before the gaps are put in: they are put in them too
    for g0 in gaps:
        g = sympy.expand(g0.xreplace(sub))  # in the variables left by the earlier gaps
        # the smaller side's symbol first: s_1 > s_2, s_1 > s_3 give s_2 = s_1 - G, s_3 = s_1 - G'
        values = [t for t in g.free_symbols | g.atoms(sympy.Indexed)  # an index is not a value
                  if not (isinstance(t, sympy.Symbol) and any(t in ix.indices for ix in g.atoms(sympy.Indexed)))]
        # the coefficient read structurally: s_1 and s_m are two values here (a member fact holds only at
        # members m of a range that leaves 1 out), where diff would give 1 - δ(1, m)
        cands = sorted(values, key=lambda t: (not (g.coeff(t).is_number and g.coeff(t) < 0), sympy.default_sort_key(t)))
        for t in cands:
            c = g.coeff(t)
            if not (c.is_number and c != 0):
                continue
            if not f.has(t) or any(t in d.args[1].free_symbols for d in f.atoms(DSum)):
                continue  # a sum's end (n > 1) stays: member facts are read against it
            G = Dummy("gap", positive=True)
            r = sympy.expand(g - c * t)
            if r.has(t):
                continue
            f = f.xreplace({t: (G - r) / c})
            sub = {k: v.xreplace({t: (G - r) / c}) for k, v in sub.items()}
            sub[t] = (G - r) / c
            back[G] = g0
            break
    if back:
        f, x = _exp_factored(f, x, a, side)
    member = tuple(sympy.Tuple(m.args[0].xreplace(sub), *m.args[1:]) for m in member) if sub else member
    out = _take_limit(f, x, a, side, member)
    return out.xreplace(back)


def _exp_factored(f, x, a, side):
    """``f`` with exp((G + s_2)/T) written exp(G/T) exp(s_2/T), so that a common factor cancels before sympy takes
    the limit, and a logarithm of a product split where that leaves one: log(exp(a/T) (1 + exp(-G/T))) =
    a/T + log(1 + exp(-G/T)), by sympy's own expand_log, which splits a log of a product only where its factors
    are positive; as T -> 0+ or T -> oo only T > 0 matters, so T is taken positive there (exp(a/T) is then a
    positive number), and negative as T -> 0- or T -> -oo.  (the rewritten f, its variable: x, or a twin of it
    of that sign)."""
    try:
        f = sympy.cancel(sympy.expand(f, power_exp=True))
    except (sympy.PolynomialError, NotImplementedError, ValueError, TypeError):
        pass
    if f.has(sympy.log) and (a == 0 and side in ("+", "-") or not a.is_finite):
        # only the sign of T near the point matters: T > 0 as T -> 0+ or oo, T < 0 as T -> 0- or -oo
        xp = Dummy(x.name, positive=True) if (side == "+" if a == 0 else a == sympy.oo) else Dummy(x.name, negative=True)
        g = f.xreplace({x: xp}).replace(lambda e: isinstance(e, sympy.log),
                                        lambda e: sympy.log(sympy.factor_terms(e.args[0])))
        g = sympy.expand_log(g)
        if not g.has(x):
            return g, xp
    return f, x


def _take_limit(f, x, a, side, member=()):
    reps = {}
    if any(x in atom.free_symbols for atom in f.atoms(DSum, sympy.Sum)) and not any(
            x in atom.free_symbols for atom in f.atoms(E)):
        return parts_limit(f, x, a, side, member)
    for atom in f.atoms(DSum, E, sympy.Sum):
        if x in atom.free_symbols:
            raise KernelLimit("the limit variable occurs inside a sum or an expectation")
        used: set = set()
        try:
            iv = bounds(atom, symbol_domain, used)
        except KernelLimit:
            iv = REALS
        if iv.positive():
            reps[atom] = Dummy("c", positive=True)
        elif iv.nonnegative():
            reps[atom] = Dummy("c", nonnegative=True)
        else:
            reps[atom] = Dummy("c", real=True)
    g = f.xreplace(reps)
    try:
        try:
            r = _one_limit(g, x, a, side)
        except KernelLimit:
            # a value whose sign is not known in an exponent (exp(b/T) for a real b): factored out and taken
            # out of the logarithm first (a case of max(a, b) writes a = b + t, t > 0)
            h, y = _exp_factored(g, x, a, side) if g.has(sympy.exp) and g.has(sympy.log) else (g, x)
            if h == g:
                raise
            r = _one_limit(h, y, a, side)
    except (NotImplementedError, ValueError, TypeError) as e:
        raise KernelLimit(f"sympy could not take this limit ({type(e).__name__})")
    if r.has(sympy.Limit, sympy.AccumBounds, sympy.nan, sympy.zoo):
        raise KernelLimit("the limit could not be determined")
    back = {v: k for k, v in reps.items()}
    return r.xreplace(back)


def _fast_limit(g, x, a, side):
    """``rational_limit`` on one side, or on both (they must agree) for a two-sided limit; None: not decided."""
    if side != "+-" or not a.is_finite:
        return rational_limit(g, x, a, side)
    right, left = rational_limit(g, x, a, "+"), rational_limit(g, x, a, "-")
    if right is None or left is None or sympy.expand(right - left) != 0:
        return None
    return right


def _one_limit(g, x, a, side):
    fast = _fast_limit(g, x, a, side)
    if fast is not None:
        return fast
    if side != "+-" or not a.is_finite:
        return sympy.limit(g, x, a, side if a.is_finite else "+")
    right, left = sympy.limit(g, x, a, "+"), sympy.limit(g, x, a, "-")
    for r in (right, left):
        if r.has(sympy.Limit, sympy.AccumBounds, sympy.nan, sympy.zoo):
            raise KernelLimit("the limit could not be determined")
    if right != left:
        if (right - left).equals(0) is not True:
            raise KernelLimit(f"the one-sided limits differ (from the left {left}, from the right {right}): "
                              "the two-sided limit does not exist")
    return right



# ---------------------------------------------------------------- limits through sums

MAX_SPLIT = 4  # members split off a sum below a fact's range


def parts_limit(f, x, a, side, member=()):
    """The limit of ``f``, whose variable occurs inside a sum over a symbolic range.

    For each value of its ends such a sum has finitely many terms, so where every part has a finite limit the
    algebra of limits applies: sums, products and number powers of parts with finite limits (a negative or
    fractional power only of a part whose limit is proved positive or negative), exp of a part, log of a part
    whose limit is proved positive, and a sum whose terms have a finite limit, which is the sum of theirs
    (``Σ_{m=1..n} exp(s_m/T) -> Σ_{m=1..n} 1``, counted by the normaliser, as T -> oo).  The summand's limit is
    taken with its member symbolic, as every other limit of the kernel.

    Where a part is infinite (``exp(s_1/T)`` as T -> 0+), a dominant term is looked for: facts about every member
    of a family (``s_k < s_1`` for k in 2..n, passed as ``member``: (template, its own index, the range, the
    declared index it was written with); see :func:`limit_gap`) are instantiated at a sum's bound index where
    the sum's members lie in the fact's range; members below that range are split off first (``Σ_{m=1..n} = [m = 1] + Σ_{m=2..n}``, where 1..n is not reversed and no index the sum
    leaves out can be 1); then numerator and denominator are divided by one exp of the expression after another,
    which is an identity, and the limit of the parts is taken again (``exp(s_1/T)/Σ_{m=1..n} exp(s_m/T) =
    1/(1 + Σ_{m=2..n} exp((s_m - s_1)/T)) -> 1``).
    """
    try:
        return _parts(f, x, a, side, member)
    except KernelLimit as e:
        if not member:
            raise
        first = e
    g = _split(f, member)
    for c in _pivots(g, x):
        num, den = sympy.fraction(g)
        try:
            return _parts(_scaled(num, c) * Pow(_scaled(den, c), -1), x, a, side, member)
        except KernelLimit:
            continue
    raise first


def _finite(v):
    if v.has(sympy.oo, -sympy.oo, sympy.zoo, sympy.nan):
        raise KernelLimit("a part of a limit through a sum is infinite: the parts are not added")
    return v


def _moves(f, x) -> bool:
    return any(x in atom.free_symbols for atom in f.atoms(DSum, sympy.Sum))


def _parts(f, x, a, side, member):
    if not f.has(x):
        return f
    if not _moves(f, x):
        return _finite(_take_limit(f, x, a, side))  # no sum moves: sympy's limit of this part as a whole
    if isinstance(f, (DSum, sympy.Sum)):
        body, lims = (f.args[0], f.args[1]) if isinstance(f, DSum) else (f.function, f.limits)
        if any(x in lim[1].free_symbols | lim[2].free_symbols for lim in lims):
            raise KernelLimit("the limit variable occurs in the range of a sum")
        gaps = _instances(f, member) if isinstance(f, DSum) else ()
        term = _finite(_limit_with_gaps(body, x, a, side, gaps, member) if gaps else
                       _take_limit(body, x, a, side, member))
        return DSum(term, f.args[1], f.args[2]) if isinstance(f, DSum) else sympy.Sum(term, *lims)
    if isinstance(f, (Add, Mul)):
        parts = [_finite(_parts(p, x, a, side, member)) for p in f.args]
        return Add(*parts) if isinstance(f, Add) else Mul(*parts)
    if isinstance(f, Pow) and not f.exp.has(x):
        b = _finite(_parts(f.base, x, a, side, member))
        if not (f.exp.is_Integer and f.exp >= 0):
            iv = bounds(b, symbol_domain, set())
            if not (iv.positive() or f.exp.is_Integer and iv.negative()):
                raise KernelLimit("a power of a part of a limit whose limit is not known to be nonzero")
        return b ** f.exp
    if isinstance(f, sympy.exp):
        return sympy.exp(_finite(_parts(f.args[0], x, a, side, member)))
    if isinstance(f, sympy.log):
        b = _finite(_parts(f.args[0], x, a, side, member))
        if not bounds(b, symbol_domain, set()).positive():
            raise KernelLimit("the log of a part of a limit whose limit is not known to be positive")
        return sympy.log(b)
    raise KernelLimit("the limit variable occurs inside a sum, under a function the limit cannot pass")


def _provably(x) -> bool:
    """``x >= 0`` by the declarations and the assumed bounds by numbers (a number, or the interval evaluator)."""
    try:
        return bool(x.is_nonnegative) or bounds(x, _DOMAIN.get(), set()).nonnegative()
    except KernelLimit:
        return False


def _instances(s, member) -> tuple:
    """The member facts that hold at every member of the sum ``s`` (its range inside the fact's), at its bound
    index."""
    if len(s.args[1]) != 1:
        return ()
    b, lo, hi = s.args[1][0]
    return tuple(g.xreplace({k: b}) for g, k, klo, khi, _ in member
                 if _provably(sympy.expand(lo - klo)) and _provably(sympy.expand(khi - hi)))


def _split(f, member):
    """``f`` with the members of each sum below a member fact's range written out (see the module)."""
    sub = {}
    for s in f.atoms(DSum):
        if len(s.args[1]) != 1 or _instances(s, member):
            continue
        b, lo, hi = s.args[1][0]
        for g, k, klo, khi, _ in member:
            gap = sympy.expand(klo - lo)
            if not (lo.is_Integer and gap.is_Integer and 0 < gap <= MAX_SPLIT and sympy.expand(khi - hi) == 0
                    and _provably(hi - klo + 1)):
                continue
            # a left-out index is one of the members written out only if it can be below klo: refused
            if any(not _above(e, klo, member) for e in s.args[2].args):
                continue
            out = [s.args[0].xreplace({b: lo + m}) for m in range(int(gap))]
            sub[s] = Add(*out) + DSum(s.args[0], sympy.Tuple(sympy.Tuple(b, klo, hi)), s.args[2])
            break
    return f.xreplace(sub) if sub else f


def _above(e, klo, member) -> bool:
    """A left-out index ``e`` at or above ``klo``: a number, or the declared index of a member fact whose range
    starts there (the link's free index of that name ranges over it)."""
    return (e.is_Integer and e >= klo) or any(
        sympy.expand(lo - klo).is_nonnegative for _, _, lo, _, declared in member if declared == e)


def _pivots(g, x) -> list:
    """Candidates u to divide numerator and denominator by exp(u): the exponent of each term of either,
    expanded (the exp factors of the term outside its sums, added up)."""
    out = set()
    for part in sympy.fraction(g):
        for term in Add.make_args(sympy.expand(part)):
            u = Add(*[f.args[0] for f in Mul.make_args(term) if isinstance(f, sympy.exp) and f.args[0].has(x)])
            if u != 0:
                out.add(sympy.expand(u))
    return sorted(out, key=sympy.default_sort_key)


def _scaled(e, u):
    """``e exp(-u)``, expanded: the factor carried into every term, and a term's factors into its one sum (they
    are free of its bound index); exp factors combined."""
    out = []
    for term in Add.make_args(sympy.expand(e)):
        sums = [f for f in Mul.make_args(term) if isinstance(f, DSum)]
        if len(sums) == 1 and not sympy.Mul(*[f for f in Mul.make_args(term) if f is not sums[0]]).has(DSum):
            s = sums[0]
            body = sympy.powsimp(s.args[0] * (term / s) * sympy.exp(-u), combine="exp")
            out.append(DSum(body, s.args[1], s.args[2]))
        else:
            out.append(sympy.powsimp(term * sympy.exp(-u), combine="exp"))
    return Add(*out)


def limit_gap(f, decls):
    """``u - v`` for a fact ``u > v`` (or ``v < u``) without moments, else None; for a fact over one free index
    k of a declared range lo..hi, sympy's Tuple(u - v with k as a fresh index j, j, lo, hi, k) (:func:`parts_limit`)."""
    if not isinstance(f, IneqFact) or f.rel not in (">", "<") or f.distinct or len(f.free) > 1 or (
            f.free and decls.index_ranges.get(f.free[0]) is None):
        return None
    g = as_expr(f.lhs) - as_expr(f.rhs)
    g = g if f.rel == ">" else -g
    if g.has(E, DSum, sympy.Sum):
        return None
    if not f.free:
        return g
    # one fresh index per declared index, the same in every attempt (the prover's caches are keyed on the gaps)
    j = sympy.Dummy(f"j_{f.free[0].name}", integer=True, dummy_index=zlib.crc32(f.free[0].name.encode()))
    return sympy.Tuple(g.xreplace({f.free[0]: j}), j, *decls.index_ranges[f.free[0]], f.free[0])
