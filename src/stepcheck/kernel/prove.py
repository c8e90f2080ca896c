"""Proving one link from a given set of facts.

:meth:`LinkProver.prove_link` is the kernel's only entry for a link.  Its
contract is stated once, in docs/kernel.md ("The contract"), and quoted by
tests/test_architecture.py.  In short: it answers *holds* (with the ranges,
signs and forms of independence used, and the rules of the proof) or *not
proved* (with the residual); it never refutes a link and never chooses
which facts to cite -- refutation and attribution are the judge's work
(``stepcheck.judge``).
"""
from __future__ import annotations

import dataclasses
import itertools
from dataclasses import dataclass, field
from functools import lru_cache

import sympy
from sympy import Indexed, Integer

from .calculus import sign_proof
from .tangent import exp_margin_proof, tangent_proof
from .termwise import termwise_proof
from .limits import limit_gap
from ..terms.facts import Deadline, Decls, EqFact, IndepFact, IneqFact, KernelLimit, Limits
from .normal import UNROLL, UNROLL_FIRST, Normalizer, RuleSet, Term, Trace, _expand
from ..terms.objects import DSum, E, as_expr, is_canon_bound
from .twins import Twinned, binds, interval_twin, number_bound, read_back, read_in, refined_domain, twin_of
from .reduce import Inconsistent, radical, bounded_by, has_atoms, interrupted_at, memo, reduce_modulo
from .surely import surely_rules
from .cases import all_cases as _all_cases, case_options, cases_slack, extremum_cases
from .groups import set_partitions
from .quadratic import psd_form
from .bounded import bounded_proof, surely_signed
from .jensen import jensen_proof
from .squares import squared_proof
from .attained import attained_proof, extremum_gap_proof
from .products import products_cancel
from .solved import by_equation
from .quotient import normal_power, quotient_proof
from .fact_bounds import by_inequality_fact, member_sign, through_middle
from .moment_cs import cauchy_schwarz_proof
from .cross_squares import cross_squares_proof
from .second_moments import bounded_second_moment_proof, quadratic_proof
from .increasing import increasing_proof
from .contradictions import mean_of_signed, mean_of_signed_beside_squares
from .elementary import composite_power, elementary
from .closed_forms import recount


@dataclass
class Attempt:
    holds: bool
    residual: sympy.Expr
    trace: Trace
    case: tuple = ()  # the free indices (pairwise distinct) of the case that failed
    unroll: int = UNROLL  # the unrolling limit the proof needed (Normalizer.unroll)


@dataclass
class Proof:
    """What the kernel answers for one link: proved or not, and what the proof used."""

    holds: bool
    used: list[str] = field(default_factory=list)  # labels (minimal once the judge has attributed it)
    weakest: dict = field(default_factory=dict)  # label -> weakest-form text
    ranges: list = field(default_factory=list)  # free index symbols whose range was needed
    rules: list[str] = field(default_factory=list)
    residual: sympy.Expr | None = None  # not proved: lhs - rhs (or the inequality's margin) in normal form
    message: str | None = None
    signs: list = field(default_factory=list)  # symbols whose declared sign an inequality used
    case: tuple = ()  # not proved: the free indices (pairwise distinct) of the case that failed
    limited: bool = False  # a resource limit was hit (the answer is not the whole story)
    inconsistent: bool = False  # not proved because the candidates' facts contradict each other
    # holds: label -> the forms of independence the factorisations needed ("" = the full fact)
    indep_forms: dict = field(default_factory=dict)
    # holds: the longest concrete sum the proof unrolled (Normalizer.unroll); attribution asks again with it
    unroll: int = UNROLL

    @property
    def status(self) -> str:
        return "holds" if self.holds else "unknown"


def _solved_atoms(polys) -> dict:
    """A pure function of the fact polynomials: memoised (every summand of every attempt asks again)."""
    return _solved(tuple(polys))


@memo
@lru_cache(maxsize=2048)
def _solved(polys: tuple) -> dict:
    """{A: value} for fact polynomials linear in a single moment atom A whose coefficient is nonzero and
    free of atoms (A c + r = 0 gives A = -r/c; with c = 0 possible it would not), solved one after the
    other (E[w] = 0 first, then E[w^2] - E[w]^2 = 2/n gives E[w^2] = 2/n)."""
    out: dict = {}
    polys = list(polys)
    for _ in range(4):
        new = {}
        for p in polys:
            p = sympy.expand(p.xreplace(out)) if out else p
            atoms = p.atoms(E)
            if len(atoms) != 1 or p.has(DSum):
                continue
            a = next(iter(atoms))
            u = sympy.Dummy("atom")
            q = p.xreplace({a: u})
            c = sympy.diff(q, u)
            if c.has(u) or c.has(E) or not (c.is_nonzero or c.is_positive or c.is_negative):
                continue
            v = sympy.expand(-q.xreplace({u: 0}) / c)
            if a not in out and not v.has(a):
                new.setdefault(a, v)
        if not new:
            break
        out = {k: v.xreplace(new) for k, v in out.items()}
        out.update(new)
    return out


