"""Cauchy-Schwarz for moments (rule ``cauchy_schwarz``, with ``inequality``).

For any two random quantities u, v with second moments, ``E[u^2] E[v^2] - E[u v]^2 >= 0`` and
``Var(u) Var(v) - Cov(u, v)^2 >= 0`` (the determinants of a 2x2 Gram matrix).  A margin ``g >= 0`` holding a
mean ``E[u v]`` of a product of two random factors is proved

* as ``g = λ C + h``: C one of these determinants in the normaliser's normal form, λ > 0 the number that
  cancels the square of that mean (``E[u v]^2``) between the two, and ``h`` proved ``>= 0`` by the interval
  evaluator (never strict: equality where u and v are proportional).  So ``Cov(X, Y)^2 <= Var(X) Var(Y)`` and
  ``E[X Y]^2 <= E[X^2] E[Y^2]`` hold, and with ``squared`` ``|Cov(X, Y)| <= SD(X) SD(Y)``;
* or through the correlation: ``Cov(u, v) = ρ SD(u) SD(v)`` for some ρ in [-1, 1] (the correlation where both
  SDs are positive, any ρ where one is 0, since then Cov is 0), so ``E[u v]`` is written
  ``E[u] E[v] + ρ SD(u) SD(v)`` with ρ a fresh value of that interval, and the margin's sign proved for every
  such ρ.  So ``SD(X + Y) <= SD(X) + SD(Y)`` holds with ``squared`` (its margin ``2 SD(X) SD(Y) - 2 Cov(X, Y)``).
"""
from __future__ import annotations

import sympy
from sympy import Dummy, Mul

from ..terms.facts import KernelLimit
from ..terms.objects import SD, Cov, E, Var
from .calculus import Iv, sign_proof
from .normal import Trace, _expand

MAX_PAIRS = 6  # pairs (u, v) tried in one margin


def _pairs(g, is_rv) -> list:
    """(u, v): the two random factors of each mean ``E[c u v]`` of the margin (u != v, c a number)."""
    out = []
    for a in sorted(g.atoms(E), key=sympy.default_sort_key):
        factors = [f for f in Mul.make_args(a.args[0]) if not f.is_number]
        if len(factors) == 2 and factors[0] != factors[1] and all(is_rv(f) for f in factors):
            pair = tuple(sorted(factors, key=sympy.default_sort_key))
            if pair not in out:
                out.append(pair)
    return out[:MAX_PAIRS]


def _written_pairs(written, is_rv) -> list:
    """(u, v): the two arguments of each ``Cov(u, v)`` and the two random factors of each ``E[u v]`` as the link
    writes them, before linearity splits them (``Cov(X + Y, Z)``), where both are random and not the same."""
    def random(x):
        return any(is_rv(a) for a in x.atoms(sympy.Symbol, sympy.Indexed))

    out = []
    for side in written:
        for a in sorted(side.atoms(Cov, E), key=sympy.default_sort_key):
            if isinstance(a, Cov):
                pair = a.args
            else:
                factors = [f for f in Mul.make_args(a.args[0]) if not f.is_number]
                pair = tuple(factors) if len(factors) == 2 else ()
            if len(pair) == 2 and pair[0] != pair[1] and all(random(f) for f in pair):
                pair = tuple(sorted(pair, key=sympy.default_sort_key))
                if pair not in out:
                    out.append(pair)
    return out


