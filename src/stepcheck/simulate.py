"""``simulate``: Monte Carlo evidence for a claim (never a proof; see docs/numbers.md).

The estimate, its confidence interval and the claimed value are reported
with status ``simulated`` (decided by ``simulation``); an estimate whose
interval excludes the claim is an error on the link.
"""
from __future__ import annotations

import math
import time

import sympy
from sympy import Integer, Rational

from . import syntax as S
from .compare import fmt, safe_str
from .errors import Diagnostic, error
from .judge import SIMULATION, UNDECIDED, settle, settle_step
from .judge import Verdict as JudgeVerdict
from .numeric import (DEFAULT_CONFIDENCE, DEFAULT_SAMPLES, DEFAULT_SEED, MAX_DRAWS, MAX_SAMPLES, CHUNK_NUMBERS,
                      REL_TEXT, NumericUnknown, Values, _src, check_defined, elaborator)
from .compare import _undummy
from .models import ranges
from .terms.functions import function_of
from .terms.printer import show
from .judge.exact import sign
from .terms.facts import EqFact
from .terms.objects import SD, E, FamilyExtremum, Var
from .terms.probability import Prob
from .results import SIMULATED, UNKNOWN, LinkResult, StepResult, Use
from .sample_tails import certify, not_dominated


# ------------------------------------------------------------------ simulate

_OPTIONS = {"samples", "seed", "confidence"}
MIN_SAMPLES = 100  # fewer samples give no verdict (docs/language.md, `simulate`)
MAX_MISS_RATIO = 2  # the interval may miss at most twice as often as 1 - confidence says
MAX_CONFIDENCE = 1 - Rational(1, 10**6)
MAX_CONFIDENCE_TEXT = "0.999999"
MAX_SEED = 2**128


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
        if n in ("samples", "seed") and not (v.is_Integer and v >= (1 if n == "samples" else 0)):
            raise error(f"`{n}` must be a whole number" + (" of at least 1" if n == "samples" else " (0 or more)"),
                        b.value.span, code="E-simulate")
        if n == "samples" and v > MAX_SAMPLES:
            raise error(f"at most {MAX_SAMPLES:,} samples", b.value.span, code="E-limit")
        if n == "seed" and v >= MAX_SEED:
            raise error("`seed` must be less than 2^128", b.value.span, "too large",
                        notes=["numpy mixes a seed into a 128-bit state: larger seeds give no more streams"],
                        code="E-simulate")
        if n == "confidence" and not (v.is_number and v.is_real and 0 < v < 1):
            raise error("`confidence` must lie strictly between 0 and 1, e.g. 0.95", b.value.span, code="E-simulate")
        if n == "confidence" and v > MAX_CONFIDENCE:
            raise error(f"`confidence` must be at most {MAX_CONFIDENCE_TEXT}", b.value.span, "too close to 1",
                        notes=["the confidence interval comes from the normal approximation, whose far tails "
                               "(beyond about 5 standard errors) are not accurate"], code="E-simulate")
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
            elif isinstance(a, FamilyExtremum):  # max(z): every member of its range is drawn
                self.plan_family(a.args[0], families)
        return sorted(scalars, key=str), families

    def plan_family(self, base, families):
        fam = self.c.scope.families[str(base.label)]
        if not fam.random:
            return
        lo, hi = fam.lo.xreplace(self.sub), fam.hi.xreplace(self.sub)
        if not (lo.is_Integer and hi.is_Integer):
            raise NumericUnknown(f"the family `{base.label}` has a symbolic range {lo}..{hi}: give its bound a value "
                                 "with `where`")
        families[str(base.label)] = (base, int(lo), int(hi))

    def extremum(self, e):
        """max(z) / min(z) over lo..hi, member by member on each sample (an empty range has none)."""
        arr, first = self.draws[str(e.args[0].label)]
        lo, hi = (x.xreplace(self.sub) for x in e.args[1:3])
        if not (lo.is_Integer and hi.is_Integer) or hi < lo:
            raise NumericUnknown(f"{e.kind}({e.args[0]}) over {lo}..{hi}: give the range a value with `where` "
                                 "(an empty range has no largest member)")
        part = arr[:, int(lo) - first:int(hi) - first + 1]
        return part.max(axis=1) if e.kind == "max" else part.min(axis=1)

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
        if isinstance(e, FamilyExtremum):
            return self.extremum(e)
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
        if isinstance(e, (sympy.Sum, sympy.Product)):
            if len(e.limits) != 1:
                raise NumericUnknown("nested sums are not simulated")
            i, lo, hi = e.limits[0]
            lo, hi = lo.xreplace(self.sub), hi.xreplace(self.sub)
            if not (lo.is_Integer and hi.is_Integer):
                raise NumericUnknown(f"the sum's range {lo}..{hi} is symbolic: give it a value with `where`")
            if any(isinstance(k, sympy.Dummy) and k in env for k in env):
                raise NumericUnknown("nested sums are not simulated")
            count = ranges.count(lo, hi)  # the language's ranges: lo..hi with hi < lo is empty
            if count > ranges.MAX_TERMS:
                raise NumericUnknown(f"a sum of {count:,} terms is too long to simulate (at most "
                                     f"{ranges.MAX_TERMS:,})")
            body = e.function
            if count == 0:
                return float(ranges.unit(e))  # an empty sum is 0, an empty product 1
            if i not in body.free_symbols:
                c = self.ev(body, env)
                return c * count if isinstance(e, sympy.Sum) else np.power(c, count)
            ix = np.arange(int(lo), int(hi) + 1)
            val = self.ev(body, {**env, i: ix})
            val = np.broadcast_to(val, (self.n, len(ix))) if np.ndim(val) < 2 else val
            return val.sum(axis=1) if isinstance(e, sympy.Sum) else val.prod(axis=1)
        if isinstance(e, sympy.erf):
            return np.vectorize(math.erf)(self.ev(e.args[0], env))
        row = function_of(e)  # the function table names each function's numpy ufunc
        if row is not None and row.numpy and len(e.args) == 1:
            return getattr(np, row.numpy)(self.ev(e.args[0], env))
        if row is not None and row.numpy and len(e.args) > 1 and isinstance(e, (sympy.Max, sympy.Min)):
            vals = [self.ev(a, env) for a in e.args]
            out = vals[0]
            for v in vals[1:]:
                out = getattr(np, row.numpy)(out, v)
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
    """The normal quantile of a two-sided interval, from the exact confidence (never a float that rounds to 1)."""
    import mpmath

    with mpmath.workdps(40):
        return float(mpmath.sqrt(2) * mpmath.erfinv(mpmath.mpf(sympy.Float(confidence, 40))))


