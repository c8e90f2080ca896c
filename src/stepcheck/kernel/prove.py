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
from collections import ChainMap
from dataclasses import dataclass, field

import sympy
from sympy import Indexed, Integer, Symbol

from .calculus import REALS, Iv, sign_proof, symbol_domain
from ..terms.facts import Deadline, Decls, EqFact, IndepFact, IneqFact, KernelLimit, Limits
from .normal import Normalizer, Term, Trace, _expand
from ..terms.objects import SD, Cov, DSum, E, Var, is_canon_bound
from .reduce import Inconsistent, has_atoms, reduce_modulo


@dataclass
class Attempt:
    holds: bool
    residual: sympy.Expr
    trace: Trace
    case: tuple = ()  # the free indices (pairwise distinct) of the case that failed


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
    witness_value: object = None  # lhs - rhs (or the inequality's margin) at the witness
    limited: bool = False  # a resource limit was hit (the outcome is not the whole story)


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
        self._sum_cache: dict = {}  # Normalizer.sum_cache, shared by every attempt (decls are fixed)

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
            nz.sum_cache = self._sum_cache
            d = self.normal_difference(nz, l, r, eqs)
            trace.merge(nz.trace)
            if rel == "=":
                ok = d == 0
            else:
                # l < r  <=>  r - l > 0 ;  l > r  <=>  l - r > 0
                g = -d if rel in ("<", "<=") else d
                ineqs = [f for lab in labels for f in self.facts[lab] if isinstance(f, IneqFact)]
                ok, signs = sign_proof(g, strict=rel in ("<", ">"), domain=_refined_domain(ineqs))
                if ok:
                    trace.rules.add("inequality")
                    trace.signs |= signs
                else:
                    d = g
            if not ok:
                holds = False
                residual = d
                return Attempt(holds, residual, trace, reps)
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
                    # keyed on the fact objects themselves (kept alive by the cache), never on id()
                    key = (f, tuple(combo), tuple(bounds), nz.free, nz.range_ok, tuple(nz.indep))
                    got = self._inst_cache.get(key)
                    if got is None:
                        b = base.xreplace(asg) if asg else base
                        got = [nz.expr(b)]
                        if got[0].has(DSum) and not bounds:
                            # a fact about a sum S: also S * fact, because the normal form of S^2
                            # is expanded (diagonal + off-diagonal) and no longer contains S
                            side = _as_expr(f.lhs).xreplace(asg) if asg else _as_expr(f.lhs)
                            try:
                                got.append(nz.expr(b * side))
                            except KernelLimit:
                                pass
                        self._inst_cache[key] = got
                    out.extend(g for g in got if g != 0)
        finally:
            nz.enclosing, nz.reducer, nz.trace = saved, saved_reducer, saved_trace
        return out

    # ---------------------------------------------------------------- attribution
    def prove(self, lhs, rhs, candidates: list[str], rel: str = "=") -> Outcome:
        lhs, rhs = _as_expr(lhs), _as_expr(rhs)  # a TypeError here is the caller's bug: not caught
        try:
            return self._prove(lhs, rhs, candidates, rel)
        except RecursionError:
            return Outcome("unknown", message="the expression is nested too deeply for the kernel", limited=True)
        except (ArithmeticError, ValueError, TypeError, AttributeError, NotImplementedError) as e:
            # sympy failed somewhere inside: never a verdict from a crash
            return Outcome("unknown", message=f"the kernel could not finish ({type(e).__name__}: {e})",
                           limited=True)

    def _prove(self, lhs, rhs, candidates: list[str], rel: str = "=") -> Outcome:
        lhs, rhs = _as_expr(lhs), _as_expr(rhs)
        deadline = Deadline(self.limits.seconds)
        free = free_indices([lhs, rhs], self.decls)
        ranges = list(free)
        try:
            bare = self.attempt(lhs, rhs, [], ranges, deadline, rel) if candidates else None
            if bare is not None and bare.holds:
                full, used = bare, []  # holds from nothing: no fact is needed
            else:
                full = self.attempt(lhs, rhs, candidates, ranges, deadline, rel)
                used = list(candidates)
        except Inconsistent:
            return Outcome("unknown", message="the assumptions in scope contradict each other; nothing is proved from them")
        except KernelLimit as e:
            return Outcome("unknown", message=str(e), limited=True)
        if not full.holds:
            return self.judge_failure(lhs, rhs, candidates, full, deadline, rel)
        used_ranges = list(ranges)
        final = full  # always the attempt under exactly (used, used_ranges): its trace is the proof's
        try:
            for lab in (candidates if used else []):
                trial = [x for x in used if x != lab]
                a = self.attempt(lhs, rhs, trial, used_ranges, deadline, rel)
                if a.holds:
                    used, final = trial, a
            for rg in ranges:
                trial = [x for x in used_ranges if x != rg]
                a = self.attempt(lhs, rhs, used, trial, deadline, rel)
                if a.holds:
                    used_ranges, final = trial, a
        except (KernelLimit, Inconsistent):
            # the full proof stands; attribution could not be minimised in time
            return Outcome("holds", used=list(used), ranges=ranges, rules=sorted(full.trace.rules),
                           message="attribution not minimised (limit reached): all candidates listed",
                           limited=True)
        assert final.holds
        weakest = {}
        for lab, forms in final.trace.indep.items():
            if lab in used and forms and "" not in forms:
                weakest[lab] = ", ".join(sorted(forms))
        for lab in used:
            if lab not in weakest:
                w = self._weaker_uncorrelated(lhs, rhs, lab, used, used_ranges, deadline, rel)
                if w:
                    weakest[lab] = w
        return Outcome("holds", used=used, weakest=weakest,
                       ranges=[r for r in used_ranges if r in final.trace.ranges],
                       rules=sorted(final.trace.rules), signs=sorted(final.trace.signs, key=str))

    def _weaker_uncorrelated(self, lhs, rhs, lab, used, ranges, deadline, rel) -> str | None:
        """Does `Cov(q_i k_i, q_j k_j) = 0 for i != j` suffice where `independent(q, k)` was used?"""
        facts = self.facts.get(lab, [])
        if len(facts) != 1 or not isinstance(facts[0], IndepFact) or facts[0].members or len(facts[0].families) < 1:
            return None
        fams = facts[0].families
        rngs = {self.decls.family_ranges.get(f) for f in fams}
        if len(rngs) != 1 or None in rngs:
            return None
        lo, hi = rngs.pop()
        i, j = Symbol("_wi", integer=True), Symbol("_wj", integer=True)
        added = {i: (lo, hi), j: (lo, hi)}
        gi = sympy.Mul(*[sympy.IndexedBase(f, real=True)[i] for f in fams])
        gj = gi.xreplace({i: j})
        wlab = f"{lab} (weakened)"
        saved = self.facts
        # a local overlay: the caller's fact table is never written to
        self.facts = ChainMap({wlab: [EqFact(wlab, Cov(gi, gj), Integer(0), free=(i, j), distinct=((i, j),))]},
                              saved)
        self.decls.index_ranges.update(added)
        try:
            ok = self.attempt(lhs, rhs, [x for x in used if x != lab] + [wlab], ranges, deadline, rel).holds
        except (KernelLimit, Inconsistent):
            ok = False
        finally:
            self.facts = saved
            for k in added:
                self.decls.index_ranges.pop(k, None)
        if not ok:
            return None
        prod = lambda x: " ".join(f"{f}_{x}" for f in fams)
        return f"Cov({prod('i')}, {prod('j')}) = 0 for i ≠ j"

    def judge_failure(self, lhs, rhs, candidates, full: Attempt, deadline, rel: str = "=") -> Outcome:
        res = full.residual
        rules = sorted(full.trace.rules)
        what = "difference of the two sides does not reduce to 0" if rel == "=" else \
            "sign of the difference could not be established"
        random = res.has(E) or any(self.decls.is_rv(x) for x in res.atoms(Indexed) | res.free_symbols)
        if random or res.has(sympy.Sum):
            return Outcome("unknown", residual=res, rules=rules, message=f"not proved: the {what}")

        def violated(v) -> bool:
            if not v.is_number or v.has(sympy.zoo, sympy.nan) or v.is_real is False:
                return False
            if rel == "=":
                return v != 0
            return bool(v.is_negative) if rel in ("<=", ">=") else bool(v.is_nonpositive)

        if res.has(DSum) or res.atoms(Indexed):
            w = self._concrete_witness(res, full.case, candidates, violated)
            if w is not None:
                text, v = w
                return Outcome("fails", residual=res, rules=rules, witness=text, witness_value=v,
                               message=f"at {text} the two sides differ by {v}" if rel == "=" else
                               f"at {text} the inequality is false (margin {v})")
            return Outcome("unknown", residual=res, rules=rules, message=f"not proved: the {what}")
        if res.is_number:
            if violated(res):
                return Outcome("fails", residual=res, rules=rules,
                               message=f"the two sides differ by {res}" if rel == "=" else
                               f"the claimed inequality is false: the margin is {res}")
        syms = sorted(res.free_symbols, key=lambda s: (s in self.decls.index_ranges, s.name))
        if 0 < len(syms) <= 3:
            for sub in self._trial_assignments(syms):
                try:
                    v = res.xreplace(sub)
                except (ZeroDivisionError, ValueError):
                    continue
                if violated(v) and self._consistent_at(candidates, sub):
                    w = ", ".join(f"{s} = {x}" for s, x in sub.items())
                    return Outcome("fails", residual=res, rules=rules, witness=w, witness_value=v,
                                   message=f"at {w} the two sides differ by {v}" if rel == "=" else
                                   f"at {w} the inequality is false (margin {v})")
        return Outcome("unknown", residual=res, rules=rules, message=f"not proved: the {what}")

    def _concrete_witness(self, res, case, candidates, violated):
        """Try small concrete values for a deterministic residual with sums and indexed reals.

        Every sum is unrolled exactly; the value is decided with 30-digit
        arithmetic only when it is clearly away from 0.
        """
        labels = {ix.base.label for ix in res.atoms(Indexed)}
        plain = {s for s in res.free_symbols if isinstance(s, Symbol) and s not in labels and not is_canon_bound(s)}
        dims = sorted({s for s in plain if s.is_integer and s.is_positive and s not in case}, key=lambda s: s.name)
        reals = sorted({s for s in plain if s not in case and s not in dims and not s.is_integer},
                       key=lambda s: s.name)
        if any(s.is_integer and s not in case and s not in dims for s in plain):
            return None
        if len(dims) > 1 or len(reals) > 2:
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
        for nval in range(max(k, 1), max(k, 1) + 3):
            for rvals in itertools.product(*[_trial_values(r)[:3] for r in reals]):
                for pattern in (0, 1):
                    sub = {d: Integer(nval) for d in dims}
                    sub.update({c: Integer(t + 1) for t, c in enumerate(case)})
                    sub.update(dict(zip(reals, rvals)))
                    try:
                        if not all(self._fact_holds_at(f, sub, pattern) for f in det_facts):
                            continue  # the trial values violate a cited fact
                        if not all(_ineq_holds_at(f, sub) for f in ineq_facts):
                            continue
                        v = _unroll(res.xreplace(sub), pattern)
                    except (KernelLimit, ValueError, TypeError, ZeroDivisionError):
                        continue
                    if v is None:
                        continue
                    num = v.evalf(30)
                    if not num.is_number or num.has(sympy.zoo, sympy.nan):
                        continue
                    if rel_away(num) and violated(num if abs(num) > 1e-20 else Integer(0)):
                        parts = [f"{s} = {x}" for s, x in sub.items()]
                        fams = sorted({str(ix.base.label) for ix in res.atoms(Indexed)})
                        for fam in fams:
                            parts.append(f"{fam}_m = " + ("m - 1" if pattern == 0 else "1 for m = 1, else 0"))
                        return ", ".join(parts), sympy.N(v, 6)
        return None

    def _fact_holds_at(self, f: EqFact, sub, pattern) -> bool:
        """Does a deterministic fact hold at concrete values (every instance of its indices)?"""
        body = (f.lhs - f.rhs).xreplace(sub)
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
            inst = body.xreplace(asg).doit() if body.has(sympy.Sum) else body.xreplace(asg)
            v = _unroll(inst, pattern).evalf(30)
            if not v.is_number or not (v == 0 or abs(v) < 1e-25):
                return False
        return True

    def _trial_assignments(self, syms):
        """Small admissible values: indices inside their declared (concrete) ranges."""
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
                        polys.append(_expand((f.lhs - f.rhs).xreplace(sub)))
                    except Exception:
                        return False
        from .reduce import basis_of
        try:
            basis_of(polys)
        except Inconsistent:
            return False
        return True


