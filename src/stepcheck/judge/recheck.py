"""Re-checking a counterexample before it is shown: a witness is a proof, or it is dropped.

A witness (a finite model from the model finder, or concrete values from the
residual search) refutes a link only if, on the *original* expressions,

* every fact the link may use holds exactly, and
* the two sides are proved to violate the relation.

This module decides both with code of its own: it grounds the expressions
(dimensions, parameters and indices replaced by numbers; sums, products and
derivatives expanded by sympy's own rules, empty ranges giving 0 and 1), then
computes expectations by enumerating the joint law of the model, in exact
sympy arithmetic, and decides every comparison with a proved sign
(:func:`.exact.sign`).  It shares nothing with ``stepcheck.models`` (the
search and its evaluator) nor with the kernel's normal forms.  Anything it
cannot evaluate exactly (a limit, an extremum over an interval, an opaque
symbol) makes the witness *unconfirmed*: the judge then reports ``unknown``,
never ``fails``.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache

import sympy
from sympy import Indexed, Integer, Rational, Symbol

from ..terms.facts import EqFact, IndepFact, IneqFact, SurelyFact
from ..terms.objects import SD, Cov, DSum, E, Extremum, FamilyExtremum, Var, as_expr
from ..terms.magnitude import EXACT_LIMIT, LIMIT, too_large
from ..terms.printer import show
from ..terms.probability import Prob
from ..terms.definitions import with_definitions
from .exact import sign

MAX_OUTCOMES = 20_000  # joint outcomes enumerated for one expectation
MAX_TERMS = 5_000  # terms of one unrolled sum or product


class Unconfirmed(Exception):
    """The witness cannot be evaluated exactly here: it confirms nothing."""


@dataclass(frozen=True)
class Point:
    """A concrete witness: numbers for dimensions and parameters, and a finite joint law.

    ``values``: Symbol -> number for dimensions, reals and free indices;
    ``indexed``: (family name, index) -> number for deterministic families;
    ``groups``: independent groups of jointly distributed random variables,
    each ``(keys, rows)`` with rows ``(values, probability)``; a key is a
    Symbol or ``(family name, index)``.
    """

    values: dict
    indexed: dict
    groups: tuple = ()
    # deterministic indexed reals without a value: 0 -> x_m = m - 1, 1 -> [m = 1],
    # 2 -> x_{i1, ..., ik} = (Σ ord(name) + Σ_t (2t + 3) i_t²) mod 7 - 3 (t from 0), 3 -> every x_m = 0
    pattern: int | None = None
    # declared laws of random variables the point has no finite law for: name (a variable, or a family's
    # base name) -> distributions.Dist; E of a polynomial in ONE such variable is taken from its moments
    laws: dict = field(default_factory=dict, hash=False, compare=False)


def _exact(v):
    if isinstance(v, Fraction):
        return Rational(v.numerator, v.denominator)
    if isinstance(v, int):
        return Integer(v)
    if isinstance(v, sympy.Basic):
        return v
    raise Unconfirmed(f"not an exact number: {v!r}")


def point_of_model(model, env: dict) -> Point:
    """A :class:`Point` from a ``stepcheck.models`` model (read as plain data) and its index assignment."""
    values = {s: Integer(int(v)) for s, v in model.dims.items()}
    indexed = {}
    for k, v in model.params.items():
        if isinstance(k, tuple):
            indexed[(str(k[0]), int(k[1]))] = _exact(v)
        else:
            values[k] = _exact(v)
    values.update({s: Integer(int(v)) for s, v in env.items()})
    groups = tuple((tuple(g.vars), tuple((tuple(_exact(x) for x in vals), _exact(p)) for vals, p in g.rows))
                   for g in model.groups)
    return Point(values, indexed, groups)


@lru_cache(maxsize=1024)
def _limit_at(body, var, pt, d: str):
    """sympy's limit of a grounded body at a concrete point, or why there is none (a str); memoised, since
    a chain's shared side is grounded to the same body at the same point by several links."""
    try:
        v = sympy.limit(body, var, pt, d)
    except (NotImplementedError, ValueError, TypeError) as e:
        return f"sympy cannot take this limit ({type(e).__name__})"
    if not v.is_number or isinstance(v, sympy.Limit) or v.has(sympy.AccumBounds):
        return "the limit does not evaluate to a number"
    return v


