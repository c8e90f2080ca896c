"""Numeric claims: ``check`` and ``table`` (see ``docs/numbers.md``; ``simulate`` is in simulate.py).

Everything here is decided from exact values: the two sides are elaborated
to sympy expressions, probabilities and moments of declared distributions
are replaced by exact values (enumeration of finite product spaces, closed
forms for Normal and Uniform), and the comparison is decided by the sign of
exact differences, computed with sympy's ``evalf`` at increasing precision
(15, 30, 60, 100 digits, each result guaranteed to that many digits).  A
sign that cannot be told at 100 digits is ``unknown``, with the numbers.

Rules (docs/numbers.md has the user's version):

* ``A ≈ c`` with ``c`` a decimal as written (``2.83``, ``8``, ``1e-9``,
  ``2.6 × 10^10``, ``10^29``, a vector of those): holds iff
  ``|A - c| <= u/2`` where ``u`` is one unit in the last written digit
  (``2.83``: u = 0.01; ``8``: u = 1; ``2.6 × 10^10``: u = 0.1 × 10^10).  The
  boundary is INCLUDED: a value exactly half-way (``2.85 ≈ 2.8``) is
  consistent with the written rounding (round-half-up and half-even differ
  there), and the report says it sits on the boundary.
* ``within T``: ``|A - c| <= T``; ``within T relative``: ``|A - c| <= T |c|``.
* ``A ~ B``: same order of magnitude, meaning the same exponent in
  scientific notation, ``floor(log10|A|) = floor(log10|B|)``.
* ``=``, ``<``, ``<=``, ``>``, ``>=``, ``!=``: exact.
* Vectors: entry by entry, each entry with its own tolerance.
"""
from __future__ import annotations

import itertools
import math
import time

import sympy
from sympy import Integer, Rational

from . import syntax as S
from .distributions import lookup
from .law_means import mean_by_law
from .elaborate import DEFINED, Elaborator
from .errors import Diagnostic, Span, error
from .compare import Comparison, decide, huge, written_tolerance
from .judge import EXACT, settle, settle_step
from .judge import Verdict as JudgeVerdict
from .judge.exact import sign
from .judge.support import surely_violated
from .kernel import IndepFact
from .models import ranges
from .options import DEFAULT_TIMEOUT
from .terms.objects import SD, Cov, E, FamilyExtremum, Var
from .terms.printer import show
from .terms.probability import Prob
from .results import FAILS, HOLDS, UNKNOWN, LinkResult, StepResult, Use

MAX_OUTCOMES = 2**16  # joint outcomes enumerated exactly
MAX_SUM_TERMS = ranges.MAX_TERMS  # a numeric sum(i=1..n, ...) is expanded up to this n
MAX_DIGITS = 20_000  # digits of an exact number a claim may produce (the elaborator's limit on a power);
# past 4,300 digits Python refuses to print an integer: such values are shown as decimals (compare.fmt) and
# are not handed to the report's printers (LinkResult.lhs_expr / rhs_expr stay None)
MAX_IRRATIONAL_TERMS = 1_000  # terms of a sum of irrational numbers whose sign is decided
MAX_MONOMIALS = 20_000  # terms of an expanded polynomial whose moments are taken
DEFAULT_SAMPLES = 20_000
DEFAULT_SEED = 0
DEFAULT_CONFIDENCE = Rational(95, 100)
MAX_SAMPLES = 10_000_000
MAX_DRAWS = 2 * 10**8  # samples × random numbers per sample (a few seconds of numpy)
CHUNK_NUMBERS = 4_000_000  # random numbers drawn at once (memory bound)
REL_TEXT = {"=": "=", "<": "<", "<=": "≤", ">": ">", ">=": "≥", "!=": "≠", "≈": "≈", "~": "~"}


__all__ = ["NumericUnknown", "Values", "check_statement", "table_statement", "elaborator", "sign",
           "written_tolerance", "MAX_OUTCOMES"]


class NumericUnknown(Exception):
    """The value cannot be computed exactly within the limits (the claim is ``unknown``)."""


