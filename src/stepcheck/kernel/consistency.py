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
  (bounded almost surely) a mean the equations fix outside its bounds, or
  second moments its bounds forbid (``0 ≤ X ≤ 1`` with ``E[X^2] = 2``;
  ``X ≥ 0`` with ``E[X] = 0`` and ``Var(X) = 1``: ``_spread``); a
  bound on a moment also meets the inequalities above where the equations
  fix their other side as a number (``Cov(X, Y) > 2`` with unit variances).

Only a *number* (or an expression sympy proves negative from declared
signs) below zero counts: a bound that stays symbolic is no contradiction.
Not finding one is no proof of consistency.
"""
from __future__ import annotations

import itertools
import random

import sympy

from ..terms.facts import Deadline, Decls, EqFact, IndepFact, IneqFact, KernelLimit, Limits
from ..terms.objects import SD, Cov, DSum, E, Var, as_expr
from ..terms.printer import show
from .normal import Normalizer, _expand
from .reduce import Inconsistent, basis_of, bounded_by, reduce_modulo
from .surely import surely_rules
from .answers import ANSWERS, key as answer_key
from .gram import MAX_PAIRS_OF, _form, _gram_violated, _value, _written_gram
from .contradictions import (Contradiction, _bounds_against_equations, _independence_used, _minimal, _moment_ranges,
                             _impossible_bound, _pointwise_sign, _signed_consequence, _spread, _strict_order_both_ways,
                             _unit)

MAX_QUANTITIES = 24  # random quantities whose moment inequalities are tried (pairs: their first 10)


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
    """``x`` is a number below zero, or an expression sympy proves negative from its symbols' assumptions.

    sympy's ``is_extended_negative`` on a long polynomial takes a tenth of a second; most remainders are
    not negative, and :func:`_nonnegative_somewhere` says so at once (a point its assumptions allow)."""
    if x.is_number:
        return bool(x.is_extended_real and x < 0)
    return not _nonnegative_somewhere(x) and x.is_extended_negative is True


_TRIAL_VALUES = tuple(sympy.Rational(v) for v in ("0", "1", "-1", "2", "1/2", "-2", "-1/2"))
_FREE_ATOMS = (E, Var, SD, Cov)  # declared real and nothing more (terms/objects.py): sympy allows them any real value


def _nonnegative_somewhere(x, points: int = 8) -> bool:
    """``x`` is >= 0 at some point that keeps every sympy assumption of its symbols (so sympy cannot prove it
    negative: its assumptions are sound).  False when unsure: an atom other than a symbol, E, Var, SD or Cov,
    a symbol no trial value fits, or a value that is not a real number.  The points are fixed (a seeded
    generator): the E, Var, SD and Cov atoms take values up to 10^9 in size, so that one of them can outweigh the rest."""
    fits: dict = {}
    for s in sorted(x.free_symbols, key=sympy.default_sort_key):
        if not isinstance(s, sympy.Symbol):
            return False
        fits[s] = [v for v in _TRIAL_VALUES if all(getattr(v, "is_" + k, None) == want
                                                   for k, want in s.assumptions0.items())]
        if not fits[s]:
            return False
    funcs = x.atoms(sympy.Function)
    if any(not isinstance(f, _FREE_ATOMS) for f in funcs):
        return False
    top = sorted((a for a in funcs if not any(a in b.args for b in funcs if b is not a)), key=sympy.default_sort_key)
    rng = random.Random(0)
    for k in range(points):
        at = {s: vs[(k + j) % len(vs)] for j, (s, vs) in enumerate(fits.items())}
        at.update({a: sympy.Integer(rng.choice((-1, 1)) * rng.randint(0, 10 ** rng.randint(0, 9))) for a in top})
        v = x.xreplace(at)
        if v.is_Rational and v >= 0:
            return True
    return False


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


def _contradicted(nz: Normalizer, quantities, polys, forms: dict) -> str | None:
    """Why the facts ``polys`` violate an inequality every distribution satisfies (None: none seen)."""
    return _violated(nz, quantities, polys, forms) or _gram_violated(nz, quantities, polys, forms)


MAX_INSTANCES = 48  # instances of quantified facts at literal indices, per check
SMALL_RANGE = 6  # a quantified fact over a fixed range of at most this many indices is taken at each of them


def _constant_by_independence(nz, decls, indep, limits, members: dict) -> list:
    """(label, Var(v) normalised) for each rule v = g (``Y = X``) of the equations between random variables
    whose v the independence facts make uncorrelated with g (Cov(v, g) normalises to 0 without the rule):
    then Var(v) = Cov(v, v) = Cov(v, g) = 0, so v is constant (``independent(X, Y)`` with ``Y = X``)."""
    if not indep or not nz.surely:
        return []
    plain = Normalizer(decls, indep, (), frozenset(), limits)
    out = []
    for v, k, repl, free, label in nz.surely:
        if k != 1 or not any(decls.is_rv(a) for a in repl.atoms(sympy.Symbol, sympy.Indexed)):
            continue
        try:
            if free:  # q_i = X for every i, q independent: two members q_a, q_b are X and independent
                pair = _two_members(v, decls, members)
                if pair and not repl.has(*free) and plain.expr(Cov(*pair)) == 0:
                    out.append((label, nz.expr(Var(repl))))
            elif plain.expr(Cov(v, repl)) == 0:
                out.append((label, nz.expr(Var(v))))
        except KernelLimit:
            continue
    return out


def _two_members(v, decls, members: dict):
    """Two distinct members of v's family (``q_i``) known to exist: the first of its declared range when that
    range is surely not empty (the second when it surely holds two), and the literal indices the facts use
    on it (q_2 presumes 2 in range)."""
    rng = decls.family_ranges.get(v.base.label.name)
    known = set(members.get(v.base, ()))
    if rng is not None:
        lo, hi = (sympy.Integer(x) if isinstance(x, int) else x for x in rng)
        known |= {lo + k for k in (0, 1) if lo.is_Integer and (hi - lo - k).is_nonnegative}
    lits = sorted(known)
    return (v.base[lits[0]], v.base[lits[1]]) if len(lits) >= 2 else None


def _surely_moments(nz, decls, labelled, cache: dict, ikey) -> list:
    """(label, normal form) of E[g] and E[g^2] for each equation g = 0 between random variables: both are 0
    where g is 0 on every outcome.  Read with the rules (the equations applied inside E), a second rule about
    the same variable (``Y = 3 X`` beside ``Y = 2 X``) or one that is no rule (``X + Y = 1``, ``4 Z^2 = 1``)
    becomes a moment fact the other facts must meet."""
    out = []
    for lab, f in labelled:
        if not isinstance(f, EqFact) or not _nonempty(f, decls):
            continue
        g = as_expr(f.lhs) - as_expr(f.rhs)
        if g.has(E, Var, Cov, SD, DSum) or not any(decls.is_rv(a) for a in g.atoms(sympy.Symbol, sympy.Indexed)):
            continue
        for q in (E(g), E(g ** 2)):
            key = ("surely", f, q, ikey)
            if key not in cache:
                try:
                    cache[key] = nz.expr(q)
                except KernelLimit:
                    cache[key] = 0
            if cache[key] != 0:
                out.append((lab, cache[key]))
    return out


def _nonempty(f, decls) -> bool:
    """Is every range a fact is quantified over known not to be empty (1..n for a positive n; not 2..n), and,
    for ``for i != j``, known to hold two indices (not 1..1, not 1..n where n may be 1)?"""
    apart = {x for pair in f.distinct for x in pair}
    for i in f.free:
        lo, hi = decls.index_ranges.get(i, (None, None))
        size = hi - lo - (1 if i in apart else 0) if lo is not None else None
        if size is None or (size >= 0 if isinstance(size, int) else size.is_nonnegative is True) is not True:
            return False
    return True


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
            hi = decls.index_ranges.get(v, (None, None))[1]
            if isinstance(lo, (int, sympy.Integer)) and isinstance(hi, (int, sympy.Integer)) and 0 <= hi - lo < SMALL_RANGE:
                vals = vals | {sympy.Integer(k) for k in range(int(lo), int(hi) + 1)}  # a small fixed range: all
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
            out.append((lab, cache[key], body.xreplace(asg)))
    return out


def check_consistency(decls: Decls, facts: dict, limits: Limits | None = None,
                      cache: dict | None = None) -> Contradiction | None:
    """The labels whose facts contradict each other, with the reason (None when none is seen).

    ``cache``: a dict the caller keeps while its facts live (one per checked
    file), so each fact is normalised once per set of independence facts
    across repeated checks; it is keyed on the fact objects, not id().
    The check has the time of one link (``limits.seconds``): past it, a
    Gröbner basis being computed is interrupted and KernelLimit is raised.
    """
    limits = limits or Limits()
    seen, answer = ANSWERS.get(k := answer_key(decls, facts, limits))  # the same facts checked before (answers.py)
    if seen:
        return answer
    deadline = Deadline(limits.seconds)
    with bounded_by(deadline):
        found = _check_consistency(decls, facts, limits, cache)
    if found is None and deadline.remaining() <= 0:
        # a sub-check that met the time limit gives up quietly (a quantity it could not normalise): past
        # the deadline, "no contradiction seen" may be a check cut short, never a clean bill
        raise KernelLimit(f"time limit of {limits.seconds:g} s reached while checking the assumptions")
    answer = _with_rules(found, decls, facts) if found else found
    if deadline.remaining() > 0:  # no part of it gave up for lack of time: what these facts give, every time
        ANSWERS.put(k, answer)
    return answer


def _with_rules(found: Contradiction, decls, facts) -> Contradiction:
    """The contradiction with the labels of the equations between random variables that its facts' normal
    forms were read with (``X^2 = 1`` beside ``E[X] = 2``): every rule about a random variable its labels
    mention, to a fixed point (never fewer labels than needed)."""
    rules = surely_rules([f for lab in facts for f in facts[lab] if _nonempty(f, decls)], decls)
    labels = list(found)

    def mentioned(lab) -> set:
        out = set()
        for f in facts.get(lab, ()):
            for side in (getattr(f, "lhs", None), getattr(f, "rhs", None)):
                if isinstance(side, sympy.Basic):
                    out |= {a for a in side.atoms(sympy.Symbol, sympy.Indexed) if decls.is_rv(a)}
        return out

    grew = True
    while grew:
        grew = False
        seen = set().union(*(mentioned(lab) for lab in labels))
        for v, _, repl, _, label in rules:
            head = {v} | {a for a in repl.atoms(sympy.Symbol, sympy.Indexed) if decls.is_rv(a)}
            if label not in labels and any(v == s or (isinstance(v, sympy.Indexed) and isinstance(s, sympy.Indexed)
                                                      and v.base == s.base) for s in seen) | bool(head & seen):
                labels.append(label)
                grew = True
    return found if labels == list(found) else Contradiction(labels, found.reason)


def _check_consistency(decls: Decls, facts: dict, limits: Limits, cache: dict | None) -> Contradiction | None:
    cache = {} if cache is None else cache
    labels = list(facts)
    indep = [f for lab in labels for f in facts[lab] if isinstance(f, IndepFact)]
    nz = Normalizer(decls, indep, (), frozenset(), limits)
    # equations between random variables hold almost surely: applied inside E here as in proofs
    nz.surely = surely_rules([f for lab in labels for f in facts[lab] if _nonempty(f, decls)], decls)
    ikeys = cache.setdefault("indep-sets", {})
    ikey = ikeys.setdefault((tuple(indep), nz.surely), len(ikeys))
    polys, owners, exprs = [], [], []
    for lab in labels:
        for f in facts[lab]:
            if not isinstance(f, EqFact) or not _nonempty(f, decls):
                continue  # (a fact over a range that may be empty, 2..n, says nothing where it is empty)
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
    for lab, p in _surely_moments(nz, decls, [(lab, f) for lab in labels for f in facts[lab]], cache, ikey):
        polys.append(p)
        owners.append(lab)
    members: dict = {}  # family base -> the literal indices the facts put on it
    for x in [x for _, x in exprs]:
        for ix in x.atoms(sympy.Indexed):
            if len(ix.indices) == 1 and ix.indices[0].is_Integer:
                members.setdefault(ix.base, set()).add(ix.indices[0])
    for lab, p in _constant_by_independence(nz, decls, indep, limits, members):
        polys.append(p)
        owners.append(lab)
    for lab, p, written in _literal_instances(nz, decls, [(lab, f) for lab in labels for f in facts[lab]], cache, ikey):
        polys.append(p)
        owners.append(lab)
        exprs.append((lab, written))  # its members are quantities of the moment inequalities too
    written = _written_gram(exprs)
    if written is not None:
        return Contradiction(*written)
    try:
        basis_of(polys)
    except Inconsistent:
        culprit = _minimal(owners, lambda keep: _unit([p for p, o in zip(polys, owners) if o in keep]))
        culprit += [lab for lab in _independence_used(decls, facts, labels, culprit, limits) if lab not in culprit]
        return Contradiction(culprit, "these equations have no common solution")
    found = _bounds_contradicted(nz, decls, facts, labels, polys, owners) or \
        _bounds_against_equations(nz, facts, labels, polys, owners) or \
        _signed_consequence(decls, facts, labels, polys, owners, limits) or _moment_ranges(decls, polys, owners) or \
        _pointwise_sign(nz, facts, labels, polys, owners) or _strict_order_both_ways(decls, facts, labels) or \
        _impossible_bound(decls, facts, labels)
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


def _whole(b, rel) -> tuple:
    """A bound on a whole number as a non-strict bound by a whole number."""
    if rel in (">", ">="):
        k = sympy.floor(b) + 1 if rel == ">" else sympy.ceiling(b)
        return k, ">="
    k = sympy.ceiling(b) - 1 if rel == "<" else sympy.floor(b)
    return k, "<="


class _Derived(tuple):
    """The labels of the equations an inequality every distribution satisfies was read with, and its name."""

    def __new__(cls, labels, why: str):
        out = super().__new__(cls, labels)
        out.why = why
        return out


def _labels(*labs) -> list:
    """The labels of a contradiction, the assumed bounds' first (the first is the one pointed at)."""
    plain = [lab for lab in labs if isinstance(lab, str) and lab]
    return list(dict.fromkeys(plain + [x for lab in labs if isinstance(lab, _Derived) for x in lab]))


