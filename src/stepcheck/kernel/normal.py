"""Normal forms of probability expressions (the heart of the kernel).

An expression is turned into a list of :class:`Term`: a sympy coefficient
and a tuple of *bound indices* (lifted from sums).  Invariant: within a term,
bound indices of one range are pairwise distinct and distinct from every
*known* index of that range (the link's free indices whose range may be used,
and the bounds of enclosing sums).  Sums are split into these cases when they
are lifted (``Σ_b f(b) = f(i) + Σ_{b≠i} f(b)``) and when two sums are
multiplied (diagonal / off-diagonal).  Inside that world index equality is
decided syntactically, so:

* ``E`` is pushed through sums and constants (linearity);
* ``E`` of a product factors into independent blocks when one independence
  fact covers every variable and all variables are known distinct or equal
  (factorization);
* ``Var``, ``Cov``, ``SD`` unfold by definition;
* Kronecker deltas between known indices evaluate to 0 or 1;
* a bound index the summand no longer mentions collapses into a count.

What remains is a polynomial in moment atoms ``E[...]``, canonical sum atoms
``DSum`` and deterministic symbols.  Equation facts are applied by ideal
membership (``reduce.py``).  No ``simplify()`` anywhere.
"""
from __future__ import annotations

import itertools
from functools import lru_cache
import math
from dataclasses import dataclass

import sympy
from sympy import (Add, Derivative, Dummy, Indexed, Integer, KroneckerDelta, Limit, Mul, Pow, Product,
                   Sum, Symbol, Tuple)

from . import calculus, limits
from ..terms.facts import Deadline, Decls, IndepFact, KernelLimit, Limits
from .independence import Independence, _within
from .closed_forms import power_sum, recount
from .elementary import elementary
from .reduce import memo
from .expansion import _expand
from .surely import apply_surely
from .rules import rule
from ..terms.objects import SD, Cov, DSum, E, Extremum, FamilyExtremum, Var, canon_bound, is_canon_bound

_PROB = (E, Var, Cov, SD)


@dataclass(frozen=True)
class Term:
    coeff: sympy.Expr
    bounds: tuple = ()  # ((sym, lo, hi), ...)


class RuleSet(set):
    """A set of rule names that accepts only names registered in :mod:`.rules`."""

    def add(self, name: str):
        super().add(rule(name))


class Trace:
    """What a normalisation relied on: rules, independence facts, ranges."""

    def __init__(self):
        self.rules: RuleSet = RuleSet()
        self.indep: dict[str, set[str]] = {}  # label -> set of weakest-form texts ("" = full)
        self.ranges: set = set()  # free index symbols whose range was used
        self.signs: set = set()  # symbols whose declared sign a bound relied on
        self.kept = False  # a concrete sum short enough to unroll was kept symbolic (Normalizer.unroll)

    def merge(self, other: "Trace"):
        self.kept = self.kept or other.kept
        self.rules |= other.rules
        for k, v in other.indep.items():
            self.indep.setdefault(k, set()).update(v)
        self.ranges |= other.ranges
        self.signs |= other.signs


UNROLL = 16  # the longest concrete sum unrolled (Σ_{l=1..16} becomes 16 terms with literal indices)
UNROLL_FIRST = 4  # the prover's first try: longer concrete sums stay symbolic, as Σ_{l=1..n} does


def _rkey(lo, hi):
    return (lo, hi)


