"""Jensen's inequality (rule ``jensen``): ``E[f(w)] >= f(E[w])`` for a convex f, ``<=`` for a concave one.

A margin ``g`` holding a mean ``E[f(w)]`` of a random ``w`` is rewritten with that mean as
``f(E[w]) + G`` (convex f) or ``f(E[w]) - G`` (concave f), where ``G`` is a fresh number known only to be
``>= 0`` (the gap Jensen's inequality leaves; the rewriting is an identity, ``G`` naming the gap), and
``E[w]`` is the normal form of the mean (linearity, and the equation facts: under ``E[N] = 1``,
``E[N^2]`` becomes ``1 + G``).  A sign proved for every such G is proved for the gap itself.

* convex on the reals: ``exp(w)``, ``|w|``, ``w^k`` for an even k >= 2;
* convex where ``w`` is signed on every outcome: ``w^p`` for a number ``p < 0`` (``1/w``) and ``w > 0``, for
  ``p > 1`` (``w^3``, ``w^(3/2)``) and ``w >= 0``;
* concave where ``w`` is signed on every outcome: ``log(w)`` for ``w > 0``, ``sqrt(w)`` and ``w^p`` for
  ``0 < p < 1`` for ``w >= 0``,
  the sign proved pointwise from the facts that hold on every outcome (``assume pos: V > 0``), as the
  rule ``bounded`` proves its pointwise links.

A mean is one number wherever it stands (``log(E[exp(X)])``: the rewritten margin is then proved through
exp, rule ``monotone``), but never one whose ``w`` holds a sum's bound index (its gap would be a family
of numbers, not one); ``w`` must hold a random variable and no mean, sum or binder.  Never strict from a
gap: a constant ``w`` closes it.
"""
from __future__ import annotations

import sympy
from sympy import Abs, Dummy, Pow

from ..terms.facts import KernelLimit
from ..terms.objects import DSum, E, FamilyExtremum, is_canon_bound
from .calculus import sign_proof
from .tangent import exp_margin_proof
from .expansion import _expand

MAX_MEANS = 4  # means rewritten in one margin (all of them, then each alone)
_OPAQUE = (E, DSum, sympy.Sum, sympy.Integral, sympy.Derivative, sympy.Limit, sympy.Lambda)


def _shape(mean, is_random):
    """``(w, f, convex, sign)`` for a mean ``E[f(w)]`` of a kind Jensen's inequality bounds, or None.
    ``sign``: what ``w`` must be on every outcome (``">"``, ``">="``) for a concave f, else None."""
    x = mean.args[0]
    if isinstance(x, (sympy.Mul, Pow)) and x.has(sympy.exp):  # exp(X) exp(Y), as expansion leaves exp(X + Y)
        x = sympy.powsimp(x, combine="exp")
    if isinstance(x, sympy.exp):
        w, f, convex, sign = x.args[0], sympy.exp, True, None
    elif isinstance(x, Abs):
        w, f, convex, sign = x.args[0], Abs, True, None
    elif isinstance(x, sympy.log):
        w, f, convex, sign = x.args[0], sympy.log, False, ">"
    elif isinstance(x, Pow) and x.exp.is_Integer and x.exp >= 2 and x.exp % 2 == 0:
        k = x.exp
        w, f, convex, sign = x.base, (lambda v: v**k), True, None
    elif isinstance(x, Pow) and x.exp == sympy.Rational(1, 2):
        w, f, convex, sign = x.base, sympy.sqrt, False, ">="
    elif isinstance(x, Pow) and x.exp.is_Rational and x.exp not in (0, 1):  # w^p, w signed on every outcome
        p = x.exp  # p < 0: convex for w > 0 (1/w); 0 < p < 1: concave for w >= 0; p > 1: convex for w >= 0
        w, f, convex, sign = x.base, (lambda v: v**p), not 0 < p < 1, ">" if p < 0 else ">="
    else:
        return None
    if w.has(*_OPAQUE) or any(is_canon_bound(s) for s in w.free_symbols):
        return None
    if not any(is_random(a) for a in w.free_symbols | w.atoms(sympy.Indexed, FamilyExtremum)):  # max(s) too
        return None  # a number's mean is the number
    return w, f, convex, sign