# ------------------------------------------------------------------ exact values of E, Var, P, ...


def deadline(state):
    """A callable that raises :class:`NumericUnknown` once the claim's time budget is spent.

    The budget is the per-link time limit (``--timeout``) when the state
    carries it, else the default: a numeric claim never runs for minutes."""
    seconds = getattr(state, "timeout", None) or DEFAULT_TIMEOUT
    end = time.monotonic() + seconds

    def check():
        if time.monotonic() > end:
            raise NumericUnknown(f"the time limit of {seconds:g} s was reached while computing the exact value")
    return check


def bits(x) -> int:
    """The size in bits of the largest integer in an exact number (numerator or denominator)."""
    out = 0
    for a in sympy.preorder_traversal(x):
        if isinstance(a, sympy.Rational):
            out = max(out, int(a.p).bit_length(), int(a.q).bit_length())
    return out


MAX_BITS = int(MAX_DIGITS * 3.3219280948873626) + 1


def guard_size(x):
    """``x``, or :class:`NumericUnknown` when it is too large to decide (numbers past MAX_DIGITS digits,
    or a sum of more than MAX_IRRATIONAL_TERMS irrational terms)."""
    if isinstance(x, sympy.MatrixBase):
        for a in x:
            guard_size(a)
        return x
    if bits(x) > MAX_BITS:
        raise NumericUnknown(f"the exact value has a number with more than {MAX_DIGITS:,} digits: too large to "
                             "decide (compare logarithms, or prove it with a `step`)")
    for a in sympy.preorder_traversal(x):
        if isinstance(a, sympy.Add) and sum(1 for t in a.args if not t.is_Rational) > MAX_IRRATIONAL_TERMS:
            raise NumericUnknown(f"the exact value is a sum of more than {MAX_IRRATIONAL_TERMS:,} irrational "
                                 "terms: too costly to decide exactly (prove it with a `step`)")
    return x


