"""Concrete witnesses for a deterministic residual the kernel could not prove 0.

When the kernel's residual contains no random quantity, small concrete values
of its symbols (dimensions, reals, indexed reals) are tried; a witness is a
value assignment at which the cited facts hold exactly and the residual's
sign is proved to violate the relation (:func:`..exact.sign`).  The judge
re-evaluates every witness found here on the *original* link before it
reports ``fails``.  This module reads the kernel's declarations and facts but
never calls the prover.
"""
from __future__ import annotations

import itertools

import sympy
from sympy import Indexed, Integer, Rational, Symbol

from ..kernel.normal import _expand
from ..kernel.prove import number_bound
from ..kernel.real_roots import MAX_DEGREE, huge_coefficients
from ..kernel.reduce import Inconsistent
from ..terms.facts import Decls, EqFact, IneqFact, KernelLimit
from ..terms.objects import SD, Cov, DSum, E, Var, as_expr, is_canon_bound
from .exact import sign, violates


class WitnessSearch:
    def __init__(self, decls: Decls, facts):
        """``facts``: label -> list of kernel facts (the prover's table)."""
        self.decls = decls
        self.facts = facts

    def search(self, res, case, candidates, rel: str = "="):
        """(text or None, value, assignment, pattern) of a witness refuting ``residual REL 0``, or None.

        ``text`` is None when the residual is itself a number (no assignment
        is needed); ``assignment``: Symbol -> number; ``pattern``: the values
        given to indexed reals (0: ``x_m = m - 1``; 1: ``x_m = 1 if m = 1 else
        0``; None: none needed).  The judge re-checks it on the original link.
        """
        random = res.has(E) or any(self.decls.is_rv(x) for x in res.atoms(Indexed) | res.free_symbols)
        if random or res.has(sympy.Sum):
            return None

        def violated(v) -> bool:
            return violates(v, rel)

        if res.has(DSum) or res.atoms(Indexed):
            return self._concrete_witness(res, case, candidates, violated)
        if res.is_number:
            return (None, res, {}, None) if violated(res) else None
        syms = sorted(res.free_symbols, key=lambda s: (s in self.decls.index_ranges, s.name))
        kinks = [a.args[0] for a in res.atoms(sympy.sign, sympy.Heaviside, sympy.DiracDelta)]
        if 0 < len(syms) <= 3:
            for sub in self._trial_assignments(syms, candidates):
                try:
                    v = res.xreplace(sub)
                    if any(u.xreplace(sub).is_zero for u in kinks):
                        continue  # sign(0), Heaviside(0): sympy's conventions where a derivative does not exist
                except (ZeroDivisionError, ValueError):
                    continue
                if violated(v) and self._consistent_at(candidates, sub):
                    return ", ".join(f"{s} = {x}" for s, x in sub.items()), v, dict(sub), None
            for sub in _critical_assignments(res, syms, self.decls):
                v = res.xreplace(sub)
                v = v if v.is_Rational else sympy.expand(v)  # at a radical: 0, not its unexpanded powers
                if violated(v) and self._consistent_at(candidates, sub):
                    return ", ".join(f"{s} = {x}" for s, x in sub.items()), v, dict(sub), None
        return None

    def _concrete_witness(self, res, case, candidates, violated):
        """Try small concrete values for a deterministic residual with sums and indexed reals.

        Every sum is unrolled exactly; the value's sign is proved (``exact.sign``).
        """
        labels = {ix.base.label for ix in res.atoms(Indexed)}
        plain = {s for s in res.free_symbols if isinstance(s, Symbol) and s not in labels and not is_canon_bound(s)}
        dims = {s for s in plain if s.is_integer and s.is_positive and s not in case}
        for lab in candidates:  # a dimension a side condition ties to these (n ≥ d): it is given a size too
            for f in self.facts.get(lab, ()):
                if isinstance(f, IneqFact) and (f.lhs - f.rhs).free_symbols & dims:
                    dims |= {s for s in (f.lhs - f.rhs).free_symbols if isinstance(s, Symbol) and s.is_integer
                             and s.is_positive and s not in case and s not in self.decls.index_ranges}
        dims = sorted(dims, key=lambda s: s.name)
        reals = sorted({s for s in plain if s not in case and s not in dims and not s.is_integer},
                       key=lambda s: s.name)
        if any(s.is_integer and s not in case and s not in dims for s in plain):
            return None
        if len(dims) > 2 or len(reals) > 2:
            return None
        facts = [f for lab in candidates for f in self.facts[lab] if isinstance(f, EqFact)]
        for f in facts:
            body = f.lhs - f.rhs
            if body.has(E, Var, Cov, SD) and (body.free_symbols & set(dims + reals)):
                return None  # a moment fact might constrain these symbols: no claim
        rel_syms = set(dims) | set(reals) | labels
        det_facts = [f for f in facts if not (f.lhs - f.rhs).has(E, Var, Cov, SD)
                     and ((f.lhs - f.rhs).free_symbols & rel_syms)]
        ineq_facts = [f for lab in candidates for f in self.facts[lab] if isinstance(f, IneqFact)
                      and ((f.lhs - f.rhs).free_symbols & rel_syms)]
        k = len(case)
        entries = {str(ix.base.label) for ix in res.atoms(Indexed) if len(ix.indices) > 1}
        # the dimensions all equal, then (two of them) one past the other: sums over 1..n and 1..d differ there
        sizes = [{d: Integer(nval) for d in dims} for nval in range(max(k, 1), max(k, 1) + 3)]
        if len(dims) == 2:
            sizes += [{dims[0]: Integer(a), dims[1]: Integer(b)} for a, b in ((1, 2), (2, 1), (2, 3), (3, 2))
                      if min(a, b) >= max(k, 1)]
        for size in sizes:
            # one real: every trial value; two: the first three of each (nine pairs)
            for rvals in itertools.product(*[_trial_values(r)[:None if len(reals) == 1 else 3] for r in reals]):
                # m - 1, one-hot, scrambled, all equal (0, then 1: |Σ g_t f_t| <= sqrt(h) under |g_t| <= 1 fails
                # at all 1); for matrices a second scrambling (4), as one entry of the first may be 0 where the
                # claim differs
                for pattern in (0, 1, 2, 3, 5) + ((4,) if entries else ()):
                    sub = dict(size)
                    sub.update({c: Integer(t + 1) for t, c in enumerate(case)})
                    sub.update(dict(zip(reals, rvals)))
                    try:
                        if not all(self._fact_holds_at(f, sub, pattern) for f in det_facts):
                            continue  # the trial values violate a cited fact
                        if not all(self._fact_holds_at(f, sub, pattern) for f in ineq_facts):
                            continue
                        seen = {}
                        v = _unroll(res.xreplace(sub), pattern, seen)
                    except (KernelLimit, ValueError, TypeError, ZeroDivisionError):
                        continue
                    if v is None:
                        continue
                    if violated(v):
                        parts = [f"{s} = {x}" for s, x in sub.items()]
                        fams = sorted({str(ix.base.label) for ix in res.atoms(Indexed)})
                        if pattern in (2, 4):  # the entries read, as they are (a matrix claim needs them all)
                            parts += [f"{n}_{{{', '.join(map(str, ix))}}} = {seen[n, ix]}" for n, ix in sorted(seen)]
                        taken = set(self.decls.order) | {str(s) for s in res.free_symbols} | set(map(str, sub))
                        m = next(n for n in ("m", "k", "r", "u", "w", "ι") if n not in taken)  # not a declared name
                        for fam in fams if pattern not in (2, 4) else ():
                            parts.append(f"every entry of {fam} = 0" if fam in entries else f"{fam}_{m} = "
                                         + {0: f"{m} - 1", 1: f"1 for {m} = 1, else 0", 3: "0", 5: "1"}[pattern])
                        return ", ".join(parts), sympy.N(v, 6), dict(sub), pattern
        return None

    def _fact_holds_at(self, f, sub, pattern) -> bool:
        """Does a deterministic fact (an equation or an inequality) hold at concrete values, at every instance of
        its indices (``|g_t| <= 1`` for each t of 1..h)?  Unknown counts as no."""
        body = at_values(f.lhs - f.rhs, sub)
        choices = []
        for p in f.free:
            lo, hi = self.decls.index_ranges[p]
            lo, hi = _as_expr(lo).xreplace(sub), _as_expr(hi).xreplace(sub)
            if not (lo.is_Integer and hi.is_Integer) or hi - lo > 8:
                raise KernelLimit("fact range not concrete")
            choices.append(range(int(lo), int(hi) + 1))
        for combo in itertools.product(*choices):
            asg = {p: Integer(v) for p, v in zip(f.free, combo)}
            if any(asg[a] == asg[b] for (a, b) in f.distinct if a in asg and b in asg):
                continue
            inst = body.xreplace(asg)
            if inst.has(sympy.Sum, sympy.Product):  # the language's empty ranges, never sympy's Karr reversal
                from ..models.ranges import RangeLimit, evaluate

                try:
                    inst = evaluate(inst, 10_000)
                except RangeLimit as e:
                    raise KernelLimit(str(e)) from None
            v = _unroll(inst, pattern)
            if not v.is_number or v.has(sympy.zoo, sympy.nan) or (sv := sign(v)) is None:
                return False
            if not {"=": sv == 0, "<": sv < 0, "<=": sv <= 0, ">": sv > 0, ">=": sv >= 0,
                    "!=": sv != 0}.get(getattr(f, "rel", "="), False):
                return False
        return True

    def _trial_assignments(self, syms, candidates=()):
        """Small admissible values: indices inside their declared (concrete) ranges; a real of no sign also
        takes the values 1/2 either side of each number an assumed bound among ``candidates`` puts on it
        (``b > -2``: -5/2 and -3/2), after the usual ones, so that earlier witnesses are found first."""
        near: dict = {}
        for lab in candidates:
            for f in self.facts[lab]:
                got = number_bound(f)
                if got is not None:
                    near.setdefault(got[0], []).extend((got[1] - Rational(1, 2), got[1] + Rational(1, 2)))
        def rec(k, sub):
            if k == len(syms):
                yield dict(sub)
                return
            s = syms[k]
            if s in self.decls.index_ranges:
                lo, hi = (_as_expr(v).xreplace(sub) for v in self.decls.index_ranges[s])
                if not (lo.is_Integer and hi.is_Integer):
                    return
                vals = [Integer(v) for v in range(int(lo), min(int(hi), int(lo) + 3) + 1)]
            else:
                vals = _trial_values(s)
                vals = vals + [v for v in dict.fromkeys(near.get(s, ())) if v not in vals and not s.is_integer
                               and s.is_nonnegative is None and s.is_nonpositive is None]
            for v in vals:
                sub[s] = v
                yield from rec(k + 1, sub)
            sub.pop(s, None)

        yield from rec(0, {})

    def _consistent_at(self, candidates, sub) -> bool:
        polys = []
        for lab in candidates:
            for f in self.facts[lab]:
                if isinstance(f, IneqFact):
                    if not _ineq_holds_at(f, sub):
                        return False
                    continue
                if isinstance(f, EqFact) and not f.free:
                    try:
                        polys.append(_expand(at_values(f.lhs - f.rhs, sub)))
                    except Exception:
                        return False
        from ..kernel.reduce import basis_of
        try:
            basis_of(polys)
        except Inconsistent:
            return False
        return True