def cauchy_schwarz_proof(nz, g, strict: bool, domain, is_rv, written=()) -> tuple[bool, set]:
    """``g >= 0`` as a positive multiple of a Gram determinant plus a margin of proved sign (see the module);
    ``written``: the link's two sides, whose pairs of compound quantities are tried after the margin's own
    (:func:`_compound_proof`)."""
    if not g.has(E):
        return False, set()
    g = _expand(g)
    own = _pairs(g, is_rv)
    for u, v in own:
        outer, forms = nz.trace, []
        try:
            for q in (E(u * v), Var(u) * Var(v) - Cov(u, v) ** 2, E(u ** 2) * E(v ** 2) - E(u * v) ** 2):
                nz.trace = Trace()  # the rules read to write one form are the proof's only if it is used
                forms.append((nz.expr(q), nz.trace))
        except KernelLimit:
            continue
        finally:
            nz.trace = outer
        (mean, _), forms = forms[0], forms[1:]
        if not mean.has(E):
            continue
        ok, signs = _through_correlation(nz, g, strict, domain, u, v, mean)
        if ok:
            return True, signs
        if strict:
            continue  # a determinant is 0 where u and v are proportional: never strict
        for c, trace in forms:
            c = _expand(c)
            # λ read off the square of the mean: the only term a multiple of C can cancel in g
            kg, kc = g.coeff(mean ** 2), c.coeff(mean ** 2)
            if not (kc.is_number and kc != 0 and kg.is_number):
                continue
            ok, signs = _above(nz, g, kg / kc, c, domain, trace)
            if ok:
                return True, signs
    if strict:
        return False, set()
    for u, v in [p for p in _written_pairs(written, is_rv) if p not in own][:MAX_PAIRS]:
        ok, signs = _compound_proof(nz, g, domain, u, v)
        if ok:
            return True, signs
    return False, set()


def _compound_proof(nz, g, domain, u, v) -> tuple[bool, set]:
    """``g >= λ C`` for a Gram determinant C of two quantities the link writes (``u = X + Y``), λ > 0 read off a
    term C and g share (the ratio of their coefficients), and ``g - λ C`` proved ``>= 0``: after linearity the
    mean ``E[u v]`` is a sum of atoms, not one atom whose square could be matched.  Never strict."""
    outer = nz.trace
    for q in (Var(u) * Var(v) - Cov(u, v) ** 2, E(u ** 2) * E(v ** 2) - E(u * v) ** 2):
        nz.trace = Trace()
        try:
            c = _expand(nz.expr(q))
        except KernelLimit:
            continue
        finally:
            mine, nz.trace = nz.trace, outer
        if c == 0 or c.is_number:
            continue
        for term in sorted(sympy.Add.make_args(c), key=sympy.default_sort_key)[:4]:
            k, mono = term.as_coeff_Mul()
            ok, signs = _above(nz, g, g.coeff(mono) / k, c, domain, mine) if k != 0 else (False, set())
            if ok:
                return True, signs
    return False, set()


def _above(nz, g, lam, c, domain, trace) -> tuple[bool, set]:
    """``g - λ C`` proved ``>= 0`` for a number λ > 0 and a Gram determinant C (so g >= λ C >= 0); ``trace``: the
    rules read to write C, the proof's when it holds."""
    if not (lam.is_number and lam > 0):
        return False, set()
    ok, signs = sign_proof(_expand(g - lam * c), False, domain)
    if not ok:
        return False, set()
    nz.trace.merge(trace)
    nz.trace.rules.add("cauchy_schwarz")
    return True, {x for x in signs if not isinstance(x, Dummy)}


def _through_correlation(nz, g, strict: bool, domain, u, v, mean) -> tuple[bool, set]:
    """``g`` with ``E[u v]`` written ``E[u] E[v] + ρ SD(u) SD(v)``, ρ in [-1, 1], proved for every ρ (see the module)."""
    outer = nz.trace
    nz.trace = Trace()
    try:
        value = nz.expr(E(u) * E(v) + SD(u) * SD(v))
    except KernelLimit:
        return False, set()
    finally:
        mine, nz.trace = nz.trace, outer
    rho = Dummy("ρ", real=True)
    try:
        means = nz.expr(E(u) * E(v))
    except KernelLimit:
        return False, set()
    sds = _expand(value - means)  # SD(u) SD(v) in normal form
    if sds.has(mean) or means.has(mean):
        return False, set()
    h = _expand(g.xreplace({mean: means + rho * sds}))
    if h.has(mean):
        return False, set()

    def within(s, used):
        return Iv(sympy.Integer(-1), sympy.Integer(1)) if s == rho else domain(s, used)

    ok, signs = sign_proof(h, strict, within)
    if not ok:
        return False, set()
    nz.trace.merge(mine)
    nz.trace.rules.add("cauchy_schwarz")
    return True, {x for x in signs if not isinstance(x, Dummy)}  # ρ and sign_proof's own names of variances