class Values:
    """Replaces E/Var/SD/Cov/P of declared random variables by exact values."""

    def __init__(self, state, limit=None):
        self.c = state
        self.uses: dict[str, str] = {}  # label -> kind, in order of use
        self.deadline = limit or deadline(state)

    # ---- variables
    def is_rv(self, x) -> bool:
        if isinstance(x, sympy.Symbol):
            return x in self.c.scope.random_symbols
        if isinstance(x, sympy.Indexed):
            fam = self.c.scope.families.get(str(x.base.label))
            return bool(fam and fam.random)
        return False

    def rvs(self, expr) -> list:
        out = set()
        for a in sympy.preorder_traversal(expr):
            if isinstance(a, (sympy.Symbol, sympy.Indexed)) and self.is_rv(a):
                out.add(a)
        return sorted(out, key=sympy.default_sort_key)

    def law(self, v):
        if isinstance(v, sympy.Indexed) and not all(i.is_Integer for i in v.indices):
            raise NumericUnknown(f"`{show(v)}` has a symbolic index: give the index a value (or prove it with a `step`)")
        decl = lookup(self.c, v)
        if decl is None:
            raise NumericUnknown(f"`{v}` has no declared distribution (write `random {v} ~ Normal(0, 1)`, ...)")
        self.uses.setdefault(decl.label, "distribution")
        return decl.dist

    def need_independence(self, vs):
        """The label of an `independent(...)` fact that makes all of ``vs`` mutually independent."""
        if len(vs) <= 1:
            return None
        for label, facts in self.c.facts.items():
            for f in facts:
                if not isinstance(f, IndepFact) or f.blocks:  # block independence: not enumerated jointly here
                    continue
                ok = True
                for v in vs:
                    fam = str(v.base.label) if isinstance(v, sympy.Indexed) else None
                    if fam is not None and fam in f.families:
                        continue
                    if v in f.members:
                        continue
                    ok = False
                    break
                if ok:
                    self.uses.setdefault(label, "independence")
                    return label
        names = ", ".join(str(v) for v in vs)
        fams = sorted({str(v.base.label) for v in vs if isinstance(v, sympy.Indexed)} |
                      {str(v) for v in vs if not isinstance(v, sympy.Indexed)})
        raise NumericUnknown(f"needs {names} to be mutually independent, and no assumption says so "
                             f"(add `assume indep: independent({', '.join(fams)})`)")

    # ---- the walk
    def value(self, expr):
        """``expr`` with every probabilistic operator replaced by its exact value."""
        expr = self.expand_sums(self.family_extrema(expr))
        ops = (E, Var, SD, Cov, Prob)
        for _ in range(1000):
            inner = [a for a in sympy.preorder_traversal(expr)
                     if isinstance(a, ops) and not any(isinstance(b, ops) for b in _proper_subexprs(a))]
            if not inner:
                break
            sub = {a: self.op_value(a) for a in dict.fromkeys(inner)}
            expr = expr.xreplace(sub)
        guard_size(expr)
        left = self.rvs(expr)
        if left:
            raise NumericUnknown("the value is random (it depends on " + ", ".join(str(v) for v in left) +
                                 "): write E[...], Var(...), SD(...) or P(...)")
        return expr

    def family_extrema(self, expr):
        """``max(x)`` / ``min(x)`` of a family over a numeric range: Max / Min of its members (random when the
        family is, so E, Var and P enumerate it like any function of the members); a symbolic range: unknown."""
        def member_extremum(fx):
            lo, hi = fx.args[1], fx.args[2]
            if not (lo.is_Integer and hi.is_Integer) or hi < lo or int(hi) - int(lo) >= MAX_SUM_TERMS:
                raise NumericUnknown(f"{fx.kind}({fx.args[0]}) needs a small numeric range: give the dimension a value")
            members = [fx.args[0][Integer(k)] for k in range(int(lo), int(hi) + 1)]
            return (sympy.Max if fx.kind == "max" else sympy.Min)(*members)

        if not expr.has(FamilyExtremum):
            return expr
        return expr.replace(lambda e: isinstance(e, FamilyExtremum), member_extremum)

    def expand_sums(self, expr):
        """Sums and products over numeric ranges, by the language's convention (models/ranges.py):
        a range lo..hi with hi < lo is empty, an empty sum is 0 and an empty product 1."""
        try:
            return ranges.evaluate(expr, MAX_SUM_TERMS, deadline=self.deadline, max_bits=MAX_BITS,
                                   max_irrational=MAX_IRRATIONAL_TERMS)
        except ranges.RangeLimit as e:
            raise NumericUnknown(f"{e}; prove it with a `step`") from None

    def op_value(self, a):
        if isinstance(a, E):
            return self.expect(a.args[0])
        if isinstance(a, Var):
            y = a.args[0]
            return sympy.expand(self.expect(y**2) - self.expect(y) ** 2)
        if isinstance(a, SD):
            y = a.args[0]
            return sympy.sqrt(sympy.expand(self.expect(y**2) - self.expect(y) ** 2))
        if isinstance(a, Cov):
            x, y = a.args
            return sympy.expand(self.expect(x * y) - self.expect(x) * self.expect(y))
        if isinstance(a, Prob):
            return self.prob(a.args[0])
        raise NumericUnknown(f"cannot evaluate {a}")

    # ---- finite enumeration
    def joint(self, vs):
        """The joint outcomes [(substitution, probability)] of finite, independent variables."""
        laws = [self.law(v) for v in vs]
        sups = [d.support() for d in laws]
        for v, d, s in zip(vs, laws, sups):
            if s is None:
                raise NumericUnknown(f"`{v} ~ {d.text}` has no finite support with numeric parameters")
        size = math.prod(len(s) for s in sups)
        if size > MAX_OUTCOMES:
            raise NumericUnknown(f"the product space of {', '.join(str(v) for v in vs)} has {size:,} outcomes; "
                                 f"exact enumeration is limited to {MAX_OUTCOMES:,} (prove it with a `step` "
                                 "from the distribution's moments instead)")
        self.need_independence(vs)
        for k, combo in enumerate(itertools.product(*sups)):
            if k % 256 == 0:
                self.deadline()
            p = Integer(1)
            sub = {}
            for v, (val, pv) in zip(vs, combo):
                sub[v] = val
                p *= pv
            if p != 0:
                yield sub, p

    def expect(self, y):
        vs = self.rvs(y)
        if not vs:
            return y
        laws = [self.law(v) for v in vs]
        if all(d.finite and d.support() is not None for d in laws):
            tot = Integer(0)
            for sub, p in self.joint(vs):
                tot += p * y.xreplace(sub)
            return tot  # exact: supports and probabilities are rationals (no float guessing)
        # moments of a polynomial, its size bounded before it is expanded
        bound = _monomial_bound(y, set(vs))
        if bound > MAX_MONOMIALS:
            raise NumericUnknown(f"the expansion of E[...] could have up to {bound:,} terms (limit "
                                 f"{MAX_MONOMIALS:,}); prove it with a `step`")
        try:
            poly = sympy.Poly(y, *vs)
        except sympy.PolynomialError:
            y = y.replace(lambda e: isinstance(e, (sympy.Max, sympy.Min)) and len(e.args) == 2,
                          lambda e: e.rewrite(sympy.Abs))  # max(a, b) = (a + b + |a - b|)/2
            got = mean_by_law(y, vs, laws)  # c exp(a X + b): the moment generating function; c X^j |X|^k
            if got is not None:
                return got
            raise NumericUnknown(f"E[{show(y)}] is not a polynomial in {', '.join(map(show, vs))}; only polynomials "
                                 "of continuous variables, and exp(a X + b), have closed forms here") from None
        terms = poly.terms()
        if len(terms) > MAX_MONOMIALS:
            raise NumericUnknown(f"the expansion has {len(terms):,} terms (limit {MAX_MONOMIALS:,}); "
                                 "prove it with a `step`")
        if any(sum(1 for e in mon if e) > 1 for mon, _ in terms):
            self.need_independence(vs)
        tot = Integer(0)
        for mon, coeff in terms:
            part = coeff
            for v, d, e in zip(vs, laws, mon):
                if e and not d.has_moment(e):
                    raise NumericUnknown(f"E[{show(y)}] needs E[{show(v ** e)}], which is infinite or undefined "
                                         f"for `{v} ~ {d.text}` (E|{v}|^k < ∞ only for k < {d.tail_index})")
                if e:
                    part *= d.moment(e)
            tot += part
        return sympy.expand(tot)

    def prob(self, event):
        if event in (sympy.true, sympy.false):
            return Integer(1) if event == sympy.true else Integer(0)
        vs = self.rvs(event)
        if not vs:
            raise NumericUnknown(f"the event {event} does not involve a random variable")
        laws = [self.law(v) for v in vs]
        if all(d.finite and d.support() is not None for d in laws):
            tot = Integer(0)
            for sub, p in self.joint(vs):
                t = event.xreplace(sub)
                if t not in (sympy.true, sympy.false):
                    s = _decide_bool(t)
                    if s is None:
                        raise NumericUnknown(f"cannot decide the event at outcome {sub}: {t}")
                    t = sympy.true if s else sympy.false
                if t == sympy.true:
                    tot += p
            return tot
        if len(vs) == 1 and laws[0].continuous:
            v, d = vs[0], laws[0]
            if d.name == "StudentT":
                raise NumericUnknown(f"the probability of an event about `{v} ~ {d.text}`: Student's t has no "
                                     "closed-form distribution function here")
            x = sympy.Dummy("x", real=True)
            ev = event.xreplace({v: x})
            try:
                st = ev.as_set()
            except Exception:
                raise NumericUnknown(f"cannot solve the event {event} for {v}") from None
            return self.set_prob(st, d, event)
        raise NumericUnknown("events of several continuous variables, or of mixed ones, are not supported: "
                             f"{', '.join(map(str, vs))}")

    def set_prob(self, st, d, event):
        if isinstance(st, sympy.Interval):
            return sympy.simplify(d.cdf(st.end) - d.cdf(st.start)) if st.end.is_finite or st.start.is_finite \
                else Integer(1)
        if isinstance(st, sympy.Union):
            return sum((self.set_prob(a, d, event) for a in st.args), Integer(0))
        if isinstance(st, sympy.FiniteSet) or st == sympy.S.EmptySet:
            return Integer(0)  # points have probability 0 under a continuous law
        if st == sympy.S.Reals:
            return Integer(1)
        if isinstance(st, sympy.Complement) and isinstance(st.args[1], sympy.FiniteSet):
            return self.set_prob(st.args[0], d, event)
        raise NumericUnknown(f"cannot compute the probability of {event} (the set {st})")