class Normalizer(Independence):
    """Normalises expressions under fixed declarations and independence facts.

    ``free``: the link's free index symbols (pairwise distinct: the caller
    case-splits equalities); ``range_ok``: those whose declared range may be
    used to split sums.
    """

    def __init__(self, decls: Decls, indep: list[IndepFact], free: tuple, range_ok: frozenset,
                 limits: Limits | None = None, deadline: Deadline | None = None):
        self.decls = decls
        self.indep = list(indep)
        self.domain = calculus.symbol_domain  # symbols' intervals: the declarations, narrowed by assumed bounds (prover)
        self.gaps: tuple = ()  # u - v for facts u > v in scope: limits may use them (set by the prover)
        self.free = tuple(free)
        self.range_ok = frozenset(range_ok)
        self.limits = limits or Limits()
        self.deadline = deadline or Deadline(self.limits.seconds)
        self.trace = Trace()
        self.enclosing: list[tuple] = []  # (sym, lo, hi) of sums being lifted
        # (c, (lo, hi)): the link uses a member q_c of a family over lo..hi, so c lies in lo..hi (set by the prover)
        self.present: frozenset = frozenset()
        self._rv_cache: dict = {}
        # sum atoms depend only on the monomial, its bounds and the index world (free, range_ok,
        # enclosing) under fixed declarations: a prover shares one dict across its attempts
        self.sum_cache: dict = {}
        self.reducer = None  # callable(normalizer, terms) -> expr, applying equation facts
        self.surely: tuple = ()  # equations between random variables, applied inside E (kernel/surely.py)
        # concrete sums of at most this many terms are unrolled (their indices become literals); the prover
        # tries a short limit first, and UNROLL where a sum it kept symbolic may need its members
        self.unroll = UNROLL

    # ------------------------------------------------------------ index world
    def index_range(self, s):
        return self.decls.index_ranges.get(s)

    def known(self, lo, hi, bounds=()) -> list:
        """Index symbols of range (lo, hi) known pairwise distinct here (a free index of a range inside it
        too: k in 2..n is one of the values of a sum over 1..n)."""
        out = [f for f in self.free if self.split_out(f, (lo, hi))]
        out += [b for (b, l, h) in self.enclosing if (l, h) == (lo, hi)]
        out += [b for (b, l, h) in bounds if (l, h) == (lo, hi)]
        return out

    def _bound_range(self, s, bounds):
        for (b, l, h) in itertools.chain(bounds, self.enclosing):
            if b == s:
                return (l, h)
        return None

    def distinct(self, a, b, bounds) -> bool | None:
        """True: known different; False: identical; None: may be equal."""
        if a == b:
            return False
        if a.is_Integer and b.is_Integer:
            return True
        fa, fb = a in self.free, b in self.free
        if fa and fb:
            return True  # the caller's case split makes free indices distinct
        for c, v in ((a, b), (b, a)):  # a literal outside an index's range: δ(1, k) = 0 for k in 2..n
            if c.is_Integer and not v.is_Integer:
                rng = self._bound_range(v, bounds)
                if rng is None and v in self.free and v in self.range_ok:
                    rng = self.index_range(v)
                if rng is not None and (sympy.Lt(c, rng[0]) == sympy.true or sympy.Gt(c, rng[1]) == sympy.true):
                    if v in self.free:
                        self.trace.ranges.add(v)
                    return True
        ra, rb = self._bound_range(a, bounds), self._bound_range(b, bounds)
        if ra is not None and rb is not None:
            return True if ra == rb else None
        if ra is not None and fb:
            return True if self.split_out(b, ra) else None
        if rb is not None and fa:
            return True if self.split_out(a, rb) else None
        return None

    def split_out(self, f, rng) -> bool:
        """Is the free index ``f`` one a sum over ``rng`` has split out (``known``): its bound index differs."""
        r = self.index_range(f) if f in self.range_ok else None
        return r is not None and (r == rng or _within(r, rng))

    def same_var(self, x, y, bounds) -> bool | None:
        """Whether two random variables are the same one (None: unknown)."""
        if x == y:
            return True
        if isinstance(x, Indexed) and isinstance(y, Indexed):
            if x.base != y.base or len(x.indices) != len(y.indices):
                return False
            res = True
            for a, b in zip(x.indices, y.indices):
                d = self.distinct(a, b, bounds)
                if d is True:
                    return False
                if d is None:
                    res = None
            return res
        return False

    # ------------------------------------------------------------ random vars
    def rvs(self, x) -> frozenset:
        """Random variables occurring in ``x`` outside E/Var/Cov/SD."""
        r = self._rv_cache.get(x)
        if r is not None:
            return r
        if self.decls.is_rv(x):
            r = frozenset([x])
        elif isinstance(x, _PROB) or not x.args:
            r = frozenset()
        elif isinstance(x, DSum):  # a sum of random summands is random (1/Σ x_i^2 is no constant)
            r = self.rvs(x.args[0])
        else:
            r = frozenset().union(*(self.rvs(a) for a in x.args))
        self._rv_cache[x] = r
        return r

    # ------------------------------------------------------------ terms
    def terms(self, x) -> list[Term]:
        self.deadline.check()
        if not x.has(Sum, Product, *_PROB, KroneckerDelta, Derivative, Limit, Extremum):
            return [Term(elementary(x))]
        if isinstance(x, Add):
            out = []
            for a in x.args:
                out.extend(self.terms(a))
            self._check_size(out)
            return out
        if isinstance(x, Mul):
            acc = [Term(Integer(1))]
            for a in x.args:
                acc = self.mul(acc, self.terms(a))
            return acc
        if isinstance(x, Pow):
            base, ex = x.args
            if ex.is_Integer and ex > 0 and (base.has(Sum) or self.rvs(base)):
                if ex > self.limits.max_power:
                    raise KernelLimit(f"power {ex} of a sum or random expression exceeds the limit {self.limits.max_power}")
                bt = self.terms(base)
                acc = bt
                for _ in range(int(ex) - 1):
                    acc = self.mul(acc, bt)
                if base.has(Sum) and len(bt) > 1 or any(t.bounds for t in bt):
                    self.trace.rules.add("sums")
                return acc
            return [Term(Pow(self.opaque(base), self.opaque(ex)))]
        if isinstance(x, Sum):
            return self.lift_sum(x)
        if isinstance(x, E):
            return self.expect(x.args[0])
        if isinstance(x, Var):
            self.trace.rules.add("def Var")
            a = x.args[0]
            return self.terms(E(a**2) - E(a) ** 2)
        if isinstance(x, Cov):
            self.trace.rules.add("def Cov")
            a, b = x.args
            return self.terms(E(a * b) - E(a) * E(b))
        if isinstance(x, SD):
            self.trace.rules.add("def SD")
            return [Term(sympy.sqrt(self.expr(Var(x.args[0]))))]
        if isinstance(x, KroneckerDelta):
            return [Term(x)]
        if isinstance(x, Derivative):
            self.trace.rules.add("calculus")
            if self.rvs(x.expr):
                raise KernelLimit("derivatives of random expressions are not supported")
            if x.expr.has(FamilyExtremum):
                raise KernelLimit("derivatives of max or min over a family are not supported")
            return self.terms(sympy.diff(x.expr, *x.variables))
        if isinstance(x, Limit):
            self.trace.rules.add("calculus")
            f, var, pt, side = x.args
            body = self.expr(f)
            # gaps: u - v of facts u > v; a member fact (sympy Tuple: template, index, range, declared index) also
            # holds at the link's own free index of that name (the same declared range)
            member = tuple(g for g in self.gaps if isinstance(g, Tuple) and var not in g.args[0].free_symbols)
            plain = [g for g in self.gaps if not isinstance(g, Tuple)] + [
                g.args[0].xreplace({g.args[1]: g.args[4]}) for g in member if g.args[4] in body.free_symbols]
            gaps = tuple(g for g in plain if g.free_symbols & body.free_symbols and var not in g.free_symbols)
            value = limits.take_limit(body, var, self.expr(pt), str(side), gaps, self.trace.signs, member, self.domain)
            # a limit through a sum leaves sums of limits: one of a constant is counted with the members it leaves
            # out (Σ_{m ≠ i} 1 = n - 1), never as the rest of the known members here (sum_atom's count)
            return [Term(recount(value, self.not_reversed, self.trace.rules.add) if value.has(DSum) else value)]
        if isinstance(x, Extremum):
            self.trace.rules.add("calculus")
            f, var, a, b, kind = x.args
            return [Term(calculus.extremum(self.expr(f), var, self.expr(a), self.expr(b), str(kind)))]
        if isinstance(x, Product):
            raise KernelLimit("products over an index (prod) are not supported by the kernel yet")
        # any other function: normalise its arguments
        if self.rvs(x):
            return [Term(x)]
        y = x.func(*[self.opaque(a) for a in x.args])
        return [Term(elementary(y))]

    def _check_size(self, ts):
        if len(ts) > self.limits.max_terms:
            raise KernelLimit(f"expansion has more than {self.limits.max_terms} terms")

    def mul(self, A: list[Term], B: list[Term]) -> list[Term]:
        out = []
        for t1 in A:
            for t2 in B:
                out.extend(self._mul2(t1, t2))
                if len(out) > self.limits.max_terms:
                    raise KernelLimit(f"expansion has more than {self.limits.max_terms} terms")
        return out

    def _mul2(self, t1: Term, t2: Term) -> list[Term]:
        if not t2.bounds:
            return [Term(t1.coeff * t2.coeff, t1.bounds)]
        # rename t2's bounds apart (deterministically, so memoised work is found again),
        # then split each against t1's bounds of its range
        avoid = t1.coeff.free_symbols | {b for (b, _, _) in t1.bounds} | self._context_symbols()
        taken = avoid | t2.coeff.free_symbols | {b for (b, _, _) in t2.bounds}
        ren = {}
        for (b, _, _) in t2.bounds:
            if b in avoid:
                ren[b] = _fresh(b.name, taken)
                taken.add(ren[b])
        c2 = t2.coeff.xreplace(ren) if ren else t2.coeff
        b2 = [(ren.get(b, b), lo, hi) for (b, lo, hi) in t2.bounds]
        results = []

        def rec(k, used, kept, sub):
            if k == len(b2):
                coeff = t1.coeff * c2.xreplace(sub) if sub else t1.coeff * c2
                results.append(Term(coeff, t1.bounds + tuple(kept)))
                return
            b, lo, hi = b2[k]
            for (a, l, h) in t1.bounds:
                if (l, h) == (lo, hi) and a not in used:
                    self.trace.rules.add("sums")
                    rec(k + 1, used | {a}, kept, {**sub, b: a})
            rec(k + 1, used, kept + [(b, lo, hi)], sub)

        rec(0, frozenset(), [], {})
        return results

    def _sift(self, body, i, lo, hi):
        """Σ_i δ(c, i) f(i) = f(c) when c is known to lie in lo..hi, 0 when known outside (c free of i);
        the terms of the body without such a delta are summed as usual.  None: nothing to sift."""
        sifted, rest, hit = [], [], False
        for term in Add.make_args(body):
            d = next((f for f in Mul.make_args(term) if isinstance(f, KroneckerDelta) and i in f.args
                      and not (set(f.args) - {i}) & {i} and len(set(f.args)) == 2
                      and not [a for a in f.args if a != i][0].has(i)), None)
            if d is None:
                rest.append(term)
                continue
            c = [a for a in d.args if a != i][0]
            if c.is_Integer:
                inside = sympy.Ge(c, lo) == sympy.true and (sympy.Le(c, hi) == sympy.true or (c, (lo, hi)) in self.present)
            elif c in self.free:  # a free index's declared range, used only where the proof may use it
                inside = c in self.range_ok and self.index_range(c) == (lo, hi)
                if inside:
                    self.trace.ranges.add(c)
            else:
                inside = self._bound_range(c, self.enclosing) == (lo, hi)
            outside = c.is_Integer and (sympy.Lt(c, lo) == sympy.true or sympy.Gt(c, hi) == sympy.true)
            if inside:
                sifted.append(term.xreplace({i: c}))
                hit = True
            elif outside:
                hit = True
            else:
                rest.append(term)
        if not hit:
            return None
        self.trace.rules.add("sums")
        out = self.terms(Add(*sifted)) if sifted else []
        if rest:
            out += self.lift_sum(Sum(Add(*rest), (i, lo, hi)))
        return out

    def _context_symbols(self) -> set:
        """Symbols a new bound index must differ from: the link's free indices and enclosing bounds."""
        return set(self.free) | {b for (b, _, _) in self.enclosing}

    def lift_sum(self, s: Sum) -> list[Term]:
        body = s.function
        limits = list(s.limits)
        if len(limits) > 1:
            inner = Sum(body, *limits[:-1])
            i, lo, hi = limits[-1]
            body = inner
        else:
            i, lo, hi = limits[0]
        if (lo.free_symbols | hi.free_symbols) & {b for b, _, _ in self.enclosing}:
            # a triangular sum (Σ_a Σ_{b<=a}): rectangular bounds would lose the inner range's dependence on the
            # outer index, except in a count, Σ_{b=1..a} c = a c, where no member a reverses the range (a >= 1)
            size, ds = hi - lo + 1, [Dummy("d", integer=True, nonnegative=True) for _ in self.enclosing]
            if not body.has(i) and any(self.not_reversed(sympy.expand(size.xreplace(
                    {b: (blo, bhi)[sgn < 0] + sgn * d for (b, blo, bhi), d in zip(self.enclosing, ds)})))
                    for sgn in (1, -1)):  # one d per enclosing index: each ranges over its own members
                self.trace.rules.add("sums")
                return self.terms(size * body)
            raise KernelLimit("a sum whose range depends on an enclosing summation index is not supported yet")
        sifted = self._sift(body, i, lo, hi)
        if sifted is not None:
            return sifted
        # small concrete sums are unrolled: their indices are literals
        if lo.is_Integer and hi.is_Integer:
            n = int(hi) - int(lo) + 1
            if n <= 0:
                return [Term(Integer(0))]
            if self.unroll < n <= UNROLL:
                self.trace.kept = True
            if n <= self.unroll:
                out = []
                for v in range(int(lo), int(hi) + 1):
                    out.extend(self.terms(body.xreplace({i: Integer(v)})))
                self.trace.rules.add("sums")
                return out
        out = []
        # cases: the bound equals one of the known indices of its range ...
        for f in self.known(lo, hi):
            if f in self.free:
                self.trace.ranges.add(f)
            out.extend(self.terms(body.xreplace({i: f})))
        if out:
            self.trace.rules.add("sums")
        # ... or differs from all of them
        b = _fresh(i.name, body.free_symbols | self._context_symbols())
        self.enclosing.append((b, lo, hi))
        try:
            inner = self.terms(body.xreplace({i: b}))
        finally:
            self.enclosing.pop()
        for t in inner:
            out.append(Term(t.coeff, ((b, lo, hi),) + t.bounds))
        self._check_size(out)
        return out

    # ------------------------------------------------------------ expectation
    def expect(self, arg) -> list[Term]:
        for pw in arg.atoms(Pow):
            if pw.exp.is_Integer and pw.exp > self.limits.max_power and isinstance(pw.base, Add) and self.rvs(pw.base):
                raise KernelLimit(f"power {pw.exp} of a random sum exceeds the limit {self.limits.max_power}")
        ts = self.terms(arg)
        out = []
        nmon = 0
        for t in ts:
            c = _expand(t.coeff)
            if self.surely:  # equations between random variables, on each monomial of the expansion
                c, used = apply_surely(c, self.surely, self.decls)
                if used:
                    self.trace.rules.add("facts")
            for mono in Add.make_args(c):
                nmon += 1
                det, rand = [], []
                for f in Mul.make_args(mono):
                    (rand if self.rvs(f) else det).append(f)
                d = Mul(*det)
                if not rand:
                    if d != 0:
                        self.trace.rules.add("linearity")  # E[c] = c
                    out.append(Term(d, t.bounds))
                    continue
                if det and d != 1:
                    self.trace.rules.add("linearity")
                out.append(Term(d * self.factorize(rand, t.bounds), t.bounds))
        if nmon > 1:
            self.trace.rules.add("linearity")
        self._check_size(out)
        return out

    def expr(self, x) -> sympy.Expr:
        """Normalise ``x`` to a canonical sympy expression.

        Equation facts are applied by ``reducer`` (set by the prover) when
        present, so facts reach inside sqrt(...) and other functions too.
        """
        ts = self.terms(x)
        if self.reducer is not None:
            return self.reducer(self, ts)
        return self.collect(ts)

    def opaque(self, x) -> sympy.Expr:
        """Normalise an argument of a non-polynomial function (a denominator, sqrt, exp).

        Sums inside are not split against the bound indices of enclosing sums:
        the function's value is one number, so a sum such as the softmax
        denominator Σ_m exp(s_m) must keep the same form for every value of
        the enclosing index (then Σ_i exp(s_i) / Σ_m exp(s_m) = 1 is seen).
        Not splitting is always sound; it only changes the representation.
        """
        saved = self.enclosing
        self.enclosing = []
        try:
            return self.expr(x)
        finally:
            self.enclosing = saved

    def resolve_deltas(self, coeff, bounds):
        ds = coeff.atoms(KroneckerDelta)
        if not ds:
            return coeff
        sub = {}
        for d in ds:
            a, b = d.args
            r = self.distinct(a, b, bounds)
            if r is True:
                sub[d] = Integer(0)
            elif r is False:
                sub[d] = Integer(1)
        if sub:
            self.trace.rules.add("sums")
            return coeff.xreplace(sub)
        return coeff

    def collect(self, ts: list[Term]) -> sympy.Expr:
        out = []
        for t in ts:
            self.deadline.check()
            c = self.resolve_deltas(t.coeff, t.bounds)
            if not t.bounds:
                out.append(c)
                continue
            for mono in Add.make_args(_expand(c)):
                out.append(self.sum_atom(mono, t.bounds))
        return _expand(Add(*out))

    def sum_atom(self, mono, bounds) -> sympy.Expr:
        """Σ over distinct ``bounds`` of a monomial, as count × DSum(...) (memoised)."""
        if mono == 0:
            return Integer(0)
        key = (mono, bounds, self.free, self.range_ok, tuple(self.enclosing), self.present, self.unroll)
        got = self.sum_cache.get(key)
        if got is None:
            rules, kept, ranges = self.trace.rules, self.trace.kept, self.trace.ranges
            self.trace.rules, self.trace.kept, self.trace.ranges = set(), False, set()
            try:
                got = (self._sum_atom(mono, bounds), frozenset(self.trace.rules), self.trace.kept,
                       frozenset(self.trace.ranges))
            finally:
                self.trace.rules, self.trace.kept, self.trace.ranges = rules, kept, ranges
            self.sum_cache[key] = got
        self.trace.rules |= got[1]
        self.trace.kept = self.trace.kept or got[2]
        self.trace.ranges |= got[3]
        return got[0]

    def not_reversed(self, size) -> bool:
        """``size >= 0`` (a range lo..hi with size = hi - lo + 1 is not reversed), by the declarations or by the
        declared lower ends of the free indices in it whose range is usable (``sum(t=1..i, 1)`` for i in
        1..n: i >= 1), those recorded as used."""
        if size.is_nonnegative:
            return True
        sub = {}
        for s in size.free_symbols & set(self.free) & self.range_ok:
            rng = self.index_range(s)
            if rng is not None and rng[0].is_Integer:
                sub[s] = rng[0] + Dummy(s.name, integer=True, nonnegative=True)
        if sub and size.xreplace(sub).is_nonnegative:
            self.trace.ranges |= set(sub)
            return True
        return False

    def _sum_atom(self, mono, bounds) -> sympy.Expr:
        if mono == 0:
            return Integer(0)
        syms = mono.free_symbols
        keep = [bd for bd in bounds if bd[0] in syms]
        coeff = Integer(1)
        # collapse the bounds the summand does not mention
        remaining = list(bounds)
        for bd in bounds:
            if bd[0] in syms:
                continue
            b, lo, hi = bd
            if not self.not_reversed(hi - lo + 1):
                raise KernelLimit(f"the range {lo}..{hi} may be reversed ({hi} < {lo - 1}): declare its bound a positive "
                                  "integer, or an index whose range starts high enough")
            others = [x for x in remaining if x is not bd]
            n_known = len(self.known(lo, hi, tuple(o for o in others)))
            coeff *= (hi - lo + 1) - n_known
            remaining = others
            self.trace.rules.add("sums")
        if not keep:
            return coeff * mono
        inside, outside = [], []
        bsyms = {bd[0] for bd in keep}
        for f in Mul.make_args(mono):
            if isinstance(f, sympy.exp) and isinstance(f.args[0], Add):
                # exp(s_b - c) = exp(s_b) exp(-c): the constant factor leaves the sum
                dep = [a for a in f.args[0].args if a.free_symbols & bsyms]
                indep = [a for a in f.args[0].args if not (a.free_symbols & bsyms)]
                if dep and indep:
                    inside.append(sympy.exp(Add(*dep)))
                    outside.append(sympy.exp(Add(*indep)))
                    continue
            (inside if f.free_symbols & bsyms else outside).append(f)
        summand = Mul(*inside)
        coeff *= Mul(*outside)
        ranges = {(lo, hi) for (_, lo, hi) in keep}
        excl = sorted({f for (lo, hi) in ranges for f in self.known(lo, hi)}, key=sympy.default_sort_key)
        closed = power_sum(summand, keep, excl, self.not_reversed)
        if closed is not None:
            self.trace.rules.add("sums")
            return coeff * closed
        s, bt = _canonical(summand, tuple(keep))
        return coeff * DSum(s, bt, Tuple(*excl))