class Recheck:
    def __init__(self, point: Point, random_symbols, random_families, *, complete: bool = False,
                 family_ranges=None):
        """``complete``: give a deterministic symbol the point leaves out a default value
        (recorded in ``defaulted``); the facts and the two sides are checked with it all the same."""
        self.p = point
        self.complete = complete
        self.defaulted: dict = {}
        self.rsyms = frozenset(random_symbols)
        self.rfams = frozenset(random_families)
        self.family_ranges = dict(family_ranges or {})  # a member outside its family's range does not exist
        self._where = {}
        for g_i, (keys, _) in enumerate(point.groups):
            for pos, k in enumerate(keys):
                self._where[k] = (g_i, pos)

    # ---------------------------------------------------------- grounding
    def ground(self, x):
        """``x`` with every deterministic name replaced and every sum, product and derivative expanded."""
        if any(d.expr.has(FamilyExtremum) for d in x.atoms(sympy.Derivative)):
            raise Unconfirmed("the derivative of max or min over a family")
        kinks: list = []
        if x.has(sympy.Derivative):
            # deep=False: a sum inside is differentiated term by term and expanded below (_ground), never
            # summed symbolically by sympy first (the slow part, for the same value)
            def derivative(e):
                d = e.doit(deep=False)
                kinks.extend(a.args[0] for a in d.atoms(sympy.sign, sympy.Heaviside, sympy.DiracDelta))
                return d

            x = x.replace(lambda e: isinstance(e, sympy.Derivative), derivative)
        out = self._ground(x, {})
        for u in kinks:  # d|u|/dx is sign(u) and d max(u, 0)/dx Heaviside(u): neither exists where u = 0
            try:
                at = self._ground(u, {})
            except (Unconfirmed, ArithmeticError, TypeError, ValueError, AttributeError):
                continue
            if at.is_zero:
                raise Unconfirmed(f"the derivative does not exist at this point ({show(u)} = 0: a kink of |{show(u)}|"
                                  " or of max/min)")
        return out

    def _ground(self, x, env):
        if isinstance(x, sympy.Limit):
            return self._limit(x, env)
        if isinstance(x, Extremum):
            return self._extremum(x, env)
        if isinstance(x, DSum):
            raise Unconfirmed("a kernel normal form is not an original expression")
        if isinstance(x, FamilyExtremum):
            lo, hi = self._ground(x.args[1], env), self._ground(x.args[2], env)
            if not (lo.is_Integer and hi.is_Integer) or hi < lo or int(hi) - int(lo) > MAX_TERMS:
                raise Unconfirmed(f"{x.kind} of a family without a small concrete range")
            members = [self._ground(x.args[0][Integer(k)], env) for k in range(int(lo), int(hi) + 1)]
            return (sympy.Max if x.kind == "max" else sympy.Min)(*members)
        if x.is_Number or x.is_NumberSymbol or x in (sympy.true, sympy.false):
            return x
        if isinstance(x, Symbol):
            if x in env:
                return env[x]
            if x in self.p.values:
                return self.p.values[x]
            if x in self.rsyms:
                return x
            if x in self.defaulted:
                return self.defaulted[x]
            if self.complete and not isinstance(x, sympy.Dummy):
                self.defaulted[x] = v = Integer(1) if (x.is_integer or x.is_positive) else Integer(0)
                return v
            raise Unconfirmed(f"no value for {x}")
        if isinstance(x, Indexed):
            idx = [self._ground(i, env) for i in x.indices]
            if self.p.pattern in (2, 4) and all(i.is_Integer for i in idx) and x.base.label.name not in self.rfams:
                weight = int(self.p.pattern == 4)  # 4: the scrambling shifted by one
                for t, i in enumerate(idx):
                    weight += (2 * t + 3) * int(i) * int(i)
                return Integer((weight + sum(ord(c) for c in x.base.label.name)) % 7 - 3)
            if self.p.pattern == 3 and len(idx) > 1 and all(i.is_Integer for i in idx) \
                    and x.base.label.name not in self.rfams:
                return Integer(0)  # a matrix all 0 (the witness search's pattern 3)
            if len(idx) != 1 or not idx[0].is_Integer:
                raise Unconfirmed(f"index of {x} is not a whole number")
            name, i = x.base.label.name, int(idx[0])
            if name in self.family_ranges:
                lo, hi = (self._ground(b if isinstance(b, sympy.Basic) else Integer(b), env) for b in self.family_ranges[name])
                if lo.is_Integer and hi.is_Integer and not int(lo) <= i <= int(hi):
                    raise Unconfirmed(f"{name}_{i} is outside the range {lo}..{hi} of {name}")
            if name in self.rfams:
                if (name, i) not in self._where and name not in (self.p.laws or {}):
                    raise Unconfirmed(f"{name}_{i} is not in the model")
                return x.base[Integer(i)]  # (of a declared law the model leaves out: realised independently)
            if (name, i) in self.p.indexed:
                return self.p.indexed[(name, i)]
            if self.p.pattern is not None:
                return Integer({0: i - 1, 1: int(i == 1), 3: 0, 5: 1}[self.p.pattern])  # as the witness search's
            if self.complete:  # a member the witness leaves out (its residual no longer mentions it): a default
                member = x.base[Integer(i)]
                if member not in self.defaulted:
                    self.defaulted[member] = Integer(1) if (x.is_integer or x.is_positive) else Integer(0)
                return self.defaulted[member]
            raise Unconfirmed(f"no value for {name}_{i}")
        if isinstance(x, (sympy.Sum, sympy.Product)):
            # sympy's nested form: the first limit is the innermost; the outer one is expanded here
            body = type(x)(x.function, *x.limits[:-1]) if len(x.limits) > 1 else x.function
            var, lo, hi = x.limits[-1]
            lo, hi = self._ground(lo, env), self._ground(hi, env)
            if not (lo.is_Integer and hi.is_Integer):
                raise Unconfirmed("a sum with non-integer bounds")
            n = int(hi) - int(lo) + 1
            if n > MAX_TERMS:
                raise Unconfirmed("a sum too long to expand")
            # the language's convention: an empty sum is 0, an empty product 1 (never sympy's Karr reversal)
            terms = [self._ground(body, {**env, var: Integer(k)}) for k in range(int(lo), int(hi) + 1)]
            return sympy.Add(*terms) if isinstance(x, sympy.Sum) else sympy.Mul(*terms)
        if isinstance(x, (E, Var, SD, Prob)):
            return type(x)(self._ground(x.args[0], env))
        if isinstance(x, Cov):
            return Cov(self._ground(x.args[0], env), self._ground(x.args[1], env))
        if isinstance(x, sympy.Symbol) or not x.args:
            raise Unconfirmed(f"cannot evaluate {x}")
        args = [self._ground(a, env) for a in x.args]
        if isinstance(x, (sympy.Pow, sympy.exp)) and all(a.is_number for a in args) and too_large(
                x.func(*args, evaluate=False), EXACT_LIMIT if all(a.is_Rational for a in args) else LIMIT):
            # 2^(2^40) (an exact integer of 3.3·10^11 digits), exp(exp(exp(exp(exp(2))))): never computed
            raise Unconfirmed(f"{show(x)} is too large to evaluate exactly there")
        try:
            out = x.func(*args)
        except (TypeError, ValueError, ZeroDivisionError) as e:
            raise Unconfirmed(f"cannot evaluate {x}: {e}") from e
        if out.is_number and out.is_extended_real is False:
            # log(-1) = iπ: the language's expressions are real, so the point lies outside where this one is
            # defined (sympy would go on with complex values: log(1)/log(-1) = 0)
            raise Unconfirmed(f"{show(x)} has no real value there ({show(out)}): the point is outside where the link "
                              "is defined")
        return out

    def _limit(self, x, env):
        body, var, pt, d = x.args
        if body.has(E, Var, Cov, SD, Prob):
            raise Unconfirmed("a limit of a moment")
        body = self._ground(body, {**env, var: var})
        pt = self._ground(pt, env)
        v = _limit_at(body, var, pt, str(d))
        if isinstance(v, str):
            raise Unconfirmed(v)
        return v

    def _extremum(self, x, env):
        from sympy.calculus.util import maximum, minimum

        body, var, a, b, kind = x.args
        if kind.name not in ("max", "min"):
            raise Unconfirmed(f"cannot evaluate {kind.name} exactly")
        body = self._ground(body, {**env, var: var})
        a, b = self._ground(a, env), self._ground(b, env)
        try:
            v = (maximum if kind.name == "max" else minimum)(body, var, sympy.Interval(a, b))
        except (NotImplementedError, ValueError, TypeError) as e:
            raise Unconfirmed(f"sympy cannot find this extremum ({type(e).__name__})") from e
        if not v.is_number or not v.is_finite:
            raise Unconfirmed("the extremum does not evaluate to a number")
        # sympy gives the supremum / infimum: a max or min must be attained at a point of the interval
        try:
            at = sympy.solveset(body - v, var, sympy.Interval(a, b))
        except (NotImplementedError, ValueError, TypeError) as e:
            raise Unconfirmed("cannot tell whether the extremum is attained") from e
        if not (isinstance(at, sympy.FiniteSet) and len(at) > 0) and not isinstance(at, sympy.Interval):
            raise Unconfirmed(f"the {'supremum' if kind.name == 'max' else 'infimum'} {v} is not shown to be attained")
        return v

    # ---------------------------------------------------------- evaluation
    def value(self, x):
        """The exact value of an original expression at the point."""
        v = self._eval(self.ground(x))
        if v.has(sympy.zoo, sympy.nan, sympy.oo, -sympy.oo) or not v.is_number:
            raise Unconfirmed(f"no finite value: {v}")
        if v.is_extended_real is False:  # E[sqrt(X)] with X = -1 possible: no real value at this point
            raise Unconfirmed(f"a part of it has no real value there ({show(v)}): the point is outside where the "
                              "link is defined")
        return v

    def _atoms(self, x) -> list:
        out = set()
        for a in sympy.preorder_traversal(x):
            if isinstance(a, Symbol) and a in self.rsyms:
                out.add(a)
            elif isinstance(a, Indexed) and a.base.label.name in self.rfams:
                out.add(a)
        return sorted(out, key=sympy.default_sort_key)

    def _key(self, atom):
        return atom if isinstance(atom, Symbol) else (atom.base.label.name, int(atom.indices[0]))

    def _law(self, atoms) -> list:
        """The joint law of ``atoms``: [(atom -> value, probability)], by the model's independent groups."""
        by_group: dict = {}
        parts = []
        for a in atoms:
            k = self._key(a)
            if k not in self._where and self._law_of(a) is not None:
                # a declared law the model leaves out, realised independently (as _expect_by_moments does)
                sup = self._dist_at(a).support()
                if sup is None:
                    raise Unconfirmed(f"{a} has no finite support to evaluate on each outcome")
                parts.append(([a], [((v,), p) for v, p in sup if p != 0]))
                continue
            if k not in self._where:
                raise Unconfirmed(f"{a} is not in the model")
            g_i, pos = self._where[k]
            by_group.setdefault(g_i, []).append((a, pos))
        size = 1
        for _, rows in parts:
            size *= len(rows)
        for g_i, ap in by_group.items():
            proj: dict = {}
            for vals, p in self.p.groups[g_i][1]:
                t = tuple(vals[pos] for _, pos in ap)
                proj[t] = proj.get(t, 0) + p
            parts.append(([a for a, _ in ap], [(t, p) for t, p in proj.items() if p != 0]))
            size *= len(parts[-1][1])
            if size > MAX_OUTCOMES:
                raise Unconfirmed("too many joint outcomes")
        out = []
        for combo in itertools.product(*[rows for _, rows in parts]):
            asg, prob = {}, Integer(1)
            for (names, _), (t, p) in zip(parts, combo):
                asg.update(zip(names, t))
                prob *= p
            out.append((asg, prob))
        return out

    def _expect(self, x):
        x = self._moments(x)
        atoms = self._atoms(x)
        if not atoms:
            return x
        by_law = [a for a in atoms if self._key(a) not in self._where and self._law_of(a) is not None]
        if by_law:  # variables of declared laws the model leaves out: realised independently of the rest
            rest = [a for a in atoms if a not in by_law]
            if not rest:
                return self._expect_by_moments(x, by_law)
            return sympy.Add(*[p * self._expect_by_moments(x.xreplace(asg), by_law) for asg, p in self._law(rest)])
        return sympy.Add(*[p * x.xreplace(asg) for asg, p in self._law(atoms)])

    def _law_of(self, atom):
        return self.p.laws.get(atom.name if isinstance(atom, Symbol) else atom.base.label.name)

    def _law_of_key(self, k):
        return self.p.laws.get(k[0] if isinstance(k, tuple) else getattr(k, "name", str(k)))

    def _dist_at(self, a):
        """The declared law of ``a`` with its parameters taken at the point."""
        law = self._law_of(a)
        params = tuple(self._ground(q, {}) for q in law.params)
        if not all(q.is_number for q in params):
            raise Unconfirmed("the law's parameters have no value at this point")
        dist = type(law)(law.name, params, law.text)
        for cond, rel in dist.conditions_at():
            if not holds(cond, rel):
                raise Unconfirmed(f"the law {law.text} does not exist at this point")
        return dist

    def _expect_by_moments(self, x, atoms):
        """E of a polynomial in random variables with declared laws, realised independently of each other
        (Normal(μ, σ²): E[G^4] = μ^4 + 6 μ^2 σ^2 + 3 σ^4; E[G^2 W^2] = E[G^2] E[W^2]), their parameters
        taken at the point: the witness's model is that product (its facts are re-checked on it too, an
        independence fact included); E[exp(a G + b)] of one variable by its moment generating function;
        anything else is not evaluated here."""
        dists = [self._dist_at(a) for a in atoms]
        try:
            poly = sympy.Poly(sympy.expand(x), *atoms)
        except sympy.PolynomialError:
            if len(atoms) != 1:
                raise Unconfirmed("E of a function of several variables that is not a polynomial") from None
            x = x.replace(lambda e: isinstance(e, (sympy.Max, sympy.Min)) and len(e.args) == 2,
                          lambda e: e.rewrite(sympy.Abs))  # max(a, b) = (a + b + |a - b|)/2 for reals
            return self._expect_exp(x, atoms[0], dists[0])
        if poly.total_degree() > 12 or any(c.free_symbols for c in poly.coeffs()):
            raise Unconfirmed("a moment beyond the re-check's reach")
        return sympy.Add(*[c * sympy.Mul(*[d.moment(k) for d, k in zip(dists, mon)]) for mon, c in poly.terms()])

    @staticmethod
    def _expect_exp(x, a, dist):
        """E of a sum of terms c h(a) (numbers c) by the law's closed forms (``law_means.mean_by_law``):
        exp(k a + b) by its moment generating function, a^j |a|^k by its absolute moments, a^j by its moments."""
        from ..law_means import mean_by_law

        value = mean_by_law(x, [a], [dist])
        if value is None or not value.is_number:
            raise Unconfirmed(f"E of a function of {a} that is not a polynomial")
        return value

    def _moments(self, x):
        """``x`` with every moment in it replaced by its value (innermost first; a moment is a constant)."""
        if not x.has(E, Var, Cov, SD, Prob):
            return x
        if isinstance(x, E):
            return self._expect(x.args[0])
        if isinstance(x, Var):
            a = x.args[0]
            return self._expect(a ** 2) - self._expect(a) ** 2
        if isinstance(x, SD):
            a = x.args[0]
            return sympy.sqrt(self._expect(a ** 2) - self._expect(a) ** 2)
        if isinstance(x, Cov):
            a, b = x.args
            return self._expect(a * b) - self._expect(a) * self._expect(b)
        if isinstance(x, Prob):
            ev = self._moments(x.args[0])
            atoms = self._atoms(ev)
            total = Integer(0)
            for asg, p in (self._law(atoms) if atoms else [({}, Integer(1))]):
                if self._truth(ev.xreplace(asg)):
                    total += p
            return total
        return x.func(*[self._moments(a) for a in x.args])

    def _eval(self, x):
        v = self._moments(x)
        if self._atoms(v):
            raise Unconfirmed("a random variable outside an expectation")
        return v

    def _truth(self, rel) -> bool:
        if rel in (sympy.true, sympy.false):
            return bool(rel)
        if isinstance(rel, (sympy.And, sympy.Or, sympy.Not)):
            vals = [self._truth(a) for a in rel.args]
            return all(vals) if isinstance(rel, sympy.And) else (any(vals) if isinstance(rel, sympy.Or) else not vals[0])
        if isinstance(rel, sympy.core.relational.Relational):
            return holds(rel.lhs - rel.rhs, rel.rel_op)
        raise Unconfirmed(f"cannot decide {rel}")

    def outside_its_range(self, index_ranges: dict) -> str:
        """Why an index the point gives a value lies outside its declared range there ("" when none does):
        with k in 2..n, the point n = 1, k = 1 is no point at all (2..1 is empty)."""
        for s, v in list(self.p.values.items()) + list(self.defaulted.items()):
            if s not in index_ranges or not getattr(v, "is_Integer", False):
                continue
            lo, hi = (self._ground(_as_expr(b) if isinstance(b, sympy.Basic) else Integer(b), {})
                      for b in index_ranges[s])
            if lo.is_Integer and hi.is_Integer and not lo <= v <= hi:
                return f"the index {s} = {v} is outside its range {lo}..{hi} there"
        return ""

    _KINDS = ("integer", "positive", "negative", "nonnegative", "nonpositive", "nonzero")

    def off_its_kind(self) -> str:
        """Why a symbol's value at the point is not of its declared kind ("" when every one is): ``let m:
        integer`` at m = 1/2, or ``let c: positive real`` at c = 0, is no point of the link at all."""
        for s, v in list(self.p.values.items()) + list(self.defaulted.items()):
            if not isinstance(s, Symbol):
                continue
            for kind in self._KINDS:
                if getattr(s, "is_" + kind) is True and getattr(v, "is_" + kind) is not True:
                    return f"{s} = {v} is not {kind}, as {s} is declared"
        return ""

    # ---------------------------------------------------------- facts
    def fact_holds(self, f, index_ranges: dict) -> bool:
        """Does the fact hold at the point, for every admissible value of its free indices?"""
        for env in self._instances(f, index_ranges):
            if isinstance(f, IndepFact):
                if not self._independent(f, env):
                    return False
                continue
            lhs = self._sub_env(f.lhs, env)
            rhs = self._sub_env(f.rhs, env)
            rel = "=" if isinstance(f, EqFact) else f.rel
            try:
                if not all(holds(d, rel) for d in self._differences(lhs, rhs)):
                    return False
            except Unconfirmed:
                if not isinstance(f, SurelyFact):
                    raise  # (R^2 = 1 of a law whose R the point leaves out: every realisation of the law has it)
        return True

    def _differences(self, lhs, rhs) -> list:
        """lhs - rhs, each side evaluated on its own (a guard g = g must still have a value); where a random
        variable is in them outside every moment (``Y > 0``: almost surely), on each outcome of positive
        probability."""
        gl, gr = self._moments(self.ground(lhs)), self._moments(self.ground(rhs))
        atoms = sorted(set(self._atoms(gl)) | set(self._atoms(gr)), key=sympy.default_sort_key)
        if not atoms:
            return [self.value(lhs) - self.value(rhs)]
        out = []
        for asg, p in self._law(atoms):
            vl, vr = gl.xreplace(asg), gr.xreplace(asg)
            for v in (vl, vr):
                if v.has(sympy.zoo, sympy.nan, sympy.oo, -sympy.oo) or not v.is_number or v.is_extended_real is False:
                    raise Unconfirmed(f"no finite real value on an outcome: {show(v)}")
            out.append(vl - vr)
        return out

    def _sub_env(self, x, env):
        x = _as_expr(x)
        return x.xreplace(env) if env else x

    def _instances(self, f, index_ranges):
        free = list(getattr(f, "free", ()))
        choices = []
        for s in free:
            if s not in index_ranges:
                raise Unconfirmed(f"no range for the index {s}")
            lo, hi = (self._ground(_as_expr(v), {}) for v in index_ranges[s])
            if not (lo.is_Integer and hi.is_Integer) or int(hi) - int(lo) > 64:
                raise Unconfirmed(f"the range of {s} is not small and concrete")
            choices.append(range(int(lo), int(hi) + 1))
        for combo in itertools.product(*choices):
            env = {s: Integer(v) for s, v in zip(free, combo)}
            if any(env.get(a) is not None and env.get(a) == env.get(b) for a, b in getattr(f, "distinct", ())):
                continue
            yield env

    def _independent(self, f: IndepFact, env) -> bool:
        """The fact at the point: its blocks (``q ⟂ k``: the vector q, the vector k), or else every listed
        variable on its own, have a joint law that is the product of their laws."""
        def key_of(m):
            g = self._ground(m.xreplace(env), {})
            if not (g in self.rsyms or isinstance(g, Indexed)):
                raise Unconfirmed(f"cannot read {m} as a random variable")
            return self._key(g)

        def fam_keys(fam):
            return [k for k in self._where if isinstance(k, tuple) and k[0] == fam]

        if f.blocks:
            blocks = [[k for b in blk for k in (fam_keys(b) if isinstance(b, str) else [key_of(b)])]
                      for blk in f.blocks]
        else:
            blocks = [[k] for fam in f.families for k in fam_keys(fam)] + [[key_of(m)] for m in f.members]
        # independent groups are independent by construction: inside each group, the blocks' parts
        by_group: dict = {}
        for b_i, blk in enumerate(blocks):
            for k in dict.fromkeys(blk):
                if k not in self._where and self._law_of_key(k) is not None:
                    continue  # a declared law the model leaves out: realised independently of everything
                if k not in self._where:
                    raise Unconfirmed(f"{k} is not in the model")
                g_i, pos = self._where[k]
                by_group.setdefault(g_i, {}).setdefault(b_i, []).append(pos)
        for g_i, parts in by_group.items():
            if len(parts) < 2:
                continue
            order = list(parts.values())
            rows = self.p.groups[g_i][1]
            joint: dict = {}
            margs = [dict() for _ in order]
            for vals, p in rows:
                ts = [tuple(vals[q] for q in poss) for poss in order]
                joint[tuple(ts)] = joint.get(tuple(ts), 0) + p
                for k, t in enumerate(ts):
                    margs[k][t] = margs[k].get(t, 0) + p
            if sympy.Mul(*[len(m) for m in margs]) > MAX_OUTCOMES:
                raise Unconfirmed("too many joint outcomes")
            for ts in itertools.product(*[list(m) for m in margs]):
                prod = sympy.Mul(*[margs[k][t] for k, t in enumerate(ts)])
                if sign(joint.get(ts, 0) - prod) != 0:
                    return False
        return True