def _side(s, end, strict, lab, low: bool) -> str:
    rel = (">" if strict else "≥") if low else ("<" if strict else "≤")
    if isinstance(lab, _Derived):
        return f"{lab.why} and {', '.join(f'`{x}`' for x in lab)} give {show(s)} {rel} {show(end)}"
    if lab:
        return f"`{lab}` gives {show(s)} {rel} {show(end)}"
    if low and not isinstance(s, (sympy.Symbol, sympy.Indexed)):  # a variance, a mean of a positive expression
        return f"{show(s)} is {'always positive' if strict else 'never negative'}"
    sign = ("positive" if s.is_positive else "nonnegative") if low else ("negative" if s.is_negative else "nonpositive")
    return f"{show(s)} is declared {sign}{' (a whole number)' if s.is_integer else ''}"


def _linear_bound(f, decls, literal: dict) -> list:
    """[(quantity, bound, relation)] an inequality fact gives: ``a q + b REL c`` with a nonzero number a and
    b, c free of q and of random variables (``-X > 0`` is ``X < 0``, ``2 X > 1`` is ``X > 1/2``, ``X > r`` for
    a name r), for one quantity q: a symbol, a family member at literal indices, a moment or another
    expression of random variables (``E[X] > 1``).  A bound on every member of a family (``q_i > 0`` over i, a
    range that is not empty) is read at the symbol i, which the quantified equations about it share, and at
    each literal member the other facts use on that family (``E[q_1] = -1`` presumes 1 in its range)."""
    if not isinstance(f, IneqFact) or f.distinct or f.rel not in _FLIP:
        return []
    d = sympy.expand(as_expr(f.lhs) - as_expr(f.rhs))
    out = []
    for q in _quantities_of(d, decls):  # c > a bounds c below by a, and a above by c
        a = d.coeff(q)
        rest = sympy.expand(d - a * q)
        if not (a.is_number and a.is_real and a != 0) or rest.has(q) or _random(rest, decls):
            continue
        rel = f.rel if a > 0 else _FLIP[f.rel]
        out.append((q, sympy.expand(-rest / a), rel))
    if not f.free or len(out) != 1:
        return out if not f.free else []
    q, bound, rel = out[0]
    if not (isinstance(q, sympy.Indexed) and sorted(q.indices, key=str) == sorted(f.free, key=str)
            and len(set(q.indices)) == len(q.indices)) or bound.free_symbols & set(f.free):
        return []
    for i in f.free:
        lo, hi = decls.index_ranges.get(i, (None, None))
        if lo is None or (hi - lo).is_nonnegative is not True:  # an empty range makes the fact say nothing
            return []
    if len(q.indices) == 1:
        lo = decls.index_ranges[q.indices[0]][0]
        out += [(q.base[k], bound, rel) for k in literal.get(q.base, ()) if sympy.Ge(k, lo) == sympy.true]
    return out