@memo
@lru_cache(maxsize=8192)
def _canonical(summand, keep: tuple) -> tuple:
    """The summand with its bound indices ``keep`` renamed canonically, and the renamed bounds (a pure
    function of its arguments: memoised across index worlds and attempts).

    The bound indices get canonical names past every canonical name already in the summand (a nested
    sum's own), so that no bound index ever shadows another and substitution (xreplace) can never
    capture one; among the orders of :func:`_orders`, the least ``srepr`` is chosen."""
    inner = [int(x.name[2:]) for x in summand.atoms(Symbol) if is_canon_bound(x) and x.name[2:].isdigit()]
    first = max(inner, default=0)
    best = None
    perms = _orders(summand, list(keep))
    for perm in perms:
        ren = {bd[0]: canon_bound(first + k + 1) for k, bd in enumerate(perm)}
        s = summand.xreplace(ren)
        bt = Tuple(*[Tuple(ren[b], lo, hi) for (b, lo, hi) in perm])
        if len(perms) == 1:
            return s, bt
        key = sympy.srepr(s) + sympy.srepr(bt)
        if best is None or key < best[0]:
            best = (key, s, bt)
    return best[1], best[2]


_MARK = (Symbol("_bound_other", integer=True), Symbol("_bound_this", integer=True))


