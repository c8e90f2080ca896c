"""What a simulated quantity's sample may be trusted for (``simulate``): finite moments, certified from the
quantity's form before sampling (:class:`Tails`, :func:`certify`), and no single sample ruling the sum
(:func:`not_dominated`), read on the sample.  Either failing means no verdict, never a verdict."""
from __future__ import annotations

import math

import sympy
from sympy import Integer

from .compare import fmt
from .models import ranges
from .numeric import NumericUnknown, Values
from .terms.objects import SD, E, FamilyExtremum, Var
from .terms.printer import show

BOUNDED, EXPONENTIAL, MOMENTS = 0, 1, 2  # |Y| bounded; E exp(t|Y|) < oo for every t; E|Y|^k < oo for every k


def _fpow(v: float, k: float) -> float:
    """v^k in floats, ±inf past the float range."""
    try:
        return v ** k
    except OverflowError:
        return -math.inf if v < 0 and float(k).is_integer() and int(k) % 2 else math.inf
    except ZeroDivisionError:
        return math.inf


def _interval_mul(a, b):
    out = []
    for x in a:
        for y in b:
            v = x * y if not ((x == 0 and math.isinf(y)) or (y == 0 and math.isinf(x))) else 0.0
            out.append(v)
    return min(out), max(out)


class Tails:
    """Certifies that a simulated quantity has finite moments (so its confidence interval means something).

    ``tail(e)`` is ``(lo, hi, cls)``: a range the values lie in (floats, maybe infinite) and a class:
    BOUNDED, EXPONENTIAL (all exponential moments: a Normal, sums of them) or MOMENTS (all moments: a
    product of Normals, exp of a Normal); or None when nothing is certified (``1/Z``, ``exp(Z^2)``,
    ``log(U)``).  The rules are conservative: None is never a claim that the moments are infinite.
    """

    def __init__(self, state, vals: Values, sub):
        self.c, self.vals, self.sub = state, vals, sub

    def law(self, v):
        d = self.vals.law(v)
        ps = [float(p) for p in d.params]
        if d.name == "Normal":
            return -math.inf, math.inf, EXPONENTIAL
        if d.tail_index is not None:  # Cauchy, Student's t: only the moments below the tail index
            return None
        lo, hi = {"Uniform": (ps[:2] or [0, 0]), "Bernoulli": (0.0, 1.0), "Rademacher": (-1.0, 1.0),
                  "DiscreteUniform": (ps[:2] or [0, 0]), "Binomial": (0.0, ps[0] if ps else 0.0)}[d.name]
        return float(lo), float(hi), BOUNDED

    def tail(self, e, env=None):
        env = env or {}
        e = e.xreplace(env) if env else e
        if isinstance(e, FamilyExtremum):  # as one member: max and min of members of one law stay in its class
            first = self.c.scope.families[str(e.args[0].label)].lo.xreplace(self.sub)
            return self.law(e.args[0][first]) if first.is_Integer and self.vals.is_rv(e.args[0][first]) else None
        if not self.vals.rvs(e):
            e = e.xreplace(self.sub)
            free = sorted(str(x) for x in e.free_symbols if not isinstance(x, sympy.Dummy))
            if free:
                raise NumericUnknown(f"`{free[0]}` has no value in the simulation: give it one with "
                                     f"`where {free[0]} = ...`")
            try:
                f = float(e)
            except (TypeError, ValueError, OverflowError):
                f = math.nan
            if not math.isfinite(f):
                raise NumericUnknown(f"the value {fmt(e)} in the simulated quantity is not a real number in the "
                                     "float range a simulation computes in")
            return f, f, BOUNDED
        if self.vals.is_rv(e):
            return self.law(e)
        parts = None
        if isinstance(e, (sympy.Add, sympy.Mul, sympy.Max, sympy.Min)):
            parts = [self.tail(a) for a in e.args]
            if None in parts:
                return None
        if isinstance(e, sympy.Add):
            cls = max(p[2] for p in parts)
            return sum(p[0] for p in parts), sum(p[1] for p in parts), cls
        if isinstance(e, sympy.Mul):
            lo, hi = 1.0, 1.0
            for p in parts:
                lo, hi = _interval_mul((lo, hi), (p[0], p[1]))
            heavy = [p[2] for p in parts if p[2] != BOUNDED]
            return lo, hi, BOUNDED if not heavy else heavy[0] if len(heavy) == 1 else MOMENTS
        if isinstance(e, (sympy.Max, sympy.Min)):
            pick = max if isinstance(e, sympy.Max) else min
            return pick(p[0] for p in parts), pick(p[1] for p in parts), max(p[2] for p in parts)
        if isinstance(e, sympy.Pow):
            return self.power(e)
        if isinstance(e, sympy.exp):
            a = self.tail(e.args[0])
            if a is None:
                return None
            lo, hi = math.exp(min(a[0], 700)), math.exp(min(a[1], 700))
            if math.isfinite(a[1]) and a[1] < 700:
                return lo, hi, BOUNDED
            return (lo, math.inf, MOMENTS) if a[2] <= EXPONENTIAL else None
        if isinstance(e, sympy.log):
            a = self.tail(e.args[0])
            if a is None or not a[0] > 0:
                return None
            return math.log(a[0]), (math.log(a[1]) if math.isfinite(a[1]) else math.inf), a[2]
        if isinstance(e, (sympy.tanh, sympy.erf)):
            return -1.0, 1.0, BOUNDED
        if isinstance(e, sympy.Abs):
            a = self.tail(e.args[0])
            if a is None:
                return None
            lo = 0.0 if a[0] <= 0 <= a[1] else min(abs(a[0]), abs(a[1]))
            return lo, max(abs(a[0]), abs(a[1])), a[2]
        if isinstance(e, sympy.KroneckerDelta):
            return 0.0, 1.0, BOUNDED
        if isinstance(e, sympy.Sum) and len(e.limits) == 1:
            i, lo, hi = e.limits[0]
            lo, hi = lo.xreplace(self.sub), hi.xreplace(self.sub)
            if not (lo.is_Integer and hi.is_Integer) or ranges.count(lo, hi) > ranges.MAX_TERMS:
                return None
            acc = (0.0, 0.0, BOUNDED)
            for k in ranges.index_range(lo, hi):
                t = self.tail(e.function, {i: Integer(k)})
                if t is None:
                    return None
                acc = (acc[0] + t[0], acc[1] + t[1], max(acc[2], t[2]))
            return acc
        return None

    def power(self, e):
        b, x = e.base, e.exp
        if self.vals.rvs(x):  # c^Y = exp(Y log c)
            if self.vals.rvs(b) or not (b.is_number and b.is_positive):
                return None
            return self.tail(sympy.exp(x * sympy.log(b), evaluate=False))
        a = self.tail(b)
        if a is None:
            return None
        try:
            k = float(x.xreplace(self.sub))
        except (TypeError, ValueError, OverflowError):
            return None
        lo, hi, cls = a
        if k == 0:
            return 1.0, 1.0, BOUNDED
        if k < 0:  # bounded only away from 0
            if lo > 0:
                return (_fpow(hi, k) if math.isfinite(hi) else 0.0), _fpow(lo, k), BOUNDED
            if hi < 0 and float(k).is_integer():
                ends = [_fpow(hi, k), _fpow(lo, k) if math.isfinite(lo) else 0.0]
                return min(ends), max(ends), BOUNDED
            return None
        if not float(k).is_integer() and lo < 0:
            return None  # a fractional power of a value that may be negative
        cands = [_fpow(v, k) for v in (lo, hi) if math.isfinite(v)] + ([0.0] if lo <= 0 <= hi else [])
        new_lo = min(cands) if math.isfinite(lo) and math.isfinite(hi) else (0.0 if k % 2 == 0 or lo >= 0 else -math.inf)
        new_hi = max(cands) if math.isfinite(lo) and math.isfinite(hi) else math.inf
        if cls == BOUNDED:
            return new_lo, new_hi, BOUNDED
        return new_lo, new_hi, (cls if k <= 1 else MOMENTS)


