"""Sums compared term by term, for a margin whose sign the interval evaluator cannot see as written.

Two identities of finite sums, each over one range (for every value of its ends):

* ``c Σ_m a_m + d Σ_m b_m = Σ_m (c a_m + d b_m)`` for the same range and the same indices left out, with
  c, d free of the bound index (they are outside the sums): the sums of a margin are merged into one, whose
  sign is then the sign of its summand for every member (``Σ_m (|v_m| - |v_m| |tanh(u_m)|) ≥ 0``); a
  multiple ``d c`` of the number of members d = hi - lo + 1 of such a range (not reversed) joins it as
  ``Σ_m c`` (``Σ_m v_m^2 - 2 Σ_m v_m + d = Σ_m (v_m - 1)^2``);
* the triangle inequality ``|Σ_m a_m| ≤ Σ_m |a_m|``: each ``|Σ_m a_m|`` the margin holds as a term, a
  factor or a power (reached through +, * and ^) is written ``Σ_m |a_m| - G`` with G a fresh number known
  only to be ``≥ 0`` (an identity: G names the gap), so a sign proved for every G ≥ 0 is proved;
* a power of a sum of nonnegative terms, ``(Σ_m a_m)^k = Σ_m a_m^k + G`` with G ≥ 0 (its cross terms);
* a sum over two distinct members of one range, symmetric in them (Cauchy-Schwarz, :func:`_symmetric`).
"""
from __future__ import annotations

import itertools

import sympy
from sympy import Add, Dummy, Mul

from ..terms.objects import DSum, FamilyExtremum, canon_bound
from .calculus import sign_proof

MAX_SUMS = 8  # sums in one margin merged or rewritten


def merge_sums(g, split_out=None):
    """``g`` with the sums that share a range (the same bounds, the same indices left out) merged into one.
    ``split_out(e, (lo, hi))``, where given, says that the free index e lies in lo..hi (the normaliser's own
    test for leaving it out of a sum there): a sum over lo..hi leaving out such distinct indices E has
    ``hi - lo + 1 - |E|`` members, and a term ``q d + r`` (d that number, by division in its one name) joins it
    as ``Σ q``, r staying outside: ``n exp(M) - Σ_{b ≠ i} exp(x_b)`` is ``exp(M) + Σ_{b ≠ i} (exp(M) - exp(x_b))``."""
    groups: dict = {}
    rest = []
    for term in Add.make_args(sympy.expand(g)):
        sums = [f for f in Mul.make_args(term) if isinstance(f, DSum)]
        if len(sums) != 1:
            rest.append(term)
            continue
        s = sums[0]
        coeff = term / s
        if coeff.has(s) or any(b[0] in coeff.free_symbols for b in s.args[1]):
            rest.append(term)
            continue
        groups.setdefault((s.args[1], s.args[2]), []).append(coeff * s.args[0])
    for (bounds, excl), body in groups.items():  # d c = Σ_{m=1..d} c, over a range that is not reversed
        if len(bounds) == 1 and not excl.args and not (count := bounds[0][2] - bounds[0][1] + 1).is_number \
                and count.is_nonnegative:
            whole = [t for t in rest if not t.has(DSum)]  # n z - z = (n - 1) z, over 2..n: the terms as one
            q = sympy.cancel(Add(*whole) / count) if len(whole) > 1 else None
            if q is not None and not sympy.fraction(q)[1].free_symbols & count.free_symbols:
                rest = [t for t in rest if t.has(DSum)]
                body.append(q)
            for term in list(rest):
                q = sympy.cancel(term / count)
                if not sympy.fraction(q)[1].free_symbols & count.free_symbols and not q.has(DSum):
                    rest.remove(term)
                    body.append(q)
            if len(count.free_symbols) == 1:  # n beside Σ_{k=2..n}: 1 (n - 1) + 1, the 1 staying outside
                _divide(rest, body, count)
    for (bounds, excl), body in groups.items():  # a sum leaving out free indices of its range: q d + r
        if split_out is None or len(bounds) != 1 or not excl.args or len(set(excl.args)) != len(excl.args):
            continue
        b, lo, hi = bounds[0]
        count = hi - lo + 1 - len(excl.args)
        if count.is_number or not count.is_nonnegative or len(count.free_symbols) != 1 \
                or not all(split_out(e, (lo, hi)) for e in excl.args):
            continue
        _divide(rest, body, count)
    merged = [DSum(_summand(Add(*body)), bounds, excl) for (bounds, excl), body in groups.items()]
    return Add(*rest, *merged)