def _monomial_bound(y, vs) -> int:
    """An upper bound on the number of monomials of ``y`` expanded in the variables ``vs``
    (computed without expanding: ``(t terms)^e`` has at most C(t + e - 1, e))."""
    if not y.has(*vs):
        return 1
    if isinstance(y, sympy.Add):
        return sum(_monomial_bound(a, vs) for a in y.args)
    if isinstance(y, sympy.Mul):
        out = 1
        for a in y.args:
            out *= _monomial_bound(a, vs)
            if out > 10**12:
                return out
        return out
    if isinstance(y, sympy.Pow) and y.exp.is_Integer and y.exp > 0:
        t = _monomial_bound(y.base, vs)
        return 1 if t <= 1 else 10**13 if t > 10**6 else math.comb(t + int(y.exp) - 1, int(y.exp))
    return 1


def _proper_subexprs(a):
    it = sympy.preorder_traversal(a)
    next(it)
    return it


def _decide_bool(rel):
    if isinstance(rel, (sympy.And, sympy.Or)):
        vals = [_decide_bool(r) for r in rel.args]
        if None in vals:
            return None
        return all(vals) if isinstance(rel, sympy.And) else any(vals)
    if isinstance(rel, sympy.Not):
        v = _decide_bool(rel.args[0])
        return None if v is None else not v
    if isinstance(rel, sympy.core.relational.Relational):
        s = sign(rel.lhs - rel.rhs)
        if s is None:
            return None
        return {"==": s == 0, "!=": s != 0, "<": s < 0, "<=": s <= 0, ">": s > 0, ">=": s >= 0}[rel.rel_op]
    return None