def certify(state, vals, op, inner, sub, text=None):
    """NumericUnknown unless the simulated quantity certainly has the moments its interval needs
    (E: a finite variance; Var and SD: a finite fourth moment): see :class:`Tails`."""
    if Tails(state, vals, sub or {}).tail(inner) is None:
        what = {E: "E", Var: "Var", SD: "SD"}[type(op)]
        raise NumericUnknown(
            f"cannot certify that the quantity in `{text or show(inner)}` has finite moments, so {what}[...] may "
            "not exist and its "
            "confidence interval would mean nothing (a heavy-tailed or undefined quantity such as 1/Z, "
            "exp(Z^2) or log near 0); simulate a bounded or polynomial quantity, or prove the claim with a `step`")


MAX_SHARE = 0.2  # the most of the sample's spread one sample may give for the normal interval to be read


def not_dominated(np, y, n: int) -> None:
    """The normal interval rests on no single sample dominating the sum (Lindeberg's condition, read on the
    sample): where one sample gives more than MAX_SHARE of the sample's squared spread (``E[exp(5 Z)]``, whose
    mean is ruled by draws too rare to see), the interval is not trusted and the simulation gives no verdict."""
    c = y - y.mean()
    total = float(np.dot(c, c))
    share = float(np.max(c * c)) / total if total > 0 else 0.0
    if share > MAX_SHARE:
        raise NumericUnknown(f"one sample of {n:,} gives {share:.0%} of the sample's spread: the values are too "
                             "skewed for a normal interval (a rare draw rules the mean); no verdict")
