"""Contradictions among assumptions that the ideal alone does not show, and the culprit labels.

The consistency check (``consistency.py``) first asks whether the equation
facts generate the unit ideal.  An ideal that is not the unit one can still
have no *real* point: ``x^2 - 2 x + 2 = 0`` for a real x, ``E[Z^2] = 1/2``
for ``Z ~ Normal(m, 1)`` (it gives m^2 + 1/2 = 0).  Here an element of the
ideal that is never 0 (a sign proof, or no real root by Sturm's count) is
such a contradiction; so is a moment the equations fix outside the range its
variable's function takes on every outcome (``E[tanh(X)] = 2``).
"""
from __future__ import annotations

import itertools

import sympy

from ..terms.facts import EqFact, IndepFact, IneqFact, KernelLimit
from ..terms.objects import DSum, E, as_expr
from ..terms.printer import show
from .calculus import bounds as interval_of, sign_proof, symbol_domain
from .normal import Normalizer
from .reduce import Inconsistent, basis_of, reduce_modulo
from .twins import refined_domain


class Contradiction(list):
    """The labels of a contradictory set of assumptions (a list), with the ``reason`` in words."""

    def __init__(self, labels, reason: str):
        super().__init__(labels)
        self.reason = reason


MAX_SIGNED_TERMS = 40  # consequences of the equations whose sign is tried (larger ones are skipped)


def _signed_consequence(decls, facts, labels, polys, owners, limits):
    """An element g of the equations' ideal (a basis element, or an equation itself) that is never 0: a sign
    proof of ``g > 0`` (or ``g < 0``) for every value of its names the declarations and the assumed bounds
    allow (moments as real numbers, a variance never negative).  Every solution of the equations makes g
    = 0, so they have none: ``x^2 - 2 x + 2 = 0`` for a real x; ``E[Z^2] = 1/2`` for ``Z ~ Normal(m, 1)``
    (it gives m^2 + 1/2 = 0); ``Var(B) = 1/2`` for a Bernoulli(p) B (p^2 - p + 1/2 = 0); ``Var(X) + Var(Y) =
    -1``.  An element with an index symbol is skipped (a fact over a range that may be empty says nothing)."""
    bounds = [(lab, f) for lab in labels for f in facts[lab] if isinstance(f, IneqFact) and not f.free]
    index = set(decls.index_ranges)

    def signed(kept, keep):
        try:
            basis = basis_of(kept) if kept else ()
        except Inconsistent:
            return None  # (the equations alone: reported as such)
        domain = refined_domain([f for lab, f in bounds if lab in keep])
        for g in sorted(set(basis) | set(kept), key=sympy.default_sort_key):
            if g.is_number or g.has(DSum) or g.free_symbols & index or len(sympy.Add.make_args(g)) > MAX_SIGNED_TERMS:
                continue
            if _no_real_root(g):
                return g, None
            for s in (g, -g):
                try:
                    if sign_proof(s, True, domain)[0]:
                        return g, s
                except (KernelLimit, ArithmeticError, TypeError, ValueError, AttributeError, NotImplementedError):
                    pass
        return None

    everything = list(dict.fromkeys(owners + [lab for lab, _ in bounds]))
    got = signed(polys, set(everything))
    if got is None:
        return None
    g, s = got
    culprit = _minimal(everything, lambda keep: signed([p for p, o in zip(polys, owners) if o in keep], keep) is not None)
    equations = [lab for lab in culprit if lab in owners]
    culprit += [lab for lab in _independence_used(decls, facts, labels, equations, limits,
                                                  lambda ps: signed(ps, set(culprit)) is not None) if lab not in culprit]
    never = "it has no real root" if s is None else \
        f"it is always {'positive' if s == g else 'negative'} (for every value the declarations and bounds allow)"
    return Contradiction(culprit, f"the equations give {show(g)} = 0, but {never}")


def _no_real_root(g) -> bool:
    """Is ``g`` a polynomial in one unknown (a name or a moment), with rational coefficients, that has no real
    root (Sturm's count, exact)?"""
    try:
        p = sympy.Poly(g)
        return len(p.gens) == 1 and p.degree() >= 2 and p.domain in (sympy.ZZ, sympy.QQ) and p.count_roots() == 0
    except (sympy.PolynomialError, sympy.GeneratorsNeeded, ArithmeticError, TypeError, ValueError, NotImplementedError):
        return False


