"""Twins: a real symbol of no declared sign read through an assumed bound by a number.

``assume pos: c > 0`` makes c a positive real for the proof (sympy then reads
``sqrt(c^2) = c`` and ``log(c^2) = 2 log(c)`` as it does for a declared sign);
``assume weak: c > -1`` makes it ``-1 + t`` for a positive t.  The prover proves
the link and reads every fact through the twins (:class:`Twinned`), and reads
the residual back in the link's own symbols (:func:`read_back`).
"""
from __future__ import annotations

import dataclasses
import functools
from collections.abc import Mapping

import sympy

from ..terms.facts import EqFact, IneqFact
from .calculus import Iv, symbol_domain
from .reduce import memo
from ..terms.objects import Extremum, as_expr

_FLIP = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}


def number_bound(f, members: bool = False):
    """(symbol, number, relation) of a fact bounding one symbol by a real number (``c > 0``, ``1 <= c``
    read as ``c >= 1``, ``2 m > 3`` as ``m > 3/2``, ``1 - c < 0`` as ``c > 1``), else None.  ``members``: a family
    member at literal indices (``s_1 > 1``) too."""
    if not isinstance(f, IneqFact) or f.free or f.rel not in _FLIP:
        return None
    a, b, rel = as_expr(f.lhs), as_expr(f.rhs), f.rel
    if a.is_number and not b.is_number:
        a, b, rel = b, a, _FLIP[rel]
    if one_value(a, members) and b.is_number and b.is_real:
        return a, b, rel
    d = sympy.expand(a - b)  # c v + r REL 0 for one value v, c and r real numbers, c != 0
    vs = d.free_symbols if not members else d.free_symbols | d.atoms(sympy.Indexed)
    vs = [v for v in vs if one_value(v, members) and not (v.is_Symbol and any(v in ix.indices for ix in d.atoms(sympy.Indexed)))]
    if len(vs) != 1:
        return None
    v = vs[0]
    c, r = d.coeff(v), d.subs(v, 0)
    if not (c.is_number and c.is_real and c != 0 and r.is_number and r.is_real) or sympy.expand(c * v + r - d) != 0:
        return None
    return v, -r / c, rel if c > 0 else _FLIP[rel]


def one_value(a, members: bool = True) -> bool:
    """A symbol, or (``members``) a family member at literal indices (``s_1``)."""
    return a.is_Symbol or (members and isinstance(a, sympy.Indexed) and all(i.is_Integer for i in a.indices))


def _unsigned_real(a) -> bool:
    """A real symbol of no declared sign, not an integer (index ranges are keyed on those)."""
    return bool(a.is_real) and not a.is_integer and a.is_nonnegative is None and a.is_nonpositive is None


_SHIFTS: dict = {}  # (symbol, bound, relation) -> its positive (nonnegative) offset: one symbol per bound


def twin_of(f):
    """(symbol, its twin) for an assumed bound by a number on a real symbol of no declared sign: a signed
    symbol of the same name for a bound at 0 (``c > 0``), else the bound shifted by a fresh positive
    (nonnegative) symbol (``c > -1``: ``-1 + t``; ``c >= 3``: ``3 + t``, t >= 0; ``c <= 2``: ``2 - t``),
    which also gives the sign where there is one."""
    got = number_bound(f)
    if got is None or not _unsigned_real(got[0]):
        return None
    a, b, rel = got
    strict = rel in ("<", ">")
    if b == 0:
        up = rel in (">", ">=")
        sign = ("positive" if strict else "nonnegative") if up else ("negative" if strict else "nonpositive")
        return a, sympy.Symbol(a.name, real=True, **{sign: True})
    key = (a, b, rel)
    if key not in _SHIFTS:
        _SHIFTS[key] = sympy.Dummy(f"{a.name}_gap", **{"positive" if strict else "nonnegative": True})
    t = _SHIFTS[key]
    return a, (b + t if rel in (">", ">=") else b - t)


_INTERVALS: dict = {}  # (symbol, lower, its relation, upper, its relation) -> its twin's parameter


