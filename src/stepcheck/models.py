"""Finite models: exact evaluation and the counterexample finder.

A *model* gives every dimension symbol a small positive integer (so every
index range is concrete), every deterministic real a rational value, and the
random variables (families unrolled over their concrete ranges) a finite
joint distribution: independent *groups* of variables, each group a list of
outcomes with rational probabilities summing to 1.

This module evaluates expressions on a model with its own code (enumerate
outcomes, sum probability times value); it never calls the kernel's
normaliser or prover, so that checking a kernel verdict on models is an
independent second route (LANGUAGE.md, section 8).  Only the sympy classes
``E``/``Var``/``Cov``/``SD`` and the plain fact records are shared.

Entry points:

* :func:`evaluate` and :func:`satisfies` (exact, on one model);
* :func:`find_counterexample` (a model of the kept facts in which the two
  sides differ; deterministic for a given seed, bounded in time and size);
* :func:`random_models` (models of a set of facts, for the soundness
  cross-check).
"""
from __future__ import annotations

import functools
import itertools
import math
import random
import time
from dataclasses import dataclass, field
from fractions import Fraction

import sympy
from sympy import Indexed, KroneckerDelta, Product, Sum, Symbol

from .terms.printer import KernelPrinter

from .terms.facts import Decls, EqFact, IndepFact  # IneqFact: any fact with ``rel`` is read generically
from .terms.objects import SD, Cov, E, Var

MAX_OUTCOMES = 4096  # outcomes of one marginal table
MAX_VARIABLES = 12  # random variables in one model (after unrolling families)
MAX_CANDIDATES = 4000  # candidate models tried per search
MAX_DIM_ASSIGNMENTS = 27
REL_TEXT = {"<=": "≤", ">=": "≥", "!=": "≠"}


class ModelError(Exception):
    """The expression has no value on this model (undefined, unsupported, too big)."""


# ====================================================================== numbers
# Values are Fractions when rational (fast), sympy numbers otherwise (sqrt(2)).


def num(x):
    if isinstance(x, Fraction):
        return x
    if isinstance(x, int):
        return Fraction(x)
    if isinstance(x, sympy.Rational):
        return Fraction(int(x.p), int(x.q))
    if isinstance(x, sympy.Basic):
        if x.has(sympy.zoo, sympy.nan, sympy.oo, -sympy.oo):
            raise ModelError("undefined value (division by zero)")
        return x
    raise ModelError(f"not a number: {x!r}")


def sym(v):
    if isinstance(v, Fraction):
        return sympy.Rational(v.numerator, v.denominator)
    return v


def _isqrt_exact(n: int):
    if n < 0:
        return None
    r = math.isqrt(n)
    return r if r * r == n else None


def n_add(a, b):
    if isinstance(a, Fraction) and isinstance(b, Fraction):
        return a + b
    return num(sym(a) + sym(b))


def n_mul(a, b):
    if isinstance(a, Fraction) and isinstance(b, Fraction):
        return a * b
    return num(sym(a) * sym(b))


def n_pow(a, b):
    if isinstance(a, Fraction) and isinstance(b, Fraction):
        if b.denominator == 1:
            e = b.numerator
            if abs(e) > 64:
                raise ModelError("exponent too large for a model")
            if a == 0 and e < 0:
                raise ModelError("division by zero in this model")
            return a ** e
        if b.denominator == 2 and a >= 0:
            p, q = _isqrt_exact(a.numerator), _isqrt_exact(a.denominator)
            if p is not None and q is not None:
                return n_pow(Fraction(p, q), Fraction(b.numerator))
    if isinstance(a, Fraction) and a == 0 and (sym(b).is_negative):
        raise ModelError("division by zero in this model")
    return num(sympy.Pow(sym(a), sym(b)))


def n_sqrt(a):
    return n_pow(a, Fraction(1, 2))


def n_eq(a, b, need_true: bool = True):
    """True / False when decided exactly, None when undecided.

    ``need_true=False``: the caller acts only on False (a refuted link, a
    violated fact), so a difference that evaluates to about 0 is left
    undecided instead of being proved 0 exactly (sympy's ``equals`` is slow).
    """
    if isinstance(a, Fraction) and isinstance(b, Fraction):
        return a == b
    d = sym(a) - sym(b)
    if d == 0:
        return True
    try:
        v = complex(d.evalf(60))
        if abs(v) > 1e-30:
            return False
    except (TypeError, ValueError):
        pass
    if not need_true:
        return None
    try:
        if sympy.radsimp(sympy.expand(d)) == 0:
            return True
        r = d.equals(0)
    except Exception:  # noqa: BLE001 - undecided, never a verdict
        return None
    return r


def n_cmp(a, b, need_true: bool = True):
    """-1, 0, 1 (a < b, a = b, a > b) decided exactly; None when undecided or not real."""
    if isinstance(a, Fraction) and isinstance(b, Fraction):
        return (a > b) - (a < b)
    e = n_eq(a, b, need_true)
    if e is True:
        return 0
    if e is None:
        return None
    try:
        v = complex((sym(a) - sym(b)).evalf(60))
    except (TypeError, ValueError):
        return None
    if abs(v.imag) > 1e-30:
        return None
    return 1 if v.real > 0 else -1


def holds_rel(a, rel: str, b, need_true: bool = True):
    """Whether ``a REL b`` holds exactly: True / False, None when undecided (see :func:`n_eq`)."""
    if rel in ("=", "=="):
        return n_eq(a, b, need_true)
    c = n_cmp(a, b, need_true)
    if c is None:
        return None
    return {"<": c < 0, "<=": c <= 0, ">": c > 0, ">=": c >= 0, "!=": c != 0, "≠": c != 0,
            "≤": c <= 0, "≥": c >= 0}.get(rel)


def show_value(v) -> str:
    if isinstance(v, Fraction):
        return str(v.numerator) if v.denominator == 1 else f"{v.numerator}/{v.denominator}"
    return show(v)


# ====================================================================== printing


class _Printer(KernelPrinter):
    """Expressions the way a user writes them: ``Var(q_1 k_1)``, ``E[X^2]``.

    The kernel's printer supplies E[...], Var, Cov, SD and indexed names; this
    one writes sums, powers and products in the language's own syntax.
    """

    def __init__(self, decls: Decls | None = None):
        super().__init__({"order": "none"})
        self.printmethod = "_stepcheck_models_str"
        self.decls = decls

    def _print_Symbol(self, s):
        return s.name

    _print_Dummy = _print_Symbol

    def _print_KroneckerDelta(self, e):
        return f"delta({self._print(e.args[0])}, {self._print(e.args[1])})"

    def _print_Sum(self, e):
        out = self._print(e.function)
        for i, a, b in reversed(e.limits):
            out = f"sum({self._print(i)}={self._print(a)}..{self._print(b)}, {out})"
        return out

    def _print_Pow(self, e, rational=False):
        b, x = e.args
        if x == sympy.Rational(1, 2):
            return f"sqrt({self._print(b)})"
        if x == -1:
            return f"1/{self.parenthesize(b, 50)}"
        return f"{self.parenthesize(b, 60)}^{self.parenthesize(x, 60)}"

    def _print_Add(self, e, order=None):
        terms = sorted(e.args, key=lambda t: (t.is_number, self._key(t)))
        out = ""
        for t in terms:
            if t.could_extract_minus_sign():
                out += (" - " if out else "-") + self.parenthesize(-t, 40)
            else:
                out += (" + " if out else "") + self.parenthesize(t, 40)
        return out

    def _key(self, f):
        base = f.args[0] if isinstance(f, sympy.Pow) else f
        if isinstance(base, Indexed):
            name = base.base.label.name
        elif isinstance(base, Symbol):
            name = base.name
        else:
            return (1, 10**6, sympy.default_sort_key(f))
        order = self.decls.order.get(name, 10**6) if self.decls else 10**6
        return (0, order, sympy.default_sort_key(f))

    def _print_Mul(self, e):
        c, factors = e.as_coeff_mul()
        if any(isinstance(f, sympy.Pow) and f.args[1].is_negative for f in factors):
            return super()._print_Mul(e).replace("**", "^").replace("*", " ")
        factors = sorted(factors, key=self._key)
        parts = [self.parenthesize(f, 50) for f in factors]
        body = " ".join(parts)
        if c == 1:
            return body
        if c == -1:
            return "-" + body
        return f"{self._print(c)} {body}"