# ------------------------------------------------------------------ elaboration


def elaborator(state, bindings: dict | None = None) -> Elaborator:
    """An elaborator that reads ``e`` as Euler's number (unless declared) and the given bindings."""
    el = Elaborator(state.scope)
    frame = {}
    sc = state.scope
    if "e" not in sc.symbols and "e" not in sc.defines and "e" not in sc.families:
        frame["e"] = sympy.E
    frame.update(bindings or {})
    el.bound.append(frame)
    return el


# ------------------------------------------------------------------ statements


def _src(state, span):
    return state.src(span) if span is not None else ""


def _uses(vals: Values):
    return [Use(label, kind) for label, kind in vals.uses.items()]


def _evaluate(state, node, bindings=None, limit=None):
    """(exact value, Values) of an expression node; NumericUnknown for what cannot be computed."""
    el = elaborator(state, bindings)
    v = el.expr(node)
    check_defined(state, el.conditions, node, limit)
    vals = Values(state, limit)
    if isinstance(v, sympy.MatrixBase):
        return sympy.ImmutableMatrix([vals.value(a) for a in v]), vals
    return vals.value(v), vals


def check_defined(state, conditions, node, limit=None):
    """Raise an error where a guard the elaborator recorded has no real value: ``sqrt(W)`` with
    ``W ~ Uniform(-1, 1)`` gives the guard ``E[sqrt(W)]``, not real, so ``E[sqrt(W)^2]`` (which sympy wrote
    ``E[W]``) has no value.  A guard whose value cannot be computed here leaves the claim as it was."""
    for g, rel in conditions:
        if rel != DEFINED:
            continue
        gm = _one_member(state, g)
        try:
            gv = Values(state, limit).value(gm)
            if gv.has(sympy.Sum):  # a concrete sum of more terms than are written out when read
                gv = gv.doit()
        except (NumericUnknown, ArithmeticError, TypeError, ValueError, NotImplementedError):
            gv = None
        where = None
        if gv is None or not gv.is_number:  # no closed form, or one with declared names (sqrt(c) sqrt(R))
            gv, where = _guard_probability(state, gm, limit) or (None, None)
        if gv is not None and gv.is_number and (gv.is_extended_real is False or gv.has(sympy.zoo, sympy.nan)
                                                or sympy.im(gv).is_zero is False):
            if not g.has(E):  # a sum over concrete indices: some term has no real value
                raise error("this expression has no real value", node.span, "a term has no real value",
                            notes=[f"some term of {show(g)} has no real value (a square root of a negative "
                                   "number, a logarithm of a number ≤ 0)"], code="E-undefined")
            raise error("this expression has no real value for some outcomes", node.span,
                        "not defined with positive probability",
                        notes=[f"{show(g.args[0] if isinstance(g, E) else g)} has no real value on outcomes of "
                               "positive probability (a square root of a negative value, a logarithm of a value "
                               "≤ 0, a division by 0)"] + ([f"for instance, {where}"] if where else []),
                        code="E-undefined")