def _divide(rest: list, body: list, count) -> None:
    """Each term of ``rest`` in the count's one name written ``q count + r`` (polynomial division in that name, q
    and r free of it, q not 0): q joins the sum's ``body``, r stays in ``rest``."""
    (name,) = count.free_symbols
    for term in [t for t in rest if not t.has(DSum) and t.has(name)]:
        try:
            q, r = sympy.div(term, count, name)
        except (sympy.PolynomialError, sympy.GeneratorsNeeded, NotImplementedError, ValueError, TypeError):
            continue
        if q != 0 and not q.has(name) and not r.has(name):
            rest.remove(term)
            rest.append(r)
            body.append(q)


def _summand(x):
    """A merged summand, |a b| written |a| |b| and factored (so that the interval evaluator sees
    |v| (1 - |tanh(u)|), not |v| - |v| |tanh(u)|, and (v - 1)^2)."""
    x = sympy.expand(x).replace(lambda e: isinstance(e, sympy.Abs) and isinstance(e.args[0], Mul),
                                lambda e: Mul(*[sympy.Abs(f) for f in e.args[0].args]))
    x = sympy.expand(x)
    if sympy.count_ops(x) <= 100:
        try:
            return sympy.factor(x)  # v^2 - 2 v + 1 as (v - 1)^2
        except (sympy.PolynomialError, NotImplementedError, ValueError, TypeError):
            pass
    return sympy.factor_terms(x)


def reached(x, want) -> list:
    """The sub-expressions of ``x`` for which ``want`` holds that ``x`` holds as a term, a factor or a power
    (reached through +, * and ^ only, never inside a function, a mean or a sum), in a fixed order."""
    out, todo = set(), [x]
    while todo:
        y = todo.pop()
        if want(y):
            out.add(y)
        elif isinstance(y, (Add, Mul, sympy.Pow)):
            todo.extend(y.args)
    return sorted(out, key=sympy.default_sort_key)


def _sum_abs(g) -> list:
    """The |Σ a| of ``g`` (|3 Σ v - Σ u| read as |Σ (3 v - u)|)."""
    return reached(g, lambda x: isinstance(x, sympy.Abs) and x.args[0].has(DSum)
                   and isinstance(merge_sums(x.args[0]), DSum))


def termwise_proof(g, strict: bool, domain, random_families=frozenset(), member_sign=None,
                   split_out=None, by_facts=None) -> tuple[bool, set]:
    """``g > 0`` (strict) or ``g >= 0`` with its sums merged, after the triangle inequality; (proved, signs).
    A margin over a denominator holding sums (``max(l) - Σ p_v l_v`` for a softmax p) is its numerator
    where the denominator's sign is proved.  ``member_sign(summand, strict, (b, lo, hi), excluded)``, where
    given, proves a summand's sign for every member with the assumed facts (kernel/fact_bounds.py);
    ``split_out``: see :func:`merge_sums`; ``by_facts(x, strict)``: the margin's sign from the assumed facts
    read at the link's indices, for what the sums leave outside them."""
    if len(g.atoms(DSum)) > MAX_SUMS or not g.has(DSum):
        return False, set()
    num, den = sympy.fraction(sympy.together(g))
    if den.has(DSum) and sympy.count_ops(num) <= 200:
        ok, dsigns = sign_proof(den, True, domain)
        if ok:  # den > 0: g has the sign of num
            ok, signs = _termwise(num, strict, domain, random_families, member_sign, split_out, by_facts)
            return (True, signs | set(dsigns)) if ok else (False, set())
    return _termwise(g, strict, domain, random_families, member_sign, split_out, by_facts)


MAX_MEMBERS = 4  # members written out of a sum beside a literal member (split_members)


