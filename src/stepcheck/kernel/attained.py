"""A family's largest (smallest) entry is one of its members (rule ``attained``).

``max(s)`` of a deterministic family over ``lo..hi`` with a member (``hi >= lo`` by the declarations) is
``s_M`` for some M in ``lo..hi``.  A link proved with ``max(s)`` written ``s_M``, for a fresh index M of that
range proved like any free index (for every M), holds at the M where the largest entry is, so it holds as
written: ``log(Σ_j exp(x_j)) >= max(x)`` from ``>= x_M`` for every M, ``Σ_j exp(x_j) >= exp(max(x))``.
The link proved is stronger (it forgets that s_M is the largest): where it fails, nothing is concluded.
Tried only where a link is otherwise unproved.  Not for a random family (``max(q)`` is a random variable,
taken at an index that depends on the outcome), nor where the link takes a limit, a derivative or an
extremum over an interval (their values depend on which member is the largest near the point).
"""
from __future__ import annotations

import dataclasses

import sympy
from sympy import Symbol

from sympy import Indexed

from ..terms.objects import Extremum, FamilyExtremum
from .calculus import sign_proof
from .normal import RuleSet

MAX_EXTREMA = 2  # entries max(s) / min(s) written as members in one link


def attained_proof(prover, lhs, rhs, candidates, rel: str, deadline, ranges, unroll):
    """A proof of ``lhs REL rhs`` with each max(s) / min(s) of a deterministic family written ``s_M`` (M a
    fresh index over the family's range, its name primed: no user name can hold it), or None."""
    decls = prover.decls
    xs = sorted({x for side in (lhs, rhs) for x in side.atoms(FamilyExtremum) if x.kind in ("max", "min")
                 and x.family not in decls.random_families}, key=sympy.default_sort_key)
    if not xs or len(xs) > MAX_EXTREMA or any(side.has(sympy.Limit, sympy.Derivative, sympy.Integral, Extremum)
                                              for side in (lhs, rhs)):
        return None
    if not all(sympy.expand(x.args[2] - x.args[1]).is_nonnegative for x in xs):
        return None  # a range that may be empty has no largest entry
    sub, fresh = {}, {}
    for k, x in enumerate(xs):
        m = Symbol(f"{x.family}'{x.kind}{k}", integer=True)
        fresh[m] = (x.args[1], x.args[2])
        sub[x] = x.args[0][m]
    key = tuple(sorted(fresh.items(), key=str))
    provers = prover.__dict__.setdefault("_attained_provers", {})  # one prover per set of fresh indices, kept
    sub_prover = provers.get(key)
    if sub_prover is None:
        sub_prover = provers[key] = type(prover)(
            dataclasses.replace(decls, index_ranges={**decls.index_ranges, **fresh}), prover.facts, prover.limits)
    p = sub_prover.prove_link(lhs.xreplace(sub), rhs.xreplace(sub), candidates, rel, deadline,
                              list(ranges) + list(fresh), unroll)
    if not p.holds:
        return None
    rules = RuleSet(p.rules)
    rules.add("attained")
    return dataclasses.replace(p, rules=sorted(rules), ranges=[r for r in p.ranges if r not in fresh],
                               signs=[s for s in p.signs if s not in fresh])


def extremum_gap_proof(decls, g, strict: bool, domain) -> tuple[bool, set]:
    """``g >= 0`` (``> 0``) where ``max(s)`` (``min(s)``) occurs beside a member ``s_i`` of its range:
    ``max(s) = s_i + G`` (``min(s) = s_i - G``) with ``G >= 0``, and the sign proved for every such G.
    The member must lie in the extremum's range: a literal index provably in it (``s_2`` where an
    assumption ``n >= 2`` bounds the range's end), or an index whose declared range is that range.  Deterministic families only: G is then one number, while for a
    random family max(q) - q_i is a random variable, and a sign proved for every constant G says
    nothing about moments of it (Var(G) = 0 for a constant)."""
    for x in sorted(g.atoms(FamilyExtremum), key=sympy.default_sort_key):
        if x.kind not in ("max", "min") or x.family in decls.random_families:
            continue
        base, lo, hi = x.args[0], x.args[1], x.args[2]
        members = sorted((m for m in g.atoms(Indexed) if m.base == base and len(m.indices) == 1),
                         key=sympy.default_sort_key)
        for m in members:
            ix = m.indices[0]
            rng = decls.index_ranges.get(ix)
            # a literal member inside the range: by the numbers, or its upper end by an assumed bound
            # (s_2 with `assume n ≥ 2`, read through ``domain``)
            inside = (rng is not None and sympy.expand(rng[0] - lo) == 0 and sympy.expand(rng[1] - hi) == 0) or (
                ix.is_Integer and sympy.Ge(ix, lo) == sympy.true and (
                    sympy.Le(ix, hi) == sympy.true or sign_proof(hi - ix, False, domain)[0]))
            if not inside:
                continue
            gap = sympy.Dummy("gap", nonnegative=True)
            ok, signs = sign_proof(g.xreplace({x: m + gap if x.kind == "max" else m - gap}), strict, domain)
            if ok:
                return True, {v for v in signs if v != gap}
    return False, set()