def at_values(x, sub):
    """``x`` at concrete values: derivatives are taken first (``∂(x² y)/∂y`` at x = 1 is 1, not ∂y/∂1)."""
    if x.has(sympy.Derivative):
        x = x.replace(lambda e: isinstance(e, sympy.Derivative), lambda e: e.doit())
    return x.xreplace(sub)


def _ineq_holds_at(f: IneqFact, sub) -> bool:
    """Whether an inequality fact (without free indices) holds at concrete values; unknown counts as no."""
    if f.free:
        return False
    v = at_values(_as_expr(f.lhs) - _as_expr(f.rhs), sub)
    if not v.is_number or v.has(sympy.zoo, sympy.nan):
        return False
    s = sign(v)
    if s is None:
        return False
    return {"<": s < 0, "<=": s <= 0, ">": s > 0, ">=": s >= 0, "!=": s != 0}.get(f.rel, False)


_as_expr = as_expr




def _unroll(x, pattern: int, seen: dict | None = None):
    """Evaluate DSums with concrete bounds; indexed reals get pattern values (2: scrambled, recorded in
    ``seen``: (name, indices) -> value).

    Bound indices are scoped: a sum nested in another one may reuse its bound
    name (canonical names ``b1``, ``b2``, ... restart in every opaque
    argument), and the inner sum's index shadows the outer one -- never
    substituted by it.
    """
    def val(m):
        if not m.is_Integer:
            raise ValueError("symbolic index")
        return Integer({0: int(m) - 1, 1: int(int(m) == 1), 3: 0, 5: 1}[pattern])

    def rec(e, env):
        if isinstance(e, DSum):
            summand, bounds, excl = e.args
            ranges = []
            for (b, lo, hi) in bounds:
                lo, hi = rec(lo, env), rec(hi, env)
                if not (lo.is_Integer and hi.is_Integer):
                    raise ValueError("symbolic bound")
                ranges.append((b, int(lo), int(hi)))
            if any(h - l > 8 for _, l, h in ranges):
                raise KernelLimit("too large to unroll")
            ex = set()
            for v in excl:
                v = rec(v, env)
                if not v.is_Integer:
                    raise ValueError("symbolic exclusion")
                ex.add(int(v))
            total = Integer(0)
            for combo in itertools.product(*[range(lo, hi + 1) for _, lo, hi in ranges]):
                if len(set(combo)) < len(combo) or set(combo) & ex:
                    continue
                inner = {**env, **{b: Integer(v) for (b, _, _), v in zip(ranges, combo)}}
                total += rec(summand, inner)
            return total
        if isinstance(e, Symbol):
            return env.get(e, e)
        if isinstance(e, Indexed):
            if pattern in (2, 4):  # scrambled; 4: shifted by one (the re-check's own formula, recheck._ground)
                idx = tuple(rec(i, env) for i in e.indices)
                if not all(i.is_Integer for i in idx):
                    raise ValueError("symbolic index")
                name = e.base.label.name
                v = (sum(map(ord, name)) + sum((2 * t + 3) * int(i) ** 2 for t, i in enumerate(idx))
                     + (pattern == 4)) % 7 - 3
                if seen is not None:
                    seen[name, tuple(int(i) for i in idx)] = v
                return Integer(v)
            if len(e.indices) != 1:  # a matrix entry: the scrambled pattern or all 0, which the re-check reads too
                if pattern != 3 or not all(rec(i, env).is_Integer for i in e.indices):
                    raise ValueError("an entry of a matrix under a pattern of one index")
                return Integer(0)
            return val(rec(e.indices[0], env))
        if not e.args:
            return e
        return e.func(*[rec(a, env) for a in e.args])

    return rec(x, {})