_FLIP = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}


def _quantities_of(d, decls) -> list:
    """The quantities a bound can be on in ``d``: its symbols and members, and its expressions of random
    variables that are not sums or products (moments, ``exp(X)``)."""
    out = [x for x in d.atoms(sympy.Symbol, sympy.Indexed) if not (isinstance(x, sympy.Symbol) and
                                                                    any(x in ix.free_symbols for ix in d.atoms(sympy.Indexed)))]
    for node in sympy.preorder_traversal(d):
        if isinstance(node, (E, Var, SD, Cov)):
            out.append(node)
    return list(dict.fromkeys(out))


def _random(x, decls) -> bool:
    """Does ``x`` hold a random variable outside any moment (a moment is a number)?"""
    if isinstance(x, (E, Var, SD, Cov)):
        return False
    if decls.is_rv(x):
        return True
    return any(_random(a, decls) for a in x.args)


def _floor(q):
    """(0, strict) when the quantity is positive (strict) or nonnegative whatever the law, else None: a
    variance, an SD, the mean of a positive (nonnegative) expression, a name of that declared sign."""
    if isinstance(q, (Var, SD)):
        return 0, False
    g = q.args[0] if isinstance(q, E) else q
    if g.is_positive:
        return 0, True
    if g.is_nonnegative:
        return 0, False
    return None


