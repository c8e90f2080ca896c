"""Models and their exact evaluation.

A :class:`Model` fixes the dimensions, the deterministic parameters and a
finite joint law of the random variables (independent :class:`Group` s of
jointly distributed variables).  :class:`Evaluator` computes the exact value
of an expression on a model with its own code: enumerate outcomes, sum
probability times value.  It never calls the kernel.  :func:`satisfies` and
:func:`violates` decide facts exactly on one model.
"""
from __future__ import annotations

import itertools
import time
from dataclasses import dataclass, field
from fractions import Fraction

import sympy
from sympy import Indexed, KroneckerDelta, Product, Sum, Symbol

from ..terms.facts import Decls, EqFact, IndepFact  # IneqFact: any fact with ``rel`` is read generically
from ..terms.functions import function_of
from ..terms.objects import SD, Cov, E, FamilyExtremum, Var
from .numbers import ModelError, holds_rel, n_add, n_cmp, n_mul, n_pow, n_sqrt, num, sym
from .ranges import count, index_range, unit
from .render import key_name, show

MAX_OUTCOMES = 4096  # outcomes of one marginal table


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
    return index_range(a, b)


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
        if isinstance(x, FamilyExtremum):
            return _extreme(x.kind, [self.ev(m, env, out) for m in self._members(x, env)])
        if isinstance(x, sympy.Derivative):
            raise ModelError("derivatives are evaluated before a model is drawn")
        row = function_of(x)
        if isinstance(x, sympy.Function) or row is not None:
            return _function_value(x, row, [self.ev(a, env, out) for a in x.args])
        raise ModelError(f"cannot evaluate {type(x).__name__} on a finite model")

    def _members(self, x, env) -> list:
        """The members ``s_lo, ..., s_hi`` of the family of ``max(s)`` / ``min(s)``."""
        base, lo, hi = x.args[0], self.int_value(x.args[1], env), self.int_value(x.args[2], env)
        if count(lo, hi) == 0:
            raise ModelError(f"{x.kind} of an empty family")
        if count(lo, hi) > 65:
            raise ModelError("a family too long for a model")
        return [base[sympy.Integer(i)] for i in index_range(lo, hi)]

    def big(self, x, env, out):
        body = x.function
        # sympy's nested form lists the innermost limit first: the outer ones are bound first (Σ_{i=1..n}
        # Σ_{j=1..i}: j's range reads i)
        ranges = list(reversed(x.limits))

        def rec(k, env2):
            if k == len(ranges):
                return [self.ev(body, env2, out)]
            var, lo, hi = ranges[k]
            a, b = self.int_value(lo, env2), self.int_value(hi, env2)
            if count(a, b) > 65:
                raise ModelError("a sum too long for a model")
            vals = []
            for i in index_range(a, b):  # empty when b < a: the language's convention
                vals.extend(rec(k + 1, {**env2, var: Fraction(i)}))
            return vals

        vals = rec(0, env)
        acc = num(unit(x))  # an empty sum is 0, an empty product 1
        for v in vals:
            acc = n_add(acc, v) if isinstance(x, Sum) else n_mul(acc, v)
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
            limits = list(reversed(x.limits))  # the outermost first (see ``big``)

            def rec(k, env2):
                if k == len(limits):
                    self._keys(x.function, env2, acc, deep)
                    return
                var, lo, hi = limits[k]
                a, b = self.int_value(lo, env2), self.int_value(hi, env2)
                if count(a, b) > 65:
                    raise ModelError("a sum too long for a model")
                for i in index_range(a, b):
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

            limits = list(reversed(x.limits))  # the outermost first (see ``big``)

            def rec(k, env2):
                if k == len(limits):
                    parts.append(self._compile(x.function, env2))
                    return
                var, lo, hi = limits[k]
                a, b = self.int_value(lo, env2), self.int_value(hi, env2)
                if count(a, b) > 65:
                    raise ModelError("a sum too long for a model")
                for i in index_range(a, b):
                    rec(k + 1, {**env2, var: Fraction(i)})

            rec(0, env)
            return _fold(parts, n_add if isinstance(x, Sum) else n_mul, num(unit(x)))
        if isinstance(x, sympy.Pow):
            return _apply([self._compile(a, env) for a in x.args], lambda b, e: n_pow(b, e))
        if isinstance(x, KroneckerDelta):
            return _apply([self._compile(a, env) for a in x.args], lambda a, b: Fraction(1 if a == b else 0))
        if isinstance(x, FamilyExtremum):
            kind = x.kind
            return _apply([self._compile(m, env) for m in self._members(x, env)], lambda *vals: _extreme(kind, vals))
        if isinstance(x, sympy.Derivative):
            raise ModelError("derivatives are evaluated before a model is drawn")
        row = function_of(x)
        if isinstance(x, sympy.Function) or row is not None:
            return _apply([self._compile(a, env) for a in x.args], lambda *vals: _function_value(x, row, vals))
        raise ModelError(f"cannot evaluate {type(x).__name__} on a finite model")