def confidence_reached(n: int, confidence) -> float:
    """The confidence a normal-quantile interval from ``n`` samples really has for normally distributed
    values: P(|T| <= z) with T Student's t with n - 1 degrees of freedom (0 for one sample)."""
    import mpmath

    if n < 2:
        return 0.0
    z, nu = _z(confidence), n - 1
    with mpmath.workdps(30):
        miss = mpmath.betainc(mpmath.mpf(nu) / 2, mpmath.mpf(1) / 2, 0, nu / (nu + mpmath.mpf(z) ** 2),
                              regularized=True)
        return float(1 - miss)


def too_few(n: int, confidence) -> str | None:
    """Why ``n`` samples give no verdict at this confidence, or None (see docs/language.md, `simulate`)."""
    reached = confidence_reached(n, confidence)
    nominal = float(confidence)
    if n < MIN_SAMPLES or (1 - reached) > MAX_MISS_RATIO * (1 - nominal):
        return (f"{n:,} sample{'s' if n != 1 else ''} are too few for a verdict: at least {MIN_SAMPLES} are "
                f"needed, and enough that the interval reaches its confidence (with {n:,}, a nominal "
                f"{_pct(nominal)} interval reaches only {_pct(reached)} for normally distributed values; it "
                f"may miss at most twice as often as 1 - confidence)")
    return None