def split_members(x, domain) -> tuple:
    """``x`` with each sum over ``lo..hi`` (one bound, no index left out) whose summand's family has a member at a
    literal index ``k`` elsewhere in ``x`` (``lo <= k < lo + MAX_MEMBERS``) written with its members up to k out:
    ``Σ_{b=lo..hi} f(b) = f(lo) + ... + f(k) + Σ_{b=k+1..hi} f(b)``, an identity where ``hi >= k``, proved by the
    interval evaluator (``n >= 1`` declared, ``n >= 2`` assumed).  So ``Σ_j exp(x_j) - exp(x_1) >= 0`` is seen.
    (the rewritten ``x``, the signs used)."""
    sub, used = {}, set()
    literal = [ix for ix in x.atoms(sympy.Indexed) if len(ix.indices) == 1 and ix.indices[0].is_Integer]
    for s in sorted(x.atoms(DSum), key=sympy.default_sort_key):
        if len(s.args[1]) != 1 or s.args[2].args or not s.args[1][0][1].is_Integer:
            continue
        b, lo, hi = s.args[1][0]
        bases = {ix.base for ix in s.args[0].atoms(sympy.Indexed) if ix.indices == (b,)}
        ks = [int(ix.indices[0]) for ix in literal if ix.base in bases and lo <= ix.indices[0] < lo + MAX_MEMBERS]
        if not ks:
            continue
        ok, signs = sign_proof(hi - max(ks), False, domain)
        if not ok:
            continue
        used |= set(signs)
        members = [s.args[0].xreplace({b: sympy.Integer(m)}) for m in range(int(lo), max(ks) + 1)]
        sub[s] = Add(*members) + DSum(s.args[0], sympy.Tuple(sympy.Tuple(b, max(ks) + 1, hi)), s.args[2])
    return (x.xreplace(sub), used) if sub else (x, set())


def _termwise(g0, strict, domain, random_families, member_sign=None, split_out=None,
              by_facts=None) -> tuple[bool, set]:
    g, split = split_members(g0, domain)
    gaps, sub = set(), {}
    for x in _sum_abs(g):
        s = merge_sums(x.args[0])
        G = Dummy("gap", nonnegative=True)
        gaps.add(G)
        sub[x] = DSum(sympy.Abs(s.args[0]), s.args[1], s.args[2]) - G
    used = set()
    sub.update(_powers_of_sums(g, gaps, domain, used))
    h = merge_sums(g.xreplace(sub) if sub else g, split_out)
    forms = (lambda: h, lambda: _inner_triangles(h, gaps), lambda: _members_below_max(h, gaps, random_families),
             lambda: _symmetric(g.xreplace(sub) if sub else g), lambda: _abs_cases(h, gaps, domain, used))
    if h == g0:
        forms = ()  # nothing merged or rewritten: signs alone see no more than before
    if member_sign is not None:
        forms += (lambda: _fact_members(h, strict, gaps, member_sign, used),)
    for k, form in enumerate(forms):
        x = form()
        ok, signs = sign_proof(x, strict, domain)
        if not ok and by_facts is not None and member_sign is not None and k == len(forms) - 1 and x.has(DSum):
            # the members left out of a sum beside it (exp(M) - exp(x_i) + Σ_{b ≠ i} G): the facts read at them,
            # each term Σ G (a gap G ≥ 0 over a range of a nonnegative number of members, so ≥ 0) left out, as
            # x ≥ what remains; with no sum left, the caller's tries (termwise among them) do not run again
            y = Add(*[t for t in Add.make_args(x) if not (
                isinstance(t, DSum) and t.args[0] in gaps and len(t.args[1]) == 1
                and (t.args[1][0][2] - t.args[1][0][1] + 1 - len(t.args[2].args)).is_nonnegative)])
            ok, signs = by_facts(y, strict) if not y.has(DSum) else (False, set())
        if ok:
            return True, (set(signs) | used | split) - gaps
    return False, set()