def _trial_values(s: Symbol):
    if s.is_integer:
        if s.is_positive:
            return [Integer(v) for v in (1, 2, 3, 4)]
        if s.is_nonnegative:
            return [Integer(v) for v in (0, 1, 2, 3)]
        return [Integer(v) for v in (0, 1, -1, 2)]
    if s.is_positive:
        return [Integer(1), Integer(2), sympy.Rational(1, 2), Integer(3)]
    if s.is_nonnegative:
        return [Integer(0), Integer(1), Integer(2)]
    # -1/2 last: a bound such as `b > -1` leaves no other negative value among the first ones
    return [Integer(0), Integer(1), Integer(-1), Integer(2), sympy.Rational(-1, 2)]


def _critical_assignments(res, syms, decls: Decls):
    """Rational points in each interval between the real roots of a polynomial residual in one or two reals
    (in one of them, the other at its first trial values), simple ones first, and its rational roots: the
    residual has one sign in each such interval, so a violated sign shows there (``x^3 - 3 x + 2`` left of
    its root -2, ``x^4 + 1 - 2 x^3`` between 1 and 1.7).  The judge re-checks any witness."""
    reals = [s for s in syms if s not in decls.index_ranges]
    if not 1 <= len(reals) <= 2 or len(reals) != len(syms):
        return
    for s in reals:
        others = [o for o in reals if o != s]
        for vals in itertools.product(*[_trial_values(o)[:3] for o in others]):
            sub = dict(zip(others, vals))
            got = _roots_and_factors(res.xreplace(sub), s)
            if got is None:
                continue
            ends, factors = got
            if s.is_integer:  # `let m: integer`: the integers around each root (m^2 > m fails at 0 and 1)
                points = [sympy.floor(e) + k for e in ends for k in (-1, 0, 1, 2)]
                for x in dict.fromkeys(points):
                    if not ((s.is_positive and x <= 0) or (s.is_nonnegative and x < 0)):
                        yield {**sub, s: Integer(x)}
                continue
            points = [f.nth(0) / -f.nth(1) for f in factors if f.degree() == 1 and f.domain.is_QQ]
            gaps = [(None, ends[0])] + list(zip(ends, ends[1:])) + [(ends[-1], None)]
            for lo, hi in gaps:
                points += _simple_between(lo, hi)
            for x in dict.fromkeys(points):
                if (s.is_positive and x <= 0) or (s.is_nonnegative and x < 0):
                    continue
                yield {**sub, s: Rational(x)}
            # last, the irrational roots of its factors of degree 1 or 2 (over QQ, or over the field of its
            # coefficients: x^2 - 2 sqrt(2) x + 2 is (x - sqrt(2))^2), as radicals: where a square touches 0 at
            # (1 ± 1/sqrt(2))/2, a strict claim fails there and at no rational point
            for f in factors:
                if f.degree() <= 2 and not (f.degree() == 1 and f.domain.is_QQ):
                    for x in sympy.roots(f.as_expr(), s, filter="R"):
                        if not x.is_Rational and not ((s.is_positive and x.is_nonpositive)
                                                      or (s.is_nonnegative and x.is_negative)):
                            yield {**sub, s: x}