def _independence_used(decls, facts, labels, culprit, limits, contradictory=None) -> list:
    """The independence assumptions the contradiction of ``culprit``'s equations needs: the equations were
    normalised under every independence fact (Cov(X, Y) = 1 is 0 = 1 only where X and Y are independent),
    so the ones without which it disappears are part of the contradiction.  All of them when that cannot
    be told (the instances at literal indices, a limit): never fewer than needed.  ``contradictory``: the
    test of the normalised equations (default: they generate the unit ideal)."""
    ind = [lab for lab in labels if any(isinstance(f, IndepFact) for f in facts[lab])]

    def unit(keep) -> bool | None:
        nz = Normalizer(decls, [f for lab in keep for f in facts[lab] if isinstance(f, IndepFact)], (),
                        frozenset(), limits)
        try:
            return (contradictory or _unit)([nz.expr(as_expr(f.lhs) - as_expr(f.rhs)) for lab in culprit
                                             for f in facts[lab] if isinstance(f, EqFact)])
        except KernelLimit:
            return None

    if not ind or unit([]):
        return []
    if not unit(ind):
        return ind
    keep = list(ind)
    for lab in list(keep):
        trial = [c for c in keep if c != lab]
        if unit(trial):
            keep = trial
    return keep


def _unit(polys) -> bool:
    try:
        basis_of(polys)
    except Inconsistent:
        return True
    return False


def _minimal(owners, contradictory) -> list:
    """A small culprit set: drop labels greedily while the rest stays contradictory."""
    culprit = list(dict.fromkeys(owners))
    for lab in list(culprit):
        trial = [c for c in culprit if c != lab]
        if trial and contradictory(set(trial)):
            culprit.remove(lab)
    return culprit


def _outside(r, iv) -> bool:
    """Is the number ``r`` provably outside the interval ``iv``?"""
    below = (r - iv.lo).is_negative or (iv.lo_open and (r - iv.lo).is_zero) if iv.lo != -sympy.oo else False
    above = (r - iv.hi).is_positive or (iv.hi_open and (r - iv.hi).is_zero) if iv.hi != sympy.oo else False
    return bool(below or above)


MAX_RANGED = 24  # moment atoms of the equations tried against the range of their function


def _moment_ranges(decls, polys, owners):
    """A moment E[g] the equations fix as a number outside the range g takes on every outcome (interval
    arithmetic over the reals, the declared signs read): ``E[tanh(X)] = 2`` (tanh lies in (-1, 1), so its
    mean does), ``E[exp(X)] = 0``; and ``E[|h|] < |E[h]|`` (``E[|X|] = 1`` with ``E[X] = 2``)."""
    atoms = sorted({a for p in polys for a in p.atoms(E)}, key=sympy.default_sort_key)[:MAX_RANGED]

    def value(x, keep):
        try:
            return reduce_modulo(x, [p for p, o in zip(polys, owners) if o in keep])
        except (Inconsistent, KernelLimit):
            return None

    def broken(a, keep):
        r = value(a, keep)
        if r is None or not (r.is_number and r.is_extended_real):
            return None
        g = a.args[0]
        if g.has(DSum) or not g.is_real:
            return None
        try:
            iv = interval_of(g, symbol_domain, set())
        except (KernelLimit, ArithmeticError, TypeError, ValueError, AttributeError, NotImplementedError):
            iv = None
        if iv is not None and _outside(r, iv):
            ends = f"{'(' if iv.lo_open else '['}{show(iv.lo)}, {show(iv.hi)}{')' if iv.hi_open else ']'}"
            return f"{show(g)} lies in {ends} on every outcome, so its mean does, but they give {show(a)} = {show(r)}"
        if isinstance(g, sympy.Abs):
            m = value(E(g.args[0]), keep)
            if m is not None and m.is_number and m.is_extended_real and (r - abs(m)).is_negative:
                return (f"E[|h|] ≥ |E[h]| for every h, but they give {show(a)} = {show(r)} and "
                        f"{show(E(g.args[0]))} = {show(m)}")
        return None

    everything = set(owners)
    for a in atoms:
        why = broken(a, everything)
        if why is not None:
            culprit = _minimal(list(dict.fromkeys(owners)), lambda keep, a=a: broken(a, keep) is not None)
            return Contradiction(culprit, why)
    return None