def _symmetric(g):
    """``g`` with each sum over two distinct members of one range written symmetric in them:
    ``Σ_{m≠t} f(m, t) = Σ_{m≠t} (f(m, t) + f(t, m))/2`` (the pairs (m, t) and (t, m) are both members), after
    each multiple of a sum by its range's number of members n (a range not reversed, no index left out) is
    written over pairs, ``n Σ_m f(m) = Σ_m f(m) + Σ_{m≠t} f(m)``.  So the Cauchy-Schwarz margin
    ``Σ_{m≠t} (a_m^2 b_t^2 - a_m b_m a_t b_t)`` becomes ``Σ_{m≠t} (a_m b_t - a_t b_m)^2/2`` and
    ``n Σ a^2 - (Σ a)^2`` becomes ``Σ_{m≠t} (a_m - a_t)^2/2``."""
    terms = []
    for term in Add.make_args(sympy.expand(g)):
        sums = [f for f in Mul.make_args(term) if isinstance(f, DSum)]
        if len(sums) == 1 and len(sums[0].args[1]) == 1 and not sums[0].args[2].args:
            s = sums[0]
            b, lo, hi = s.args[1][0]
            count = hi - lo + 1
            q = sympy.cancel(term / s / count)
            if not count.is_number and count.is_nonnegative and not q.has(DSum) \
                    and not q.free_symbols & count.free_symbols:
                other = next(canon_bound(k) for k in range(1, 9) if canon_bound(k) != b)
                pairs = sympy.Tuple(*sorted([sympy.Tuple(b, lo, hi), sympy.Tuple(other, lo, hi)], key=str))
                terms.append(q * (s + DSum(s.args[0], pairs, s.args[2])))
                continue
        terms.append(term)
    h = merge_sums(Add(*terms))
    sub = {}
    for x in h.atoms(DSum):
        bounds = x.args[1]
        if len(bounds) == 2 and bounds[0][1:] == bounds[1][1:]:
            b1, b2 = bounds[0][0], bounds[1][0]
            f = x.args[0]
            sub[x] = DSum(_summand((f + f.xreplace({b1: b2, b2: b1})) / 2), bounds, x.args[2])
    return h.xreplace(sub) if sub else h


def _powers_of_sums(g, gaps: set, domain, used: set) -> dict:
    """Each ``(Σ_m a_m)^k`` of ``g`` (k an integer, |k| >= 2; reached through +, * and ^) whose summand is
    proved ``>= 0`` for every member, written ``(Σ_m a_m^|k| + G)^(±1)`` with G ≥ 0: a power of a sum of
    nonnegative terms is at least the sum of their powers (the cross terms of its expansion are ``>= 0``),
    so ``(Σ_m e_m)^2 - Σ_m e_m^2 ≥ 0`` and ``Σ_r p_r^2 ≤ 1`` for a softmax p.  For an odd k the range must
    not be reversed (a reversed range's sum is read as minus a sum, whose cube is no upper bound)."""
    sub = {}
    for x in reached(g, lambda y: isinstance(y, sympy.Pow) and isinstance(y.base, DSum) and y.exp.is_Integer
                     and abs(y.exp) >= 2):
        s, k = x.base, int(x.exp)
        bounds = s.args[1]
        if k % 2 and not all((hi - lo + 1).is_nonnegative for _, lo, hi in bounds):
            continue
        ok, signs = sign_proof(s.args[0], False, domain)
        if not ok:
            continue
        used |= set(signs)
        G = Dummy("gap", nonnegative=True)
        gaps.add(G)
        sub[x] = (DSum(sympy.expand(s.args[0] ** abs(k)), bounds, s.args[2]) + G) ** (1 if k > 0 else -1)
    return sub


def _members_below_max(h, gaps: set, random_families):
    """``h`` with ``max(s)`` (``min(s)``) in a summand over members ``s_b`` of that same range written
    ``s_b + G`` (``s_b - G``), G ≥ 0: every member of the range is at most its max.  Deterministic families
    only (for a random family max(q) - q_b is a random variable, not one number per member)."""
    def rewrite(x, gap):
        if len(x.args[1]) != 1:
            return {}
        b, lo, hi = x.args[1][0]
        body, rew = x.args[0], {}
        for e in body.atoms(FamilyExtremum):
            base, elo, ehi = e.args[0], e.args[1], e.args[2]
            if e.kind in ("max", "min") and e.family not in random_families and base[b] in body.atoms(sympy.Indexed) \
                    and sympy.expand(lo - elo).is_nonnegative and sympy.expand(ehi - hi).is_nonnegative:
                rew[e] = base[b] + gap() if e.kind == "max" else base[b] - gap()
        return rew
    return _rewrite_summands(h, gaps, rewrite)