MAX_RADICALS = 2  # square roots among a residual's coefficients read over the field they make
MAX_ALGEBRAIC_DEGREE = 8


def _roots_and_factors(expr, s):
    """(the real roots of a polynomial in ``s``, sorted, as rationals within 10^-40; its irreducible factors)
    over QQ, or over the field of its coefficients (``4 sqrt(2)``: roots to 30 digits, each witness re-checked
    exactly); None for no polynomial of degree 2 to MAX_DEGREE, no real root, or coefficients too large."""
    errors = (sympy.PolynomialError, sympy.polys.polyerrors.CoercionFailed, NotImplementedError, ValueError)
    if any(x.exp.is_negative for x in expr.atoms(sympy.Pow) if x.has(s)):
        # a rational function (y^2 + 4/y^2 - 4): numerator times denominator changes sign where it does
        num, den = sympy.fraction(sympy.together(expr))
        expr = sympy.expand(num * den)
    try:
        p = sympy.Poly(expr, s, domain=sympy.QQ)
    except errors:
        if len({x for x in expr.atoms(sympy.Pow) if x.is_number and not x.is_Rational}) > MAX_RADICALS:
            return None  # a field of many square roots: its primitive element's degree (2^k) makes factoring slow
        try:
            p = sympy.Poly(expr, s, extension=True)
        except errors:
            return None
        if not p.domain.is_AlgebraicField or p.degree() > MAX_ALGEBRAIC_DEGREE:
            return None
    if not 2 <= p.degree() <= MAX_DEGREE or (p.domain.is_QQ and huge_coefficients(p)):
        return None  # (root isolation is exact: huge coefficients make it slow)
    try:
        if p.domain.is_QQ:  # the real roots to 40 digits: roots 10^-9 apart still have a gap between
            ends = sorted(Rational(r.evalf(40)) for r in p.sqf_part().real_roots())
        else:
            try:  # (numerical: a double root may not converge; then no points from this polynomial)
                approx = p.sqf_part().nroots(n=30, maxsteps=200)
            except Exception:  # noqa: BLE001 - mpmath's NoConvergence and the like
                return None
            ends = sorted({Rational(sympy.re(r)) for r in approx if abs(sympy.im(r)) < 1e-20})
        factors = [f for f, _ in p.factor_list()[1]]
    except errors:
        return None
    return (ends, factors) if ends else None


def _simple_between(lo, hi) -> list:
    """The rational of least denominator strictly between ``lo`` and ``hi`` (None: unbounded; lo < hi)."""
    if lo is None:
        return [sympy.floor(hi) - 1]
    return [_simplest(Rational(lo), None if hi is None else Rational(hi))]


def _simplest(x, y, depth: int = 0):
    """The rational of least denominator in the open interval (x, y), y None for no upper end (continued
    fractions: an integer if one lies inside, else fl + 1/(the simplest in (1/(y - fl), 1/(x - fl))))."""
    n = sympy.floor(x) + 1
    if y is None or n < y or depth > 60:
        return Rational(n) if y is None or n < y else (x + y) / 2
    fl = sympy.floor(x)
    return fl + 1 / _simplest(1 / (y - fl), None if x == fl else 1 / (x - fl), depth + 1)