def _as_expr(x):
    try:
        return as_expr(x)
    except TypeError as e:
        raise Unconfirmed(str(e)) from e


def holds(d, rel: str, s=None) -> bool:
    """Is ``d`` (lhs - rhs) proved to satisfy ``d REL 0``?  Undecided is False.  ``s``: ``sign(d)``, if known."""
    s = sign(d) if s is None else s
    if s is None:
        return False
    return {"=": s == 0, "==": s == 0, "!=": s != 0, "<": s < 0, "<=": s <= 0, ">": s > 0, ">=": s >= 0}[rel]


def violated(d, rel: str, s=None) -> bool:
    """Is ``d`` (lhs - rhs) proved to violate ``d REL 0``?  Undecided is False.  ``s``: ``sign(d)``, if known."""
    s = sign(d) if s is None else s
    if s is None:
        return False
    return {"=": s != 0, "<": s >= 0, "<=": s > 0, ">": s <= 0, ">=": s < 0}[rel]


def confirms(point: Point, decls, lhs, rhs, rel: str, facts, *, complete: bool = False) -> tuple[bool, str, dict]:
    """(True, "", defaulted) when the point refutes ``lhs REL rhs`` under ``facts`` (label -> kernel facts),
    exactly; else (False, why, {}).  ``defaulted``: values ``complete`` gave to symbols the point left out."""
    ok, why, rc = _confirms(point, decls, lhs, rhs, rel, facts, complete)
    grown = _grown(point, rc, decls) if not ok and complete else None
    if grown is not None:  # j = 2 with the dimension d defaulted to 1: the point at d = 2 instead
        ok, why, rc = _confirms(grown, decls, lhs, rhs, rel, facts, complete)
        raised = {s: v for s, v in grown.values.items() if s not in point.values}
        return ok, why, ({**rc.defaulted, **raised} if ok else {})
    return ok, why, (dict(rc.defaulted) if ok else {})