def interval_twin(a, lo, lo_rel: str, hi, hi_rel: str):
    """The twin of ``a`` between two numbers, lo < hi, at least one end open: ``lo + (hi - lo) t/(1 + t)``
    for t > 0 (t >= 0 where a may equal lo) when the upper end is open, ``hi - (hi - lo) t/(1 + t)`` when
    only the lower one is.  t/(1 + t) takes every value in (0, 1) exactly once for t > 0 (and 0 at t = 0),
    so the twin takes every admissible value of ``a`` and no other (``-1 < c < 1``: ``-1 + 2 t/(1 + t)``,
    and ``sqrt((c - 1)^2) = 1 - c``); None for two closed ends (no such form reaches both) or lo >= hi."""
    closed_lo, closed_hi = lo_rel == ">=", hi_rel == "<="
    if (closed_lo and closed_hi) or not (lo < hi):
        return None
    key = (a, lo, lo_rel, hi, hi_rel)
    if key not in _INTERVALS:
        _INTERVALS[key] = sympy.Dummy(f"{a.name}_in", **{"nonnegative" if closed_lo or closed_hi else "positive": True})
    t = _INTERVALS[key]
    return lo + (hi - lo) * t / (1 + t) if not closed_hi else hi - (hi - lo) * t / (1 + t)


def read_back(twins: dict) -> dict:
    """The substitution that reads a twin's symbol as the link's own: c for a signed twin, c - b (b - c)
    for the offset t of ``b + t`` (``b - t``), (c - lo)/(hi - c) ((hi - c)/(c - lo)) for the parameter t
    of an interval's twin."""
    back = {}
    for a, tw in twins.items():
        if tw.is_Symbol:
            back[tw] = a
            continue
        if tw.is_number:  # a case at one end (c = 1): nothing to read back
            continue
        (t,) = tw.free_symbols
        ends = [k[1:] for k, v in _INTERVALS.items() if v == t]
        if ends:  # lo + (hi - lo) t/(1 + t), or hi - (hi - lo) t/(1 + t) for a closed upper end
            lo, _, hi, hi_rel = ends[0]
            back[t] = (a - lo) / (hi - a) if hi_rel != "<=" else (hi - a) / (a - lo)
        else:
            back[t] = a - (tw - t) if tw.coeff(t) == 1 else (tw + t) - a
    return back


def binds(x, s) -> bool:
    """Does ``s`` occur in ``x`` as the variable of a limit, a derivative or an extremum?  (A real symbol is
    never a sum's index: those are integers.)"""
    for node in sympy.preorder_traversal(x):
        if isinstance(node, sympy.Derivative) and s in node.variables:
            return True
        if isinstance(node, (sympy.Limit, Extremum)) and node.args[1] == s:
            return True
    return False


def read_in(x, twins: dict, back: dict):
    """``x`` (a residual over the twins) read back in the link's own symbols; where an interval's twin was
    read, each sum inside is put over one denominator (``t/(1 + t)`` read back is ``(c + 1)/2``, not a
    fraction of fractions)."""
    got = x.xreplace(back)
    params = set(_INTERVALS.values())
    if any(tw.free_symbols & params for tw in twins.values()):
        got = sympy.bottom_up(got, lambda e: sympy.cancel(e) if e.is_Add else e)
    return got


class Twinned(Mapping):
    """A fact table read through ``twins`` (each label's facts rewritten once, when first asked: the
    checker adds the facts of later statements to the table it shares)."""

    def __init__(self, facts, twins: dict):
        self.facts, self.twins, self.done = facts, twins, {}

    def __getitem__(self, lab):
        if lab not in self.done:
            self.done[lab] = [self._put(f) for f in self.facts[lab]]
        return self.done[lab]

    def _put(self, f):
        if isinstance(f, (EqFact, IneqFact)):
            return dataclasses.replace(f, lhs=as_expr(f.lhs).xreplace(self.twins),
                                       rhs=as_expr(f.rhs).xreplace(self.twins))
        return f

    def __iter__(self):
        return iter(self.facts)

    def __len__(self):
        return len(self.facts)


