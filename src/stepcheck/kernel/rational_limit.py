"""Limits of rational functions of x or of exponentials, taken by the kernel itself (no gruntz).

Most limits of the articles (softmax saturation, temperature) are rational
functions of exponentials; :func:`rational_limit` reads them off the dominant
monomials, and :func:`.limits.take_limit` asks sympy's ``limit`` only for
the other shapes.  See docs/kernel.md, "Limits and extrema".
"""
from __future__ import annotations

import sympy
from sympy import Dummy, oo

from ..terms.facts import KernelLimit
from ..terms.objects import is_canon_bound
from ..terms.printer import show


def _sign_of(e) -> str:
    """Words for the sign the answer needs; a stand-in constant (a sum, a moment) is not shown by its name."""
    if any(isinstance(v, Dummy) for v in e.free_symbols):
        return "the sign of a coefficient (it may be 0)"
    bound = sorted({show(v) for v in e.free_symbols if is_canon_bound(v)})
    if bound:  # a sum's own index, which the user did not write: named as the members it runs over
        return f"the sign of {show(e)} for every member {', '.join(bound)} of a sum (it may be 0)"
    return f"the sign of {show(e)} (it may be 0)"


def _undecided(what: str) -> KernelLimit:
    """The function is rational in the variables, but its limit depends on what is not proved: never ask
    sympy then (its ``limit`` treats a parameter as nonzero: ``b e^t / (b e^t + 1) -> 1``, wrong for b = 0)."""
    return KernelLimit(f"not proved: taking this limit here needs {what}, which is not proved")


def _known_sign(c) -> int | None:
    """1 or -1 when sympy's assumptions prove ``c`` positive or negative, else None."""
    if c.is_positive is True:
        return 1
    if c.is_negative is True:
        return -1
    return None


def _towards_infinity(g, x, a, side: str, s):
    """``g`` with x written through ``s`` -> +oo: x = s, -s, a + 1/s (side "+") or a - 1/s (side "-")."""
    if a == oo:
        return g.xreplace({x: s})
    if a == -oo:
        return g.xreplace({x: -s})
    return g.xreplace({x: a + 1 / s if side == "+" else a - 1 / s})


def _rate(e, s):
    """(r, c) of ``exp(arg)`` with ``arg = r s + c`` expanded (r: the coefficient of s to the first power)."""
    arg = sympy.expand(e.args[0])
    r = arg.coeff(s, 1)
    return r, sympy.expand(arg - r * s)


def _exponential_variables(h, s):
    """``h`` as a function of variables ``v_k = exp(b_k s / q_k)`` that tend to +oo, or None.

    Every ``exp(r s + c)`` (r, c free of s, the sign of r proved) becomes ``exp(c) v^n``: rates that are
    rational multiples of each other share one variable (``exp(2 s)`` and ``exp(s / 2)`` are ``v^4`` and
    ``v`` with ``v = exp(s / 2)``), other rates get variables of their own.  Without exponentials the one
    variable is ``s`` itself.  None when ``s`` occurs elsewhere (``s exp(s)``, ``exp(s^2)``, ``log(s)``)."""
    exps = [e for e in h.atoms(sympy.exp) if s in e.free_symbols]
    if not exps:
        return (h, [s]) if s in h.free_symbols else None
    rated = []
    for e in exps:
        r, c = _rate(e, s)
        if r == 0 or s in r.free_symbols or s in c.free_symbols:
            return None
        if _known_sign(r) is None:
            raise _undecided(_sign_of(r))
        rated.append((e, r, c))
    classes: list[list] = []  # [base rate (positive), [multiples]]
    for _, r, _ in rated:
        for cl in classes:
            m = r / cl[0]
            if m.is_Rational:
                cl[1].append(m)
                break
        else:
            classes.append([r * _known_sign(r), [sympy.Integer(_known_sign(r))]])
    variables, reps = [], {}
    for k, (base, mults) in enumerate(classes):
        q = sympy.ilcm(*[m.q for m in mults]) if len(mults) > 1 else mults[0].q
        v = Dummy(f"v{k}", positive=True)
        variables.append((v, base, q))
    for e, r, c in rated:
        for v, base, q in variables:
            m = r / base
            if m.is_Rational:
                reps[e] = v ** int(m * q) * sympy.exp(c)
                break
    out = h.xreplace(reps)
    if s in out.free_symbols:
        return None
    return out, [v for v, _, _ in variables]