_PLAIN = _Printer()


def show(expr, decls: Decls | None = None) -> str:
    return (_Printer(decls) if decls else _PLAIN).doprint(expr)


# ====================================================================== models


def key_name(k) -> str:
    return f"{k[0]}_{k[1]}" if isinstance(k, tuple) else str(k)


@dataclass
class Group:
    """Jointly distributed variables: outcomes ``(values, probability)``."""

    vars: tuple
    rows: list
    desc: str | None = None  # e.g. "Y = X^2 - 2/3" (rendering only)


@dataclass
class Model:
    dims: dict = field(default_factory=dict)  # Symbol -> int
    params: dict = field(default_factory=dict)  # Symbol or (family, i) -> value
    groups: list = field(default_factory=list)  # independent groups
    _where: dict = field(default_factory=dict, repr=False)
    _marg: dict = field(default_factory=dict, repr=False)

    def __post_init__(self):
        self.reindex()

    def reindex(self):
        self._where = {}
        for g_i, g in enumerate(self.groups):
            for pos, v in enumerate(g.vars):
                self._where[v] = (g_i, pos)
        self._marg = {}

    @property
    def variables(self):
        return [v for g in self.groups for v in g.vars]

    def marginal(self, keys) -> list:
        """The joint distribution of ``keys``: a list of (dict key -> value, prob)."""
        keys = tuple(dict.fromkeys(keys))
        fk = frozenset(keys)
        if fk in self._marg:
            return self._marg[fk]
        by_group: dict[int, list] = {}
        for k in keys:
            if k not in self._where:
                raise ModelError(f"the model has no variable {key_name(k)}")
            g_i, pos = self._where[k]
            by_group.setdefault(g_i, []).append((k, pos))
        parts = []
        size = 1
        for g_i, kp in by_group.items():
            proj: dict = {}
            for vals, p in self.groups[g_i].rows:
                t = tuple(vals[pos] for _, pos in kp)
                proj[t] = proj.get(t, 0) + p
            parts.append(([k for k, _ in kp], [(t, p) for t, p in proj.items() if p != 0]))
            size *= len(parts[-1][1])
            if size > MAX_OUTCOMES:
                raise ModelError("too many outcomes")
        table = []
        for combo in itertools.product(*[rows for _, rows in parts]):
            d, pr = {}, Fraction(1)
            for (ks, _), (t, p) in zip(parts, combo):
                d.update(zip(ks, t))
                pr *= p
            table.append((d, pr))
        self._marg[fk] = table
        return table


# ====================================================================== evaluation


def _range_of(decls: Decls, sym_or_family, dims: dict, params=None):
    lo, hi = (decls.index_ranges[sym_or_family] if isinstance(sym_or_family, sympy.Basic)
              else decls.family_ranges[sym_or_family])
    ev = Evaluator(Model(dims=dims, params=params or {}), decls)
    a, b = ev.int_value(lo, {}), ev.int_value(hi, {})
    return range(a, b + 1)