def _one_member(state, g):
    """``g`` at the family's first member where it is about one member ``q_i`` of a random family at a free
    index (every member has the family's law): ``E[sqrt(q_i - 1)]`` is ``E[sqrt(q_1 - 1)]``."""
    free = {a for a in g.atoms(sympy.Indexed) if not a.indices[0].is_Integer}
    fam = state.scope.families.get(str(next(iter(free)).base.label)) if len(free) == 1 else None
    if fam is None or not fam.random or not fam.lo.is_Integer:
        return g
    m = free.pop()
    i, d = m.indices[0], sympy.Dummy()
    if not isinstance(i, sympy.Symbol) or isinstance(i, sympy.Dummy) or i in g.xreplace({m: d}).free_symbols \
            or any(a.base == m.base for a in g.atoms(sympy.Indexed) if a != m):
        return g
    return g.xreplace({m: m.base[fam.lo]})


def _events(h):
    """The events under which each root, logarithm and divisor in ``h`` has a real value."""
    for a in sympy.preorder_traversal(h):
        if isinstance(a, sympy.log):
            yield sympy.Gt(a.args[0], 0)
        elif isinstance(a, sympy.Pow) and a.exp.is_Rational and not a.exp.is_Integer:
            yield (sympy.Ge if a.exp > 0 else sympy.Gt)(a.base, 0)
        elif isinstance(a, sympy.Pow) and a.exp.is_Integer and a.exp < 0:
            yield sympy.Ne(a.base, 0)


def _guard_probability(state, g, limit):
    """For a guard ``E[h]`` whose value has no closed form here (a continuous variable) or mentions declared
    names: ``I`` when, for a root, logarithm or divisor in h (``E[sqrt(x)]``: ``sqrt(x)``, also inside
    ``sqrt(2) sqrt(W)``), P(x ≥ 0) (P(x > 0), P(x ≠ 0)) is provably below 1, else None.  A guard sympy
    already wrote with ``I`` (``sqrt(-Z^2)`` is ``I |Z|``): ``I`` when its imaginary part is nonzero with
    positive probability."""
    if not isinstance(g, E):
        return None
    ops = (E, Var, SD, Cov, Prob)
    try:  # E[sqrt(W - E[W])]: the inner operators by their values
        h = g.args[0].replace(lambda a: isinstance(a, ops), lambda a: Values(state, limit).value(a))
    except (NumericUnknown, ArithmeticError, TypeError, ValueError, NotImplementedError):
        return None
    events = [sympy.Eq(sympy.im(h), 0)] if h.has(sympy.I) else _events(h)  # sqrt(-Z^2) is I |Z|
    for event in events:
        try:
            p = Values(state, limit).prob(event)
        except (NumericUnknown, ArithmeticError, TypeError, ValueError, NotImplementedError):
            continue
        if p.is_number and sign(p - 1) == -1:
            return sympy.I, None
    for event in () if h.has(sympy.I) else _events(h):
        where = surely_violated(state, event)
        if where:
            return sympy.I, where
    return None