def _ineq_holds_at(f: IneqFact, sub) -> bool:
    """Whether an inequality fact (without free indices) holds at concrete values; unknown counts as no."""
    if f.free:
        return False
    v = (_as_expr(f.lhs) - _as_expr(f.rhs)).xreplace(sub)
    if not v.is_number or v.has(sympy.zoo, sympy.nan):
        return False
    return {"<": v.is_negative, "<=": v.is_nonpositive, ">": v.is_positive, ">=": v.is_nonnegative,
            "!=": v.is_nonzero}.get(f.rel, False) is True


def _refined_domain(ineqs):
    """Symbol domains narrowed by facts such as `x > 0` (used by inequality proofs)."""
    refined = {}
    for f in ineqs:
        if f.free:
            continue
        lhs, rhs, rel = _as_expr(f.lhs), _as_expr(f.rhs), f.rel
        if rhs.is_Symbol and lhs.is_number:
            lhs, rhs = rhs, lhs
            rel = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}.get(rel, rel)
        if not (lhs.is_Symbol and rhs.is_number and rhs.is_real):
            continue
        iv = {">": Iv(rhs, sympy.oo, True, True), ">=": Iv(rhs, sympy.oo, False, True),
              "<": Iv(-sympy.oo, rhs, True, True), "<=": Iv(-sympy.oo, rhs, True, False)}.get(rel)
        if iv is not None and (lhs not in refined or refined[lhs] is REALS):
            refined[lhs] = iv

    def domain(s, used):
        if s in refined:
            return refined[s]
        return symbol_domain(s, used)

    return domain