class Evaluator:
    def __init__(self, model: Model, decls: Decls, deadline: float | None = None):
        self.m = model
        self.decls = decls
        self._ecache: dict = {}
        self._ccache: dict = {}
        self.deadline = deadline

    def int_value(self, x, env) -> int:
        v = self.ev(sympy.Integer(x) if isinstance(x, int) else x, env, None)
        if not (isinstance(v, Fraction) and v.denominator == 1):
            raise ModelError(f"{show(x)} is not a whole number in this model")
        return int(v)

    def ev(self, x, env: dict, out: dict | None):
        if isinstance(x, (sympy.Integer, sympy.Rational)):
            return num(x)
        if isinstance(x, Symbol):
            if x in env:
                return env[x]
            if x in self.m.dims:
                return Fraction(self.m.dims[x])
            if x in self.m.params:
                return self.m.params[x]
            if x in self.decls.random_symbols:
                if out is None:
                    raise ModelError(f"the random variable {x} outside an expectation")
                return out[x]
            raise ModelError(f"no value for {x}")
        if isinstance(x, Indexed):
            name = x.base.label.name
            if len(x.indices) != 1:
                raise ModelError("only one index per family is supported")
            i = self.int_value(x.indices[0], env)
            k = (name, i)
            if name in self.decls.random_families:
                if out is None:
                    raise ModelError(f"the random variable {key_name(k)} outside an expectation")
                if k not in out:
                    raise ModelError(f"{key_name(k)} is not in this model (index out of range?)")
                return out[k]
            if k in self.m.params:
                return self.m.params[k]
            raise ModelError(f"no value for {key_name(k)}")
        if x.is_Number or x.is_NumberSymbol:
            return num(x)
        if isinstance(x, sympy.Add):
            acc = Fraction(0)
            for a in x.args:
                acc = n_add(acc, self.ev(a, env, out))
            return acc
        if isinstance(x, sympy.Mul):
            acc = Fraction(1)
            for a in x.args:
                acc = n_mul(acc, self.ev(a, env, out))
            return acc
        if isinstance(x, sympy.Pow):
            return n_pow(self.ev(x.args[0], env, out), self.ev(x.args[1], env, out))
        if isinstance(x, E):
            return self.expect(x.args[0], env)
        if isinstance(x, Var):
            return self.central(x.args[0], x.args[0], env)
        if isinstance(x, Cov):
            return self.central(x.args[0], x.args[1], env)
        if isinstance(x, SD):
            return n_sqrt(self.central(x.args[0], x.args[0], env))
        if isinstance(x, (Sum, Product)):
            return self.big(x, env, out)
        if isinstance(x, KroneckerDelta):
            a, b = self.ev(x.args[0], env, out), self.ev(x.args[1], env, out)
            return Fraction(1 if a == b else 0)
        if isinstance(x, sympy.Function) or isinstance(x, (sympy.Abs, sympy.Max, sympy.Min)):
            vals = [sym(self.ev(a, env, out)) for a in x.args]
            return num(x.func(*vals))
        raise ModelError(f"cannot evaluate {type(x).__name__} on a finite model")

    def big(self, x, env, out):
        body = x.function
        ranges = []
        for var, lo, hi in x.limits:
            ranges.append((var, lo, hi))

        def rec(k, env2):
            if k == len(ranges):
                return [self.ev(body, env2, out)]
            var, lo, hi = ranges[k]
            a, b = self.int_value(lo, env2), self.int_value(hi, env2)
            if b - a > 64:
                raise ModelError("a sum too long for a model")
            vals = []
            for i in range(a, b + 1):
                vals.extend(rec(k + 1, {**env2, var: Fraction(i)}))
            return vals

        vals = rec(0, env)
        if isinstance(x, Sum):
            acc = Fraction(0)
            for v in vals:
                acc = n_add(acc, v)
        else:
            acc = Fraction(1)
            for v in vals:
                acc = n_mul(acc, v)
        return acc

    # -------------------------------------------------------------- random keys
    def keys(self, x, env, deep: bool = False) -> list:
        """The random variables of ``x`` (``deep``: also those inside E, Var, Cov, SD)."""
        out: dict = {}
        self._keys(x, env, out, deep)
        return list(out)

    def _keys(self, x, env, acc, deep=False):
        if isinstance(x, Symbol):
            if x in self.decls.random_symbols and x not in env:
                acc[x] = None
            return
        if isinstance(x, Indexed):
            name = x.base.label.name
            if name in self.decls.random_families:
                acc[(name, self.int_value(x.indices[0], env))] = None
            return
        if isinstance(x, (E, Var, Cov, SD)) and not deep:
            return  # a constant
        if isinstance(x, (Sum, Product)):
            def rec(k, env2):
                if k == len(x.limits):
                    self._keys(x.function, env2, acc, deep)
                    return
                var, lo, hi = x.limits[k]
                for i in range(self.int_value(lo, env2), self.int_value(hi, env2) + 1):
                    rec(k + 1, {**env2, var: Fraction(i)})
            rec(0, env)
            return
        for a in x.args:
            if isinstance(a, sympy.Basic):
                self._keys(a, env, acc, deep)

    # -------------------------------------------------------------- moments
    def _env_key(self, x, env):
        fs = x.free_symbols
        return tuple(sorted(((str(s), s, v) for s, v in env.items() if s in fs), key=lambda t: t[0]))

    def expect(self, x, env):
        ck = ("E", x, self._env_key(x, env))
        if ck in self._ecache:
            return self._ecache[ck]
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise ModelError("time limit reached while evaluating")
        const, f = self.compiled(x, env)
        acc = Fraction(0)
        for outcome, p in self.m.marginal(self.keys(x, env)):
            acc = n_add(acc, n_mul(p, f if const else f(outcome)))
        self._ecache[ck] = acc
        return acc

    def central(self, x, y, env):
        """Cov(x, y) by definition: E[(x - E x)(y - E y)] (Var when x is y)."""
        mx = self.expect(x, env)
        my = mx if x == y else self.expect(y, env)
        keys = list(dict.fromkeys(self.keys(x, env) + self.keys(y, env)))
        cx, fx = self.compiled(x, env)
        cy, fy = (cx, fx) if x == y else self.compiled(y, env)
        neg_mx = -mx if isinstance(mx, Fraction) else num(-sym(mx))
        neg_my = -my if isinstance(my, Fraction) else num(-sym(my))
        acc = Fraction(0)
        for outcome, p in self.m.marginal(keys):
            vx = n_add(fx if cx else fx(outcome), neg_mx)
            vy = vx if x == y else n_add(fy if cy else fy(outcome), neg_my)
            acc = n_add(acc, n_mul(p, n_mul(vx, vy)))
        return acc

    # -------------------------------------------------------------- compiled bodies
    def compiled(self, x, env):
        """``x`` under ``env`` as ``(True, value)`` or ``(False, function of one outcome)``.

        The function computes what ``ev(x, env, outcome)`` computes; every
        part that does not depend on the outcome (numbers, dimensions,
        parameters, index values, moments) is evaluated once, so the loops
        over outcomes in :meth:`expect` and :meth:`central` only call closures.
        """
        ck = (x, self._env_key(x, env))
        got = self._ccache.get(ck)
        if got is None:
            got = self._ccache[ck] = self._compile(x, env)
        return got

    def _compile(self, x, env):
        if isinstance(x, (sympy.Integer, sympy.Rational)):
            return True, num(x)
        if isinstance(x, Symbol):
            if x in env:
                return True, env[x]
            if x in self.m.dims:
                return True, Fraction(self.m.dims[x])
            if x in self.m.params:
                return True, self.m.params[x]
            if x in self.decls.random_symbols:
                return False, lambda out: out[x]
            raise ModelError(f"no value for {x}")
        if isinstance(x, Indexed):
            name = x.base.label.name
            if len(x.indices) != 1:
                raise ModelError("only one index per family is supported")
            k = (name, self.int_value(x.indices[0], env))
            if name in self.decls.random_families:
                def var(out):
                    try:
                        return out[k]
                    except KeyError:
                        raise ModelError(f"{key_name(k)} is not in this model (index out of range?)") from None
                return False, var
            if k in self.m.params:
                return True, self.m.params[k]
            raise ModelError(f"no value for {key_name(k)}")
        if x.is_Number or x.is_NumberSymbol:
            return True, num(x)
        if isinstance(x, (E, Var, Cov, SD)):
            return True, self.ev(x, env, None)
        if isinstance(x, sympy.Add):
            return _fold([self._compile(a, env) for a in x.args], n_add, Fraction(0))
        if isinstance(x, sympy.Mul):
            return _fold([self._compile(a, env) for a in x.args], n_mul, Fraction(1))
        if isinstance(x, (Sum, Product)):
            parts = []

            def rec(k, env2):
                if k == len(x.limits):
                    parts.append(self._compile(x.function, env2))
                    return
                var, lo, hi = x.limits[k]
                a, b = self.int_value(lo, env2), self.int_value(hi, env2)
                if b - a > 64:
                    raise ModelError("a sum too long for a model")
                for i in range(a, b + 1):
                    rec(k + 1, {**env2, var: Fraction(i)})

            rec(0, env)
            return _fold(parts, n_add, Fraction(0)) if isinstance(x, Sum) else _fold(parts, n_mul, Fraction(1))
        if isinstance(x, sympy.Pow):
            return _apply([self._compile(a, env) for a in x.args], lambda b, e: n_pow(b, e))
        if isinstance(x, KroneckerDelta):
            return _apply([self._compile(a, env) for a in x.args], lambda a, b: Fraction(1 if a == b else 0))
        if isinstance(x, sympy.Function) or isinstance(x, (sympy.Abs, sympy.Max, sympy.Min)):
            return _apply([self._compile(a, env) for a in x.args], lambda *vals: num(x.func(*map(sym, vals))))
        raise ModelError(f"cannot evaluate {type(x).__name__} on a finite model")


def _fold(parts, op, unit):
    """Combine compiled parts with ``op`` (exact and commutative), constants folded first."""
    acc = unit
    fns = []
    for const, v in parts:
        if const:
            acc = op(acc, v)
        else:
            fns.append(v)
    if not fns:
        return True, acc

    def run(out):
        r = acc
        for f in fns:
            r = op(r, f(out))
        return r
    return False, run


def _apply(parts, fn):
    """``fn`` of compiled arguments: a constant when every argument is one."""
    if all(c for c, _ in parts):
        return True, fn(*[v for _, v in parts])
    getters = [(lambda out, v=v: v) if c else v for c, v in parts]
    return False, lambda out: fn(*[g(out) for g in getters])