def _printable(x):
    """``x`` for the report's printers (LaTeX, PDF), or None when it holds integers too large to print."""
    return None if huge(x) else x


def _tolerance(state, tol: S.Tolerance | None):
    if tol is None:
        return None, False
    t = elaborator(state).expr(tol.value)
    if not (t.is_number and sign(t) == 1):
        raise error("a tolerance must be a positive number", tol.value.span, code="E-tolerance")
    return t, tol.relative


def _finish(state, lr: LinkResult, verdict: Comparison, claim_span: Span, vals_uses, *, title_fail: str):
    settle(lr, JudgeVerdict(verdict.outcome, EXACT if verdict.outcome != UNKNOWN else None))
    lr.message = verdict.message
    lr.rules = ["numeric"]
    lr.uses = vals_uses
    lr.show_message = True
    if verdict.outcome == FAILS:
        lr.diagnostics.append(Diagnostic("error", title_fail, claim_span, "does not hold",
                                         notes=[verdict.message] + [n for n in verdict.notes if n != verdict.message],
                                         code="E-numeric-fails"))
    elif verdict.outcome == UNKNOWN:
        lr.diagnostics.append(Diagnostic("error", "could not decide this numeric claim", claim_span, "unknown",
                                         notes=[verdict.message], code="E-numeric-unknown"))


def check_statement(state, st: S.Check) -> StepResult:
    name = S.check_name(st)
    lt, rt = _src(state, st.lhs.span), _src(state, st.rhs.span)
    rel = st.rel
    mode = f" in {st.fmt.name}" if st.fmt is not None else ""
    res = StepResult(name, st.span, "check", f"{lt} {REL_TEXT.get(rel, rel)} {rt}{mode}", rel, [], UNKNOWN)
    lr = LinkResult(1, REL_TEXT.get(rel, rel), lt, rt + (" " + _src(state, st.tol.span) if st.tol else "") + mode,
                    st.span, UNKNOWN)
    res.links.append(lr)
    claim = st.lhs.span.to(st.tol.span if st.tol else st.rhs.span)
    if rel != "≈" and st.tol is not None:
        raise error("`within` belongs to an `≈` claim", st.tol.span, code="E-tolerance")
    tol, relative = _tolerance(state, st.tol)
    t0 = time.perf_counter()
    try:
        if st.fmt is not None:
            uses, verdict = {}, _in_float(st, rel, tol, relative, lt, rt)
        else:
            limit = deadline(state)
            x, vx = _evaluate(state, st.lhs, limit=limit)
            c, vc = _evaluate(state, st.rhs, limit=limit)
            lr.lhs_expr, lr.rhs_expr = _printable(x), _printable(c)
            uses = {**vx.uses, **vc.uses}
            verdict = decide(x, c, rel, tol, st.rhs, relative=relative, lt=lt, rt=rt)
    except NumericUnknown as e:
        uses = {}
        verdict = Comparison(UNKNOWN, str(e))
    lr.seconds = time.perf_counter() - t0
    _finish(state, lr, verdict, claim, [Use(k, v) for k, v in uses.items()], title_fail="this numeric claim does not hold")
    settle_step(res)
    res.rests_on = list(uses)
    return res