def _bounds_against_equations(nz, facts, labels, polys, owners):
    """An assumed inequality whose two sides the equations make differ by a number that breaks it: the law
    of ``D ~ DiscreteUniform(a, b)`` needs ``b ≥ a``, and ``E[D] = a - 1`` makes b - a = -2; ``Y = (R + 1)/c``
    needs ``c ≠ 0``, and ``c = 0`` makes it 0."""
    for lab in labels:
        for f in facts[lab]:
            if not isinstance(f, IneqFact) or f.free or f.distinct or f.rel not in ("<", "<=", ">", ">=", "!="):
                continue

            def broken(keep, f=f):
                try:
                    d = reduce_modulo(nz.expr(as_expr(f.lhs) - as_expr(f.rhs)), [p for p, o in zip(polys, owners)
                                                                                 if o in keep])
                except (Inconsistent, KernelLimit):
                    return None
                if not (d.is_number and d.is_extended_real):
                    return None
                ok = {"<": d < 0, "<=": d <= 0, ">": d > 0, ">=": d >= 0, "!=": sympy.Ne(d, 0)}[f.rel]
                return d if ok == sympy.false else None

            d = broken(set(owners))
            if d is not None and polys:
                culprit = [lab] + [o for o in _minimal(list(dict.fromkeys(owners)), lambda keep: broken(keep) is not None)
                                   if o != lab]
                return Contradiction(culprit, f"`{lab}` needs {f.text or show(f.lhs) + ' ' + f.rel + ' ' + show(f.rhs)}, "
                                              f"but the equations give {show(as_expr(f.lhs) - as_expr(f.rhs))} = {show(d)}")
    return None


def _pointwise(d):
    """``d = c0 + Σ c_k E[g_k]`` (numbers c) as the one function ``c0 + Σ c_k g_k`` of the outcome, or None."""
    g = sympy.Integer(0)
    for term in sympy.Add.make_args(sympy.expand(d)):
        c, rest = term.as_independent(E, as_Add=False)
        if not (c.is_number and c.is_real) or not (rest == 1 or isinstance(rest, E)):
            return None
        g += c * (rest.args[0] if isinstance(rest, E) else 1)
    return g


def _sign_everywhere(g, strict: bool) -> bool:
    """``g > 0`` (``>= 0``) on every outcome: a sign proof with the variables as reals, or, where g holds
    |k s + c| of one name s (numbers k, c), in each of the cases k s + c >= 0 and < 0 (|X| - X >= 0)."""
    try:
        if sign_proof(g, strict, symbol_domain)[0]:
            return True
        for inner in sorted({a.args[0] for a in g.atoms(sympy.Abs)}, key=sympy.default_sort_key):
            names = sorted(inner.free_symbols, key=str)  # |k s + c|: the cases k s + c >= 0 and < 0
            if len(names) != 1 or not inner.is_polynomial(names[0]) or sympy.degree(inner, names[0]) != 1:
                continue
            s = names[0]
            k, c = inner.coeff(s), sympy.expand(inner - inner.coeff(s) * s)
            if not (k.is_number and k.is_real and k != 0 and c.is_number):
                continue
            t, u = sympy.Dummy("t", nonnegative=True), sympy.Dummy("u", positive=True)
            if all(sign_proof(sympy.expand(g.xreplace({s: (v - c) / k})), strict, symbol_domain)[0] for v in (t, -u)):
                return True
    except (KernelLimit, ArithmeticError, TypeError, ValueError, AttributeError, NotImplementedError):
        pass
    return False