def evaluate(expr, model: Model, decls: Decls, env: dict | None = None):
    """The exact value of ``expr`` on ``model`` (free indices given by ``env``)."""
    env = {k: (v if isinstance(v, Fraction) else Fraction(int(v))) for k, v in (env or {}).items()}
    return Evaluator(model, decls).ev(expr, env, None)


# ====================================================================== facts


def _index_syms(exprs, decls: Decls, extra=()):
    out = set(extra)
    for x in exprs:
        out |= {s for s in x.free_symbols if s in decls.index_ranges}
    return sorted(out, key=lambda s: s.name)


def assignments(syms, decls: Decls, model: Model, distinct=()):
    """Every assignment of the index symbols ``syms`` over their concrete ranges."""
    ranges = [_range_of(decls, s, model.dims, model.params) for s in syms]
    for vals in itertools.product(*ranges):
        env = dict(zip(syms, vals))
        if any(a in env and b in env and env[a] == env[b] for a, b in distinct):
            continue
        yield {s: Fraction(v) for s, v in env.items()}


def fact_free(f: EqFact, decls: Decls):
    return _index_syms([f.lhs, f.rhs], decls, f.free)


def _indep_sets(f: IndepFact, decls: Decls, model: Model, ev: Evaluator):
    """The sets of variables the fact declares mutually independent."""
    fam_keys = []
    for fam in f.families:
        for i in _range_of(decls, fam, model.dims, model.params):
            fam_keys.append((fam, i))
    free = _index_syms(list(f.members), decls, f.free)
    if not f.members:
        yield fam_keys
        return
    for env in assignments(free, decls, model, f.distinct):
        ks = list(fam_keys)
        for m in f.members:
            ks.extend(ev.keys(m, env))
        yield ks


def _mutually_independent(keys, model: Model) -> bool:
    uniq = list(dict.fromkeys(keys))
    if len(uniq) < len(keys):  # X ⟂ X: X must be constant
        for k in uniq:
            if keys.count(k) > 1 and len(model.marginal([k])) > 1:
                return False
    by_group: dict[int, list] = {}
    for k in uniq:
        if k not in model._where:
            raise ModelError(f"the model has no variable {key_name(k)}")
        by_group.setdefault(model._where[k][0], []).append(k)
    for ks in by_group.values():  # independent groups are independent: check inside groups
        if len(ks) < 2:
            continue
        joint = {tuple(d[k] for k in ks): p for d, p in model.marginal(ks)}
        margs = [model.marginal([k]) for k in ks]
        n = 1
        for m in margs:
            n *= len(m)
        if n > 50000:
            raise ModelError("independence check too large")
        for combo in itertools.product(*margs):
            pr = Fraction(1)
            for _, p in combo:
                pr *= p
            t = tuple(d[k] for k, (d, _) in zip(ks, combo))
            if joint.get(t, 0) != pr:
                return False
    return True


def satisfies(fact, model: Model, decls: Decls, ev: Evaluator | None = None) -> bool:
    """True only when the model is shown exactly to satisfy ``fact``."""
    ev = ev or Evaluator(model, decls)
    try:
        if isinstance(fact, IndepFact):
            return all(_mutually_independent(ks, model) for ks in _indep_sets(fact, decls, model, ev))
        rel = getattr(fact, "rel", "=")
        for env in assignments(fact_free(fact, decls), decls, model, fact.distinct):
            if holds_rel(ev.ev(fact.lhs, env, None), rel, ev.ev(fact.rhs, env, None)) is not True:
                return False
        return True
    except ModelError:
        return False


def violates(fact, model: Model, decls: Decls, ev: Evaluator | None = None) -> bool:
    """True only when the model is shown exactly to violate ``fact``."""
    ev = ev or Evaluator(model, decls)
    try:
        if isinstance(fact, IndepFact):
            return not all(_mutually_independent(ks, model) for ks in _indep_sets(fact, decls, model, ev))
        rel = getattr(fact, "rel", "=")
        for env in assignments(fact_free(fact, decls), decls, model, fact.distinct):
            if holds_rel(ev.ev(fact.lhs, env, None), rel, ev.ev(fact.rhs, env, None)) is False:
                return True
        return False
    except ModelError:
        return False


# ====================================================================== marginals
# A marginal is a tuple of (value, probability) sorted by value, probabilities > 0.


def _marg(pairs):
    d: dict = {}
    for v, p in pairs:
        if p != 0:
            d[v] = d.get(v, 0) + p
    return tuple(sorted(d.items(), key=lambda t: float(sym(t[0]))))


def _solve3(xs, m, s2):
    """Probabilities on support xs (3 points) with mean m, second moment s2.

    The linear system sum p = 1, sum p x = m, sum p x^2 = s2 solved exactly
    (Cramer's rule on Fractions; the Vandermonde matrix of distinct points is
    invertible)."""
    if not all(isinstance(v, Fraction) for v in (*xs, m, s2)) or len(set(xs)) != 3:
        return None
    rows = [[Fraction(1)] * 3, list(xs), [x * x for x in xs]]
    rhs = [Fraction(1), m, s2]

    def det(a):
        return (a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1]) - a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0])
                + a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0]))

    d = det(rows)
    ps = []
    for j in range(3):
        a = [[rhs[r] if c == j else rows[r][c] for c in range(3)] for r in range(3)]
        ps.append(det(a) / d)
    if any(p < 0 for p in ps):
        return None
    return _marg(zip(xs, ps))


def marginal_options(mean=None, var=None, fixed=None) -> list:
    """Small rational distributions with the required mean and variance (exact)."""
    try:
        return list(_options_cached(mean, var, fixed))
    except TypeError:  # unhashable
        return _options(mean, var, fixed)


@functools.lru_cache(maxsize=512)
def _options_cached(mean, var, fixed):
    return tuple(_options(mean, var, fixed))