def _in_float(st: S.Check, rel, tol, relative, lt, rt) -> Comparison:
    """``check ... in float32``: both sides computed in that IEEE format, the results compared exactly."""
    from . import floats

    fmt = st.fmt.name
    if fmt not in floats.FORMATS:
        raise error(f"unknown floating-point format `{fmt}`", st.fmt.span, "not a format",
                    help="write `in float16`, `in float32` or `in float64`", code="E-unsupported")
    try:
        x, c = floats.evaluate(st.lhs, fmt), floats.evaluate(st.rhs, fmt)
    except floats.NotFloat as e:
        raise NumericUnknown(str(e)) from None
    ex, ec = floats.as_exact(x), floats.as_exact(c)
    shown = f"in {fmt}: {floats.show(x)} and {floats.show(c)}"
    if ex is None or ec is None:  # NaN equals nothing, is ordered with nothing
        return Comparison(HOLDS if rel == "!=" else FAILS, f"{shown}; NaN compares false with everything")
    xs, cs = (list(v) if isinstance(v, sympy.MatrixBase) else [v] for v in (ex, ec))
    if len(xs) == len(cs) and any(not (a.is_finite and b.is_finite) for a, b in zip(xs, cs)):
        # an infinity: compared as IEEE compares it (inf = inf; ≈ and ~ only when equal)
        ops = {"=": float.__eq__, "≈": float.__eq__, "~": float.__eq__, "!=": float.__ne__, "<": float.__lt__,
               "<=": float.__le__, ">": float.__gt__, ">=": float.__ge__}
        got = [ops[rel](float(a), float(b)) for a, b in zip(xs, cs)]
        ok = any(got) if rel == "!=" else all(got)  # vectors differ where one entry does
        return Comparison(HOLDS if ok else FAILS, shown)
    v = decide(ex, ec, rel, tol, st.rhs, relative=relative, lt=lt, rt=rt)
    return Comparison(v.outcome, shown if rel != "≈" else f"{shown} ({v.message})", v.notes, v.bad_entry)


def table_statement(state, st: S.Table) -> list[StepResult]:
    out = []
    el = elaborator(state)
    values = [el.expr(v) for v in st.values]
    var = st.var.name
    for r, row in enumerate(st.rows, 1):
        if len(row.cells) != len(values):
            raise error(f"this row has {len(row.cells)} cells, but the table has {len(values)} columns",
                        row.span, f"{len(row.cells)} cells",
                        notes=[f"`{var}` takes {len(values)} values: {', '.join(_src(state, v.span) for v in st.values)}"],
                        code="E-table")
        tol, relative = _tolerance(state, row.tol)
        et = _src(state, row.expr.span)
        for col, (val, vnode, cell) in enumerate(zip(values, st.values, row.cells), 1):
            at = f"{var} = {_src(state, vnode.span)}"
            ct = _src(state, cell.span)
            name = S.table_cell_name(st, r, col)
            relt = REL_TEXT.get(row.rel, row.rel)
            res = StepResult(name, cell.span, "check", f"{et} {relt} {ct} at {at}", row.rel, [], UNKNOWN)
            lr = LinkResult(1, relt, f"{et} at {at}", ct, cell.span, UNKNOWN)
            res.links.append(lr)
            t0 = time.perf_counter()
            try:
                limit = deadline(state)
                x, vx = _evaluate(state, row.expr, {var: val}, limit)
                c, vc = _evaluate(state, cell, {var: val}, limit)
                lr.lhs_expr, lr.rhs_expr = _printable(x), _printable(c)
                uses = {**vx.uses, **vc.uses}
                verdict = decide(x, c, row.rel, tol, cell, relative=relative, lt=et, rt=ct)
            except NumericUnknown as e:
                uses = {}
                verdict = Comparison(UNKNOWN, str(e))
            lr.seconds = time.perf_counter() - t0
            where = f"table \"{st.title}\", row {r} (`{et}`), column {col} ({at})"
            verdict.message = f"{where}: {verdict.message}" if verdict.outcome != HOLDS else verdict.message
            _finish(state, lr, verdict, cell.span, [Use(k, v) for k, v in uses.items()],
                    title_fail=f"table cell row {r}, column {col} does not hold")
            settle_step(res)
            res.rests_on = list(uses)
            out.append(res)
    return out
