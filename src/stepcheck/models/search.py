"""The counterexample finder and random models of facts.

:func:`find_counterexample` looks for a finite model of the kept facts in
which the claim is false (structured candidates first, then random ones;
deterministic for a given seed, bounded in time and size), re-checks it from
scratch and describes it as a :class:`Witness`; :func:`random_models` draws
models of a set of facts for the soundness cross-check.
"""
from __future__ import annotations

import itertools
import math
import random
import time
from dataclasses import dataclass
from fractions import Fraction

import sympy
from sympy import Indexed, Symbol

from ..terms.definitions import with_definitions
from ..terms.facts import Decls, EqFact, IndepFact
from ..terms.objects import SD, Cov, E, Var
from .evaluate import (
    Evaluator,
    Group,
    Model,
    _index_syms,
    _indep_sets,
    _range_of,
    assignments,
    fact_free,
    satisfies,
    violates,
)
from .marginals import _functional_pair, _perturbed_pair, _quantile_coupling, marginal_options
from .numbers import ModelError, _marg, holds_rel, n_add, n_eq, n_mul, num, sym
from .render import render_model, show, show_value

MAX_VARIABLES = 12  # random variables in one model (after unrolling families)
MAX_CANDIDATES = 4000  # candidate models tried per search
MAX_DIM_ASSIGNMENTS = 27
REL_TEXT = {"<=": "≤", ">=": "≥", "!=": "≠"}


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
    """Small values of an integer symbol.  A plain integer also takes -1 and -2: a range ``1..m``
    is empty for m <= 0, and sympy's reversed-range sums differ from the empty sum only from
    ``hi <= lo - 2`` on (models/ranges.py), so a counterexample needs m = -2 to show it."""
    if s.is_positive:
        return [1, 2, 3]
    if s.is_nonnegative:
        return [1, 2, 3, 0]
    return [1, 2, 3, 0, -1, -2]


def _param_values(s):
    if s.is_positive:
        return [Fraction(1), Fraction(2), Fraction(1, 2), Fraction(3)]
    if s.is_nonnegative:
        return [Fraction(1), Fraction(0), Fraction(2)]
    return [Fraction(1), Fraction(2), Fraction(-1), Fraction(0), Fraction(1, 2)]


def _preferred(params, prefer):
    """The parameter values of ``prefer`` (rational numbers, in each parameter's declared sign; the others
    at their first usual value), or None."""
    out = []
    for p in params:
        v = prefer.get(p)
        if v is None:
            out.append(_param_values(p)[0])
            continue
        if not getattr(v, "is_Rational", False):
            return None
        f = Fraction(int(v.p), int(v.q))
        if (p.is_positive and f <= 0) or (p.is_nonnegative and f < 0):
            return None
        out.append(f)
    return tuple(out)


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

    def __init__(self, decls, dims, params, facts, exprs_envs, fixed, extra=(), memo: dict | None = None):
        """``memo``: the random variables of each (expression, environment) at these dimensions, shared by
        the contexts of one search (they differ in their parameters only; a sum's range is in dimensions)."""
        self.decls = decls
        self.skel = Model(dims=dims, params=params)
        ev = Evaluator(self.skel, decls)
        keys: dict = {}
        memo = {} if memo is None else memo
        at = tuple(dims.items())
        for x, env in exprs_envs:
            mk = (x, tuple(env.items()), at)
            if mk not in memo:
                memo[mk] = ev.keys(x, env, deep=True)
            for k in memo[mk]:
                keys[k] = None
        self.mean: dict = {}
        self.var: dict = {}
        self.ends: dict = {}  # key -> [lower, upper] from kept bounds on the variable itself
        self.second: dict = {}
        self.uncorr: set = set()
        self.apart: set = set()  # pairs a kept independence fact separates: never drawn in one group
        self.blocks: list = []  # blocks of kept block facts (q ⟂ k: all of q): candidates couple them
        self.bad = False
        for f in list(facts) + list(extra):
            if isinstance(f, IndepFact):
                kept = any(f is g for g in facts)
                for blocks in _indep_sets(f, decls, self.skel, ev):
                    for k in (k for blk in blocks for k in blk):
                        keys[k] = None
                    if kept:  # variables of different blocks are never drawn in one group
                        self.apart |= {frozenset((x, y)) for b1, b2 in itertools.combinations(blocks, 2)
                                       for x in b1 for y in b2 if x != y}
                        self.blocks += [list(dict.fromkeys(blk)) for blk in blocks if len(set(blk)) > 1]
                continue
            for env in assignments(fact_free(f, decls), decls, self.skel, f.distinct):
                for side in (f.lhs, f.rhs):
                    for k in ev.keys(side, env, deep=True):
                        keys[k] = None
                if any(f is g for g in facts) and getattr(f, "rel", "=") == "=":  # kept equations are targets
                    self._target(f.lhs, f.rhs, env, ev)
                    self._target(f.rhs, f.lhs, env, ev)
                elif any(f is g for g in facts) and getattr(f, "rel", "=") in ("<", "<=", ">", ">="):
                    self._bound(f, env, ev)  # a <= A <= b: the law at the two ends is tried first
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
            lo, hi = self.ends.get(k, (None, None))
            if m is None and v is None and k not in self.fixed and lo is not None and hi is not None and lo < hi:
                # the ends, each with probability 1/2 (the largest variance, (hi - lo)^2/4), then one end alone
                self.options[k] = [_marg([(lo, Fraction(1, 2)), (hi, Fraction(1, 2))]),
                                   _marg([(lo, Fraction(1))])] + self.options[k]
            if not self.options[k]:
                self.bad = True
        self.targets = {k: (self.mean.get(k), self.var.get(k)) for k in self.keys}

    def _bound(self, f, env, ev):
        """Record ``A >= lo`` / ``A <= hi`` (a random variable alone on one side, a number on the other)."""
        for a, b, up in ((f.lhs, f.rhs, f.rel in ("<", "<=")), (f.rhs, f.lhs, f.rel in (">", ">="))):
            k = _rv_atom_key(a, env, ev, self.decls)
            if k is None:
                continue
            try:
                val = ev.ev(b, env, None)
            except ModelError:
                return
            if not isinstance(val, Fraction):
                return
            ends = self.ends.setdefault(k, [None, None])
            j = 1 if up else 0
            ends[j] = val if ends[j] is None else (min(ends[j], val) if up else max(ends[j], val))
            return

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
            yield from self._coupled(list(by_index.values()), margs, params)
        # each block of a block fact coupled inside (q_1 = q_2 = ... where the laws agree), the blocks apart
        blocks = [b for b in self.blocks if not (set(b) & set(self.fixed))]
        if blocks:
            yield from self._coupled(blocks, margs, params)
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

    def _coupled(self, sets, margs, params):
        """Two models: each set of variables one comonotone group (then with every other one flipped),
        the rest independent singletons; a variable goes to the first set that lists it."""
        keys = self.keys
        for flip in (False, True):
            groups, used = [], set()
            for ks in sets:
                ks = [k for k in dict.fromkeys(ks) if k not in used]
                if len(ks) > 1:
                    groups.append(_quantile_coupling(ks, [margs[k] for k in ks],
                                                     [flip and j % 2 == 1 for j in range(len(ks))]))
                    used |= set(ks)
            groups += self._singletons(margs, [k for k in keys if k not in used])
            yield self.build(groups, params)

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