def _options(mean=None, var=None, fixed=None) -> list:
    if fixed is not None:
        return [fixed]
    if var is not None and isinstance(var, Fraction) and var < 0:
        return []
    if mean is None and var is None:
        h, t = Fraction(1, 2), Fraction(1, 3)
        return [_marg([(Fraction(-1), h), (Fraction(1), h)]),
                _marg([(Fraction(0), h), (Fraction(1), h)]),
                _marg([(Fraction(-1), t), (Fraction(0), h), (Fraction(2), Fraction(1, 6))]),
                _marg([(Fraction(1), Fraction(1))]),
                _marg([(Fraction(-1), t), (Fraction(0), t), (Fraction(1), t)]),
                _marg([(Fraction(1), h), (Fraction(3), h)]),
                _marg([(Fraction(0), Fraction(1))]),
                _marg([(Fraction(-2), t), (Fraction(1), 2 * t)])]
    if var is None:
        out = []
        for v in (Fraction(1), Fraction(4), Fraction(2)):
            out.extend(_options(mean, v)[:2])
        out.append(_marg([(mean, Fraction(1))]))
        return out
    if mean is None:
        out = []
        for m in (Fraction(0), Fraction(1), Fraction(-1), Fraction(2)):
            out.extend(_options(m, var)[:2 if m == 0 else 1])
        return out
    m, v = mean, var
    if isinstance(v, Fraction) and v == 0:
        return [_marg([(m, Fraction(1))])]
    out = []
    s = None
    if isinstance(v, Fraction):
        p, q = _isqrt_exact(v.numerator), _isqrt_exact(v.denominator)
        if p is not None and q is not None:
            s = Fraction(p, q)
    if s is not None:  # m ± s, each with probability 1/2
        out.append(_marg([(n_add(m, -s), Fraction(1, 2)), (n_add(m, s), Fraction(1, 2))]))
    if isinstance(v, Fraction) and isinstance(m, Fraction):
        c = Fraction(max(1, math.ceil(math.sqrt(float(v)))))
        for shape in ((-1, 0, 2), (-2, 0, 1), (-1, 0, 1), (-2, 0, 2), (-1, 1, 3)):
            xs = [m + c * k for k in shape]
            mg = _solve3(xs, m, v + m * m)
            if mg is not None and mg not in out:
                out.append(mg)
        for a in (Fraction(1), Fraction(2)):  # two points m - a, m + v/a
            b = v / a
            mg = _marg([(m - a, b / (a + b)), (m + b, a / (a + b))])
            if mg not in out:
                out.append(mg)
    if s is None:  # irrational: m ± sqrt(v)
        r = n_sqrt(v)
        out.append(_marg([(n_add(m, num(-sym(r))), Fraction(1, 2)), (n_add(m, r), Fraction(1, 2))]))
    return out


def _symmetric3(mean, var):
    """A symmetric 3-point law around ``mean`` with a mass at the mean (for Y = f(X))."""
    m = mean if mean is not None else Fraction(0)
    if var is None:
        t = Fraction(1, 3)
        return _marg([(m - 1, t), (m, t), (m + 1, t)])
    if not isinstance(var, Fraction) or var <= 0 or not isinstance(m, Fraction):
        return None
    for a in (Fraction(1), Fraction(2), Fraction(3), Fraction(4)):
        p = var / (a * a)
        if 0 < p < 1:
            return _marg([(m - a, p / 2), (m, 1 - p), (m + a, p / 2)])
    return None


def _moments(mg):
    m = Fraction(0)
    for v, p in mg:
        m = n_add(m, n_mul(p, v))
    s = Fraction(0)
    for v, p in mg:
        d = n_add(v, num(-sym(m)))
        s = n_add(s, n_mul(p, n_mul(d, d)))
    return m, s


# ====================================================================== couplings


def _quantile_coupling(keys, margs, flips):
    """Comonotone coupling (a variable with flip=True runs in reverse order)."""
    seqs = [list(reversed(mg)) if fl else list(mg) for mg, fl in zip(margs, flips)]
    pos = [0] * len(seqs)
    left = [seq[0][1] for seq in seqs]
    rows = []
    while True:
        step = min(left)
        rows.append((tuple(seq[k][0] for seq, k in zip(seqs, pos)), step))
        done = False
        for j in range(len(seqs)):
            left[j] -= step
            if left[j] == 0:
                pos[j] += 1
                if pos[j] == len(seqs[j]):
                    done = True
                else:
                    left[j] = seqs[j][pos[j]][1]
        if done:
            break
    return Group(tuple(keys), rows)


def _product_group(keys, margs):
    rows = []
    for combo in itertools.product(*margs):
        pr = Fraction(1)
        for _, p in combo:
            pr *= p
        rows.append((tuple(v for v, _ in combo), pr))
    return Group(tuple(keys), rows)


def _perturbed_pair(x, y, mx, my, rng, keep_cov: bool):
    """A dependent joint law of (x, y) with the given marginals (and Cov = 0 if asked)."""
    if len(mx) < 2 or len(my) < 2:
        return None
    table = {(a, b): pa * pb for a, pa in mx for b, pb in my}
    xs, ys = [v for v, _ in mx], [v for v, _ in my]

    def rect():
        i1, i2 = rng.sample(range(len(xs)), 2)
        j1, j2 = rng.sample(range(len(ys)), 2)
        return (xs[i1], xs[i2], ys[j1], ys[j2])

    def apply(t, r, eps):
        a1, a2, b1, b2 = r
        for (a, b, s) in ((a1, b1, 1), (a2, b2, 1), (a1, b2, -1), (a2, b1, -1)):
            t[(a, b)] = t[(a, b)] + s * eps

    def cov_of(r):
        a1, a2, b1, b2 = r
        return n_mul(n_add(a1, num(-sym(a2))), n_add(b1, num(-sym(b2))))

    r1 = rect()
    if keep_cov:
        if len(xs) < 3 and len(ys) < 3:
            return None
        r2 = rect()
        c1, c2 = cov_of(r1), cov_of(r2)
        if not (isinstance(c1, Fraction) and isinstance(c2, Fraction)) or c1 == 0 or c2 == 0 or r1 == r2:
            return None
        weights = [(r1, Fraction(1)), (r2, -c1 / c2)]
    else:
        weights = [(r1, Fraction(1))]
    eps = min(table.values()) / 4
    for _ in range(6):
        t = dict(table)
        for r, w in weights:
            apply(t, r, eps * w)
        if all(v >= 0 for v in t.values()) and t != table:
            return Group((x, y), [((a, b), p) for (a, b), p in t.items() if p != 0])
        eps /= 2
    return None


def _functional_pair(x, y, tx, ty, decls: Decls):
    """x symmetric around its mean, y = a (x - m)^2 + b: uncorrelated yet dependent."""
    mx_t, vx_t = tx
    mg = _symmetric3(mx_t, vx_t)
    if mg is None:
        return None
    m, v = _moments(mg)
    sq = [(n_mul(n_add(a, num(-sym(m))), n_add(a, num(-sym(m)))), p) for a, p in mg]
    m2, v2 = _moments(sq)
    if v2 == 0:
        return None
    my_t, vy_t = ty
    alpha = Fraction(1) if vy_t is None else n_sqrt(n_mul(vy_t, Fraction(1) / v2 if isinstance(v2, Fraction) else num(1 / sym(v2))))
    shift = n_add(my_t if my_t is not None else Fraction(0), num(-sym(n_mul(alpha, m2))))
    rows = []
    for (a, p), (s, _) in zip(mg, sq):
        rows.append(((a, n_add(n_mul(alpha, s), shift)), p))
    X = sympy.Symbol(key_name(x))
    expr = sym(alpha) * (X - sym(m)) ** 2 + sym(shift)
    desc = f"{key_name(y)} = {show(sympy.expand(expr))}"
    return Group((x, y), rows, desc=desc)


# ====================================================================== search context


@dataclass
class Witness:
    text: str
    model: Model
    satisfies: list
    violates: list
    lhs_value: object
    rhs_value: object
    assignment: dict
    lhs_text: str = ""
    rhs_text: str = ""

    def __bool__(self):
        return True


@dataclass
class NotFound:
    reason: str
    tried: int = 0

    def __bool__(self):
        return False