def rel_away(num) -> bool:
    """A 30-digit value far enough from 0 (or exactly 0) to be trusted."""
    return num == 0 or abs(num) > 1e-20


def _unroll(x, pattern: int):
    """Evaluate DSums with concrete bounds; indexed reals get pattern values."""
    def val(ix):
        m = ix.indices[0]
        if not m.is_Integer:
            raise ValueError("symbolic index")
        return Integer(int(m) - 1) if pattern == 0 else Integer(1 if int(m) == 1 else 0)

    def rec(e):
        if isinstance(e, DSum):
            summand, bounds, excl = e.args
            ranges = []
            for (b, lo, hi) in bounds:
                if not (lo.is_Integer and hi.is_Integer):
                    raise ValueError("symbolic bound")
                ranges.append((b, int(lo), int(hi)))
            if any(h - l > 8 for _, l, h in ranges):
                raise KernelLimit("too large to unroll")
            ex = {int(v) for v in excl if v.is_Integer}
            total = Integer(0)
            for combo in itertools.product(*[range(l, h + 1) for _, l, h in ranges]):
                if len(set(combo)) < len(combo) or set(combo) & ex:
                    continue
                total += rec(summand.xreplace({b: Integer(v) for (b, _, _), v in zip(ranges, combo)}))
            return total
        if isinstance(e, Indexed):
            return val(e)
        if not e.args:
            return e
        return e.func(*[rec(a) for a in e.args])

    return rec(x)


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