MAX_ABS_CASES = 2  # absolute values of one summand split by the sign of their argument


def _abs_cases(h, gaps: set, domain, used: set):
    """``h`` with each summand that is ``>= 0`` for every member, by cases, written as a fresh G ≥ 0: where the
    summand holds |v| for values v (a symbol, a member ``w_m``; at most MAX_ABS_CASES of them), it is proved
    ``>= 0`` with each v written ``G_v`` and ``-G_v`` (G_v ≥ 0 fresh) in every combination, which covers every
    real value of each v (``|w_m| - w_m tanh(z_m)``: ``G (1 - tanh(z_m))`` and ``G (1 + tanh(z_m))``)."""
    def rewrite(x, gap):
        body = x.args[0]
        values = sorted({a.args[0] for a in body.atoms(sympy.Abs) if isinstance(a.args[0], (sympy.Symbol, sympy.Indexed))},
                        key=sympy.default_sort_key)
        if not values or len(values) > MAX_ABS_CASES:
            return {}
        signs: set = set()
        for combo in itertools.product((1, -1), repeat=len(values)):
            cases = [Dummy("case", nonnegative=True) for _ in values]
            ok, got = sign_proof(_summand(body.xreplace({v: k * c for v, k, c in zip(values, combo, cases)})), False,
                                 domain)
            if not ok:
                return {}
            signs |= set(got) - set(cases)
        used.update(signs)
        return {body: gap()}
    return _rewrite_summands(h, gaps, rewrite)


def _fact_members(h, strict: bool, gaps: set, member_sign, used: set):
    """``h`` with each summand proved ``>= 0`` (``> 0``) for every member by ``member_sign`` (the assumed facts
    read at the sum's bound index: ``M - x_b`` under ``x_i <= M``) written as a fresh G ≥ 0 (G > 0)."""
    sub = {}
    for x in sorted(h.atoms(DSum), key=sympy.default_sort_key):
        if len(x.args[1]) != 1 or x.args[0].has(DSum):
            continue
        for s in ((True, False) if strict else (False,)):
            ok, signs = member_sign(x.args[0], s, tuple(x.args[1][0]), tuple(x.args[2].args))
            if ok:
                G = Dummy("gap", positive=True) if s else Dummy("gap", nonnegative=True)
                gaps.add(G)
                used |= set(signs)
                sub[x] = DSum(G, x.args[1], x.args[2])
                break
    return h.xreplace(sub) if sub else h


def _inner_triangles(h, gaps: set):
    """``h`` with each |a + b + ...| of a summand (reached through +, * and ^) written |a| + |b| + ... - G,
    with G ≥ 0: the summand's sign is proved for every G ≥ 0, so for each member's own gap
    (``|3 v_m - u_m| ≤ 3 |v_m| + |u_m|``)."""
    def rewrite(x, gap):
        return {a: Add(*[sympy.Abs(t) for t in a.args[0].args]) - gap()
                for a in reached(x.args[0], lambda y: isinstance(y, sympy.Abs) and isinstance(y.args[0], Add))}
    return _rewrite_summands(h, gaps, rewrite)


def _rewrite_summands(h, gaps: set, rewrite):
    """``h`` with each sum's summand rewritten by ``rewrite(sum, gap)`` ({old: new}; ``gap()`` is a fresh
    G ≥ 0, recorded in ``gaps``): a sign proved for every G ≥ 0 holds for each member's own gap."""
    def gap():
        G = Dummy("gap", nonnegative=True)
        gaps.add(G)
        return G

    sub = {}
    for x in h.atoms(DSum):
        rew = rewrite(x, gap)
        if rew:
            sub[x] = DSum(_summand(x.args[0].xreplace(rew)), x.args[1], x.args[2])
    return h.xreplace(sub) if sub else h