def mean_of_signed(d, strict: bool) -> bool:
    """``d > 0`` (``>= 0``) for ``d = c0 + Σ c_k E[g_k]`` (numbers c) whose one function ``c0 + Σ c_k g_k``
    of the outcome is so on every outcome: the mean of a function never negative is never negative
    (``E[max(X, 0)] >= 0``, read as ``(E[X] + E[|X|])/2``)."""
    g = _pointwise(d) if d.has(E) else None
    return g is not None and not g.has(DSum) and not g.is_number and _sign_everywhere(g, strict)


def mean_of_signed_beside_squares(d, strict: bool, domain) -> tuple[bool, set]:
    """``d = P + R`` with every term of P nonnegative by the interval evaluator (``E[X]^2``, a square) and R
    a mean of a signed function (:func:`mean_of_signed`): ``d >= R >= 0`` (``> 0`` when R is), so
    ``Var(tanh(X)) <= 1``, whose margin is ``E[tanh(X)]^2 + (1 - E[tanh(X)^2])``.  (proved, signs used)."""
    keep, rest, used = [], [], set()
    for t in sympy.Add.make_args(sympy.expand(d)):
        try:  # a term without a mean stays with the mean (1 - E[g^2] is the mean of 1 - g^2)
            (keep if t.has(E) and interval_of(t, domain, used).nonnegative() else rest).append(t)
        except KernelLimit:
            rest.append(t)
    r = sympy.Add(*rest)
    ok = bool(rest) and (bool(keep) and mean_of_signed(r, strict) or _scaled_mean(r, strict, domain, used))
    return ok, used if ok else set()


def _scaled_mean(r, strict: bool, domain, used: set) -> bool:
    """``r = k R`` with k a common factor of proved sign (``c^2`` in ``c^2 - c^2 E[tanh(X)^2]``) and R a mean
    of a signed function (of the sign k leaves)."""
    k, rest = sympy.factor_terms(r).as_independent(E, as_Add=False)
    if k.is_number or not rest.has(E):
        return False
    try:
        iv = interval_of(k, domain, used)
    except KernelLimit:
        return False
    if iv.positive() or (iv.nonnegative() and not strict):
        return mean_of_signed(rest, strict)
    if iv.negative() or (iv.nonpositive() and not strict):
        return mean_of_signed(-rest, strict)
    return False


#: for ``d REL 0`` (d a mean E[G]): the sign of G on every outcome that breaks it, as (-G or G, strict)
_BREAKS = {">": [(-1, False)], ">=": [(-1, True)], "<": [(1, False)], "<=": [(1, True)], "=": [(1, True), (-1, True)]}


_REL_TEXT = {"=": "=", ">": ">", ">=": "≥", "<": "<", "<=": "≤"}


def _pointwise_sign(nz, facts, labels, polys, owners):
    """An assumed relation between means that the sign of one function of the outcome breaks: ``E[|X|] <
    E[X]`` (E[|X| - X] < 0, but |X| - X >= 0 on every outcome), ``E[tanh(X)] > 1`` (tanh(X) - 1 < 0), read
    after the equations are applied (a mean of a function never negative is never negative)."""
    for lab in labels:
        for f in facts[lab]:
            rel = "=" if isinstance(f, EqFact) else getattr(f, "rel", None)
            if rel not in _BREAKS or f.free or f.distinct:
                continue
            def reduced(keep, f=f, lab=lab):
                return reduce_modulo(nz.expr(as_expr(f.lhs) - as_expr(f.rhs)),
                                     [p for p, o in zip(polys, owners) if o in keep and o != lab])

            others = list(dict.fromkeys(o for o in owners if o != lab))
            try:
                d = reduced(set(others))
            except (Inconsistent, KernelLimit):
                continue
            g = _pointwise(d) if d.has(E) else None
            if g is None or g.has(DSum) or g.is_number:
                continue
            for sgn, strict in _BREAKS[rel]:
                if _sign_everywhere(sgn * g, strict):
                    side = ("positive" if strict else "nonnegative") if sgn == 1 else ("negative" if strict else "nonpositive")
                    try:
                        needed = [] if reduced(set()) == d else _minimal(others, lambda keep: reduced(keep) == d)
                    except (Inconsistent, KernelLimit):
                        needed = others
                    return Contradiction([lab] + needed, f"`{lab}` gives {show(d)} {_REL_TEXT[rel]} 0, but that is the "
                                                         f"mean of {show(g)}, which is {side} on every outcome")
    return None