def _grown(point: Point, rc: Recheck, decls):
    """The point with each defaulted dimension raised to the largest index value that lies past it
    (the residual's witness named an index but left its range's bound to the default), or None."""
    raise_to: dict = {}
    for s, v in point.values.items():
        hi = decls.index_ranges.get(s, (None, None))[1]
        if isinstance(hi, Symbol) and hi in rc.defaulted and getattr(v, "is_Integer", False) \
                and v > rc.defaulted[hi]:
            raise_to[hi] = max(v, raise_to.get(hi, v))
    if not raise_to:
        return None
    return Point({**point.values, **raise_to}, point.indexed, point.groups, point.pattern)


def _defined(point, decls, lhs, rhs, facts):
    """(lhs, rhs, facts) with each random variable the point leaves out (no outcome, no law) that an equation
    defines (``Y = 2 R + 1``, ``u_i = 2 q_i + 3``) replaced by its definition: the model extended by that
    variable, on which the equation holds exactly (the other facts are then checked on the extended model)."""
    given = {k for keys, _ in point.groups for k in keys}
    taken = {k if not isinstance(k, tuple) else k[0] for k in given} | set(point.laws or {})
    taken |= {s for s in decls.random_symbols if s.name in (point.laws or {})}
    return with_definitions(lhs, rhs, facts, decls, frozenset(taken))