def member_bound(f):
    """(member, number, relation) of a fact over free indices that bounds the member at exactly those indices by a
    number (``X_i >= 0``, for every i), read at the link's own i: the same declared index, the same range; else
    None.  Not for a fact over distinct indices only."""
    if not isinstance(f, IneqFact) or not f.free or f.distinct or f.rel not in _FLIP:
        return None
    a, b, rel = as_expr(f.lhs), as_expr(f.rhs), f.rel
    if a.is_number and not b.is_number:
        a, b, rel = b, a, _FLIP[rel]
    if isinstance(a, sympy.Indexed) and all(i.is_Symbol for i in a.indices) and set(a.indices) == set(f.free) \
            and b.is_number and b.is_real:
        return a, b, rel
    return None


@memo
@functools.lru_cache(maxsize=4096)
def power_bounds(f) -> tuple:
    """((symbol, lo, >=), (symbol, hi, <=)) (strict for a strict fact; memoised per fact) of a fact that bounds an even power or the
    absolute value of ``k v + c`` (one symbol v, or the member at exactly the fact's free indices, ``|g_t| <= 1``
    for every t; numbers k != 0 and c) by a number from above: ``y^2 <= 1`` and
    ``|y| <= 1`` give -1 <= y <= 1, ``4 - x^4 > 0`` gives -sqrt(2) < x < sqrt(2), ``|w - 1| <= 1/2`` gives
    1/2 <= w <= 3/2; else ().  (A bound from below, ``y^2 >= 1``, leaves two intervals, not one: ().)"""
    if not isinstance(f, IneqFact) or f.distinct or f.rel not in _FLIP:
        return ()
    written = as_expr(f.lhs) - as_expr(f.rhs)
    for d in dict.fromkeys((written, sympy.expand(written))):  # c t + r REL 0, t = (k v + c0)^(2m) or |k v + c0|
        for t in sorted(d.atoms(sympy.Pow, sympy.Abs), key=sympy.default_sort_key):
            if not (isinstance(t, sympy.Abs) or (t.exp.is_Integer and t.exp.is_even and t.exp > 0)):
                continue
            inner = t.args[0]
            v = _bounded_value(inner, f.free)
            if v is None or not inner.is_polynomial(v) or sympy.degree(inner, v) != 1:
                continue
            k, c0 = inner.coeff(v), inner.xreplace({v: sympy.Integer(0)})
            c, r = d.coeff(t), d.xreplace({t: sympy.Integer(0)})
            if not (all(x.is_number and x.is_real for x in (k, c0, c, r)) and c != 0 and k != 0) or \
                    sympy.expand(c * t + r - d) != 0 or sympy.expand(k * v + c0 - inner) != 0:
                continue
            bound, up = -r / c, f.rel if c > 0 else _FLIP[f.rel]  # t UP bound
            if up not in ("<", "<=") or bound < 0 or (bound == 0 and up == "<"):
                return ()  # no interval (or no value at all: left to the consistency check)
            root = bound if isinstance(t, sympy.Abs) else sympy.root(bound, t.exp)
            ends = sorted(((-root - c0) / k, (root - c0) / k), key=lambda e: e.evalf())
            return ((v, ends[0], _FLIP[up]), (v, ends[1], up))
    return ()


def _bounded_value(inner, free):
    """The one value ``inner`` is written in: a symbol (a fact with no free index), or the member at exactly the
    fact's free indices (``|g_t| <= 1`` for every t: g_t, read at the link's own t as member_bound reads); else
    None."""
    if not free:
        return next(iter(inner.free_symbols)) if len(inner.free_symbols) == 1 else None
    members = inner.atoms(sympy.Indexed)
    if len(members) != 1:
        return None
    (v,) = members
    if not (all(i.is_Symbol for i in v.indices) and set(v.indices) == set(free)
            and inner.free_symbols <= {v, *v.indices, v.base.label}):
        return None
    return v


def _whole_family(a, decls):
    """("family", X) for a member ``X_i`` bounded for every i, where i ranges over X's declared range (so the
    bound holds for every member of X); else None."""
    if decls is None or not isinstance(a, sympy.Indexed) or len(a.indices) != 1 or not a.indices[0].is_Symbol:
        return None
    rng = decls.family_ranges.get(a.base.label.name)
    return ("family", a.base) if rng is not None and decls.index_ranges.get(a.indices[0]) == rng else None