def _dim_syms(decls: Decls, exprs, families=()):
    """Dimension symbols (integers) and deterministic parameters the expressions depend on."""
    syms = set()
    fams = set(families)
    for x in exprs:
        syms |= x.free_symbols
        fams |= {a.base.label.name for a in x.atoms(Indexed)}
    bounds = [decls.family_ranges[f] for f in fams if f in decls.family_ranges]
    bounds += [decls.index_ranges[s] for s in list(syms) if s in decls.index_ranges]
    for lo, hi in bounds:
        for b in (lo, hi):
            if isinstance(b, sympy.Basic):
                syms |= b.free_symbols
    dims, params = [], []
    for s in syms:
        if not isinstance(s, Symbol) or s in decls.index_ranges or s in decls.random_symbols:
            continue
        if isinstance(s, sympy.Dummy) or s.name in decls.family_ranges:
            continue
        (dims if s.is_integer else params).append(s)
    return sorted(dims, key=lambda s: s.name), sorted(params, key=lambda s: s.name)


def mentions(fact, decls: Decls) -> set:
    """Names of the random variables and families a fact is about."""
    if isinstance(fact, IndepFact):
        out = set(fact.families)
        xs = list(fact.members)
    else:
        out = set()
        xs = [fact.lhs, fact.rhs]
    for x in xs:
        out |= {a.base.label.name for a in x.atoms(Indexed) if a.base.label.name in decls.random_families}
        out |= {s.name for s in x.free_symbols if s in decls.random_symbols}
    return out


def related(facts: dict, exprs, kept: dict, decls: Decls) -> dict:
    """The facts (label -> list) about some random variable of ``exprs`` or of the ``kept`` facts."""
    names = set()
    for x in exprs:
        names |= mentions(EqFact("", x, sympy.Integer(0)), decls)
    for fs in kept.values():
        for f in fs:
            names |= mentions(f, decls)
    return {lab: fs for lab, fs in facts.items() if any(mentions(f, decls) & names for f in fs)}


def _dim_values(s):
    if s.is_positive:
        return [1, 2, 3]
    if s.is_nonnegative:
        return [1, 2, 3, 0]
    return [1, 2, 3, 0, -1]


def _param_values(s):
    if s.is_positive:
        return [Fraction(1), Fraction(2), Fraction(1, 2), Fraction(3)]
    if s.is_nonnegative:
        return [Fraction(1), Fraction(0), Fraction(2)]
    return [Fraction(1), Fraction(2), Fraction(-1), Fraction(0), Fraction(1, 2)]


def _dim_assignments(dims, exprs=(), decls: Decls | None = None):
    """Small values for the dimension symbols, keeping every literal index in range.

    A claim about ``q_2`` says nothing when ``n = 1`` (there is no ``q_2``), so such
    dimension values are never used for a counterexample.
    """
    combos = list(itertools.product(*[_dim_values(d) for d in dims]))
    combos.sort(key=lambda c: (sum(abs(v) for v in c), c))
    out = []
    for c in combos:
        dmap = dict(zip(dims, c))
        if decls is None or _literal_indices_in_range(exprs, decls, dmap):
            out.append(dmap)
        if len(out) >= MAX_DIM_ASSIGNMENTS:
            break
    return out


def _literal_indices_in_range(exprs, decls: Decls, dmap) -> bool:
    for x in exprs:
        if not isinstance(x, sympy.Basic):
            continue
        for ix in x.atoms(Indexed):
            rng = decls.family_ranges.get(ix.base.label.name)
            if rng is None:
                continue
            lo, hi = (sympy.Integer(v).xreplace(dmap) if isinstance(v, int) else v.xreplace(dmap) for v in rng)
            lo = sympy.Integer(lo) if isinstance(lo, int) else lo
            hi = sympy.Integer(hi) if isinstance(hi, int) else hi
            for a in ix.indices:
                if a.is_Integer and lo.is_Integer and hi.is_Integer and not (lo <= a <= hi):
                    return False
    return True


def _rv_atom_key(a, env, ev: Evaluator, decls: Decls):
    if isinstance(a, Symbol) and a in decls.random_symbols:
        return a
    if isinstance(a, Indexed) and a.base.label.name in decls.random_families:
        return (a.base.label.name, ev.int_value(a.indices[0], env))
    return None


