"""Proving one link and attributing it to a minimal set of assumptions.

``prove_link`` is the kernel's only way to say ``holds``.  Contract:

* input: two sympy expressions built by the elaborator, the declarations,
  and the candidate facts grouped by label (assumptions, cited steps);
* ``holds`` only when, for every equality pattern of the free indices,
  ``lhs - rhs`` normalises (``normal.py``) and reduces modulo the facts
  (``reduce.py``) to exactly 0;
* ``fails`` only when the residual contains no random quantity and is a
  nonzero number, or is nonzero at an admissible value of the dimension
  symbols at which the facts are still consistent (the witness is given);
* otherwise ``unknown`` with the residual.  Limits give ``unknown``.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import sympy
from sympy import Indexed, Integer, Symbol

from .calculus import sign_proof
from .context import Deadline, Decls, EqFact, IndepFact, KernelLimit, Limits
from .normal import Normalizer, Term, Trace, _expand
from .objects import DSum, E
from .reduce import Inconsistent, has_atoms, reduce_modulo


@dataclass
class Attempt:
    holds: bool
    residual: sympy.Expr
    trace: Trace


@dataclass
class Outcome:
    status: str  # "holds" | "fails" | "unknown"
    used: list[str] = field(default_factory=list)  # labels, minimal
    weakest: dict = field(default_factory=dict)  # label -> weakest-form text
    ranges: list = field(default_factory=list)  # free index symbols whose range was needed
    rules: list[str] = field(default_factory=list)
    residual: sympy.Expr | None = None
    message: str | None = None
    witness: str | None = None
    signs: list = field(default_factory=list)  # symbols whose declared sign an inequality used


def _set_partitions(items):
    if not items:
        yield []
        return
    first, rest = items[0], items[1:]
    for part in _set_partitions(rest):
        yield [[first]] + part
        for k in range(len(part)):
            yield part[:k] + [[first] + part[k]] + part[k + 1:]


def free_indices(exprs, decls: Decls) -> list:
    out = set()
    for x in exprs:
        out |= {s for s in x.free_symbols if s in decls.index_ranges}
    return sorted(out, key=lambda s: s.name)


class LinkProver:
    def __init__(self, decls: Decls, facts: dict, limits: Limits | None = None):
        """``facts``: label -> list of IndepFact / EqFact."""
        self.decls = decls
        self.facts = facts
        self.limits = limits or Limits()
        self._inst_cache: dict = {}

    # ---------------------------------------------------------------- one attempt
    def attempt(self, lhs, rhs, labels, ranges, deadline, rel: str = "=") -> Attempt:
        free = free_indices([lhs, rhs] + [f.lhs - f.rhs for lab in labels for f in self.facts[lab]
                                          if isinstance(f, EqFact) and not f.free], self.decls)
        if len(free) > self.limits.max_free_indices:
            raise KernelLimit(f"more than {self.limits.max_free_indices} free indices in one link")
        trace = Trace()
        indep = [f for lab in labels for f in self.facts[lab] if isinstance(f, IndepFact)]
        eqs = [f for lab in labels for f in self.facts[lab] if isinstance(f, EqFact)]
        residual = Integer(0)
        holds = True
        for part in _set_partitions(free):
            sub = {s: blk[0] for blk in part for s in blk[1:]}
            reps = tuple(sorted((blk[0] for blk in part), key=lambda s: s.name))
            l, r = (lhs.xreplace(sub), rhs.xreplace(sub)) if sub else (lhs, rhs)
            nz = Normalizer(self.decls, indep, reps, frozenset(ranges) & set(reps), self.limits, deadline)
            d = self.normal_difference(nz, l, r, eqs)
            trace.merge(nz.trace)
            if rel == "=":
                ok = d == 0
            else:
                # l < r  <=>  r - l > 0 ;  l > r  <=>  l - r > 0
                g = -d if rel in ("<", "<=") else d
                ok, signs = sign_proof(g, strict=rel in ("<", ">"))
                if ok:
                    trace.rules.add("inequality")
                    trace.signs |= signs
                else:
                    d = g
            if not ok:
                holds = False
                residual = d
                break
        return Attempt(holds, residual, trace)

    def normal_difference(self, nz: Normalizer, lhs, rhs, eqs) -> sympy.Expr:
        if eqs:
            nz.reducer = lambda n, ts: self.reduce_terms(n, ts, eqs)
        ts = nz.terms(lhs) + [Term(-t.coeff, t.bounds) for t in nz.terms(rhs)]
        d = self.reduce_terms(nz, ts, eqs)
        if d != 0 and d.has(sympy.Pow):
            n, _ = sympy.fraction(sympy.together(d))
            if _expand(n) == 0:
                return Integer(0)
        return d

    def reduce_terms(self, nz: Normalizer, ts, eqs) -> sympy.Expr:
        """Collect terms into a normal form, applying the equation facts."""
        if not eqs:
            return nz.collect(ts)
        red = []
        # quantified facts inside sums: reduce each summand in its own index world
        qeqs = [f for f in eqs if f.free]
        for t in ts:
            if qeqs and t.bounds and has_atoms(t.coeff):
                c = nz.resolve_deltas(t.coeff, t.bounds)
                inst = self.instances(nz, qeqs, c, t.bounds)
                if inst:
                    c2 = _expand(reduce_modulo(c, inst))
                    if c2 != _expand(c):
                        nz.trace.rules.add("facts")
                    c = c2
                red.append(Term(c, t.bounds))
            else:
                red.append(t)
        d = nz.collect(red)
        if d == 0 or not has_atoms(d) and not d.free_symbols:
            return d
        inst = self.instances(nz, eqs, d, ())
        if inst:
            d2 = _expand(reduce_modulo(d, inst))
            if d2 != d:
                nz.trace.rules.add("facts")
            d = d2
        return d

    def instances(self, nz: Normalizer, eqs, expr, bounds) -> list:
        """Fact polynomials instantiated at the indices in play, normalised."""
        vals = set(nz.free) | {b for (b, _, _) in bounds}
        for ix in expr.atoms(Indexed):
            vals |= {a for a in ix.indices if a.is_Symbol or a.is_Integer}
        vals = sorted(vals, key=sympy.default_sort_key)
        out = []
        saved, saved_reducer, saved_trace = nz.enclosing, nz.reducer, nz.trace
        nz.enclosing = list(bounds)
        nz.reducer = None  # facts are normalised structurally, never by other facts
        nz.trace = Trace()  # rules used to read a fact are not the link's rules
        try:
            for f in eqs:
                base = f.lhs - f.rhs
                choices = []
                for p in f.free:
                    rng = self.decls.index_ranges.get(p)
                    choices.append([v for v in vals if nz.in_range(v, rng, bounds)])
                for combo in itertools.product(*choices):
                    asg = dict(zip(f.free, combo))
                    if any(nz.distinct(asg[a], asg[b], bounds) is not True for (a, b) in f.distinct
                           if a in asg and b in asg):
                        continue
                    key = (id(f), tuple(combo), tuple(bounds), nz.free, nz.range_ok, tuple(id(x) for x in nz.indep))
                    got = self._inst_cache.get(key)
                    if got is None:
                        got = nz.expr(base.xreplace(asg) if asg else base)
                        self._inst_cache[key] = got
                    if got != 0:
                        out.append(got)
        finally:
            nz.enclosing, nz.reducer, nz.trace = saved, saved_reducer, saved_trace
        return out

    # ---------------------------------------------------------------- attribution
    def prove(self, lhs, rhs, candidates: list[str], rel: str = "=") -> Outcome:
        lhs, rhs = _as_expr(lhs), _as_expr(rhs)
        deadline = Deadline(self.limits.seconds)
        free = free_indices([lhs, rhs], self.decls)
        ranges = list(free)
        try:
            full = self.attempt(lhs, rhs, candidates, ranges, deadline, rel)
        except Inconsistent:
            return Outcome("unknown", message="the assumptions in scope contradict each other; nothing is proved from them")
        except KernelLimit as e:
            return Outcome("unknown", message=str(e))
        if not full.holds:
            return self.judge_failure(lhs, rhs, candidates, full, deadline, rel)
        used = list(candidates)
        used_ranges = list(ranges)
        try:
            for lab in candidates:
                trial = [x for x in used if x != lab]
                if self.attempt(lhs, rhs, trial, used_ranges, deadline, rel).holds:
                    used = trial
            for rg in ranges:
                trial = [x for x in used_ranges if x != rg]
                if self.attempt(lhs, rhs, used, trial, deadline, rel).holds:
                    used_ranges = trial
            final = self.attempt(lhs, rhs, used, used_ranges, deadline, rel)
        except (KernelLimit, Inconsistent):
            # the full proof stands; attribution could not be minimised in time
            return Outcome("holds", used=list(candidates), ranges=ranges, rules=sorted(full.trace.rules),
                           message="attribution not minimised (limit reached): all candidates listed")
        assert final.holds
        weakest = {}
        for lab, forms in final.trace.indep.items():
            if lab in used and forms and "" not in forms:
                weakest[lab] = ", ".join(sorted(forms))
        return Outcome("holds", used=used, weakest=weakest,
                       ranges=[r for r in used_ranges if r in final.trace.ranges],
                       rules=sorted(final.trace.rules), signs=sorted(final.trace.signs, key=str))

    def judge_failure(self, lhs, rhs, candidates, full: Attempt, deadline, rel: str = "=") -> Outcome:
        res = full.residual
        rules = sorted(full.trace.rules)
        what = "difference of the two sides does not reduce to 0" if rel == "=" else \
            "sign of the difference could not be established"
        if has_atoms(res) or res.atoms(Indexed) or any(s in self.decls.random_symbols for s in res.free_symbols) \
                or res.has(sympy.Sum):
            return Outcome("unknown", residual=res, rules=rules, message=f"not proved: the {what}")

        def violated(v) -> bool:
            if not v.is_number or v.has(sympy.zoo, sympy.nan) or v.is_real is False:
                return False
            if rel == "=":
                return v != 0
            return bool(v.is_negative) if rel in ("<=", ">=") else bool(v.is_nonpositive)

        if res.is_number:
            if violated(res):
                return Outcome("fails", residual=res, rules=rules,
                               message=f"the two sides differ by {res}" if rel == "=" else
                               f"the claimed inequality is false: the margin is {res}")
        syms = sorted(res.free_symbols, key=lambda s: s.name)
        if 0 < len(syms) <= 3:
            for vals in itertools.product(*[_trial_values(s) for s in syms]):
                sub = dict(zip(syms, vals))
                try:
                    v = res.xreplace(sub)
                except (ZeroDivisionError, ValueError):
                    continue
                if violated(v) and self._consistent_at(candidates, sub):
                    w = ", ".join(f"{s} = {x}" for s, x in sub.items())
                    return Outcome("fails", residual=res, rules=rules, witness=w,
                                   message=f"at {w} the two sides differ by {v}" if rel == "=" else
                                   f"at {w} the inequality is false (margin {v})")
        return Outcome("unknown", residual=res, rules=rules, message=f"not proved: the {what}")

    def _consistent_at(self, candidates, sub) -> bool:
        polys = []
        for lab in candidates:
            for f in self.facts[lab]:
                if isinstance(f, EqFact) and not f.free:
                    try:
                        polys.append(_expand((f.lhs - f.rhs).xreplace(sub)))
                    except Exception:
                        return False
        from .reduce import basis_of
        try:
            basis_of(polys)
        except Inconsistent:
            return False
        return True


def _as_expr(x):
    if isinstance(x, int):
        return Integer(x)
    if not isinstance(x, sympy.Basic):
        raise TypeError(f"the kernel takes sympy expressions, not {type(x).__name__}")
    return x


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
    return [Integer(0), Integer(1), Integer(-1), Integer(2)]


def check_consistency(decls: Decls, facts: dict, limits: Limits | None = None) -> list[str] | None:
    """Labels whose facts contradict each other (None when no contradiction is seen).

    Looks for equation facts that generate the unit ideal (e.g. Var(X) = 1 and
    Var(X) = 2), and for a variance, second moment or SD set to a negative
    number.
    """
    from .objects import SD, Var

    labels = list(facts)
    nz = Normalizer(decls, [f for lab in labels for f in facts[lab] if isinstance(f, IndepFact)], (), frozenset(), limits)
    polys, owners = [], []
    for lab in labels:
        for f in facts[lab]:
            if not isinstance(f, EqFact):
                continue
            for side, other in ((f.lhs, f.rhs), (f.rhs, f.lhs)):
                if isinstance(side, (Var, SD)) or (isinstance(side, E) and isinstance(side.args[0], sympy.Pow)
                                                     and side.args[0].exp.is_even):
                    if other.is_number and other.is_extended_negative:
                        return [lab]
            try:
                p = nz.expr(f.lhs - f.rhs)
            except KernelLimit:
                continue
            polys.append(p)
            owners.append(lab)
    try:
        from .reduce import basis_of
        basis_of(polys)
    except Inconsistent:
        # find a small culprit set by dropping labels greedily
        culprit = list(dict.fromkeys(owners))
        for lab in list(culprit):
            trial = [p for p, o in zip(polys, owners) if o in culprit and o != lab]
            try:
                basis_of(trial)
            except Inconsistent:
                culprit.remove(lab)
        return culprit
    return None