def _spread(nz, s, bs, polys, owners):
    """Second moments a random variable's almost-sure bounds forbid (bounded: every moment is finite):

    * between ``lo`` and ``hi``, ``(s - lo)(hi - s) ≥ 0`` on every outcome, so its mean
      ``-E[s^2] + (lo + hi) E[s] - lo hi`` is ≥ 0; reduced by the equations to a polynomial in E[s] alone
      (which lies in [lo, hi]), it is negative for every such mean when it is at both ends and at every
      turning point between them (``0 ≤ X ≤ 1`` with ``E[X^2] = 2``; ``2 ≤ Y ≤ 4`` with ``Var(Y) = 2``:
      Bhatia-Davis, Var(Y) ≤ (hi - lo)^2/4);
    * at its mean, a one-sided bound makes ``s`` equal to it on every outcome (``X ≥ 0`` with
      ``E[X] = 0``), so ``E[(s - b)^2] = 0``: a number other than 0 is a contradiction (``Var(X) = 1``).

    ``bs``: [(label, bound, relation)]; only the assumed ones (labels) count.  A Contradiction or None."""
    lows = [(lab, b) for lab, b, rel in bs if isinstance(lab, str) and rel in (">", ">=") and b.is_number and b.is_real]
    highs = [(lab, b) for lab, b, rel in bs if isinstance(lab, str) and rel in ("<", "<=") and b.is_number and b.is_real]

    def value(x, keep):
        try:
            return reduce_modulo(nz.expr(x), [p for p, o in zip(polys, owners) if o in keep])
        except (Inconsistent, KernelLimit):
            return None

    def negative_everywhere(lo, hi, keep) -> bool:
        g, m = value(E((s - lo) * (hi - s)), keep), nz.expr(E(s))
        if g is None:
            return False
        kept = [p for p, o in zip(polys, owners) if o in keep]
        for a in sorted((a for a in g.atoms(E) if a != m), key=sympy.default_sort_key):
            # another moment (E[s^2]) solved from an equation in it and E[s] alone (Var(Y) = 2)
            for p in kept:
                c = p.coeff(a)
                rest = p - c * a
                if c.is_number and c != 0 and not rest.has(a) and rest.atoms(E) <= {m}:
                    g = sympy.expand(g.xreplace({a: -rest / c}))
                    break
        ends = [g]
        if g.has(m):  # its largest value over E[s] in [lo, hi]: at an end or where its derivative is 0
            if not isinstance(m, E) or not g.is_polynomial(m) or sympy.degree(g, m) > 4 \
                    or (g.free_symbols - m.free_symbols) or g.has(*[a for a in g.atoms(E) if a != m]):
                return False
            t = sympy.Dummy("t")
            h = g.xreplace({m: t})
            turns = [r for r in sympy.real_roots(sympy.Poly(sympy.diff(h, t), t)) if lo <= r <= hi] \
                if sympy.degree(h, t) > 1 else []
            ends = [sympy.expand(h.xreplace({t: a})) for a in [lo, hi] + turns]
        return all(e.is_number and e.is_extended_negative for e in ends)

    everything = set(owners)
    for (l1, lo), (l2, hi) in itertools.product(lows, highs):
        if (hi - lo).is_nonnegative and negative_everywhere(lo, hi, everything):
            extra = _minimal(list(dict.fromkeys(owners)), lambda keep: negative_everywhere(lo, hi, keep)) if owners else []
            return Contradiction(list(dict.fromkeys([l1, l2] + extra)),
                                 f"{show(s)} lies in [{show(lo)}, {show(hi)}] on every outcome, so "
                                 f"{show(E((s - lo) * (hi - s)))} ≥ 0, that is {show(E(s ** 2))} ≤ "
                                 f"{show((lo + hi) * E(s) - lo * hi)}, which these assumptions break")
    sides = [(lab, b, rel) for lab, b, rel in bs if isinstance(lab, str) and rel in (">=", "<=") and not b.has(E)]
    for lab, b, rel in sides:  # a symbolic bound too: X <= c with E[X] = c
        def pinned(keep, b=b):
            m = value(E(s), keep)
            if m is None or sympy.expand(m - b) != 0:
                return None
            v = value(E((s - b) ** 2), keep)
            return v if v is not None and v.is_number and v.is_extended_real and v != 0 else None

        v = pinned(everything)
        if v is not None:
            extra = _minimal(list(dict.fromkeys(owners)), lambda keep: pinned(keep) is not None) if owners else []
            side = "≥" if rel == ">=" else "≤"
            return Contradiction(list(dict.fromkeys([lab] + extra)),
                                 f"{show(s)} {side} {show(b)} on every outcome and E[{show(s)}] = {show(b)} make "
                                 f"{show(s)} = {show(b)} on every outcome, so {show(E((s - b) ** 2))} = 0, but these "
                                 f"assumptions give {show(v)}")
    return None