def _bounds_contradicted(nz, decls, facts, labels, polys, owners):
    """Assumed bounds that leave one quantity no value (``x > 1`` and ``x < 0``; ``c < 0`` for a declared
    positive c; ``c > a`` and ``c < 0`` for a positive a; ``Var(X) < 0``; ``E[X] > 1/2`` where the law or an
    equation fixes ``E[X] = 1/2``), one quantity given two different numbers (``E[exp(R)] = 1`` against the
    law's cosh(1)), or, for a random variable (bounded almost surely), a mean the equations fix outside its
    bounds (``X > 0`` and ``E[X] = -1``: a variable above 0 almost surely has a mean above 0)."""
    literal: dict = {}  # family base -> the literal indices the facts put on it
    for lab in labels:
        for f in facts[lab]:
            if isinstance(f, (EqFact, IneqFact)) and not f.free:
                for ix in (as_expr(f.lhs) - as_expr(f.rhs)).atoms(sympy.Indexed):
                    if len(ix.indices) == 1 and ix.indices[0].is_Integer:
                        literal.setdefault(ix.base, set()).add(ix.indices[0])
    bounds: dict = {}
    fixed: dict = {}  # x = 2: bounded by 2 on both sides
    for lab in labels:
        for f in facts[lab]:
            for q, b, rel in _linear_bound(f, decls, literal):
                bounds.setdefault(q, []).append((lab, b, rel))
            if isinstance(f, EqFact) and not f.free:
                a, b = as_expr(f.lhs), as_expr(f.rhs)
                a, b = (b, a) if a.is_number else (a, b)
                if b.is_number and b.is_real and not a.is_number:
                    fixed.setdefault(a, []).append((lab, b))
    def fixed_labels(a):
        return {lab for lab, _ in fixed.get(a, ())}

    for a, vs in fixed.items():
        for (l1, v1), (l2, v2) in itertools.combinations(vs, 2):
            if (v1 - v2).is_zero is False and not (v1.is_Rational and v2.is_Rational):  # (rationals: the equations)
                return Contradiction(list(dict.fromkeys([l1, l2])), f"{show(a)} cannot be both {show(v1)} and {show(v2)}")
        bounds.setdefault(a, []).extend(b for lab, v in vs for b in ((lab, v, ">="), (lab, v, "<=")))
    for s, bs in bounds.items():
        if any(not isinstance(lab, str) or lab not in fixed_labels(s) for lab, _, _ in bs):
            bs = bs + _moment_bounds(nz, s, polys, owners)
        found = _no_value(s, bs)
        if found is not None:
            return found
        if not (s in decls.random_symbols or (isinstance(s, sympy.Indexed) and s.base.label.name in decls.random_families)):
            continue

        def mean_outside(keep, s=s, bs=bs):
            try:
                m = reduce_modulo(nz.expr(E(s)), [p for p, o in zip(polys, owners) if o in keep])
            except KernelLimit:
                return False
            for lab, b, rel in bs:
                if lab in keep and _beyond(m, b, rel):
                    return True
            return False

        if mean_outside(set(labels)):
            culprit = _minimal([b[0] for b in bs] + owners, mean_outside)
            return Contradiction(culprit, f"a random variable bounded almost surely has its mean within the same "
                                          f"bounds, but these assumptions put E[{show(s)}] outside them")
        found = _spread(nz, s, bs, polys, owners)
        if found is not None:
            return found
    return None