def _function_value(x, row, vals):
    """The exact value of the function application ``x`` at the values ``vals``
    of its arguments, as its ``row`` of the function table says
    (:mod:`stepcheck.terms.functions`): by default sympy's own exact evaluation
    (``tanh(0) = 0``; ``tanh(1)`` stays an exact number).  A function outside
    the table (``row`` None) is evaluated the default way."""
    if row is None or row.exact is True:
        return num(x.func(*map(sym, vals)))
    if row.exact is False:
        raise ModelError(f"`{row.name}` has no exact value on a finite model")
    return num(row.exact(*map(sym, vals)))


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


def _extreme(kind: str, vals):
    """The largest (``max``) or smallest value, compared exactly (undecided: no value)."""
    best = vals[0]
    for v in vals[1:]:
        c = n_cmp(v, best)
        if c is None:
            raise ModelError(f"cannot compare {v} and {best} exactly")
        if (c > 0 and kind == "max") or (c < 0 and kind == "min"):
            best = v
    return best


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
    """For each instance of the fact's free indices, its blocks: lists of keys whose joint laws must
    multiply (``q ⟂ k``: all of q, all of k; otherwise one block per variable)."""
    def fam_keys(fam):
        return [(fam, i) for i in _range_of(decls, fam, model.dims, model.params)]

    if f.blocks and not f.free:
        blocks = []
        for blk in f.blocks:
            ks = []
            for b in blk:
                ks.extend(fam_keys(b) if isinstance(b, str) else ev.keys(b, {}))
            blocks.append(ks)
        yield blocks
        return
    singles = [[k] for fam in f.families for k in fam_keys(fam)]
    free = _index_syms(list(f.members), decls, f.free)
    if not f.members:
        yield singles
        return
    for env in assignments(free, decls, model, f.distinct):
        yield singles + [[k] for m in f.members for k in ev.keys(m, env)]


def _independent_blocks(blocks, model: Model) -> bool:
    """The joint law of the blocks' variables is the product of the blocks' joint laws (exactly)."""
    where: dict[int, dict[int, list]] = {}  # group -> block -> keys (independent groups are independent)
    for b_i, blk in enumerate(blocks):
        for k in dict.fromkeys(blk):
            if k not in model._where:
                raise ModelError(f"the model has no variable {key_name(k)}")
            where.setdefault(model._where[k][0], {}).setdefault(b_i, []).append(k)
    for parts in where.values():
        if len(parts) < 2:
            continue
        parts = list(parts.values())
        margs = [model.marginal(ks) for ks in parts]
        n = 1
        for m in margs:
            n *= len(m)
        if n > 50000:
            raise ModelError("independence check too large")
        allk = [k for ks in parts for k in ks]
        joint: dict = {}
        for d, p in model.marginal(allk):
            t = tuple(tuple(d[k] for k in ks) for ks in parts)
            joint[t] = joint.get(t, 0) + p
        for combo in itertools.product(*margs):
            pr = Fraction(1)
            for _, p in combo:
                pr *= p
            t = tuple(tuple(d[k] for k in ks) for ks, (d, _) in zip(parts, combo))
            if joint.get(t, 0) != pr:
                return False
    return True


def satisfies(fact, model: Model, decls: Decls, ev: Evaluator | None = None) -> bool:
    """True only when the model is shown exactly to satisfy ``fact``."""
    ev = ev or Evaluator(model, decls)
    try:
        if isinstance(fact, IndepFact):
            return all(_independent_blocks(bs, model) for bs in _indep_sets(fact, decls, model, ev))
        rel = getattr(fact, "rel", "=")
        for env in assignments(fact_free(fact, decls), decls, model, fact.distinct):
            if not all(r is True for r in _almost_surely(fact, rel, env, model, ev)):
                return False
        return True
    except ModelError:
        return False


def _almost_surely(fact, rel, env, model: Model, ev: Evaluator):
    """``holds_rel`` of the fact's two sides; where a random variable is in them outside every moment
    (``Y > 0``: almost surely), on each outcome of the model's law of those variables."""
    keys = list(dict.fromkeys(ev.keys(fact.lhs, env) + ev.keys(fact.rhs, env)))
    if not keys:
        yield holds_rel(ev.ev(fact.lhs, env, None), rel, ev.ev(fact.rhs, env, None))
        return
    for outcome, p in model.marginal(keys):
        if p != 0:
            yield holds_rel(ev.ev(fact.lhs, env, outcome), rel, ev.ev(fact.rhs, env, outcome))


def violates(fact, model: Model, decls: Decls, ev: Evaluator | None = None) -> bool:
    """True only when the model is shown exactly to violate ``fact``."""
    ev = ev or Evaluator(model, decls)
    try:
        if isinstance(fact, IndepFact):
            return not all(_independent_blocks(bs, model) for bs in _indep_sets(fact, decls, model, ev))
        rel = getattr(fact, "rel", "=")
        for env in assignments(fact_free(fact, decls), decls, model, fact.distinct):
            if any(r is False for r in _almost_surely(fact, rel, env, model, ev)):
                return True
        return False
    except ModelError:
        return False
