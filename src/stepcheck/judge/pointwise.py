"""The cross-check of deterministic links at concrete points, for what finite models cannot evaluate.

The soundness cross-check (:func:`.refuters.cross_check`) evaluates an
accepted link on random finite models of its facts; the models' evaluator
takes no limit, derivative or extremum over an interval.  A link without
random quantities is then evaluated here instead, at a few concrete points
(dimensions 1, 2 and 3, small rationals of the declared signs for the reals, 0 included,
two patterns for deterministic families), exactly, by :mod:`.recheck`'s own
evaluator (sympy's ``diff``, ``limit`` and ``maximum``, never the kernel's
normal forms).  A point where a used fact does not hold exactly, or where a
side cannot be evaluated (outside its domain: ``y - 2 = 0``), is skipped; a
point where the relation is proved violated is a soundness error.

A point counts as agreeing when the two exact values agree to :data:`AGREE` digits (``evalf``):
proving an exact zero (``equals(0)``) is the costly part, and an agreeing point only adds
evidence to a proof the kernel already gave.  A disagreement is never decided numerically:
its sign is proved (:func:`.exact.sign`) before it is reported.
"""
from __future__ import annotations

import itertools
import math
import random

import sympy
from sympy import Integer, Rational

from ..terms.facts import EqFact, IndepFact, IneqFact
from ..terms.objects import Extremum
from .exact import sign
from .recheck import Point, Recheck, Unconfirmed, holds, violated

MAX_POINTS = 8  # points evaluated (where the facts hold and both sides have values)
#: for a side with a limit or an extremum over an interval, each point is a sympy ``limit`` or ``maximum``
#: (about 0.1 s): fewer points, still deterministic (a false identity fails at almost every point)
MAX_POINTS_COSTLY = 4
CANDIDATES = 4 * MAX_POINTS  # points drawn: those where a fact fails are skipped, at the cost of the fact alone
AGREE = 40  # digits to which the two sides must agree for a point to count as agreeing
# 1 makes sum(m=2..n, ...) empty and 0 a coefficient vanish: where sympy's limit answers for a generic
# parameter (b e^t / (b e^t + 1) -> 1, wrong for b = 0), these are the points that show it
DIMS = (Integer(1), Integer(2), Integer(3))
REALS = {"positive": (Rational(1, 3), Integer(1), Rational(5, 2)),
         "nonnegative": (Integer(0), Rational(1, 2), Integer(2)),
         "real": (Rational(-3, 2), Rational(-1, 3), Integer(0), Rational(1, 2), Integer(2))}


def _choices(s, decls):
    if s in decls.index_ranges:
        return None  # an index: given a value once the dimensions are known
    if s.is_integer and s.is_positive:
        return DIMS
    if s.is_positive:
        return REALS["positive"]
    if s.is_nonnegative:
        return REALS["nonnegative"]
    return REALS["real"]


#: up to this many combinations are listed and shuffled; beyond it they are drawn without being listed
LISTED = 4096


def sample_product(choices: list, k: int, rng: random.Random) -> list:
    """Up to ``k`` distinct elements of ``itertools.product(*choices)`` in random order.

    A product of a few hundred symbols' choices has more elements than memory holds, so past
    :data:`LISTED` they are drawn as mixed-radix numbers, never listed.
    """
    size = math.prod(len(c) for c in choices)
    if size <= LISTED:
        combos = list(itertools.product(*choices))
        rng.shuffle(combos)
        return combos[:k]
    drawn: list = []
    while len(drawn) < min(k, LISTED):  # distinct numbers below size (> LISTED: this ends quickly)
        n = rng.randrange(size)
        if n not in drawn:
            drawn.append(n)
    out = []
    for n in drawn:
        combo = []
        for c in reversed(choices):
            n, r = divmod(n, len(c))
            combo.append(c[r])
        out.append(tuple(reversed(combo)))
    return out