class _Ctx:
    """Everything fixed once dimensions are chosen: variables, targets, options."""

    def __init__(self, decls, dims, params, facts, exprs_envs, fixed, extra=()):
        self.decls = decls
        self.skel = Model(dims=dims, params=params)
        ev = Evaluator(self.skel, decls)
        keys: dict = {}
        for x, env in exprs_envs:
            for k in ev.keys(x, env, deep=True):
                keys[k] = None
        self.mean: dict = {}
        self.var: dict = {}
        self.second: dict = {}
        self.uncorr: set = set()
        self.apart: set = set()  # pairs a kept independence fact separates: never drawn in one group
        self.bad = False
        for f in list(facts) + list(extra):
            if isinstance(f, IndepFact):
                kept = any(f is g for g in facts)
                for ks in _indep_sets(f, decls, self.skel, ev):
                    for k in ks:
                        keys[k] = None
                    if kept:
                        self.apart |= {frozenset(p) for p in itertools.combinations(dict.fromkeys(ks), 2)}
                continue
            for env in assignments(fact_free(f, decls), decls, self.skel, f.distinct):
                for side in (f.lhs, f.rhs):
                    for k in ev.keys(side, env, deep=True):
                        keys[k] = None
                if any(f is g for g in facts) and getattr(f, "rel", "=") == "=":  # kept equations are targets
                    self._target(f.lhs, f.rhs, env, ev)
                    self._target(f.rhs, f.lhs, env, ev)
        self.keys = list(keys)
        if len(self.keys) > MAX_VARIABLES:
            raise ModelError(f"more than {MAX_VARIABLES} random variables at these dimensions")
        self.fixed = {}
        for k in self.keys:
            nm = k[0] if isinstance(k, tuple) else str(k)
            if nm in fixed:
                self.fixed[k] = fixed[nm]
        self.options = {}
        for k in self.keys:
            m, v = self.mean.get(k), self.var.get(k)
            if k in self.second:
                s2 = self.second[k]
                if m is not None and v is None:
                    v = n_add(s2, num(-sym(n_mul(m, m))))
                elif m is None and v is None:
                    m, v = Fraction(0), s2
            self.options[k] = marginal_options(m, v, self.fixed.get(k))
            if not self.options[k]:
                self.bad = True
        self.targets = {k: (self.mean.get(k), self.var.get(k)) for k in self.keys}

    def _target(self, a, b, env, ev):
        try:
            val = ev.ev(b, env, None)
        except ModelError:
            return
        if isinstance(a, Cov):
            k1, k2 = (_rv_atom_key(x, env, ev, self.decls) for x in a.args)
            if k1 is not None and k2 is not None and val == 0:
                self.uncorr.add(frozenset((k1, k2)))
            return
        if not isinstance(a, (E, Var, SD)):
            return
        arg = a.args[0]
        k = _rv_atom_key(arg, env, ev, self.decls)
        if isinstance(a, E) and k is None and isinstance(arg, sympy.Pow) and arg.args[1] == 2:
            k2 = _rv_atom_key(arg.args[0], env, ev, self.decls)
            if k2 is not None:
                self.second[k2] = val
            return
        if k is None:
            return
        table = self.mean if isinstance(a, E) else self.var
        if isinstance(a, SD):
            val = n_mul(val, val)
        if k in table and n_eq(table[k], val) is False:
            self.bad = True
        table[k] = val

    # -------------------------------------------------------------- candidates
    def with_params(self, rng=None):
        params = dict(self.skel.params)
        for fam in sorted(set(self.decls.family_ranges) - set(self.decls.random_families)):
            try:
                rg = _range_of(self.decls, fam, self.skel.dims, params)
            except ModelError:
                continue
            for i in rg:
                vals = [Fraction(1), Fraction(2), Fraction(-1), Fraction(0), Fraction(1, 2)]
                params.setdefault((fam, i), rng.choice(vals) if rng else vals[(i - 1) % len(vals)])
        return params

    def build(self, groups, params):
        return Model(dims=dict(self.skel.dims), params=params, groups=groups)

    def candidates(self, rng: random.Random, randomized: bool):
        keys = self.keys
        params = self.with_params(None if not randomized else rng)
        if not keys:
            yield self.build([], params)
            return
        nopt = max(len(v) for v in self.options.values())
        if not randomized:
            for o in range(nopt):
                margs = {k: self.options[k][min(o, len(self.options[k]) - 1)] for k in keys}
                yield from self._structured(margs, params, rng)
            return
        while True:
            margs = {k: rng.choice(self.options[k]) for k in keys}
            if randomized and rng.random() < 0.3:
                yield self.build([Group((k,), [((v,), p) for v, p in margs[k]]) for k in keys], params)
                continue
            yield self._random_grouping(margs, params, rng)

    def _singletons(self, margs, keys):
        return [Group((k,), [((v,), p) for v, p in margs[k]]) for k in keys]

    def _structured(self, margs, params, rng):
        keys = self.keys
        yield self.build(self._singletons(margs, keys), params)
        # index-aligned groups: (q_1, k_1), (q_2, k_2), ...
        by_index: dict = {}
        for k in keys:
            if isinstance(k, tuple):
                by_index.setdefault(k[1], []).append(k)
        if any(len(v) > 1 for v in by_index.values()):
            for flip in (False, True):
                groups, used = [], set()
                for i, ks in by_index.items():
                    if len(ks) > 1:
                        groups.append(_quantile_coupling(ks, [margs[k] for k in ks],
                                                         [flip and j % 2 == 1 for j in range(len(ks))]))
                        used |= set(ks)
                groups += self._singletons(margs, [k for k in keys if k not in used])
                yield self.build(groups, params)
        pairs = list(itertools.combinations(keys, 2))[:40]
        for x, y in pairs:
            for flip in (False, True):
                g = _quantile_coupling([x, y], [margs[x], margs[y]], [False, flip])
                yield self.build([g] + self._singletons(margs, [k for k in keys if k not in (x, y)]), params)
        for x, y in pairs:
            for a, b in ((x, y), (y, x)):
                if a in self.fixed or b in self.fixed:
                    continue
                g = _functional_pair(a, b, self.targets[a], self.targets[b], self.decls)
                if g is not None:
                    yield self.build([g] + self._singletons(margs, [k for k in keys if k not in (x, y)]), params)
        if len(keys) > 2:
            yield self.build([_quantile_coupling(keys, [margs[k] for k in keys], [False] * len(keys))], params)

    def _random_grouping(self, margs, params, rng):
        keys = list(self.keys)
        rng.shuffle(keys)
        groups = []
        i = 0
        while i < len(keys):
            size = rng.choice([1, 1, 2, 2, 3])
            ks = keys[i:i + size]
            i += size
            if any(frozenset(p) in self.apart for p in itertools.combinations(ks, 2)):
                ks = ks[:1]  # a kept independence fact would reject this group: draw it alone
                i -= size - 1
            if len(ks) == 1:
                groups += self._singletons(margs, ks)
                continue
            r = rng.random()
            g = None
            if len(ks) == 2 and r < 0.4:
                keep = frozenset(ks) in self.uncorr
                g = _perturbed_pair(ks[0], ks[1], margs[ks[0]], margs[ks[1]], rng, keep)
            elif len(ks) == 2 and r < 0.55 and not (set(ks) & set(self.fixed)):
                g = _functional_pair(ks[0], ks[1], self.targets[ks[0]], self.targets[ks[1]], self.decls)
            if g is None:
                g = _quantile_coupling(ks, [margs[k] for k in ks], [rng.random() < 0.5 for _ in ks])
            groups.append(g)
        return self.build(groups, params)


# ====================================================================== rendering


def render_model(model: Model, decls: Decls) -> str:
    parts = [f"{d} = {v}" for d, v in sorted(model.dims.items(), key=lambda t: t[0].name)]
    for k, v in sorted(model.params.items(), key=lambda t: key_name(t[0])):
        parts.append(f"{key_name(k)} = {show_value(v)}")

    def order(k):
        nm = k[0] if isinstance(k, tuple) else str(k)
        return (decls.order.get(nm, 10**6), k[1] if isinstance(k, tuple) else 0, nm)

    groups = sorted(model.groups, key=lambda g: min(order(k) for k in g.vars) if g.vars else (0,))
    singles: dict = {}
    texts = []
    for g in groups:
        if len(g.vars) == 1:
            mg = tuple((vals[0], p) for vals, p in g.rows)
            singles.setdefault(_marg(mg), []).append(g.vars[0])
            continue
        g_vars = sorted(g.vars, key=order)
        perm = [g.vars.index(k) for k in g_vars]
        if g.desc:
            x = [k for k in g_vars if not g.desc.startswith(key_name(k) + " =")]
            xm = _marg([(vals[g.vars.index(x[0])], p) for vals, p in g.rows]) if len(x) == 1 else None
            if xm is not None:
                texts.append((order(g_vars[0]), f"{key_name(x[0])} = {_law(xm)}; {g.desc}"))
                continue
        rows: dict = {}
        for vals, p in g.rows:
            t = tuple(vals[j] for j in perm)
            rows[t] = rows.get(t, 0) + p
        names = "(" + ", ".join(key_name(k) for k in g_vars) + ")"
        vals = ["(" + ", ".join(show_value(v) for v in t) + ")" for t in rows]
        texts.append((order(g_vars[0]), f"{names} = {_alternatives(vals, list(rows.values()))}"))
    for mg, ks in singles.items():
        ks = sorted(ks, key=order)
        if len(ks) == 1:
            texts.append((order(ks[0]), f"{key_name(ks[0])} = {_law(mg)}"))
        else:
            texts.append((order(ks[0]), ", ".join(key_name(k) for k in ks) + f" independent, each {_law(mg, True)}"))
    texts.sort(key=lambda t: t[0])
    parts += [t for _, t in texts]
    if len(texts) > 1:
        parts.append("these independent of each other")
    return "; ".join(p for p in parts if p)


def _law(mg, each=False) -> str:
    if len(mg) == 1:
        return show_value(mg[0][0])
    return _alternatives([show_value(v) for v, _ in mg], [p for _, p in mg], each)


def _alternatives(vals, probs, each=False) -> str:
    if len(vals) == 1:
        return vals[0]
    alts = ", ".join(vals[:-1]) + " or " + vals[-1]
    if all(p == probs[0] for p in probs):
        if each:
            return f"{alts} with probability {show_value(probs[0])}"
        return f"{alts}, each with probability {show_value(probs[0])}"
    return f"{alts} with probabilities " + ", ".join(show_value(p) for p in probs)


# ====================================================================== the finder


def _flatten(facts: dict) -> list:
    return [f for fs in facts.values() for f in fs]