def _pct(c: float) -> str:
    return f"{c * 100:.6g}%"


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
    tol_text = f" {_src(state, st.tol.span)}" if st.tol is not None else ""
    stmt = f"{lt} {REL_TEXT[rel]} {rt}{tol_text}" + (f" where {where_text}" if where_text else "")
    res = StepResult(name, st.span, "simulate", stmt, "≈", [], UNKNOWN)
    lr = LinkResult(1, "≈", lt, rt + tol_text + (f" where {where_text}" if where_text else ""), st.span, UNKNOWN)
    lr.rules = ["simulation"]
    lr.show_message = True
    res.links.append(lr)
    el = elaborator(state, bindings)
    lhs = el.expr(st.lhs)
    check_defined(state, el.conditions, st.lhs)  # as a `check`: no real value with positive probability
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
            raise NumericUnknown(f"the claimed value {safe_str(target)} is not a number: give names a value "
                                 "with `where`")
        claimed = _claimed(target_v)
        few = too_few(n, conf)
        if few:
            raise _TooFew(few)
        inner = lhs.args[0]
        sub = {state.scope.symbols[k]: v for k, v in bindings.items() if k in state.scope.symbols}
        est, lo, hi, detail = _run_simulation(state, vals, lhs, inner, n, seed, conf, sub, lt)
        uses.update(vals.uses)
        if not all(math.isfinite(v) for v in (est, lo, hi)):
            raise NumericUnknown(f"the estimate or its interval overflows the float range (estimate {est:.6g}, "
                                 f"interval [{lo:.6g}, {hi:.6g}]): no verdict")
        # `within t`: the claim is |true - claimed| <= t, consistent where the interval meets [claimed ± t]
        t = _tolerance_value(state, st, claimed)
        consistent = bool(lo <= claimed + t and claimed - t <= hi)
        pct, reached = _pct(float(conf)), confidence_reached(n, conf)
        said = fmt(target_v) + (f" ± {t:.6g}" if st.tol is not None else "")
        msg = (f"estimate {est:.6g}, {pct} interval [{lo:.6g}, {hi:.6g}] ({n:,} samples, seed {seed}; "
               f"confidence reached {_pct(reached)}): "
               + (f"consistent with {said}" if consistent else f"INCONSISTENT with {said}")
               + f"\n({detail})")
        if proof_note:
            msg += f"\n{proof_note}"
        settle(lr, JudgeVerdict(SIMULATED, SIMULATION))
        lr.message = msg
        lr.lhs_expr, lr.rhs_expr = lhs, target_v
        res.simulation = {"estimate": est, "low": lo, "high": hi, "samples": n, "seed": seed,
                          "confidence": float(conf), "confidence_reached": reached, "claimed": claimed,
                          "tolerance": t, "consistent": consistent}
        if not consistent:
            lr.diagnostics.append(Diagnostic(
                "error", "the simulation is inconsistent with this claim", st.lhs.span.to(st.rhs.span),
                f"outside the {pct} interval" if st.tol is None else f"the {pct} interval misses {said}", notes=[msg],
                help="a simulation is evidence, not a proof; check the claim (or the sample size and seed)",
                code="E-simulation-inconsistent"))
        settle_step(res)
    except _TooFew as e:
        settle(lr, UNDECIDED)
        lr.message = str(e)
        lr.diagnostics.append(Diagnostic("error", "too few samples for a verdict", st.span, "unknown",
                                         notes=[str(e)], help=f"use `samples = {DEFAULT_SAMPLES}` or more",
                                         code="E-simulation-too-few"))
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


def _tolerance_value(state, st: S.Simulate, claimed: float) -> float:
    """The absolute tolerance of ``within`` (0 without it): a positive number, times |claimed| when relative."""
    if st.tol is None:
        return 0.0
    from .numeric import _tolerance

    t, relative = _tolerance(state, st.tol)
    return float(t) * (abs(claimed) if relative else 1.0)


class _TooFew(Exception):
    """Fewer samples than a verdict needs (the statement is unknown, E-simulation-too-few)."""


def _claimed(v) -> float:
    """The claimed value as a float, or NumericUnknown when it is not a real number in the float range."""
    if sign(sympy.im(v)) != 0:
        raise NumericUnknown(f"the claimed value {fmt(v)} is not (known to be) a real number")
    try:
        f = float(sympy.re(v))
    except (TypeError, ValueError, OverflowError):
        f = math.inf
    if not math.isfinite(f):
        raise NumericUnknown(f"the claimed value {fmt(v)} is beyond the float range a simulation computes in")
    return f