def points(lhs, rhs, decls, seed: int | None = None, patterns: tuple = (0, 1)):
    """Concrete points for the free deterministic symbols of the two sides: up to CANDIDATES combinations of
    their values, each with every pattern of the deterministic families where the sides hold some (0: x_m =
    m - 1; 1: one-hot; 3: all 0, a tie), the first pattern taken in turn.

    Without a ``seed``, the points are drawn from one seeded by the names of those symbols: the links
    of a chain over the same symbols meet at the same points, so a side they share is evaluated once
    (:func:`pointwise_check`'s memo).
    """
    labels = {ix.base.label for x in (lhs, rhs) for ix in x.atoms(sympy.Indexed)}  # z of z_i: no value of its own
    syms = sorted({s for x in (lhs, rhs) for s in x.free_symbols if isinstance(s, sympy.Symbol) and s not in labels
                   and s not in decls.random_symbols and not getattr(s, "is_Dummy", False)}, key=str)
    plain = [s for s in syms if _choices(s, decls) is not None]
    indices = [s for s in syms if s in decls.index_ranges]
    rng = random.Random(seed if seed is not None else ",".join(map(str, syms)))
    for k, combo in enumerate(sample_product([_choices(s, decls) for s in plain], CANDIDATES, rng)):
        values = dict(zip(plain, combo))
        for i in indices:
            lo, hi = (Integer(v) if isinstance(v, int) else v.xreplace(values) for v in decls.index_ranges[i])
            if not (lo.is_Integer and hi.is_Integer) or hi < lo:
                break
            values[i] = Integer(rng.randint(int(lo), int(hi)))
        else:
            # each combination with every pattern where the sides hold families (the first in turn)
            for j in range(len(patterns) if labels else 1):
                yield Point(dict(values), {}, (), pattern=patterns[(k + j) % len(patterns)])


def pointwise_check(decls, lhs, rhs, rel: str, facts: dict, seed: int | None = None, memo: dict | None = None,
                    *, cap: int | None = None, deadline=None, patterns: tuple = (0, 1)):
    """(points evaluated, None) or (_, (the point, lhs value, rhs value)) at the first disagreement.

    ``memo`` (one per file and declarations) keeps each side's value, or the reason it has none, per
    point: the next link of a chain evaluates its shared side once.  ``cap``: how many points to evaluate
    (by default :data:`MAX_POINTS`, or :data:`MAX_POINTS_COSTLY` for a limit or an extremum); ``deadline``:
    no point is begun once it has passed.
    """
    if any(isinstance(f, IndepFact) for fs in facts.values() for f in fs):
        return 0, None
    memo = {} if memo is None else memo
    if cap is None:
        cap = MAX_POINTS_COSTLY if lhs.has(sympy.Limit, Extremum) or rhs.has(sympy.Limit, Extremum) else MAX_POINTS
    done = tried = 0
    for p in points(lhs, rhs, decls, seed, patterns):
        if deadline is not None and deadline.remaining() <= 0:
            break
        rc = Recheck(p, decls.random_symbols, decls.random_families, complete=True, family_ranges=decls.family_ranges)
        at = (tuple(sorted(p.values.items(), key=lambda kv: str(kv[0]))), p.pattern)
        try:
            if not all(rc.fact_holds(f, dict(decls.index_ranges)) for fs in facts.values() for f in fs
                       if isinstance(f, (EqFact, IneqFact))):
                continue  # decided first: a side's limit costs far more than a fact
            tried += 1
            if tried > cap:
                break  # as many points evaluated as before the candidates were widened, agreeing or not
            lv, rv = _value(rc, lhs, at, memo), _value(rc, rhs, at, memo)
        except Unconfirmed:
            continue
        except (RecursionError, ArithmeticError, TypeError, ValueError, AttributeError, NotImplementedError):
            continue
        if rel in ("=", "==", "<=", ">=") and _agree(lv, rv):
            done += 1
            continue
        d = lv - rv
        s = sign(d)  # decided once: it is the costly part
        if violated(d, rel, s):
            return done, (p, lv, rv)
        if holds(d, rel, s):
            done += 1
    return done, None


def _value(rc: Recheck, x, at, memo: dict):
    """``rc.value(x)``, or the exception it raised, remembered per (expression, point)."""
    key = (x, at)
    if key not in memo:
        try:
            memo[key] = rc.value(x)
        except (Unconfirmed, RecursionError, ArithmeticError, TypeError, ValueError, AttributeError,
                NotImplementedError) as e:
            memo[key] = e
    got = memo[key]
    if isinstance(got, BaseException):
        raise got
    return got


def _agree(lv, rv) -> bool:
    """Do two exact real values agree to :data:`AGREE` significant digits (relative to the larger)?"""
    try:
        a, b = lv.evalf(AGREE + 10), rv.evalf(AGREE + 10)
        if not (a.is_Float or a.is_Rational) or not (b.is_Float or b.is_Rational):
            return False  # complex, infinite or not a number: decided exactly
        return bool(abs(a - b) <= max(abs(a), abs(b), 1) * Rational(1, 10 ** AGREE))
    except Exception:  # noqa: BLE001 - numeric trouble: decided exactly
        return False