def jensen_proof(nz, g, strict: bool, domain, is_random, surely, written=()) -> tuple[bool, set]:
    """``g > 0`` (strict) or ``g >= 0`` with its means of convex or concave functions written through
    Jensen's gap; (proved, signs used).  ``surely(w, sign)``: whether ``w`` has that sign on every
    outcome.  ``written``: the link's two sides, whose means linearity splits into several atoms
    (``E[(S - μ)^4]``) are tried after the margin's own (:func:`_written_means`)."""
    shapes = {}
    for mean in sorted(g.atoms(E), key=sympy.default_sort_key):  # one number each, wherever it stands
        got = _shape(mean, is_random)
        if got is not None:
            shapes[mean] = got
    if len(shapes) > MAX_MEANS:
        return False, set()
    if not shapes:
        return _written_means(nz, g, strict, domain, is_random, surely, written)
    means = list(shapes)
    for chosen in [means] + ([[m] for m in means] if len(means) > 1 else []):
        sub, gaps = {}, set()
        for k, mean in enumerate(chosen):
            w, f, convex, sign = shapes[mean]
            if sign is not None and not surely(w, sign):
                break
            try:
                m = nz.expr(E(w))
            except KernelLimit:
                _raise_if_late(nz)
                break
            gap = Dummy(f"jensen_gap{k}", nonnegative=True)
            gaps.add(gap)
            sub[mean] = f(m) + gap if convex else f(m) - gap
        else:
            try:
                ok, signs = _signed(_expand(g.xreplace(sub)), strict, domain, nz.trace)
            except KernelLimit:
                _raise_if_late(nz)
                continue
            if ok:
                nz.trace.rules.add("jensen")
                return True, {s for s in signs if s not in gaps}
    return _written_means(nz, g, strict, domain, is_random, surely, written)


def _written_means(nz, g, strict: bool, domain, is_random, surely, written) -> tuple[bool, set]:
    """A mean the link writes, ``E[f(w)]`` with normal form ``N`` a sum of atoms (``E[(S - μ)^4]`` is
    ``E[S^4] - 4 μ E[S^3] + ...``): ``N = f(E[w]) ± G`` is an identity, so ``g`` equals
    ``g - c N + c (f(E[w]) ± G)`` for every number c; c is read off a term ``N`` and ``g`` share (the ratio
    of their coefficients), and that is proved for every ``G >= 0``."""
    means = sorted({a for side in written for a in side.atoms(E) if _shape(a, is_random) is not None},
                   key=sympy.default_sort_key)[:MAX_MEANS]
    for mean in means:
        w, f, convex, sign = _shape(mean, is_random)
        if sign is not None and not surely(w, sign):
            continue
        try:
            n, m = _expand(nz.expr(mean)), nz.expr(E(w))
        except KernelLimit:
            _raise_if_late(nz)
            continue
        if n.is_number or isinstance(n, E) or len(sympy.Add.make_args(n)) < 2:
            continue  # one atom: the margin's own, tried already
        gap = Dummy("jensen_gap", nonnegative=True)
        value = f(m) + gap if convex else f(m) - gap
        for term in sorted(sympy.Add.make_args(n), key=sympy.default_sort_key)[:4]:
            k, mono = term.as_coeff_Mul()
            c = g.coeff(mono) / k if k != 0 else 0
            if not (c.is_number and c != 0):
                continue
            try:
                ok, signs = _signed(_expand(g - c * n + c * value), strict, domain, nz.trace)
            except KernelLimit:
                _raise_if_late(nz)
                continue
            if ok:
                nz.trace.rules.add("jensen")
                return True, {s for s in signs if s != gap}
    return False, set()


def _signed(h, strict: bool, domain, trace) -> tuple[bool, set]:
    """The rewritten margin's sign: by intervals, else through exp where it holds logarithms
    (``log(exp(E[X]) + G) - E[X]`` is ``G exp(-E[X]) >= 0`` there)."""
    ok, signs = sign_proof(h, strict, domain)
    if not ok and h.has(sympy.log):
        ok, signs = exp_margin_proof(h, strict, domain)
        if ok:
            trace.rules.add("monotone")
    return ok, signs


def _raise_if_late(nz) -> None:
    """A limit reached because the link's time is spent is the proof's (reported, and no later rule runs);
    any other limit (an expansion too large) only ends this try."""
    if nz.deadline.remaining() <= 0:
        raise KernelLimit(f"time limit of {nz.deadline.seconds:g} s per link reached")