def _proof(state, st, lr, lhs, target, bindings, uses):
    """Relate the simulated claim to the symbolic step named after `by`."""
    ref = st.proof.text
    step = state.steps.get(ref)
    if step is None:
        raise error(f"unknown step `{ref}`", st.proof.span, "not a step of this file",
                    help="name an earlier step that proves the claim symbolically", code="E-unknown-ref")
    uses[ref] = "step"
    facts = [f for f in state.step_facts.get(ref) or [] if isinstance(f, EqFact)]  # an inequality states no value
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
            where = ", ".join(f"{k} = {fmt(v)}" for k, v in bindings.items())
            note += f", which at {where} is {fmt(rhs_s)}" if where else ""
        else:
            lr.diagnostics.append(Diagnostic(
                "warning", f"`{ref}` does not state this claim", st.proof.span, "a different statement",
                notes=[f"`{ref}` proves {step.statement}"] +
                      ([f"with {', '.join(f'{k} = {fmt(v)}' for k, v in bindings.items())} its sides are "
                        f"{show(lhs_s)} and {show(rhs_s)}"] if bindings else []),
                code="W-simulate-proof"))
    return note


def _run_simulation(state, vals: Values, op, inner, n, seed, conf, sub=None, text=None):
    import numpy as np

    smp = _Sampler(state, vals, np, sub)
    scalars, families = smp.plan(inner)
    allvars = list(scalars)
    per_sample = len(scalars)
    samplers = {}
    def usable(what, d):
        if not d.numeric_params():
            raise NumericUnknown(f"`{what} ~ {d.text}` has symbolic parameters")
        why = d.sampling_problem()
        if why:
            raise NumericUnknown(f"`{what} ~ {d.text}` cannot be simulated: {why}")
        return d.sampler()

    for s in scalars:
        samplers[s] = usable(s, vals.law(s))
    for fname, (base, lo, hi) in families.items():
        if ranges.count(lo, hi) == 0:
            continue  # an empty family draws nothing
        samplers[fname] = (usable(fname, vals.law(base[lo])), lo, hi)
        per_sample += ranges.count(lo, hi)
        if per_sample * n > MAX_DRAWS:
            break
        allvars.extend(base[k] for k in ranges.index_range(lo, hi))
    if per_sample * n > MAX_DRAWS:
        raise NumericUnknown(f"{n:,} samples of {per_sample:,} random numbers each exceed the limit of "
                             f"{MAX_DRAWS:,} draws")
    if not allvars:
        raise NumericUnknown("nothing random to simulate")
    if len(allvars) > 1:
        vals.need_independence(allvars)
    if not isinstance(op, Prob):
        certify(state, vals, op, inner, sub, text)
    rng = np.random.default_rng(seed)
    block = max(1, min(n, CHUNK_NUMBERS // max(per_sample, 1)))
    outs = []
    done = 0
    while done < n:
        vals.deadline()
        m = min(block, n - done)
        smp.n = m
        smp.draws = {}
        for s in scalars:
            smp.draws[s] = samplers[s](rng, (m,))
        for fname in samplers.keys() & families.keys():
            f, lo, hi = samplers[fname]
            smp.draws[fname] = (f(rng, (m, hi - lo + 1)), lo)
        with np.errstate(all="ignore"):  # an overflow is reported below (the values are not all finite)
            y = smp.ev(inner, {})
        y = np.broadcast_to(np.asarray(y, dtype=float), (m,))
        outs.append(np.array(y, dtype=float))
        done += m
    y = np.concatenate(outs)
    if not np.all(np.isfinite(y)):
        raise NumericUnknown("the simulated values include infinities or NaN")
    if not isinstance(op, Prob):
        not_dominated(np, y if isinstance(op, E) else (y - y.mean()) ** 2, n)
    with np.errstate(all="ignore"):  # an overflow shows as a non-finite interval: no verdict
        return _estimate(np, op, y, n, _z(conf))


def _estimate(np, op, y, n, z):
    """(estimate, low, high, how) of the simulated values ``y``."""
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