def _strict_order_both_ways(decls, facts, labels) -> Contradiction | None:
    """A fact ``d REL 0`` over two indices a, b of one range that no two readings can both satisfy:

    * over distinct indices (``for a != b``): where ``d(a, b) + d(b, a)`` is a number c that two readings cannot
      give (``r_i < r_j``: c = 0, not < 0; ``r_i <= r_j - 1``: c = -2 ... read as ``d <= 0`` both ways, 2 <= 0),
      once the range has two members, read at (lo, lo + 1) and (lo + 1, lo);
    * over any two indices (no ``for a != b``): where ``d(a, a)`` is a number that breaks REL (``r_i < r_j`` at
      i = j says ``r_i < r_i``), once the range has a member.

    The range's size comes from the numbers, from assumed bounds by numbers (``n >= 2``, a fact that writes a
    member ``r_2``) or from an equation fixing a dimension (``n = 2``), whose labels are reported too.  Where the
    range may be too small, the fact holds there (vacuously) and is no contradiction."""
    ineqs = [(lab, f) for lab in labels for f in facts[lab] if isinstance(f, IneqFact)]
    fixed = _fixed_values(facts, labels)  # n = 2: a dimension fixed by an equation, and its label
    domain = refined_domain([f for _, f in ineqs])
    for lab, f in ineqs:
        if f.rel not in ("<", ">", "<=", ">="):
            continue
        pairs = [(a, b, True) for a, b in f.distinct] + [
            (a, b, False) for a, b in itertools.combinations(f.free, 2) if (a, b) not in f.distinct
            and (b, a) not in f.distinct and not f.distinct]
        for a, b, distinct in pairs:
            rng = decls.index_ranges.get(a)
            if rng is None or rng != decls.index_ranges.get(b) or not {a, b} <= set(f.free):
                continue
            d = sympy.expand(as_expr(f.lhs) - as_expr(f.rhs))
            c = sympy.expand(d + d.xreplace({a: b, b: a})) if distinct else sympy.expand(d.xreplace({b: a}))
            setting = [fixed[k][1] for k in sorted(c.free_symbols, key=str) if k in fixed]  # x = 0: r_i < r_j + x
            c = c.xreplace({k: v for k, (v, _) in fixed.items()})
            if not c.is_number or _relation_holds(c, f.rel):
                continue  # the two readings can hold together (or the one at a = b does)
            bounds = _members(rng, 2 if distinct else 1, lab, ineqs, fixed, domain)
            if bounds is None:
                continue
            bounds += setting
            at = [{a: rng[0], b: rng[0] + 1}, {a: rng[0] + 1, b: rng[0]}] if distinct else [{a: rng[0], b: rng[0]}]
            said = " and ".join(f"{show(as_expr(f.lhs).xreplace(v))} {f.rel} {show(as_expr(f.rhs).xreplace(v))}" for v in at)
            which = "two distinct indices" if distinct else "two indices, equal ones too,"
            return Contradiction([lab] + [x for x in dict.fromkeys(bounds) if x != lab],
                                 f"`{lab}` holds for every {which} of {show(rng[0])}..{show(rng[1])}: at "
                                 f"{'the first two' if distinct else 'the first'} it says {said}")
    return None