def _ceilings(s) -> list:
    """[(C, squared?)] for a moment ``s``: an expression C of moments with ``s^2 <= C`` (squared) or ``s <= C``
    for every distribution with these moments: Cauchy--Schwarz (``Cov(g, h)^2 <= Var(g) Var(h)``,
    ``E[g h]^2 <= E[g^2] E[h^2]``, ``E[g]^2 <= E[g^2]``), ``Var(g) <= E[g^2]``, ``SD(g)^2 <= E[g^2]``."""
    if isinstance(s, Cov) and len(s.args) == 2 and s.args[0] != s.args[1]:
        return [(Var(s.args[0]) * Var(s.args[1]), True)]
    if isinstance(s, (Var, SD)):
        return [(E(s.args[0] ** 2), isinstance(s, SD))]
    if not isinstance(s, E):
        return []
    g = s.args[0]
    out = [(E(g ** 2), True)]
    factors = sympy.Mul.make_args(g)
    if len(factors) == 2 and not any(f.is_number for f in factors):
        out.append((E(factors[0] ** 2) * E(factors[1] ** 2), True))
    return out


def _floors(s) -> list:
    """Expressions F of moments with ``s >= F`` for every distribution, for a second moment ``s = E[g^2]``:
    ``Var(g)`` and ``E[g]^2``."""
    if isinstance(s, E) and isinstance(s.args[0], sympy.Pow) and s.args[0].exp == 2:
        g = s.args[0].base
        return [Var(g), E(g) ** 2]
    return []