def find_counterexample(lhs, rhs, decls: Decls, keep: dict, drop: dict | None = None, *, free=(),
                        seconds: float = 2.0, seed: int = 0, fixed: dict | None = None,
                        claim: str = "the step claims", rel: str = "=") -> Witness | NotFound:
    """A finite model satisfying every fact in ``keep`` in which ``lhs REL rhs`` is false.

    ``free``: index symbols of the claim (the claim is for every value, so one
    value suffices).  ``drop``: facts left out (reported as violated when the
    model violates them).  ``fixed``: variable or family name -> marginal
    (for finite declared distributions).  Deterministic for a given seed.
    """
    drop = drop or {}
    deadline = time.monotonic() + seconds
    rng = random.Random(seed)
    kept = _flatten(keep)
    dropped = _flatten(drop)
    free = _index_syms([lhs, rhs], decls, free)
    exprs = [lhs, rhs] + [x for f in kept + dropped if not isinstance(f, IndepFact) for x in (f.lhs, f.rhs)]
    exprs += [m for f in kept + dropped if isinstance(f, IndepFact) for m in f.members]
    dims, params = _dim_syms(decls, exprs, [fam for f in kept + dropped if isinstance(f, IndepFact)
                                            for fam in f.families])
    tried = 0
    notes = []
    dim_list = _dim_assignments(dims, exprs, decls)
    param_choices = list(itertools.product(*[_param_values(p) for p in params]))[:6] or [()]
    plan = [(d, dict(zip(params, pc))) for pc in param_choices for d in dim_list]
    per = max(seconds / max(len(plan), 1), 0.05)
    rounds = [False, True]  # structured candidates first, then random ones
    for randomized in rounds:
        for dmap, pmap in plan:
            if time.monotonic() > deadline:
                return NotFound(f"time limit of {seconds:g} s reached after {tried} candidate models", tried)
            try:
                skel = Model(dims=dmap, params=pmap)
                envs = list(assignments(free, decls, skel))
                ctx = _Ctx(decls, dmap, pmap, kept, [(x, e) for e in envs for x in (lhs, rhs)], fixed or {},
                           extra=dropped)
            except ModelError as e:
                notes.append(str(e))
                continue
            if ctx.bad:
                continue
            sub_end = min(deadline, time.monotonic() + (per if randomized else seconds))
            for model in ctx.candidates(rng, randomized):
                if time.monotonic() > sub_end or tried >= MAX_CANDIDATES:
                    break
                tried += 1
                w = _try(model, lhs, rhs, decls, keep, drop, envs, claim, deadline, rel)
                if w is not None:
                    return w
            if tried >= MAX_CANDIDATES:
                return NotFound(f"{MAX_CANDIDATES} candidate models tried (the size limit)", tried)
    extra = f"; {notes[0]}" if notes else ""
    return NotFound(f"dimensions {', '.join(str(d) for d in dims) or '(none)'} in 1..3, supports of at most 3 "
                    f"points, {tried} candidate models, {seconds:g} s{extra}", tried)


def _try(model, lhs, rhs, decls, keep, drop, envs, claim, deadline, rel="="):
    ev = Evaluator(model, decls, deadline)
    try:
        for env in envs:
            lv, rv = ev.ev(lhs, env, None), ev.ev(rhs, env, None)
            if holds_rel(lv, rel, rv, need_true=False) is not False:
                continue
            if not all(satisfies(f, model, decls, ev) for f in _flatten(keep)):
                return None
            # re-check from scratch (fresh evaluator, no caches) before reporting
            fresh = Evaluator(Model(dims=model.dims, params=model.params, groups=model.groups), decls)
            if not all(satisfies(f, fresh.m, decls, fresh) for f in _flatten(keep)):
                return None
            if holds_rel(fresh.ev(lhs, env, None), rel, fresh.ev(rhs, env, None), need_true=False) is not False:
                return None
            return _witness(model, lhs, rhs, decls, keep, drop, env, lv, rv, claim, rel)
    except ModelError:
        return None
    return None


def _witness(model, lhs, rhs, decls, keep, drop, env, lv, rv, claim, rel="="):
    sub = {s: sympy.Integer(int(v)) for s, v in env.items()}
    ltext = show(lhs.xreplace(sub), decls)
    rinst = rhs.xreplace(sub)
    rtext = show(rinst, decls)
    rnum = rinst.xreplace({d: sympy.Integer(v) for d, v in model.dims.items()}).xreplace(
        {p: sym(v) for p, v in model.params.items() if isinstance(p, Symbol)})
    sat = list(keep)
    vio = [lab for lab, fs in drop.items() if any(violates(f, model, decls) for f in fs)]
    lines = [render_model(model, decls)]
    tail = []
    if sat:
        tail.append("satisfies " + ", ".join(sat))
    if vio:
        tail.append("violates " + ", ".join(vio))
    if tail:
        lines.append("  " + "; ".join(tail))
    if rel != "=":
        lines.append(f"  {ltext} = {show_value(lv)} and {rtext} = {show_value(rv)}, but {claim} "
                     f"{ltext} {REL_TEXT.get(rel, rel)} {rtext}")
    elif rnum.is_number:
        same = rtext == show_value(rv)
        lines.append(f"  {ltext} = {show_value(lv)}, but {claim} {rtext}" + ("" if same else f" = {show_value(rv)}"))
    else:
        lines.append(f"  {ltext} = {show_value(lv)}, but {rtext} = {show_value(rv)}")
    return Witness("\n".join(lines), model, sat, vio, lv, rv, {str(s): int(v) for s, v in env.items()},
                   ltext, rtext)


def random_models(decls: Decls, facts: dict, n: int = 3, seed: int = 0, *, exprs=(), seconds: float = 0.3,
                  fixed: dict | None = None) -> list:
    """Up to ``n`` random finite models satisfying every fact (dimensions 1..3).

    ``exprs``: expressions whose random variables the models must contain.
    Every returned model has been checked exactly against every fact.
    """
    deadline = time.monotonic() + seconds
    rng = random.Random(seed)
    flat = _flatten(facts)
    allx = list(exprs) + [x for f in flat if not isinstance(f, IndepFact) for x in (f.lhs, f.rhs)]
    allx += [m for f in flat if isinstance(f, IndepFact) for m in f.members]
    dims, params = _dim_syms(decls, allx, [fam for f in flat if isinstance(f, IndepFact) for fam in f.families])
    dim_list = _dim_assignments(dims, allx, decls)
    rng.shuffle(dim_list)
    out = []
    free_all = _index_syms(list(exprs), decls)
    for k in range(max(n * 4, 8)):
        if len(out) >= n or time.monotonic() > deadline:
            break
        dmap = dim_list[k % len(dim_list)] if dim_list else {}
        pmap = {p: rng.choice(_param_values(p)) for p in params}
        try:
            skel = Model(dims=dmap, params=pmap)
            envs = list(assignments(free_all, decls, skel))
            ctx = _Ctx(decls, dmap, pmap, flat, [(x, e) for e in envs for x in exprs], fixed or {})
        except ModelError:
            continue
        if ctx.bad:
            continue
        gen = ctx.candidates(rng, True)
        for _ in range(30):
            if time.monotonic() > deadline:
                break
            model = next(gen)
            if all(satisfies(f, model, decls) for f in flat):
                out.append(model)
                break
    return out