def check_consistency(decls: Decls, facts: dict, limits: Limits | None = None,
                      cache: dict | None = None) -> list[str] | None:
    """Labels whose facts contradict each other (None when no contradiction is seen).

    Looks for equation facts that generate the unit ideal (e.g. Var(X) = 1 and
    Var(X) = 2), and for a variance, second moment or SD set to a negative
    number.  ``cache``: a dict the caller keeps while its facts live (one per
    checked file), so each fact is normalised once per set of independence
    facts across repeated checks; it is keyed on the fact objects, not id().
    """
    from ..terms.objects import SD, Var

    cache = {} if cache is None else cache
    labels = list(facts)
    indep = [f for lab in labels for f in facts[lab] if isinstance(f, IndepFact)]
    nz = Normalizer(decls, indep, (), frozenset(), limits)
    # one small number per set of independence facts (hashing the whole tuple once per call)
    ikeys = cache.setdefault("indep-sets", {})
    ikey = ikeys.setdefault(tuple(indep), len(ikeys))
    polys, owners = [], []
    for lab in labels:
        for f in facts[lab]:
            if not isinstance(f, EqFact):
                continue
            for side, other in ((_as_expr(f.lhs), _as_expr(f.rhs)), (_as_expr(f.rhs), _as_expr(f.lhs))):
                if isinstance(side, (Var, SD)) or (isinstance(side, E) and isinstance(side.args[0], sympy.Pow)
                                                     and side.args[0].exp.is_even):
                    if other.is_extended_negative:
                        return [lab]
            # a fact's normal form is computed once per set of independence facts
            key = (f, ikey)
            p = cache.get(key)
            if p is None:
                try:
                    p = nz.expr(_as_expr(f.lhs) - _as_expr(f.rhs))
                except KernelLimit:
                    continue
                cache[key] = p
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