# ====================================================================== the finder


def _flatten(facts: dict) -> list:
    return [f for fs in facts.values() for f in fs]


def find_counterexample(lhs, rhs, decls: Decls, keep: dict, drop: dict | None = None, *, free=(),
                        seconds: float = 2.0, seed: int = 0, fixed: dict | None = None,
                        claim: str = "the step claims", rel: str = "=", prefer=None) -> Witness | NotFound:
    """A finite model satisfying every fact in ``keep`` in which ``lhs REL rhs`` is false.

    ``free``: index symbols of the claim (the claim is for every value, so one
    value suffices).  ``drop``: facts left out (reported as violated when the
    model violates them).  ``fixed``: variable or family name -> marginal
    (for finite declared distributions).  ``prefer``: symbol -> value, the parameter and dimension values
    tried first (where a residual is not 0).  Deterministic for a given seed.
    """
    drop = drop or {}
    deadline = time.monotonic() + seconds
    rng = random.Random(seed)
    if not drop:  # u_i = 2 q_i + 3: a model of q, extended by u (chance would never draw that coupling)
        taken = frozenset(fixed or ()) | {s for s in decls.random_symbols if s.name in (fixed or {})}
        lhs, rhs, keep = with_definitions(lhs, rhs, keep, decls, taken)
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
    param_choices = list(itertools.islice(itertools.product(*[_param_values(p) for p in params]), 6)) or [()]
    if prefer:
        first = _preferred(params, prefer)
        param_choices = ([first] if first is not None else []) + [c for c in param_choices if c != first]
        dim_list.sort(key=lambda d: any(k in prefer and prefer[k] != v for k, v in d.items()))
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
    if dims and not dim_list:  # no small dimensions keep every literal index in range (q_5 needs n >= 5)
        return []
    rng.shuffle(dim_list)
    out = []
    free_all = _index_syms(list(exprs), decls)
    # parameter values: every combination of the small values when there are few (an equation
    # between reals such as c^2 + s^2 = 1 is met by few of them), else random choices
    few = math.prod(len(_param_values(p)) for p in params) <= 64  # not listed when they are many
    if few:
        combos = list(itertools.product(*[_param_values(p) for p in params])) if params else [()]
        rng.shuffle(combos)
        pmaps = [dict(zip(params, c)) for c in combos]
    else:
        pmaps = None
    tries = max(n * 4, 8, len(pmaps) if pmaps else 0)
    contexts: dict = {}  # (dimensions, parameters) -> _Ctx: tries cycle through few dimension choices
    memo: dict = {}  # _Ctx's random variables per expression, shared across parameters
    for k in range(tries):
        if len(out) >= n or time.monotonic() > deadline:
            break
        dmap = dim_list[k % len(dim_list)] if dim_list else {}
        pmap = pmaps[k % len(pmaps)] if pmaps else {p: rng.choice(_param_values(p)) for p in params}
        ckey = (tuple(dmap.items()), tuple(pmap.items()))
        if ckey not in contexts:
            try:
                skel = Model(dims=dmap, params=pmap)
                envs = list(assignments(free_all, decls, skel))
                contexts[ckey] = _Ctx(decls, dmap, pmap, flat, [(x, e) for e in envs for x in exprs], fixed or {},
                                      memo=memo)
            except ModelError:
                contexts[ckey] = None  # the same dimensions and parameters fail the same way: never built again
        ctx = contexts[ckey]
        if ctx is None or ctx.bad:
            continue
        gen = ctx.candidates(rng, True)
        for _ in range(30):
            if time.monotonic() > deadline:
                break
            model = next(gen, None)
            if model is None:  # no more candidates for these dimensions and parameters
                break
            if all(satisfies(f, model, decls) for f in flat):
                out.append(model)
                break
    return out