def free_indices(exprs, decls: Decls) -> list:
    """The declared index symbols free in ``exprs``.  sympy counts a derivative's variable as bound
    (``Derivative(exp(s_m), s_j)`` has no free j), but ``∂/∂s_j`` is a function of j: its index is free."""
    out = set()
    for x in exprs:
        syms = set(x.free_symbols)
        if x.has(sympy.Derivative):
            syms |= {v for d in x.atoms(sympy.Derivative) for w in d.variables for v in w.free_symbols}
        out |= {s for s in syms if s in decls.index_ranges}
    return sorted(out, key=lambda s: s.name)


_INFINITE = (sympy.oo, -sympy.oo, sympy.zoo, sympy.nan)


class LinkProver:
    def __init__(self, decls: Decls, facts: dict, limits: Limits | None = None):
        """``facts``: label -> list of IndepFact / EqFact."""
        self.decls = decls
        self.facts = facts
        self.limits = limits or Limits()
        self._inst_cache: dict = {}
        self._twin_provers: dict = {}  # frozenset of (symbol, its signed twin) -> LinkProver (_twin_prover)
        self._sum_cache: dict = {}  # Normalizer.sum_cache, shared by every attempt (decls are fixed)
        self._bounded_provers: dict = {}  # deterministic labels -> the prover of pointwise links (bounded.py)
        self._terms_cache: dict = {}  # one side's terms per index world and independence facts (side_terms)

    # ---------------------------------------------------------------- one attempt
    def attempt(self, lhs, rhs, labels, ranges, deadline, rel: str = "=", unroll: int | None = None) -> Attempt:
        free = free_indices([lhs, rhs] + [f.lhs - f.rhs for lab in labels for f in self.facts[lab]
                                          if isinstance(f, EqFact) and not f.free], self.decls)
        if len(free) > self.limits.max_free_indices:
            raise KernelLimit(f"more than {self.limits.max_free_indices} free indices in one link")
        trace = Trace()
        indep = [f for lab in labels for f in self.facts[lab] if isinstance(f, IndepFact)]
        eqs = [f for lab in labels for f in self.facts[lab] if isinstance(f, EqFact)]
        # `assume d: i != j` about two index symbols: the cases that make them equal are excluded
        apart = [(as_expr(f.lhs), as_expr(f.rhs)) for lab in labels for f in self.facts[lab]
                 if isinstance(f, IneqFact) and f.rel == "!=" and as_expr(f.lhs) in free and as_expr(f.rhs) in free]
        used_unroll = UNROLL_FIRST if unroll is None else unroll
        for part in set_partitions(free):
            if any(a in blk and b in blk for blk in part for a, b in apart):
                continue
            sub = {s: blk[0] for blk in part for s in blk[1:]}
            reps = tuple(sorted((blk[0] for blk in part), key=lambda s: s.name))
            l, r = (lhs.xreplace(sub), rhs.xreplace(sub)) if sub else (lhs, rhs)
            ok, d, case_trace = self._case(l, r, labels, ranges, reps, sub, indep, eqs, deadline, rel,
                                           UNROLL_FIRST if unroll is None else unroll, retry=unroll is None)
            if not ok and case_trace.kept and unroll is None:
                # a concrete sum was kept symbolic: unrolled, its members may meet literal ones
                ok, d, case_trace = self._case(l, r, labels, ranges, reps, sub, indep, eqs, deadline, rel, UNROLL)
                used_unroll = UNROLL
            trace.merge(case_trace)
            if not ok:
                return Attempt(False, d, trace, reps)
        return Attempt(True, Integer(0), trace, unroll=used_unroll)

    def _case(self, l, r, labels, ranges, reps, sub, indep, eqs, deadline, rel, unroll, retry=False) -> tuple:
        """One case of the free indices (``reps`` pairwise distinct): (proved, the difference or margin, the
        trace), concrete sums of more than ``unroll`` terms kept symbolic.  With ``retry`` (the caller unrolls
        next), a limit reached with a sum kept symbolic is a failure of this try only."""
        nz = Normalizer(self.decls, indep, reps, frozenset(ranges) & set(reps), self.limits, deadline)
        nz.unroll = unroll
        nz.sum_cache = self._sum_cache
        nz.surely = surely_rules(eqs, self.decls)
        nz.present = frozenset(self._index_values(l - r, nz, ())[1])
        nz.gaps = tuple(g for lab in labels for f in self.facts[lab] if (g := limit_gap(f, self.decls)) is not None)
        ineqs = through_middle([f for lab in labels for f in self.facts[lab] if isinstance(f, IneqFact)])  # a<=X<=b
        nz.domain = domain = refined_domain(ineqs, self.decls)
        try:
            d = self.normal_difference(nz, l, r, eqs)
        except KernelLimit:
            if not (retry and nz.trace.kept) or deadline.remaining() <= 0:
                raise
            return False, None, nz.trace
        if rel == "=":
            return d == 0, d, nz.trace
        g = -d if rel in ("<", "<=") else d  # l < r  <=>  r - l > 0 ;  l > r  <=>  l - r > 0
        strict = rel in ("<", ">")
        members = member_sign(self, nz, ineqs, eqs, sub, domain) if ineqs else None  # summands by the facts
        ok, signs = self._margin(nz, g, strict, rel, domain, members, ineqs, eqs, sub, labels, deadline, (l, r))
        nz.trace.signs |= signs
        return ok, (d if ok else g), nz.trace

    def _margin(self, nz, g, strict, rel, domain, members, ineqs, eqs, sub, labels, deadline, sides, outer=True):
        """(proved, signs used) for ``g >= 0`` (``> 0``): each try in turn, the rules of the first that proves it
        put in the trace; ``outer``: the quotient's margin without its denominator is tried the same way, once."""
        l, r = sides
        by_facts = (lambda x, s: got if (got := sign_proof(x, s, domain))[0]  # a sign, then the assumed inequalities
                    else self._by_inequality_fact(nz, x, s, ineqs, eqs, sub, domain))
        tries = (lambda: sign_proof(g, strict=strict, domain=domain),
                 lambda: self._by_inequality_fact(nz, g, strict, ineqs, eqs, sub, domain),
                 lambda: extremum_gap_proof(self.decls, g, strict, domain),
                 # Var(X - Y) as 2 Var(X) + 2 Var(Y) - Var(X + Y); E[max(X, 0)] >= 0: a mean of a sign
                 lambda: (bool(psd_form(g) and rel in ("<=", ">=") or mean_of_signed(g, strict)), set()),
                 lambda: mean_of_signed_beside_squares(g, strict, domain),  # Var(tanh(X)) <= 1
                 lambda: cauchy_schwarz_proof(nz, g, strict, domain, self.decls.is_rv, (l, r)),  # Cov^2 <= Var Var
                 lambda: jensen_proof(nz, g, strict, domain, self.decls.is_rv, lambda w, s: surely_signed(
                     self, w, labels, s, deadline, list(nz.range_ok)), (l, r)),  # E[exp(X)] >= exp(E[X])
                 lambda: cross_squares_proof(g, strict, domain),  # p_i p_j <= 1/4: -2 u v beside u^2 + v^2
                 lambda: quadratic_proof(g, strict, domain),  # a m^2 + b m + c, 4 a c - b^2 >= 0
                 lambda: bounded_second_moment_proof(g, strict, domain, self.decls.is_rv, nz.trace, ineqs),  # Var(B) <= 1/4
                 lambda: by_equation(self, nz, g, strict, eqs, domain) if eqs else (False, set()),
                 lambda: tangent_proof(g, strict, domain, self.decls.is_rv),  # exp(x) >= 1 + x, log(c) <= c - 1
                 lambda: exp_margin_proof(g, strict, domain, members, by_facts),  # log(Σ exp(z)) >= z_a through exp
                 lambda: increasing_proof(g, strict, domain, by_facts),
                 lambda: termwise_proof(g, strict, domain, self.decls.random_families, members,  # kernel/termwise.py
                                        self._split_out(nz), lambda x, s: self._margin(
                                            nz, x, s, rel, domain, members, ineqs, eqs, sub, labels, deadline, sides,
                                            False)),
                 # a / D + b, D > 0, b of a proved sign: the margin a / |b| -+ D (kernel/quotient.py)
                 lambda: self._quotient(nz, g, strict, rel, domain, members, ineqs, eqs, sub, labels, deadline, sides)
                 if outer else (False, set()))
        for k, attempt in enumerate(tries):
            ok, signs = attempt()
            if ok:
                nz.trace.rules.add("inequality")
                last = len(tries) - 1 - k  # the last five: tangent, monotone (twice), termwise, quotient
                if last == 4:
                    nz.trace.rules.add("tangent")
                elif last in (2, 3):
                    nz.trace.rules.add("monotone")
                elif last == 1:
                    nz.trace.rules.add("termwise")
                elif last == 0:
                    nz.trace.rules.add("quotient")
                return True, signs
        return False, set()

    def _quotient(self, nz, g, strict, rel, domain, members, ineqs, eqs, sub, labels, deadline, sides):
        """a / D + b with D > 0 and b of a proved sign: the margin without D, by the other tries (quotient.py)."""
        ok, signs, ranges = quotient_proof(g, strict, domain, lambda h, s: self._margin(
            nz, h, s, rel, domain, members, ineqs, eqs, sub, labels, deadline, sides, False),
            self._split_out(nz), lambda d, k: normal_power(nz, d, k))
        if ok:
            nz.trace.ranges |= ranges
        return ok, signs

    @staticmethod
    def _split_out(nz):  # is the free index e in rng? (the normaliser's own test for leaving it out of a sum)
        return lambda e, rng: e in nz.free and nz.split_out(e, rng)

    def _by_inequality_fact(self, nz, g, strict: bool, ineqs, eqs, sub, domain) -> tuple[bool, set]:
        """``g >= 0`` (``> 0``) from an assumed inequality read at the link's indices (kernel/fact_bounds.py)."""
        return by_inequality_fact(self, nz, g, strict, ineqs, eqs, sub, domain)

    def normal_difference(self, nz: Normalizer, lhs, rhs, eqs) -> sympy.Expr:
        if eqs:
            nz.reducer = lambda n, ts: self.reduce_terms(n, ts, eqs)
        lt, rt = self.side_terms(nz, lhs), self.side_terms(nz, rhs)
        if any(t.coeff.has(*_INFINITE) for t in lt + rt):
            # oo - oo is not 0: infinite values (limits) are compared as values, never subtracted
            nl, nr = nz.collect(lt), nz.collect(rt)
            if nl == nr and nl in _INFINITE[:2]:
                return Integer(0)
            raise KernelLimit("an infinite value on one side: only equal infinities are compared")
        ts = lt + [Term(-t.coeff, t.bounds) for t in rt]
        d = self.reduce_terms(nz, ts, eqs)
        if d != 0 and any(composite_power(p) for p in d.atoms(sympy.Pow)):  # a fact's 4 put in for Var(X): 4^m
            d = _expand(elementary(d))
        if d != 0 and d.has(DSum):  # sums over ranges that differ; products of sums expanded (kernel/products.py)
            d = self._align_ranges(nz, d)
            d = Integer(0) if d != 0 and products_cancel(nz, d) else d
        if d != 0 and (d.has(sympy.Pow) or d.has(*_HYPERBOLIC)):  # tanh(x) as (exp(2 x) - 1)/(exp(2 x) + 1)
            n, _ = sympy.fraction(sympy.together(d.rewrite(sympy.exp) if d.has(*_HYPERBOLIC) else d))
            if _expand(n) == 0:
                return Integer(0)
        return d

    MAX_SPLIT = 4  # members split off a sum's range to meet another sum of the same summand

    def _align_ranges(self, nz: Normalizer, d):
        """Sums of one summand over ranges that differ in their literal lower end or in the free indices
        they leave out, written over one range: with ``top`` the largest lower end,
        ``Σ_{b=a..h, b ∉ E} f(b) = f(a) + ... + f(top - 1) - Σ_{e ∈ E} f(e) + Σ_{b=top..h} f(b)``, true when
        top - 1 <= h (the shortest range is not reversed) and each left-out index e lies in a..h (its
        declared range is a..h, usable here) and differs from the others (they are the case's distinct free
        indices).  So ``Σ_{m=1..n} s_m = s_1 + Σ_{m=2..n} s_m`` is seen.  The members are normalised as
        written; ``d`` comes back unchanged unless the rewritten difference is 0."""
        groups: dict = {}
        for a in d.atoms(DSum):
            summand, bounds, excl = a.args
            if len(bounds) != 1 or not bounds[0][1].is_Integer:
                continue
            b, lo, hi = bounds[0]
            if any(is_canon_bound(x) and x != b for x in summand.free_symbols):
                continue  # inside another sum: its bound index is not a number here
            if not all(e in nz.free and nz.split_out(e, (lo, hi)) for e in excl.args):
                continue
            groups.setdefault((summand, b, hi), []).append(a)
        sub, ranges = {}, set()
        for (summand, b, hi), atoms in groups.items():
            top = max(int(a.args[1][0][1]) for a in atoms)
            # the shortest range top..hi is not reversed: by the declarations, or by an assumed bound (n >= 2)
            size = hi - top + 1
            if len(atoms) < 2 or not (size.is_nonnegative or sign_proof(size, False, nz.domain)[0]):
                continue
            base = DSum(summand, sympy.Tuple(sympy.Tuple(b, Integer(top), hi)), sympy.Tuple())
            for a in atoms:
                lo, excl = int(a.args[1][0][1]), a.args[2].args
                if top - lo > self.MAX_SPLIT or (lo == top and not excl):
                    continue
                parts = [nz.expr(summand.xreplace({b: Integer(k)})) for k in range(lo, top)]
                parts += [-nz.expr(summand.xreplace({b: e})) for e in excl]
                sub[a] = sympy.Add(*parts) + base
                ranges |= set(excl)
        if not sub:
            return d
        aligned = _expand(d.xreplace(sub))
        if aligned != 0 and aligned.has(sympy.Pow):
            aligned = _expand(sympy.fraction(sympy.together(aligned))[0])
        if aligned != 0:
            return d
        nz.trace.rules.add("sums")
        nz.trace.ranges |= ranges
        return Integer(0)

    def side_terms(self, nz: Normalizer, x) -> list[Term]:
        """``nz.terms(x)``, memoised across the attempts of a link (attribution asks again with fewer facts).

        The terms and the trace of their computation are a function of ``x``, the declarations (fixed
        per prover), the independence facts, the index world (free indices, usable ranges, the literal
        indices present) and the gaps, all in the key.  Equation facts act only where ``Normalizer.expr``
        is reached inside (a function's argument, ``SD``): terms computed without reaching it hold with
        or without facts and are stored for both; terms that reached it are stored only when no facts
        were there to apply (the result then depends on which).  A hit replays the trace."""
        key = (x, tuple(nz.indep), nz.free, nz.range_ok, nz.present, nz.gaps, nz.unroll, nz.surely)
        got = self._terms_cache.get(key + ("any",))
        if got is None and nz.reducer is None:
            got = self._terms_cache.get(key + ("no facts",))
        if got is not None:
            nz.trace.merge(got[1])
            return list(got[0])
        outer, reducer, reached = nz.trace, nz.reducer, []

        def noting(n, ts):  # without a reducer, exactly what Normalizer.expr does itself
            reached.append(True)
            return reducer(n, ts) if reducer is not None else n.collect(ts)

        nz.reducer = noting
        nz.trace = Trace()
        try:
            ts = nz.terms(x)
        finally:
            mine = nz.trace
            nz.trace, nz.reducer = outer, reducer
            outer.merge(mine)
        if not reached or reducer is None:
            if len(self._terms_cache) > 4096:
                self._terms_cache.clear()
            self._terms_cache[key + ("no facts" if reached else "any",)] = (tuple(ts), mine)
        return ts

    def reduce_terms(self, nz: Normalizer, ts, eqs) -> sympy.Expr:
        """Collect terms into a normal form, applying the equation facts."""
        if not eqs:
            return nz.collect(ts)
        red = []
        # quantified facts inside sums: reduce each summand in its own index world
        qeqs = [f for f in eqs if f.free]
        for t in ts:
            if qeqs and t.bounds and (has_atoms(t.coeff) or t.coeff.has(Indexed)):
                c = nz.resolve_deltas(t.coeff, t.bounds)
                rw = self.rewrites(nz, qeqs, c, t.bounds)
                if rw:
                    c = _expand(c.xreplace(rw))
                    nz.trace.rules.add("facts")
                inst = self.instances(nz, qeqs, c, t.bounds)
                if inst:
                    solved = _solved_atoms(inst)  # E[w_b^2] = 2/n: substituted (a basis would keep n E[w_b^2] - 2)
                    if solved and c.xreplace(solved) != c:
                        c = _expand(c.xreplace(solved))
                        nz.trace.rules.add("facts")
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
            solved = _solved_atoms(inst)  # E|Z| = sqrt(2/pi) in E|Z|^2: the basis over QQ keeps sqrt(2) a name
            d2 = _expand(reduce_modulo(_expand(d.xreplace(solved)) if solved else d, inst))
            if d2 != d:
                nz.trace.rules.add("facts")
            d = recount(d2, nz.not_reversed, nz.trace.rules.add)  # Σ_m E[exp(t s_m)] = n exp(t^2/2) by a fact
        return d

    def rewrites(self, nz: Normalizer, eqs, expr, bounds) -> dict:
        """``p_b -> 1/m`` for each fact ``p_j = VALUE`` about a deterministic family member, instantiated at
        the indices in play: substituted into a summand before it is summed (a Gröbner basis cannot do it,
        since clearing the denominator of p_j - 1/m leaves m p_j - 1, which does not reduce p_j)."""
        out = {}
        for f in eqs:
            lhs, rhs = as_expr(f.lhs), as_expr(f.rhs)
            if isinstance(rhs, Indexed) and not isinstance(lhs, Indexed):
                lhs, rhs = rhs, lhs
            if not (isinstance(lhs, Indexed) and not self.decls.is_rv(lhs) and not rhs.has(lhs.base)
                    and not rhs.has(E, DSum, sympy.Sum)):
                continue
            for asg in self._assignments(nz, f, *self._index_values(expr, nz, bounds), bounds):
                key = lhs.xreplace(asg)
                if key in expr.atoms(Indexed):
                    out[key] = rhs.xreplace(asg)
        return out

    def _index_values(self, expr, nz, bounds):
        vals = set(nz.free) | {b for (b, _, _) in bounds}
        present = set()
        for ix in expr.atoms(Indexed):
            vals |= {a for a in ix.indices if a.is_Symbol or a.is_Integer}
            rng = self.decls.family_ranges.get(ix.base.label.name)
            present |= {(a, rng) for a in ix.indices if a.is_Integer and rng is not None}
        return sorted(vals, key=sympy.default_sort_key), present

    def _assignments(self, nz, f, vals, present, bounds):
        """The instances {free index: value} of a quantified fact among ``vals`` (in range, distinct as it asks)."""
        choices = []
        for p in f.free:
            rng = self.decls.index_ranges.get(p)
            # a member x_2 the link writes presumes 2 <= the end of x's range: in a fact's range with that end
            choices.append([v for v in vals if nz.in_range(v, rng, bounds) or rng is not None and (
                any(pv == v and sympy.expand(pr[1] - rng[1]) == 0 for pv, pr in present)
                and sympy.Ge(v, rng[0]) == sympy.true and sympy.Gt(v, rng[1]) != sympy.true)])
        for combo in itertools.product(*choices):
            asg = dict(zip(f.free, combo))
            if any(nz.distinct(asg[a], asg[b], bounds) is not True for (a, b) in f.distinct
                   if a in asg and b in asg):
                continue
            yield asg

    def instances(self, nz: Normalizer, eqs, expr, bounds) -> list:
        """Fact polynomials instantiated at the indices in play, normalised."""
        # a literal index the expression uses on a family exists (q_2 presumes 2 in the range of q): a fact
        # quantified over that same range may be instantiated there, even when 2 <= d_k is not provable
        vals, present = self._index_values(expr, nz, bounds)
        out = []
        saved, saved_reducer, saved_trace = nz.enclosing, nz.reducer, nz.trace
        nz.enclosing = list(bounds)
        nz.reducer = None  # facts are normalised structurally, never by other facts
        nz.trace = Trace()  # rules used to read a fact are not the link's rules
        try:
            for f in eqs:
                base = f.lhs - f.rhs
                for asg in self._assignments(nz, f, vals, present, bounds):
                    combo = tuple(asg[p] for p in f.free)
                    # keyed on the fact objects themselves (kept alive by the cache), never on id(), and on the
                    # index world a fact's normal form can read (the literal indices present decide sums' deltas)
                    key = (f, combo, tuple(bounds), nz.free, nz.range_ok, nz.present, nz.gaps, tuple(nz.indep), nz.unroll,
                           nz.surely)
                    got = self._inst_cache.get(key)
                    if got is None:
                        b = base.xreplace(asg) if asg else base
                        got = [nz.expr(b)]
                        if got[0].has(DSum) and not bounds:
                            # a fact about a sum S: also S * fact, because the normal form of S^2
                            # is expanded (diagonal + off-diagonal) and no longer contains S
                            side = as_expr(f.lhs).xreplace(asg) if asg else as_expr(f.lhs)
                            try:
                                got.append(nz.expr(b * side))
                            except KernelLimit:
                                pass
                        got = [radical(g) for g in got] + self._even_moment_zero(nz, f, asg)
                        self._inst_cache[key] = got
                    out.extend(g for g in got if g != 0)
        finally:
            nz.enclosing, nz.reducer, nz.trace = saved, saved_reducer, saved_trace
        return out

    def _twins(self, labels, link=()) -> list:
        """{c: its twin} for each real (not random) symbol of no declared sign that an assumed bound among the facts of
        ``labels`` bounds by a number: ``c > 0`` makes the twin c as a positive real, ``c > -1`` makes it
        ``-1 + t`` for a positive t (``c < 2``: ``2 - t``).  sympy then reads the sign as it does a declared
        one (``log(c^2) = 2 log(c)``, ``sqrt(c^2) = c``, ``sqrt((c + 1)^2) = c + 1``).  Sound under those
        facts, which the proof lists as used (every c above the bound is ``-1 + t`` for one t > 0);
        attribution drops them only where the proof holds without.  A symbol bound inside ``link`` (a
        limit's or a derivative's variable) gets no shifted twin: it is not a value there.  Of several
        bounds on one symbol the tightest on each side are read (``c > -1`` and ``c > 2``: ``2 + t``); with
        one on each side, one twin for both (``twins.interval_twin``: ``-1 < c < 1`` is ``-1 + 2 t/(1 + t)``),
        else (two closed ends) the lower one, where that proof fails the upper one, and then the two
        cases [lo, hi) and c = hi.  Returns the options to try, in order, each a list of twin sets (its
        cases, which must all hold); empty where no symbol has a twin."""
        best: dict = {}  # (symbol, lower?) -> (rank, twin, bound, relation): the tightest bound on each side
        for lab in labels:
            for f in self.facts[lab]:
                got = twin_of(f)
                # a random variable's bound holds almost surely: it is no constant, and gets no twin
                if got is None or got[0] in self.decls.random_symbols or (
                        not got[1].is_Symbol and any(binds(x, got[0]) for x in link)):
                    continue
                _, b, rel = number_bound(f)
                low = rel in (">", ">=")
                rank = (b if low else -b, rel in (">", "<"))
                if (got[0], low) not in best or rank > best[got[0], low][0]:
                    best[got[0], low] = (rank, got[1], b, rel)
        twins, other, split, ends = {}, {}, {}, {}
        for a, _ in best:
            lo, hi = best.get((a, True)), best.get((a, False))
            both = interval_twin(a, lo[2], lo[3], hi[2], hi[3]) if lo and hi else None  # -1 < c < 1: one twin
            twins[a] = both if both is not None else (lo or hi)[1]
            if lo and hi and both is None and lo[2] < hi[2]:  # 0 <= c <= 1: [0, 1) as one twin, then c = 1
                other[a] = hi[1]
                split[a], ends[a] = interval_twin(a, lo[2], lo[3], hi[2], "<"), hi[2]
        if not other:
            return [[twins]] if twins else []
        return [[twins], [{**twins, **other}], [{**twins, **split}, {**twins, **ends}]]

    def _twin_prover(self, twins: dict) -> "LinkProver":
        """A prover of its own over every fact with ``twins`` put in, one per set of twins (its caches kept)."""
        key = frozenset(twins.items())
        got = self._twin_provers.get(key)
        if got is None:
            got = self._twin_provers[key] = LinkProver(self.decls, Twinned(self.facts, twins), self.limits)
        return got

    @staticmethod
    def _even_moment_zero(nz: Normalizer, f, asg) -> list:
        """E[g^(2k)] = 0 gives g = 0 almost surely, so E[g] = 0 too (E[g]^2 <= E[g^2])."""
        out = []
        for side, other in ((as_expr(f.lhs), as_expr(f.rhs)), (as_expr(f.rhs), as_expr(f.lhs))):
            if other == 0 and isinstance(side, E) and isinstance(side.args[0], sympy.Pow) \
                    and side.args[0].exp.is_Integer and side.args[0].exp.is_even and side.args[0].exp > 0:
                g = side.args[0].base.xreplace(asg) if asg else side.args[0].base
                try:
                    out.append(nz.expr(E(g)))
                except KernelLimit:
                    pass
        return out

    def _split(self, cases, lhs, rhs, candidates, rel, deadline, ranges, unroll) -> Proof:
        """One proof per case (a twin set), each with the rule ``cases``: all must hold."""
        proofs = []
        for sub in cases:
            p = self._twin_prover(sub).prove_link(lhs.xreplace(sub), rhs.xreplace(sub), candidates, rel, deadline,
                                                  ranges, unroll)
            rules = RuleSet(p.rules)
            rules.add("cases")
            proofs.append(dataclasses.replace(p, rules=sorted(rules), signs=[x for x in p.signs if x not in
                                                                           cases_slack(sub)]))
            if not p.holds:
                break
        return _all_cases(proofs)

    # ---------------------------------------------------------------- the entry point
    def prove_link(self, lhs, rhs, candidates: list[str], rel: str = "=", deadline: Deadline | None = None,
                   ranges=None, unroll: int | None = None) -> Proof:
        """Prove ``lhs REL rhs`` from the facts of ``candidates``, by the contract in docs/kernel.md.

        ``deadline``: the link's time budget, shared with whatever else the caller does for the same link (a
        fresh one of ``limits.seconds`` if omitted).  ``ranges``: the free indices whose declared range the
        proof may use (all of them if omitted).  ``unroll``: unroll concrete sums of at most this many terms
        (omitted: first UNROLL_FIRST, then, where that fails with a longer sum kept symbolic, UNROLL).  The
        proof uses the candidates it is given; choosing a minimal set is the judge's attribution
        (``stepcheck.judge.attribution``).
        """
        lhs, rhs = as_expr(lhs), as_expr(rhs)  # a TypeError here is the caller's bug: not caught
        deadline = deadline or Deadline(self.limits.seconds)
        if ranges is None:
            ranges = free_indices([lhs, rhs], self.decls)
        options, first = self._twins(candidates, (lhs, rhs)), None
        for k, pieces in enumerate(options):  # proved with the twins, read back in the link's own symbols
            proofs = []
            for twins in pieces:  # the cases of one option: each must hold
                back = read_back(twins)
                p = self._twin_prover(twins).prove_link(lhs.xreplace(twins), rhs.xreplace(twins), candidates, rel,
                                                        deadline, ranges, unroll)
                proofs.append(dataclasses.replace(p, residual=None if p.residual is None else
                                                  _expand(read_in(p.residual, twins, back)),
                                                  signs=[x for x in p.signs if x not in back]))
                if not p.holds:
                    break
            p = _all_cases(proofs)
            first = first or p  # none holds: the first option's residual, in the link's own symbols
            if p.holds or p.inconsistent or deadline.remaining() <= 0:
                return p
            if k == len(options) - 1:
                return first
        cases = extremum_cases([lhs, rhs], self.decls)
        if cases and not options:  # max/min of two: one proof per larger argument, both must hold
            p = self._split(cases, lhs, rhs, candidates, rel, deadline, ranges, unroll)
            if p.holds or p.inconsistent or deadline.remaining() <= 0:
                return p
        try:
            with bounded_by(deadline), interrupted_at(deadline, "proving the link"):  # a runaway sympy call too
                a = self.attempt(lhs, rhs, list(candidates), list(ranges), deadline, rel, unroll)
        except Inconsistent:
            return Proof(False, message="the assumptions in scope contradict each other; nothing is proved from them",
                         inconsistent=True)
        except KernelLimit as e:
            return Proof(False, message=str(e), limited=True)
        except RecursionError:
            return Proof(False, message="the expression is nested too deeply for the kernel", limited=True)
        except (ArithmeticError, ValueError, TypeError, AttributeError, NotImplementedError) as e:
            # sympy failed somewhere inside: never a verdict from a crash
            return Proof(False, message=f"the kernel could not finish ({type(e).__name__}: {e})", limited=True)
        for signs in case_options([lhs, rhs], self.decls, absolute=True) if not a.holds else ():
            # |w| by the sign of w, where the link did not hold as written (|x - 3| <= |x - 1| + 2)
            p = self._split(signs, lhs, rhs, candidates, rel, deadline, ranges, unroll)
            if p.holds or p.inconsistent:
                return p
            if deadline.remaining() <= 0:
                break
        if not a.holds and (p := bounded_proof(self, lhs, rhs, candidates, rel, deadline, ranges, unroll)
                            or squared_proof(self, lhs, rhs, candidates, rel, deadline, ranges, unroll)
                            or attained_proof(self, lhs, rhs, candidates, rel, deadline, ranges, unroll)):
            return p  # a bound on every outcome (kernel/bounded.py); both sides squared (kernel/squares.py)
        if not a.holds:
            what = "difference of the two sides does not reduce to 0" if rel == "=" else \
                "sign of the difference could not be established"
            return Proof(False, residual=a.residual, rules=sorted(a.trace.rules), case=a.case,
                         message=f"not proved: the {what}")
        return Proof(True, used=list(candidates), ranges=[r for r in ranges if r in a.trace.ranges],
                     rules=sorted(a.trace.rules), signs=sorted(a.trace.signs, key=str),
                     indep_forms={lab: frozenset(f) for lab, f in a.trace.indep.items()}, unroll=a.unroll)


_HYPERBOLIC = (sympy.tanh, sympy.sinh, sympy.cosh)  # written with exp where the residual has them