def _moment_bounds(nz, s, polys, owners) -> list:
    """Bounds on the moment ``s`` by numbers that inequalities every distribution satisfies give where the
    equations fix their other side as a number (``Cov(X, Y) <= 1`` under ``Var(X) = Var(Y) = 1``):
    [(the equations' labels as a _Derived, bound, relation)]."""
    out = []
    tries = [(c, sq, "<=") for c, sq in _ceilings(s)] + [(f, False, ">=") for f in _floors(s)]
    for c, squared, rel in tries:
        try:
            form = nz.expr(c)
            r = reduce_modulo(form, polys)
        except (KernelLimit, Inconsistent):
            continue
        if not (r.is_number and r.is_extended_real and r.is_nonnegative) or r.has(s):
            continue

        def same(keep, form=form, r=r):
            try:
                return reduce_modulo(form, [p for p, o in zip(polys, owners) if o in keep]) == r
            except (KernelLimit, Inconsistent):
                return False

        rule = f"{show(s ** 2 if squared else s)} {'≤' if rel == '<=' else '≥'} {show(c)}"
        why = f"Cauchy-Schwarz, {rule}," if squared and not isinstance(s, SD) else rule
        labs = _Derived(_minimal(owners, same) if owners and same(set(owners)) else [], why)
        if not labs:
            continue
        if squared:
            out += [(labs, sympy.sqrt(r), "<="), (labs, -sympy.sqrt(r), ">=")]
        else:
            out.append((labs, r, rel))
    return out