def _confirms(point, decls, lhs, rhs, rel, facts, complete):
    lhs, rhs, facts = _defined(point, decls, lhs, rhs, facts)
    rc = Recheck(point, decls.random_symbols, decls.random_families, complete=complete,
                 family_ranges=decls.family_ranges)
    ranges = dict(decls.index_ranges)
    try:
        for lab, fs in facts.items():
            for f in fs:
                if not isinstance(f, (EqFact, IneqFact, IndepFact)):
                    raise Unconfirmed(f"cannot check the fact {lab}")
        d = rc.value(lhs) - rc.value(rhs)  # first: it fixes the defaults the facts are then checked with
        outside = rc.outside_its_range(ranges) or rc.off_its_kind()
        if outside:
            return False, outside, rc
        for lab, fs in facts.items():
            for f in fs:
                if not rc.fact_holds(f, ranges):
                    return False, f"it does not satisfy `{lab}` exactly", rc
    except Unconfirmed as e:
        return False, f"it could not be re-evaluated exactly ({e})", rc
    except (RecursionError, ArithmeticError, TypeError, ValueError, AttributeError) as e:
        return False, f"it could not be re-evaluated exactly ({type(e).__name__})", rc
    if not violated(d, rel):
        return False, ("on the original expressions the two sides do not differ" if rel == "=" else
                       "on the original expressions the relation is not violated"), rc
    return True, "", rc