def _member_of_its_family(s, decls) -> bool:
    """``s`` is a member ``X_j`` of a family, by its one index, within the family's declared range: an index
    symbol declared over that same range, or a whole number the range provably holds (``X_1`` for 1..n, n a
    positive integer; not ``X_2``, which needs n >= 2)."""
    if decls is None or not isinstance(s, sympy.Indexed) or len(s.indices) != 1:
        return False
    rng = decls.family_ranges.get(s.base.label.name)
    (j,) = s.indices
    if rng is None:
        return False
    if j.is_Symbol:
        return decls.index_ranges.get(j) == rng
    return bool(j.is_Integer and (j - rng[0]).is_nonnegative and (rng[1] - j).is_nonnegative)


def _narrow(ends: dict, a, b, rel) -> None:
    """Keep the tighter of ``a REL b`` and the bound already on that side of ``a``."""
    e = ends.setdefault(a, [-sympy.oo, True, sympy.oo, True])
    if rel in (">", ">=") and (b > e[0] or (b == e[0] and rel == ">")):
        e[0], e[1] = b, rel == ">"
    if rel in ("<", "<=") and (b < e[2] or (b == e[2] and rel == "<")):
        e[2], e[3] = b, rel == "<"


def refined_domain(ineqs, decls=None):
    """Symbol domains narrowed by facts such as `x > 0`, `y^2 <= 1` (:func:`power_bounds`), and `X_i >= 0` for the
    member X_i at the fact's own indices (used by inequality proofs): the tightest bound by a number on each side,
    and the declared sign where it is tighter (``0 <= p``, ``p <= 1``: [0, 1]).  With ``decls``, a bound on every
    member over the family's own declared range (``X_i >= 0``, i and X both over 1..n) is read at every member
    the declarations put in that range (``X_j`` for j over 1..n, ``X_1``): :func:`_member_of_its_family`."""
    ends: dict = {}  # symbol -> [lower end, open?, upper end, open?]: the tightest bound on each side
    for f in ineqs:
        got = number_bound(f) or member_bound(f)  # X_i >= 0 for every i: at the link's own X_i
        for a, b, rel in [got] if got is not None else power_bounds(f):
            _narrow(ends, _whole_family(a, decls) or a, b, rel)
    families = {k[1] for k in ends if isinstance(k, tuple)}  # bounded as whole families

    def domain(s, used):
        whole = families and isinstance(s, sympy.Indexed) and s.base in families and _member_of_its_family(s, decls)
        mine = [ends[k] for k in (s, ("family", s.base) if whole else None) if k in ends]
        if not mine:
            return symbol_domain(s, used)
        acc: dict = {}  # the member's own bounds and its family's: the tighter on each side
        for e in mine:
            _narrow(acc, 0, e[0], ">" if e[1] else ">=")
            _narrow(acc, 0, e[2], "<" if e[3] else "<=")
        lo, lo_open, hi, hi_open = acc[0]
        own: set = set()
        d = symbol_domain(s, own)  # a declared sign tighter than the facts (c positive, assume c < 1)
        if d.lo != -sympy.oo and (d.lo > lo or (d.lo == lo and d.lo_open and not lo_open)):
            lo, lo_open = d.lo, d.lo_open
            used |= own
        if d.hi != sympy.oo and (d.hi < hi or (d.hi == hi and d.hi_open and not hi_open)):
            hi, hi_open = d.hi, d.hi_open
            used |= own
        if s.is_integer:  # a whole number above 1 is at least 2
            a = (sympy.floor(lo) + 1 if lo_open else sympy.ceiling(lo)) if lo.is_finite else lo
            b = (sympy.ceiling(hi) - 1 if hi_open else sympy.floor(hi)) if hi.is_finite else hi
            if a <= b:  # (facts no whole number meets are left to the consistency check)
                lo, lo_open, hi, hi_open = a, lo_open and not lo.is_finite, b, hi_open and not hi.is_finite
        return Iv(lo, hi, lo_open, hi_open)

    domain.key = tuple(sorted(((a, tuple(e)) for a, e in ends.items()), key=str))  # what it adds, for caches
    if any(isinstance(a, tuple) for a in ends):  # a family's bound is read through the declared ranges too
        domain.key += (("ranges", tuple(sorted(decls.index_ranges.items(), key=str)),
                        tuple(sorted(decls.family_ranges.items(), key=str))),)
    return domain