def _orders(summand, keep) -> list:
    """The orders of the bound indices among which the canonical one is chosen (the least ``srepr``).

    Each bound gets a signature that no renaming of the bound indices changes: the summand with that
    index marked and every other bound index given one common mark, and its range.  Bounds are sorted
    by signature and only bounds with equal signatures are permuted among themselves, so the choice
    stays canonical (it depends on the summand up to renaming) while 4 bounds cost 4 substitutions,
    not 24 orders, unless their roles in the summand are alike.
    """
    if len(keep) <= 2:
        return list(itertools.permutations(keep))  # as cheap as the signatures
    others = {bd[0]: _MARK[0] for bd in keep}
    sig = {bd: sympy.srepr(summand.xreplace({**others, bd[0]: _MARK[1]})) + sympy.srepr(Tuple(bd[1], bd[2]))
           for bd in keep}
    ranked = sorted(keep, key=lambda bd: sig[bd])
    groups = [list(g) for _, g in itertools.groupby(ranked, key=lambda bd: sig[bd])]
    if math.prod(math.factorial(len(g)) for g in groups) > 24:
        return [tuple(ranked)]  # many alike bounds: one order (a missed identity at worst, never a false one)
    out = [()]
    for g in groups:
        out = [o + p for o in out for p in itertools.permutations(g)]
    return out


def _fresh(name: str, taken) -> Dummy:
    """The first bound index ``Dummy(name, dummy_index=k)`` not in ``taken``.

    Deterministic (the same expression gets the same bound names in every
    attempt, so the prover's caches are hit) and fresh where it is used
    (``taken`` holds every symbol of the context).  Automatic Dummy indices
    start near 10**6, far from these small ones; ``taken`` decides anyway.
    """
    k = 1
    while True:
        d = Dummy(name, integer=True, dummy_index=k)
        if d not in taken:
            return d
        k += 1
