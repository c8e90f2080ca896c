"""Are the assumptions satisfiable at all?  Contradictions found before any step is checked.

From contradictory facts every claim follows, so the checker asks this
first and counts no step as verified from a contradictory set.  Two kinds
of contradiction are seen:

* **equations**: the equation facts generate the unit ideal (``Var(X) = 1``
  and ``Var(X) = 2``; an assumed moment against a declared law's own);
* **moment inequalities** that every distribution satisfies, evaluated
  modulo the equation facts: a variance, a second moment or an SD is never
  negative (``E[g^2] >= E[g]^2`` for every random ``g`` the facts mention,
  so ``E[X^4] >= E[X^2]^2`` too), and Cauchy--Schwarz, ``Cov(g, h)^2 <=
  Var(g) Var(h)`` and ``E[g h]^2 <= E[g^2] E[h^2]``, for every pair; for
  three or more, a covariance (or second-moment) matrix the facts fix as
  numbers must be positive semidefinite;
* **bounds** by numbers on one symbol that leave it no value (``x > 1`` and
  ``x < 0``; ``c < 0`` for a declared positive c), and for a random symbol
  (bounded almost surely) a mean the equations fix outside its bounds.

Only a *number* (or an expression sympy proves negative from declared
signs) below zero counts: a bound that stays symbolic is no contradiction.
Not finding one is no proof of consistency.
"""
from __future__ import annotations

import itertools

import sympy

from ..terms.facts import Decls, EqFact, IndepFact, IneqFact, KernelLimit, Limits
from ..terms.objects import SD, Cov, DSum, E, Var, as_expr
from ..terms.printer import show
from .normal import Normalizer, _expand
from .reduce import Inconsistent, basis_of, reduce_modulo
from .twins import number_bound, one_value

MAX_QUANTITIES = 24  # random quantities whose moment inequalities are tried (pairs: their first 10)
MAX_PAIRS_OF = 10


class Contradiction(list):
    """The labels of a contradictory set of assumptions (a list), with the ``reason`` in words."""

    def __init__(self, labels, reason: str):
        super().__init__(labels)
        self.reason = reason