def _beyond(x, b, rel) -> bool:
    """Is ``x`` provably outside the bound ``REL b`` (x <= b for ``> b``, x < b for ``>= b``, ...)?"""
    d = sympy.expand(x - b if rel in (">", ">=") else b - x)
    return bool(d.is_extended_negative or (rel in (">", "<") and d.is_zero))


def _no_value(s, bs):
    """A contradiction when a lower and an upper bound of ``s`` (its declared sign, or the sign every
    variance and mean of a positive expression has, among them) leave it no value, else None."""
    lows, highs = [], []
    floor = _floor(s)
    for attr, low, strict, high in _SIGNS:
        if getattr(s, attr) is True:
            (lows if low is not None else highs).append((None, sympy.Integer(0), strict if low is not None
                                                         else attr == "is_negative"))
    if floor is not None:
        lows.append((None, sympy.Integer(floor[0]), floor[1]))
    whole = bool(s.is_integer)
    for lab, b, rel in bs:
        strict = rel in (">", "<")
        if whole and b.is_Rational:  # a whole number: n > 1/2 is n >= 1, n < 1 is n <= 0
            b, rel = _whole(b, rel)
            strict = False
        (lows if rel in (">", ">=") else highs).append((lab, b, strict))
    for lo_lab, lo, lo_strict in lows:
        for hi_lab, hi, hi_strict in highs:
            if whole and lo_lab is None and lo_strict and lo.is_Integer:
                lo, lo_strict = lo + 1, False
            d = sympy.expand(lo - hi)
            if d.is_positive or (d.is_nonnegative and (lo_strict or hi_strict)):
                return Contradiction(_labels(lo_lab, hi_lab),
                                     f"no value of {show(s)} satisfies both: {_side(s, lo, lo_strict, lo_lab, True)}, "
                                     f"{_side(s, hi, hi_strict, hi_lab, False)}")
    return None