def _relative_rates(h, s):
    """``_exponential_variables`` of ``h``, or, where a rate's sign is not proved, of ``h`` with numerator
    and denominator both divided by one exponential ``exp(r s)`` of the denominator (the same function:
    its rates become differences, ``exp(α s) / (exp(α s) + exp(β s)) = 1 / (1 + exp((β - α) s))``, whose
    limit needs only the sign of β - α).  The first division whose rates all have proved signs is taken;
    when none has, the unproved sign named is the original one's, or a division's with fewer rates
    unproved (β - α rather than α)."""
    try:
        return _exponential_variables(h, s)
    except KernelLimit as first:
        best, fewest = first, _unproved_rates(h, s)
    num, den = sympy.fraction(sympy.together(h))
    for e in sorted({e for e in den.atoms(sympy.exp) if s in e.free_symbols}, key=sympy.default_sort_key):
        r, _ = _rate(e, s)
        if r == 0 or s in r.free_symbols:
            continue
        scale = sympy.exp(-r * s)
        n2, d2 = (sympy.powsimp(sympy.expand(part * scale), combine="exp") for part in (num, den))
        try:
            got = _exponential_variables(n2 / d2, s)
        except KernelLimit as e2:
            k = _unproved_rates(n2 / d2, s)
            if k < fewest:
                best, fewest = e2, k
            continue
        if got is not None:  # another shape after the division: never handed to sympy's limit instead
            return got
    raise best


def _unproved_rates(h, s) -> int:
    """How many exponentials of ``h`` have a rate in ``s`` whose sign is not proved."""
    n = 0
    for e in h.atoms(sympy.exp):
        r, _ = _rate(e, s)
        if s in e.free_symbols and r != 0 and _known_sign(r) is None:
            n += 1
    return n


def _dominant(poly):
    """The exponent vector of ``poly``'s monomial that is >= every other one in each variable, or None."""
    monos = poly.monoms()
    for m in monos:
        if all(all(a <= b for a, b in zip(o, m)) for o in monos):
            return m
    return None


def rational_limit(g, x, a, side: str):
    """The one-sided limit of ``g`` as x -> a (``side`` "+" or "-"; ignored at ±oo) when, with ``s`` -> +oo
    (x = s, -s, a + 1/s, a - 1/s), ``g`` is a rational function of s, or of exponentials ``exp(r s + c)``
    whose rates r have proved signs; None for another shape (the caller then asks sympy's ``limit``).  Of
    that shape, a limit that depends on an unproved sign (a rate's, a leading coefficient's, which may be
    0) or on which of two rates is larger raises KernelLimit: sympy would answer for a generic parameter.

    With variables ``v_k`` -> +oo (``_exponential_variables``) and ``g = P / Q``, P and Q polynomials in the
    v_k with coefficients free of s: let ``D`` be the monomial of Q that is >= every monomial of Q in each
    variable, with a coefficient ``lq`` proved nonzero.  Every other monomial of Q divided by D tends to 0
    (each v_k >= 1 eventually, and some exponent is negative), so Q / D -> lq.  If every monomial of P is
    <= D in each variable, P / D tends to P's coefficient of D (0 when absent), and g to that over lq.  If
    P has a dominant monomial M > D whose coefficient ``lp`` has a proved sign, g -> ±oo by the sign of
    lp / lq."""
    if x not in g.free_symbols:
        return None
    s = Dummy("s", positive=True)
    got = _relative_rates(_towards_infinity(g, x, a, side, s), s)
    if got is None:
        return None
    h, vs = got
    try:
        num, den = sympy.fraction(sympy.together(h))
        P, Q = sympy.Poly(num, *vs), sympy.Poly(den, *vs)
    except (sympy.PolynomialError, sympy.GeneratorsNeeded, NotImplementedError, ValueError, TypeError):
        return None
    if Q.is_zero:
        return None
    d = _dominant(Q)
    if d is None:
        raise _undecided("which term of the denominator grows fastest")
    lq = Q.coeff_monomial(d)
    if lq.free_symbols & set(vs):
        return None
    sq = _known_sign(lq)
    if sq is None:
        raise _undecided(_sign_of(lq))
    if P.is_zero:
        return sympy.Integer(0)
    if all(all(a_ <= b_ for a_, b_ in zip(m, d)) for m in P.monoms()):
        return sympy.cancel(P.coeff_monomial(d) / lq)
    top = _dominant(P)
    if top is None or not all(a_ >= b_ for a_, b_ in zip(top, d)):
        raise _undecided("which term grows fastest")
    sp = _known_sign(P.coeff_monomial(top))
    if sp is None:
        raise _undecided(_sign_of(P.coeff_monomial(top)))
    return oo if sp * sq > 0 else -oo