def _quantities(nz: Normalizer, exprs) -> list:
    """The random quantities the facts take moments of: E[g], Var(g), SD(g), Cov(g, h), and h for E[h^(2k)]."""
    found = []

    def add(g):
        if g not in found and nz.rvs(g):
            found.append(g)

    for x in exprs:
        for a in sorted(x.atoms(E, Var, SD, Cov), key=sympy.default_sort_key):
            for g in a.args:
                add(g)
                if isinstance(g, sympy.Pow) and g.exp.is_Integer and g.exp.is_even:
                    add(g.base ** (g.exp // 2))
    return found[:MAX_QUANTITIES]


def _negative(x) -> bool:
    return bool(x.is_number and x.is_extended_real and x < 0) or x.is_extended_negative is True


def _inequalities(quantities):
    """(quantity that is >= 0 for every distribution, the inequality in words, its parts (A, B, C) when it
    is A B - C^2, else None)."""
    for g in quantities:
        yield Var(g), "a variance is never negative", None
        yield E(g ** 2), "a second moment is never negative", None
    for g, h in itertools.combinations(quantities[:MAX_PAIRS_OF], 2):
        parts = (Var(g), Var(h), Cov(g, h))
        yield parts[0] * parts[1] - parts[2] ** 2, "Cauchy-Schwarz: Cov(g, h)^2 <= Var(g) Var(h)", parts
        parts = (E(g ** 2), E(h ** 2), E(g * h))
        yield parts[0] * parts[1] - parts[2] ** 2, "Cauchy-Schwarz: E[g h]^2 <= E[g^2] E[h^2]", parts


def _form(nz: Normalizer, q, forms: dict):
    """``q`` normalised, memoised in ``forms``; KernelLimit passes."""
    if q not in forms:
        forms[q] = nz.expr(q)
    return forms[q]


def _value(nz: Normalizer, q, polys, forms: dict):
    """``q`` normalised (memoised in ``forms``) and reduced modulo the facts ``polys``; KernelLimit passes."""
    return reduce_modulo(_form(nz, q, forms), polys)


def _violated(nz: Normalizer, quantities, polys, forms: dict) -> str | None:
    """The first moment inequality the facts ``polys`` violate, in words; ``forms`` memoises normal forms.

    ``A B - C^2`` is reduced from the remainders of its parts (the Gram check needs them too): modulo the
    facts' ideal it is congruent to ``rA rB - rC^2``, whose remainder is its own, so the product of two
    moments is never normalised whole.  Where a part holds a sum atom the product's normal form may pair
    the sums differently, so that case is normalised whole as before."""
    for q, why, parts in _inequalities(quantities):
        try:
            if parts is not None and not any(_form(nz, x, forms).has(DSum) for x in parts):
                ra, rb, rc = (_value(nz, x, polys, forms) for x in parts)
                r = reduce_modulo(_expand(ra * rb - rc ** 2), polys)
            else:
                r = _value(nz, q, polys, forms)
        except KernelLimit:
            return None
        if _negative(r):
            return f"{why}, but they give {show(q)} = {show(r)}"
    return None


def _gram_violated(nz: Normalizer, quantities, polys, forms: dict) -> str | None:
    """Three or more quantities whose covariances (or second moments E[g h]) the facts fix as real numbers:
    that matrix must be positive semidefinite, since ``Var(Σ a_k g_k) = Σ a_j a_k Cov(g_j, g_k) >= 0`` for
    every vector a (and ``E[(Σ a_k g_k)^2] >= 0``).  Pairs are Cauchy--Schwarz (``_inequalities``); three
    variables with pairwise covariances -9/10 pass it, yet Var(X + Y + Z) would be -12/5.  Every principal
    submatrix of a positive semidefinite matrix is one too, so the largest sets of quantities whose entries
    are all fixed are checked, whatever the other quantities' entries are."""
    qs = quantities[:MAX_PAIRS_OF]
    if len(qs) < 3:
        return None
    for what, entry in (("covariance", Cov), ("second-moment", lambda g, h: E(g * h))):
        fixed: dict = {}

        def value(j, k):
            try:
                r = _value(nz, entry(qs[j], qs[k]), polys, forms)
            except KernelLimit:
                return False
            if r.is_number and r.is_extended_real:
                fixed[(j, k)] = fixed[(k, j)] = r
            return True

        if not all(value(k, k) for k in range(len(qs))):
            return None
        known = [k for k in range(len(qs)) if (k, k) in fixed]
        if not all(value(j, k) for j, k in itertools.combinations(known, 2)):
            return None
        checked: list = []
        for size in range(len(known), 2, -1):
            for sub in itertools.combinations(known, size):
                if any(set(sub) <= c for c in checked) or \
                        not all((j, k) in fixed for j, k in itertools.combinations(sub, 2)):
                    continue
                checked.append(set(sub))
                if sympy.Matrix([[fixed[(j, k)] for k in sub] for j in sub]).is_positive_semidefinite is False:
                    names = ", ".join(show(qs[k]) for k in sub)
                    return (f"the {what} matrix of {names} is not positive semidefinite, so some combination of "
                            f"them would have a negative {'variance' if what == 'covariance' else 'second moment'}")
    return None


def _contradicted(nz: Normalizer, quantities, polys, forms: dict) -> str | None:
    """Why the facts ``polys`` violate an inequality every distribution satisfies (None: none seen)."""
    return _violated(nz, quantities, polys, forms) or _gram_violated(nz, quantities, polys, forms)


MAX_INSTANCES = 48  # instances of quantified facts at literal indices, per check


def _literal_instances(nz: Normalizer, decls: Decls, labelled, cache: dict, ikey) -> list:
    """(label, normal form) of each quantified equation (``Var(q_i) = 1`` for every i) at the literal indices
    the other equations use on the same families (``Cov(q_1, q_2) = -9/10``): a member q_1 in a fact presumes
    1 in q's range, as it does in a link, so ``Var(q_1) = 1`` is one of the facts' consequences."""
    eqs = [(lab, f) for lab, f in labelled if isinstance(f, EqFact)]
    used: dict = {}  # family base -> the literal indices the unquantified equations put on it
    for _, f in eqs:
        for ix in () if f.free else (as_expr(f.lhs) - as_expr(f.rhs)).atoms(sympy.Indexed):
            if len(ix.indices) == 1 and ix.indices[0].is_Integer:
                used.setdefault(ix.base, set()).add(ix.indices[0])
    out = []
    for lab, f in eqs:
        if not f.free or len(f.free) > 2:
            continue
        body = as_expr(f.lhs) - as_expr(f.rhs)
        choices = []
        for v in f.free:
            lo = decls.index_ranges.get(v, (None, None))[0]
            bases = {ix.base for ix in body.atoms(sympy.Indexed) if v in ix.indices}
            vals = set().union(*(used.get(b, set()) for b in bases)) if bases and lo is not None else set()
            choices.append(sorted((a for a in vals if sympy.Ge(a, lo) == sympy.true), key=int))
        for combo in itertools.product(*choices):
            asg = dict(zip(f.free, combo))
            if any(asg.get(a) == asg.get(b) for a, b in f.distinct) or len(out) >= MAX_INSTANCES:
                continue
            key = (f, combo, ikey)
            if key not in cache:
                try:
                    cache[key] = nz.expr(body.xreplace(asg))
                except KernelLimit:
                    continue
            out.append((lab, cache[key]))
    return out


def check_consistency(decls: Decls, facts: dict, limits: Limits | None = None,
                      cache: dict | None = None) -> Contradiction | None:
    """The labels whose facts contradict each other, with the reason (None when none is seen).

    ``cache``: a dict the caller keeps while its facts live (one per checked
    file), so each fact is normalised once per set of independence facts
    across repeated checks; it is keyed on the fact objects, not id().
    """
    cache = {} if cache is None else cache
    labels = list(facts)
    indep = [f for lab in labels for f in facts[lab] if isinstance(f, IndepFact)]
    nz = Normalizer(decls, indep, (), frozenset(), limits)
    ikeys = cache.setdefault("indep-sets", {})
    ikey = ikeys.setdefault(tuple(indep), len(ikeys))
    polys, owners, exprs = [], [], []
    for lab in labels:
        for f in facts[lab]:
            if not isinstance(f, EqFact):
                continue
            lhs, rhs = as_expr(f.lhs), as_expr(f.rhs)
            exprs.append((lab, lhs - rhs))
            for side, other in ((lhs, rhs), (rhs, lhs)):
                if isinstance(side, (Var, SD)) or (isinstance(side, E) and isinstance(side.args[0], sympy.Pow)
                                                     and side.args[0].exp.is_even):
                    if other.is_extended_negative:
                        return Contradiction([lab], f"{show(side)} is never negative, but `{lab}` sets it to {show(other)}")
            key = (f, ikey)  # a fact's normal form is computed once per set of independence facts
            p = cache.get(key)
            if p is None:
                try:
                    p = nz.expr(lhs - rhs)
                except KernelLimit:
                    continue
                cache[key] = p
            polys.append(p)
            owners.append(lab)
    for lab, p in _literal_instances(nz, decls, [(lab, f) for lab in labels for f in facts[lab]], cache, ikey):
        polys.append(p)
        owners.append(lab)
    try:
        basis_of(polys)
    except Inconsistent:
        culprit = _minimal(owners, lambda keep: _unit([p for p, o in zip(polys, owners) if o in keep]))
        culprit += [lab for lab in _independence_used(decls, facts, labels, culprit, limits) if lab not in culprit]
        return Contradiction(culprit, "these equations have no common solution")
    found = _bounds_contradicted(nz, decls, facts, labels, polys, owners)
    if found is not None:
        return found
    quantities = _quantities(nz, [x for _, x in exprs])
    # a quantity's normal form depends on the independence facts only: kept across checks, as the facts' are
    forms = cache.setdefault(("quantities", ikey), {})
    why = _contradicted(nz, quantities, polys, forms) if quantities else None
    if why is None:
        return None

    def still(keep):
        kept = [p for p, o in zip(polys, owners) if o in keep]
        qs = _quantities(nz, [x for lab, x in exprs if lab in keep])
        return _contradicted(nz, qs, kept, forms) is not None

    return Contradiction(_minimal(owners, still), why)


_SIGNS = (("is_positive", 0, True, None), ("is_nonnegative", 0, False, None),
          ("is_negative", None, None, 0), ("is_nonpositive", None, None, 0))


def _interval(s, bounds) -> tuple:
    """(lower end, strict, its label, upper end, strict, its label) of the values ``bounds`` (label, number,
    relation) and the declared sign of ``s`` leave; an end is None where there is none, a label None where
    the declaration gives it."""
    lo = hi = None
    lo_strict = hi_strict = False
    lo_lab = hi_lab = None
    for attr, low, strict, high in _SIGNS:
        if getattr(s, attr) is True:
            if low is not None and lo is None:
                lo, lo_strict = sympy.Integer(low), strict
            if high is not None and hi is None:
                hi, hi_strict = sympy.Integer(high), attr == "is_negative"
    if s.is_integer:  # a whole number: n > 1/2 is n >= 1, n < 1 is n <= 0
        bounds = [(lab, *_whole(b, rel)) for lab, b, rel in bounds]
        if lo is not None and lo_strict:
            lo, lo_strict = lo + 1, False
        if hi is not None and hi_strict:
            hi, hi_strict = hi - 1, False
    for lab, b, rel in bounds:
        if rel in (">", ">=") and (lo is None or b > lo or (b == lo and rel == ">" and not lo_strict)):
            lo, lo_strict, lo_lab = b, rel == ">", lab
        if rel in ("<", "<=") and (hi is None or b < hi or (b == hi and rel == "<" and not hi_strict)):
            hi, hi_strict, hi_lab = b, rel == "<", lab
    return lo, lo_strict, lo_lab, hi, hi_strict, hi_lab


def _whole(b, rel) -> tuple:
    """A bound on a whole number as a non-strict bound by a whole number."""
    if rel in (">", ">="):
        k = sympy.floor(b) + 1 if rel == ">" else sympy.ceiling(b)
        return k, ">="
    k = sympy.ceiling(b) - 1 if rel == "<" else sympy.floor(b)
    return k, "<="


def _empty(lo, lo_strict, hi, hi_strict) -> bool:
    return lo is not None and hi is not None and (lo > hi or (lo == hi and (lo_strict or hi_strict)))


def _side(s, end, strict, lab, low: bool) -> str:
    rel = (">" if strict else "≥") if low else ("<" if strict else "≤")
    if lab:
        return f"`{lab}` gives {show(s)} {rel} {show(end)}"
    sign = ("positive" if s.is_positive else "nonnegative") if low else ("negative" if s.is_negative else "nonpositive")
    return f"{show(s)} is declared {sign}{' (a whole number)' if s.is_integer else ''}"


def _member_bound(f, decls):
    """(member, number, relation) of a bound on every member of a family (``q_i > 0`` for i in a range
    that is not empty, ``i`` the fact's own quantified index), else None: the member at the symbol ``i``
    stands for each of them, and the quantified equations about it (``E[q_i] = -1``) use the same symbol."""
    if not isinstance(f, IneqFact) or not f.free or f.distinct or f.rel not in ("<", "<=", ">", ">="):
        return None
    a, b = as_expr(f.lhs), as_expr(f.rhs)
    if a.is_number:
        a, b = b, a
    if not (isinstance(a, sympy.Indexed) and sorted(a.indices, key=str) == sorted(f.free, key=str)
            and len(set(a.indices)) == len(a.indices) and b.is_number and b.is_real):
        return None
    for i in f.free:
        lo, hi = decls.index_ranges.get(i, (None, None))
        if lo is None or (hi - lo).is_nonnegative is not True:  # an empty range makes the fact say nothing
            return None
    rel = f.rel if as_expr(f.lhs) == a else {"<": ">", "<=": ">=", ">": "<", ">=": "<="}[f.rel]
    return a, b, rel


def _bounds_contradicted(nz, decls, facts, labels, polys, owners):
    """Assumed bounds by numbers on one symbol that leave it no value (``x > 1`` and ``x < 0``; ``c < 0`` for a
    declared positive c), or, for a random symbol (bounded almost surely), a mean the equations fix outside
    them (``X > 0`` and ``E[X] = -1``: a variable above 0 almost surely has a mean above 0)."""
    bounds: dict = {}
    fixed: dict = {}  # x = 2: bounded by 2 on both sides, where x has a bound of its own
    for lab in labels:
        for f in facts[lab]:
            got = number_bound(f, members=True) or _member_bound(f, decls)
            if got is not None and got[1].is_Rational:
                bounds.setdefault(got[0], []).append((lab, got[1], got[2]))
            elif isinstance(f, EqFact) and not f.free:
                a, b = as_expr(f.lhs), as_expr(f.rhs)
                a, b = (b, a) if a.is_number else (a, b)
                if b.is_Rational and one_value(a):
                    fixed.setdefault(a, []).extend([(lab, b, ">="), (lab, b, "<=")])
    for a, bs in fixed.items():
        if a in bounds:
            bounds[a] += bs
    for s, bs in bounds.items():
        lo, los, lol, hi, his, hil = _interval(s, bs)
        if _empty(lo, los, hi, his):
            return Contradiction([lab for lab in (lol, hil) if lab],
                                 f"no value of {show(s)} satisfies both: {_side(s, lo, los, lol, True)}, "
                                 f"{_side(s, hi, his, hil, False)}")
        if not (s in decls.random_symbols or (isinstance(s, sympy.Indexed) and s.base.label.name in decls.random_families)):
            continue

        def mean_outside(keep, s=s, bs=bs):
            lo, los, _, hi, his, _ = _interval(s, [b for b in bs if b[0] in keep])
            try:
                m = reduce_modulo(nz.expr(E(s)), [p for p, o in zip(polys, owners) if o in keep])
            except KernelLimit:
                return False
            below = lo is not None and ((m - lo).is_extended_negative or (los and (m - lo).is_zero))
            above = hi is not None and ((m - hi).is_extended_positive or (his and (m - hi).is_zero))
            return bool(below or above)

        if mean_outside(set(labels)):
            culprit = _minimal([b[0] for b in bs] + owners, mean_outside)
            return Contradiction(culprit, f"a random variable bounded almost surely has its mean within the same "
                                          f"bounds, but these assumptions put E[{show(s)}] outside them")
    return None


def _independence_used(decls, facts, labels, culprit, limits) -> list:
    """The independence assumptions the contradiction of ``culprit``'s equations needs: the equations were
    normalised under every independence fact (Cov(X, Y) = 1 is 0 = 1 only where X and Y are independent),
    so the ones without which it disappears are part of the contradiction.  All of them when that cannot
    be told (the instances at literal indices, a limit): never fewer than needed."""
    ind = [lab for lab in labels if any(isinstance(f, IndepFact) for f in facts[lab])]

    def unit(keep) -> bool | None:
        nz = Normalizer(decls, [f for lab in keep for f in facts[lab] if isinstance(f, IndepFact)], (),
                        frozenset(), limits)
        try:
            return _unit([nz.expr(as_expr(f.lhs) - as_expr(f.rhs)) for lab in culprit for f in facts[lab]
                          if isinstance(f, EqFact)])
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
