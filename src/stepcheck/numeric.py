"""Numeric claims: ``check``, ``table`` and ``simulate`` (see ``docs/numbers.md``).

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
import re
import time

import sympy
from sympy import Integer, Rational

from . import syntax as S
from .distributions import lookup
from .elaborate import Elaborator
from .errors import Diagnostic, Span, error
from .judge import EXACT, SIMULATION, UNDECIDED, settle, settle_step
from .judge import Verdict as JudgeVerdict
from .judge.exact import PRECISIONS, sign
from .judge.exact import as_sympy as _as_sympy
from .kernel import IndepFact
from .terms.objects import SD, Cov, E, Var
from .terms.probability import Prob
from .results import FAILS, HOLDS, SIMULATED, UNKNOWN, LinkResult, StepResult, Use

MAX_OUTCOMES = 2**16  # joint outcomes enumerated exactly
MAX_SUM_TERMS = 10_000  # a numeric sum(i=1..n, ...) is expanded up to this n
MAX_MONOMIALS = 20_000  # terms of an expanded polynomial whose moments are taken
DEFAULT_SAMPLES = 20_000
DEFAULT_SEED = 0
DEFAULT_CONFIDENCE = Rational(95, 100)
MAX_SAMPLES = 10_000_000
MAX_DRAWS = 2 * 10**9  # samples × random numbers per sample
CHUNK_NUMBERS = 4_000_000  # random numbers drawn at once (memory bound)
REL_TEXT = {"=": "=", "<": "<", "<=": "≤", ">": ">", ">=": "≥", "!=": "≠", "≈": "≈", "~": "~"}


class NumericUnknown(Exception):
    """The value cannot be computed exactly within the limits (the claim is ``unknown``)."""


# ------------------------------------------------------------------ numbers as written

_NUM = re.compile(r"^(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$")


def _num_tol(text: str) -> Rational:
    """Half a unit in the last written digit of a literal: 2.83 -> 0.005, 8 -> 0.5, 1e-9 -> 5e-10."""
    m = _NUM.match(text)
    frac, exp = m.group(2) or "", int(m.group(3) or 0)
    return Rational(1, 2) * Rational(10) ** (exp - len(frac))


def _int_of(node):
    if isinstance(node, S.Num) and node.text.isdigit():
        return int(node.text)
    if isinstance(node, S.Neg) and isinstance(node.operand, S.Num) and node.operand.text.isdigit():
        return -int(node.operand.text)
    return None


def written_tolerance(node):
    """The tolerance a decimal written as ``node`` stands for, or None when it is not a decimal.

    Decimals: ``2.83``, ``-0.5``, ``1e-9``, ``10^29`` (one significant digit) and
    ``2.6 × 10^10`` / ``2.6 * 10^-3`` (the mantissa's digits, scaled)."""
    if isinstance(node, S.Num):
        return _num_tol(node.text)
    if isinstance(node, S.Neg):
        return written_tolerance(node.operand)
    if isinstance(node, S.BinOp) and node.op == "^" and isinstance(node.left, S.Num) and node.left.text == "10":
        k = _int_of(node.right)
        return None if k is None else Rational(1, 2) * Rational(10) ** k
    if isinstance(node, S.BinOp) and node.op == "*" and isinstance(node.left, S.Num):
        r = node.right
        if isinstance(r, S.BinOp) and r.op == "^" and isinstance(r.left, S.Num) and r.left.text == "10":
            k = _int_of(r.right)
            if k is not None:
                return _num_tol(node.left.text) * Rational(10) ** k
    return None


# ------------------------------------------------------------------ deciding signs


def fmt(x, digits: int = 10) -> str:
    """A short decimal of an exact value: 2.828427125, 2.648912213e+10, 0.0625, 1/3 ≈ 0.3333333333."""
    try:
        x = _as_sympy(x)
        if x.is_Rational:
            q = int(x.q)
            while q % 2 == 0:
                q //= 2
            while q % 5 == 0:
                q //= 5
            if x.is_Integer and abs(x) < 10**10:
                return str(x)
            if q == 1 and len(str(x)) <= 14:  # a terminating decimal: show it exactly
                from decimal import Decimal, localcontext

                with localcontext() as ctx:
                    ctx.prec = 40
                    d = (Decimal(int(x.p)) / Decimal(int(x.q))).normalize()
                return f"{d:f}" if -7 < d.adjusted() < 10 else f"{d:e}"
            if q != 1 and len(str(x)) <= 14:
                return f"{x} ≈ {_nstr(sympy.N(x, digits), digits)}"
        return _nstr(sympy.N(x, digits), digits)
    except Exception:
        return str(x)


def _nstr(v, digits):
    import mpmath

    try:
        return mpmath.nstr(mpmath.mpf(v), digits, min_fixed=-4, max_fixed=9)
    except Exception:
        return str(v)


# ------------------------------------------------------------------ exact values of E, Var, P, ...


class Values:
    """Replaces E/Var/SD/Cov/P of declared random variables by exact values."""

    def __init__(self, state):
        self.c = state
        self.uses: dict[str, str] = {}  # label -> kind, in order of use

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
            raise NumericUnknown(f"`{v}` has a symbolic index: give the index a value (or prove it with a `step`)")
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
                if not isinstance(f, IndepFact):
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
        expr = self.expand_sums(expr)
        ops = (E, Var, SD, Cov, Prob)
        for _ in range(1000):
            inner = [a for a in sympy.preorder_traversal(expr)
                     if isinstance(a, ops) and not any(isinstance(b, ops) for b in _proper_subexprs(a))]
            if not inner:
                break
            sub = {a: self.op_value(a) for a in dict.fromkeys(inner)}
            expr = expr.xreplace(sub)
        left = self.rvs(expr)
        if left:
            raise NumericUnknown("the value is random (it depends on " + ", ".join(str(v) for v in left) +
                                 "): write E[...], Var(...), SD(...) or P(...)")
        return expr

    def expand_sums(self, expr):
        def small(s):
            for _, lo, hi in s.limits:
                if not (lo.is_Integer and hi.is_Integer):
                    return False
                if int(hi) - int(lo) + 1 > MAX_SUM_TERMS:
                    raise NumericUnknown(f"a sum with {int(hi) - int(lo) + 1:,} terms is too long to expand "
                                         f"(the limit is {MAX_SUM_TERMS:,}); prove it with a `step`")
            return True

        return expr.replace(lambda e: isinstance(e, (sympy.Sum, sympy.Product)) and small(e), lambda e: e.doit())

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
        for combo in itertools.product(*sups):
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
        # moments of a polynomial
        try:
            poly = sympy.Poly(y, *vs)
        except sympy.PolynomialError:
            raise NumericUnknown(f"E[{y}] is not a polynomial in {', '.join(map(str, vs))}; "
                                 "only polynomials of continuous variables have closed forms here") from None
        terms = poly.terms()
        if len(terms) > MAX_MONOMIALS:
            raise NumericUnknown(f"the expansion has {len(terms):,} terms (limit {MAX_MONOMIALS:,}); "
                                 "prove it with a `step`")
        if any(sum(1 for e in mon if e) > 1 for mon, _ in terms):
            self.need_independence(vs)
        tot = Integer(0)
        for mon, coeff in terms:
            part = coeff
            for d, e in zip(laws, mon):
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


# ------------------------------------------------------------------ one comparison


class Verdict:
    """A numeric comparison's outcome (the judge turns it into the link's verdict, decided by EXACT)."""

    def __init__(self, status, message, notes=(), bad_entry=None):
        self.status = status
        self.message = message
        self.notes = list(notes)
        self.bad_entry = bad_entry  # index of a failing vector entry


def _interval(c, tol):
    return f"[{fmt(c - tol)}, {fmt(c + tol)}]"


def compare_approx(x, c, tol, how: str) -> Verdict:
    """``x ≈ c`` with |x - c| <= tol (boundary included)."""
    lo, hi = sign(x - (c - tol)), sign((c + tol) - x)
    rng = _interval(c, tol)
    shown = f"value {_exact(x)}; allowed {rng} ({how})"
    if lo is not None and hi is not None and lo >= 0 and hi >= 0:
        edge = " — exactly on the boundary, which is included" if 0 in (lo, hi) else ""
        return Verdict(HOLDS, shown + edge)
    if (lo is not None and lo < 0) or (hi is not None and hi < 0):
        side = "below" if lo is not None and lo < 0 else "above"
        return Verdict(FAILS, f"value {_exact(x)} is {side} the allowed interval {rng} ({how})")
    return Verdict(UNKNOWN, f"value {fmt(x, 30)} is within rounding of the boundary of {rng} ({how}): "
                            f"{PRECISIONS[-1]} digits cannot decide")


def _undummy(e):
    """``e`` with every Dummy replaced by a Symbol of the same name and assumptions."""
    return e.xreplace({d: sympy.Symbol(d.name, **d.assumptions0) for d in e.atoms(sympy.Dummy)})


def _exact(x) -> str:
    """``erf(sqrt(2)/2) = 0.6826894921`` (the exact form when it is short and not a plain number)."""
    shown = fmt(x)
    if not x.is_Rational:
        from .terms.printer import show

        t = show(x)
        if len(t) <= 40:
            return f"{t} = {shown}"
    return shown


def _exact_r(x) -> str:
    if x.is_Rational and not x.is_Integer:
        d = fmt(x)
        return d if ("≈" in d or len(str(x)) > 14) else f"{x} = {d}"
    return _exact(x)


def compare_exact(x, c, op, lt="left", rt="right") -> Verdict:
    s = sign(x - c)
    shown = f"{lt} = {_exact_r(x)}; {rt} = {_exact_r(c)}"
    if s is None:
        return Verdict(UNKNOWN, f"{shown}: the difference is too small to decide with {PRECISIONS[-1]} digits")
    ok = {"=": s == 0, "!=": s != 0, "<": s < 0, "<=": s <= 0, ">": s > 0, ">=": s >= 0}[op]
    if op == "=" and ok:
        return Verdict(HOLDS, f"both sides are exactly {_exact(x) if not x.is_Rational or x.is_Integer else f'{x} = {fmt(x)}'}")
    return Verdict(HOLDS if ok else FAILS, shown)


def _exponent(x):
    """floor(log10|x|) decided exactly, or None."""
    ax = sympy.Abs(x)
    if sign(ax) in (0, None):
        return None
    try:
        guess = int(math.floor(float(sympy.log(ax, 10).evalf(30))))
    except Exception:
        return None
    for k in (guess - 1, guess, guess + 1):
        a, b = sign(ax - Rational(10) ** k), sign(Rational(10) ** (k + 1) - ax)
        if a is None or b is None:
            return None
        if a >= 0 and b > 0:
            return k
    return None


def compare_magnitude(x, c, lt: str, rt: str) -> Verdict:
    a, b = _exponent(x), _exponent(c)
    shown = f"{lt} = {_sci(x)}; {rt} = {_sci(c)}"
    if a is None or b is None:
        return Verdict(UNKNOWN, f"{shown}: cannot decide floor(log10|·|) (zero, or too close to a power of 10)")
    if a == b:
        return Verdict(HOLDS, f"{shown}: same order of magnitude (floor(log10) = {a} for both)")
    return Verdict(FAILS, f"{shown}: different orders of magnitude (floor(log10) = {a} vs {b}; "
                          "the convention is the same exponent in scientific notation)")


def _sci(x):
    try:
        import mpmath

        return mpmath.nstr(mpmath.mpf(sympy.N(x, 20)), 3, min_fixed=1, max_fixed=0).replace("e+", "e")
    except Exception:
        return fmt(x)


def decide(x, c, rel, tol_node_or_value, c_node, *, relative=False, lt="left", rt="right") -> Verdict:
    """Decide ``x REL c`` for numbers or vectors (elementwise)."""
    xs = list(x) if isinstance(x, sympy.MatrixBase) else None
    cs = list(c) if isinstance(c, sympy.MatrixBase) else None
    if (xs is None) != (cs is None):
        return Verdict(FAILS, "one side is a vector and the other a number")
    if xs is not None:
        if len(xs) != len(cs):
            return Verdict(FAILS, f"the vectors have different lengths ({len(xs)} and {len(cs)})")
        items = c_node.items if isinstance(c_node, S.Vector) else [None] * len(cs)
        verdicts = []
        for k, (xi, ci, ni) in enumerate(zip(xs, cs, items)):
            v = decide(xi, ci, rel, tol_node_or_value, ni, relative=relative, lt=f"entry {k + 1}", rt=f"entry {k + 1}")
            verdicts.append(v)
        bad = [k for k, v in enumerate(verdicts) if v.status == FAILS]
        unk = [k for k, v in enumerate(verdicts) if v.status == UNKNOWN]
        lines = [f"entry {k + 1}: {v.message}" for k, v in enumerate(verdicts)]
        if bad:
            return Verdict(FAILS, f"entry {bad[0] + 1}: {verdicts[bad[0]].message}", lines, bad[0])
        if unk:
            return Verdict(UNKNOWN, f"entry {unk[0] + 1}: {verdicts[unk[0]].message}", lines, unk[0])
        return Verdict(HOLDS, f"all {len(xs)} entries hold", lines)
    for v in (x, c):
        if v.free_symbols:
            return Verdict(UNKNOWN, f"the value {v} depends on {', '.join(sorted(map(str, v.free_symbols)))}: "
                                    "give it a value (`table ... for x in [...]`) or prove it with a `step`")
        if sign(sympy.im(v)) not in (0,):
            return Verdict(UNKNOWN, f"the value {fmt(v)} is not (known to be) real")
    if rel == "≈":
        if tol_node_or_value is not None:
            tol = tol_node_or_value
            how = f"within {fmt(tol)}"
            if relative:
                how = f"within {fmt(tol)} relative"
                tol = tol * sympy.Abs(c)
            return compare_approx(x, c, tol, how)
        wt = written_tolerance(c_node) if c_node is not None else None
        if wt is None:
            return Verdict(UNKNOWN, "`≈` needs a decimal on the right (its written precision is the tolerance) "
                                    "or an explicit `within TOL`")
        return compare_approx(x, c, wt, f"as written: ±{fmt(wt)}")
    if rel == "~":
        return compare_magnitude(x, c, lt, rt)
    return compare_exact(x, c, rel, lt, rt)


# ------------------------------------------------------------------ statements


def _src(state, span):
    return state.src(span) if span is not None else ""


def _uses(vals: Values):
    return [Use(label, kind) for label, kind in vals.uses.items()]


def _evaluate(state, node, bindings=None):
    """(exact value, Values) of an expression node; NumericUnknown for what cannot be computed."""
    el = elaborator(state, bindings)
    v = el.expr(node)
    vals = Values(state)
    if isinstance(v, sympy.MatrixBase):
        return sympy.ImmutableMatrix([vals.value(a) for a in v]), vals
    return vals.value(v), vals


def _tolerance(state, tol: S.Tolerance | None):
    if tol is None:
        return None, False
    t = elaborator(state).expr(tol.value)
    if not (t.is_number and sign(t) == 1):
        raise error("a tolerance must be a positive number", tol.value.span, code="E-tolerance")
    return t, tol.relative


def _finish(state, lr: LinkResult, verdict: Verdict, claim_span: Span, vals_uses, *, title_fail: str):
    settle(lr, JudgeVerdict(verdict.status, EXACT if verdict.status != UNKNOWN else None))
    lr.message = verdict.message
    lr.rules = ["numeric"]
    lr.uses = vals_uses
    lr.show_message = True
    if verdict.status == FAILS:
        lr.diagnostics.append(Diagnostic("error", title_fail, claim_span, "does not hold",
                                         notes=[verdict.message] + [n for n in verdict.notes if n != verdict.message],
                                         code="E-numeric-fails"))
    elif verdict.status == UNKNOWN:
        lr.diagnostics.append(Diagnostic("error", "could not decide this numeric claim", claim_span, "unknown",
                                         notes=[verdict.message], code="E-numeric-unknown"))


def check_statement(state, st: S.Check) -> StepResult:
    name = S.check_name(st)
    lt, rt = _src(state, st.lhs.span), _src(state, st.rhs.span)
    rel = st.rel
    res = StepResult(name, st.span, "check", f"{lt} {REL_TEXT.get(rel, rel)} {rt}", rel, [], UNKNOWN)
    lr = LinkResult(1, REL_TEXT.get(rel, rel), lt, rt + (" " + _src(state, st.tol.span) if st.tol else ""),
                    st.span, UNKNOWN)
    res.links.append(lr)
    claim = st.lhs.span.to(st.tol.span if st.tol else st.rhs.span)
    if rel != "≈" and st.tol is not None:
        raise error("`within` belongs to an `≈` claim", st.tol.span, code="E-tolerance")
    tol, relative = _tolerance(state, st.tol)
    t0 = time.perf_counter()
    try:
        x, vx = _evaluate(state, st.lhs)
        c, vc = _evaluate(state, st.rhs)
        lr.lhs_expr, lr.rhs_expr = x, c
        uses = {**vx.uses, **vc.uses}
        verdict = decide(x, c, rel, tol, st.rhs, relative=relative, lt=lt, rt=rt)
    except NumericUnknown as e:
        uses = {}
        verdict = Verdict(UNKNOWN, str(e))
    lr.seconds = time.perf_counter() - t0
    _finish(state, lr, verdict, claim, [Use(k, v) for k, v in uses.items()], title_fail="this numeric claim does not hold")
    settle_step(res)
    res.rests_on = list(uses)
    return res


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
                x, vx = _evaluate(state, row.expr, {var: val})
                c, vc = _evaluate(state, cell, {var: val})
                lr.lhs_expr, lr.rhs_expr = x, c
                uses = {**vx.uses, **vc.uses}
                verdict = decide(x, c, row.rel, tol, cell, relative=relative, lt=et, rt=ct)
            except NumericUnknown as e:
                uses = {}
                verdict = Verdict(UNKNOWN, str(e))
            lr.seconds = time.perf_counter() - t0
            where = f"table \"{st.title}\", row {r} (`{et}`), column {col} ({at})"
            verdict.message = f"{where}: {verdict.message}" if verdict.status != HOLDS else verdict.message
            _finish(state, lr, verdict, cell.span, [Use(k, v) for k, v in uses.items()],
                    title_fail=f"table cell row {r}, column {col} does not hold")
            settle_step(res)
            res.rests_on = list(uses)
            out.append(res)
    return out


# ------------------------------------------------------------------ simulate

_OPTIONS = {"samples", "seed", "confidence"}


def _options(state, st: S.Simulate):
    opts = {"samples": Integer(DEFAULT_SAMPLES), "seed": Integer(DEFAULT_SEED), "confidence": DEFAULT_CONFIDENCE}
    el = elaborator(state)
    for b in st.options:
        n = b.name.name
        if n not in _OPTIONS:
            raise error(f"unknown option `{n}` of `simulate`", b.name.span, "unknown option",
                        help="the options are `samples = N`, `seed = S` and `confidence = C` (e.g. 0.95)",
                        code="E-simulate")
        v = el.expr(b.value)
        if n in ("samples", "seed") and not (v.is_Integer and v >= (2 if n == "samples" else 0)):
            raise error(f"`{n}` must be a whole number" + (" of at least 2" if n == "samples" else ""),
                        b.value.span, code="E-simulate")
        if n == "samples" and v > MAX_SAMPLES:
            raise error(f"at most {MAX_SAMPLES:,} samples", b.value.span, code="E-limit")
        if n == "confidence" and not (v.is_number and 0 < v < 1):
            raise error("`confidence` must lie strictly between 0 and 1, e.g. 0.95", b.value.span, code="E-simulate")
        opts[n] = v
    return int(opts["samples"]), int(opts["seed"]), opts["confidence"]


class _Sampler:
    """Evaluates a sympy expression on a block of samples with numpy."""

    def __init__(self, state, vals: Values, np, sub=None):
        self.c = state
        self.sub = sub or {}  # declared symbol -> value (from `where`)
        self.vals = vals
        self.np = np
        self.draws: dict = {}  # variable key -> array for the current block

    def plan(self, expr):
        """The random variables (Symbols, or family names with their numeric ranges) the expression needs."""
        scalars, families = set(), {}
        for a in sympy.preorder_traversal(expr):
            if isinstance(a, sympy.Symbol) and self.vals.is_rv(a):
                scalars.add(a)
            elif isinstance(a, sympy.Indexed) and self.vals.is_rv(a):
                fam = self.c.scope.families[str(a.base.label)]
                lo, hi = fam.lo.xreplace(self.sub), fam.hi.xreplace(self.sub)
                if not (lo.is_Integer and hi.is_Integer):
                    raise NumericUnknown(f"the family `{a.base.label}` has a symbolic range {lo}..{hi}: "
                                         "give its bound a value with `where`")
                families[str(a.base.label)] = (a.base, int(lo), int(hi))
        return sorted(scalars, key=str), families

    def ev(self, e, env):
        np = self.np
        if e.is_Number:
            return float(e)
        if e in env:
            return env[e]
        if isinstance(e, sympy.Symbol):
            if e in self.draws:
                return self.draws[e]
            if e is sympy.E:
                return math.e
            raise NumericUnknown(f"`{e}` has no value in the simulation: give it one with `where {e} = ...`")
        if isinstance(e, sympy.NumberSymbol):
            return float(e)
        if isinstance(e, sympy.Indexed):
            arr, lo = self.draws[str(e.base.label)]
            idx = self.ev(e.indices[0], env)
            idx = np.asarray(idx).astype(int) if not isinstance(idx, float) else int(idx)
            return arr[:, idx - lo]
        if isinstance(e, sympy.Add):
            return sum((self.ev(a, env) for a in e.args), 0.0)
        if isinstance(e, sympy.Mul):
            out = 1.0
            for a in e.args:
                out = out * self.ev(a, env)
            return out
        if isinstance(e, sympy.Pow):
            return np.power(self.ev(e.base, env), self.ev(e.exp, env))
        if isinstance(e, sympy.Sum):
            if len(e.limits) != 1:
                raise NumericUnknown("nested sums are not simulated")
            i, lo, hi = e.limits[0]
            if not (lo.is_Integer and hi.is_Integer):
                raise NumericUnknown(f"the sum's range {lo}..{hi} is symbolic: give it a value with `where`")
            if any(isinstance(k, sympy.Dummy) and k in env for k in env):
                raise NumericUnknown("nested sums are not simulated")
            body = e.function
            if i not in body.free_symbols:
                return self.ev(body, env) * (int(hi) - int(lo) + 1)
            ix = np.arange(int(lo), int(hi) + 1)
            val = self.ev(body, {**env, i: ix})
            val = np.broadcast_to(val, (self.n, len(ix))) if np.ndim(val) < 2 else val
            return val.sum(axis=1)
        funcs = {sympy.exp: np.exp, sympy.log: np.log, sympy.tanh: np.tanh, sympy.Abs: np.abs,
                 sympy.erf: np.vectorize(math.erf)}
        for f, g in funcs.items():
            if isinstance(e, f):
                return g(self.ev(e.args[0], env))
        if isinstance(e, (sympy.Max, sympy.Min)):
            vals = [self.ev(a, env) for a in e.args]
            out = vals[0]
            for v in vals[1:]:
                out = (np.maximum if isinstance(e, sympy.Max) else np.minimum)(out, v)
            return out
        if isinstance(e, sympy.core.relational.Relational):
            a, b = self.ev(e.lhs, env), self.ev(e.rhs, env)
            return {"==": np.equal, "!=": np.not_equal, "<": np.less, "<=": np.less_equal, ">": np.greater,
                    ">=": np.greater_equal}[e.rel_op](a, b)
        if isinstance(e, sympy.And):
            out = True
            for a in e.args:
                out = np.logical_and(out, self.ev(a, env))
            return out
        if isinstance(e, sympy.Or):
            out = False
            for a in e.args:
                out = np.logical_or(out, self.ev(a, env))
            return out
        raise NumericUnknown(f"cannot simulate `{e}` (unsupported operation {type(e).__name__})")


def _z(confidence) -> float:
    from statistics import NormalDist

    return NormalDist().inv_cdf((1 + float(confidence)) / 2)


def simulate_statement(state, st: S.Simulate) -> StepResult:
    name = st.name.name
    lt, rt = _src(state, st.lhs.span), _src(state, st.rhs.span)
    rel = st.rel
    if rel not in ("≈", "="):
        raise error("a simulation estimates a value: write `simulate NAME: E[...] ≈ VALUE`", st.span,
                    code="E-simulate")
    n, seed, conf = _options(state, st)
    el0 = elaborator(state)
    bindings = {}
    for b in st.where:
        bindings[b.name.name] = el0.expr(b.value)
        if not bindings[b.name.name].is_number:
            raise error("`where` gives a name a number", b.value.span, code="E-simulate")
    where_text = ", ".join(f"{b.name.name} = {_src(state, b.value.span)}" for b in st.where)
    stmt = f"{lt} {REL_TEXT[rel]} {rt}" + (f" where {where_text}" if where_text else "")
    res = StepResult(name, st.span, "simulate", stmt, "≈", [], UNKNOWN)
    lr = LinkResult(1, "≈", lt, rt + (f" where {where_text}" if where_text else ""), st.span, UNKNOWN)
    lr.rules = ["simulation"]
    lr.show_message = True
    res.links.append(lr)
    el = elaborator(state, bindings)
    lhs = el.expr(st.lhs)
    target = el.expr(st.rhs)
    uses: dict[str, str] = {}
    proof_note = None
    if st.proof is not None:
        proof_note = _proof(state, st, lr, lhs, target, bindings, uses)
    t0 = time.perf_counter()
    try:
        if not isinstance(lhs, (E, Var, SD, Prob)):
            raise NumericUnknown("a simulation estimates E[...], Var(...), SD(...) or P(...) of declared random "
                                 "variables; write the claim as one of those")
        vals = Values(state)
        target_v = vals.value(target)
        if target_v.free_symbols or not target_v.is_number:
            raise NumericUnknown(f"the claimed value {target} is not a number: give names a value with `where`")
        inner = lhs.args[0]
        sub = {state.scope.symbols[k]: v for k, v in bindings.items() if k in state.scope.symbols}
        est, lo, hi, detail = _run_simulation(state, vals, lhs, inner, n, seed, conf, sub)
        uses.update(vals.uses)
        consistent = bool(lo <= float(target_v) <= hi)
        pct = f"{float(conf) * 100:g}%"
        msg = (f"estimate {est:.6g}, {pct} interval [{lo:.6g}, {hi:.6g}] ({n:,} samples, seed {seed}): "
               + (f"consistent with {fmt(target_v)}" if consistent else f"INCONSISTENT with {fmt(target_v)}")
               + f"\n({detail})")
        if proof_note:
            msg += f"\n{proof_note}"
        settle(lr, JudgeVerdict(SIMULATED, SIMULATION))
        lr.message = msg
        lr.lhs_expr, lr.rhs_expr = lhs, target_v
        res.simulation = {"estimate": est, "low": lo, "high": hi, "samples": n, "seed": seed,
                          "confidence": float(conf), "claimed": float(target_v), "consistent": consistent}
        if not consistent:
            lr.diagnostics.append(Diagnostic(
                "error", "the simulation is inconsistent with this claim", st.lhs.span.to(st.rhs.span),
                f"outside the {pct} interval", notes=[msg],
                help="a simulation is evidence, not a proof; check the claim (or the sample size and seed)",
                code="E-simulation-inconsistent"))
        settle_step(res)
    except NumericUnknown as e:
        settle(lr, UNDECIDED)
        lr.message = str(e)
        lr.diagnostics.append(Diagnostic("error", "could not simulate this claim", st.lhs.span, "unknown",
                                         notes=[str(e)], code="E-simulation-unknown"))
        settle_step(res)
    lr.seconds = time.perf_counter() - t0
    lr.uses = [Use(k, v) if v != "step" else Use(k, "step", detail=state.steps[k].statement)
               for k, v in uses.items()]
    res.rests_on = [k for k, v in uses.items() if v != "step"]
    if st.proof is not None and st.proof.text in state.steps:
        res.steps_cited = [st.proof.text]
        res.rests_on = list(dict.fromkeys(res.rests_on + state.steps[st.proof.text].rests_on))
    return res


def _proof(state, st, lr, lhs, target, bindings, uses):
    """Relate the simulated claim to the symbolic step named after `by`."""
    ref = st.proof.text
    step = state.steps.get(ref)
    if step is None:
        raise error(f"unknown step `{ref}`", st.proof.span, "not a step of this file",
                    help="name an earlier step that proves the claim symbolically", code="E-unknown-ref")
    uses[ref] = "step"
    facts = state.step_facts.get(ref) or []
    note = f"proved symbolically by `{ref}` ({step.status}): {step.statement}"
    if facts:
        f = facts[0]
        sub = {}
        for k, v in bindings.items():
            sym = state.scope.symbols.get(k)
            if sym is not None:
                sub[sym] = v
        lhs_s, rhs_s = f.lhs.xreplace(sub), f.rhs.xreplace(sub)
        # the two sides usually differ only by the Dummy of a sum index: compare with the
        # dummies renamed first, and fall back to simplify only when that is not enough
        same = False
        if not isinstance(lhs, sympy.MatrixBase):
            same = _undummy(lhs_s) == _undummy(lhs) or sympy.simplify(lhs_s - lhs) == 0
        if not same:
            try:
                same = lhs_s == lhs or sympy.srepr(lhs_s) == sympy.srepr(lhs)
            except Exception:
                same = False
        if same and sign(rhs_s - target) == 0:
            where = ", ".join(f"{k} = {v}" for k, v in bindings.items())
            note += f", which at {where} is {fmt(rhs_s)}" if where else ""
        else:
            lr.diagnostics.append(Diagnostic(
                "warning", f"`{ref}` does not state this claim", st.proof.span, "a different statement",
                notes=[f"`{ref}` proves {step.statement}"] +
                      ([f"with {', '.join(f'{k} = {v}' for k, v in bindings.items())} its sides are "
                        f"{lhs_s} and {rhs_s}"] if bindings else []),
                code="W-simulate-proof"))
    return note


def _run_simulation(state, vals: Values, op, inner, n, seed, conf, sub=None):
    import numpy as np

    smp = _Sampler(state, vals, np, sub)
    scalars, families = smp.plan(inner)
    allvars = list(scalars)
    per_sample = len(scalars)
    samplers = {}
    for s in scalars:
        d = vals.law(s)
        if not d.numeric_params():
            raise NumericUnknown(f"`{s} ~ {d.text}` has symbolic parameters")
        samplers[s] = d.sampler()
    for fname, (base, lo, hi) in families.items():
        d = vals.law(base[lo])
        if not d.numeric_params():
            raise NumericUnknown(f"`{fname} ~ {d.text}` has symbolic parameters")
        samplers[fname] = (d.sampler(), lo, hi)
        per_sample += hi - lo + 1
        allvars.extend(base[k] for k in range(lo, hi + 1))
    if not allvars:
        raise NumericUnknown("nothing random to simulate")
    if per_sample * n > MAX_DRAWS:
        raise NumericUnknown(f"{n:,} samples of {per_sample:,} random numbers each exceed the limit of "
                             f"{MAX_DRAWS:,} draws")
    if len(allvars) > 1:
        vals.need_independence(allvars)
    rng = np.random.default_rng(seed)
    block = max(1, min(n, CHUNK_NUMBERS // max(per_sample, 1)))
    outs = []
    done = 0
    while done < n:
        m = min(block, n - done)
        smp.n = m
        smp.draws = {}
        for s in scalars:
            smp.draws[s] = samplers[s](rng, (m,))
        for fname in families:
            f, lo, hi = samplers[fname]
            smp.draws[fname] = (f(rng, (m, hi - lo + 1)), lo)
        y = smp.ev(inner, {})
        y = np.broadcast_to(np.asarray(y, dtype=float), (m,))
        outs.append(np.array(y, dtype=float))
        done += m
    y = np.concatenate(outs)
    if not np.all(np.isfinite(y)):
        raise NumericUnknown("the simulated values include infinities or NaN")
    z = _z(conf)
    if isinstance(op, Prob):
        k = float(y.sum())
        p = k / n
        den = 1 + z * z / n
        centre = (p + z * z / (2 * n)) / den
        half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
        return p, centre - half, centre + half, "Wilson interval for a proportion"
    if isinstance(op, E):
        mean = float(y.mean())
        se = float(y.std(ddof=1)) / math.sqrt(n)
        return mean, mean - z * se, mean + z * se, "normal interval for the mean"
    # Var and SD: sample variance with the asymptotic interval from the fourth central moment
    s2 = float(y.var(ddof=1))
    m4 = float(np.mean((y - y.mean()) ** 4))
    var_s2 = max((m4 - s2 * s2 * (n - 3) / (n - 1)) / n, 0.0)
    lo, hi = s2 - z * math.sqrt(var_s2), s2 + z * math.sqrt(var_s2)
    if isinstance(op, SD):
        return math.sqrt(s2), math.sqrt(max(lo, 0.0)), math.sqrt(hi), "square root of the sample variance's asymptotic interval"
    return s2, lo, hi, "sample variance (n - 1), asymptotic interval using the fourth moment"