def _members(rng, count: int, lab, ineqs, fixed, domain) -> list | None:
    """The labels that give the range ``rng`` at least ``count`` members (assumed bounds by numbers on its
    ends, equations fixing them), or None where it may have fewer: a fact over it may then hold vacuously."""
    from .twins import number_bound

    need = sympy.expand(rng[1] - rng[0] + 1 - count)
    sized = need.xreplace({k: v for k, (v, _) in fixed.items()})
    if not (sized.is_nonnegative or sign_proof(sized, False, domain)[0]):
        return None
    return [lb for lb, g in ineqs if lb != lab and (got := number_bound(g)) is not None
            and got[0] in need.free_symbols] + [fixed[k][1] for k in need.free_symbols if k in fixed]


_NEVER = {"<": (1, False), "<=": (1, True), ">": (-1, False), ">=": (-1, True)}  # d REL 0 is false where s d is >= 0 (> 0)


def _impossible_bound(decls, facts, labels) -> Contradiction | None:
    """A bound ``d REL 0`` false at every reading: ``d`` has the other sign for every value the declarations
    allow, or the other bounds by numbers (``(x - y)^2 < 0``; ``x^2 + 1 <= 0``; ``c - 1 > 0`` beside ``c < 1/2``
    is left to the bounds' own check).  A fact over indices is read where its range has a member for each
    free index (``(r_i - r_j)^2 < 0 for i != j`` with ``n >= 2``); where it may have fewer, the fact may hold
    vacuously and is no contradiction."""
    ineqs = [(lab, f) for lab in labels for f in facts[lab] if isinstance(f, IneqFact)]
    fixed = _fixed_values(facts, labels)
    for lab, f in ineqs:
        if f.rel not in _NEVER:
            continue
        d = as_expr(f.lhs) - as_expr(f.rhs)
        if d.is_number or d.has(DSum):
            continue
        sign, strict = _NEVER[f.rel]
        others = [(lb, g) for lb, g in ineqs if lb != lab and not g.free]

        def never(keep, d=d, sign=sign, strict=strict, others=others):
            try:
                return sign_proof(sign * d, strict, refined_domain([g for lb, g in others if lb in keep]))[0]
            except (KernelLimit, ArithmeticError, TypeError, ValueError, AttributeError, NotImplementedError):
                return False

        names = list(dict.fromkeys(lb for lb, _ in others))
        if not never(set(names)):
            continue
        sizes = []
        for i in f.free:
            rng = decls.index_ranges.get(i)
            got = None if rng is None else _members(rng, len(f.free) if f.distinct else 1, lab, ineqs, fixed,
                                                     refined_domain([g for _, g in others]))
            if got is None:
                break
            sizes += got
        else:
            culprit = [] if never(set()) else _minimal(names, never)
            said = f"{show(as_expr(f.lhs))} {f.rel} {show(as_expr(f.rhs))}"
            if f.free:  # the range has members enough for one reading (`sizes`)
                said += f" at {', '.join(show(i) for i in f.free)}{' distinct' if f.distinct else ''} in " + \
                    ", ".join(dict.fromkeys(f"{show(r[0])}..{show(r[1])}" for r in map(decls.index_ranges.get, f.free)))
            why = "for every value the declarations" + (" and bounds allow" if culprit else " allow")
            return Contradiction([lab] + [x for x in dict.fromkeys(culprit + sizes) if x != lab],
                                 f"`{lab}` says {said}, which is false {why}")
    return None


def _fixed_values(facts, labels) -> dict:
    """symbol -> (number, label) for each equation ``x = c`` between a symbol and a number (``n = 2``, ``x = 0``)."""
    fixed = {}
    for lab in labels:
        for f in facts[lab]:
            if isinstance(f, EqFact) and not f.free and (x := as_expr(f.lhs)).is_Symbol and as_expr(f.rhs).is_number:
                fixed[x] = (as_expr(f.rhs), lab)
    return fixed


def _relation_holds(c, rel: str) -> bool:
    """Can two readings ``d1 REL 0``, ``d2 REL 0`` with ``d1 + d2 = c`` (or one reading d = c) hold?"""
    return {"<": c < 0, "<=": c <= 0, ">": c > 0, ">=": c >= 0}[rel] == sympy.true
