"""Attribution: which of the candidate facts a proved link actually needs.

The kernel proves from the facts it is given; the judge asks it again with
fewer.  For each link: try with no fact at all; otherwise prove with every
candidate, then drop candidates one at a time and keep a candidate only if
the proof fails without it (Mizar's RELPREM idea), then the same for the
ranges of the free indices.  Each trial after the first proof that holds is
asked at the unrolling limit that proof needed (``Proof.unroll``).  The result is a sufficient set, minimal with
respect to dropping any one element; the rules and uses reported are those
of the proof from exactly that set.  Every proof here is a kernel proof; the
link's time running out while minimising leaves the full proof standing, with
all candidates listed.  A trial that reaches a limit of another kind (a limit
sympy cannot decide without the sign dropped) is a trial that failed.
"""
from __future__ import annotations

import dataclasses
from collections import ChainMap

import sympy
from sympy import Integer, Symbol

from ..kernel import LinkProver, Proof, free_indices
from ..kernel.calculus import signed_real
from ..terms.facts import EqFact, IndepFact, IneqFact
from ..terms.objects import Cov, as_expr


def attribute(prover: LinkProver, lhs, rhs, candidates: list[str], rel: str, deadline) -> Proof:
    """A kernel proof of the link from a minimal subset of ``candidates`` (or the failed attempt)."""
    lhs, rhs = as_expr(lhs), as_expr(rhs)
    ranges = free_indices([lhs, rhs], prover.decls)
    if candidates:
        bare = prover.prove_link(lhs, rhs, [], rel, deadline, ranges)
        if bare.holds:
            return _minimise(prover, lhs, rhs, [], [], bare, rel, deadline, ranges)
        if bare.limited and deadline.remaining() <= 0:
            return bare  # out of time; a limit of another kind (a limit sympy cannot take) may pass with facts
    full = prover.prove_link(lhs, rhs, list(candidates), rel, deadline, ranges)
    if not full.holds:
        return full
    return _minimise(prover, lhs, rhs, list(candidates), list(candidates), full, rel, deadline, ranges)


def _minimise(prover, lhs, rhs, candidates, used, full: Proof, rel, deadline, ranges) -> Proof:
    ranges = list(ranges or [])
    used_ranges = list(ranges)
    final = full  # always the proof from exactly (used, used_ranges): its trace is the one reported
    for lab in candidates:
        trial = [x for x in used if x != lab]
        p = prover.prove_link(lhs, rhs, trial, rel, deadline, used_ranges, full.unroll)
        if _out_of_time(p, deadline):
            return _unminimised(full, used, ranges, lhs, rhs)
        if p.holds:
            used, final = trial, p
    for rg in ranges:
        trial = [x for x in used_ranges if x != rg]
        p = prover.prove_link(lhs, rhs, used, rel, deadline, trial, full.unroll)
        if _out_of_time(p, deadline):
            return _unminimised(full, used, ranges, lhs, rhs)
        if p.holds:
            used_ranges, final = trial, p
    weakest = {}
    for lab, forms in final.indep_forms.items():
        if lab in used and forms and "" not in forms:
            weakest[lab] = ", ".join(sorted(forms))
    for lab in used:
        if lab not in weakest:
            w = _weaker_uncorrelated(prover, lhs, rhs, lab, used, used_ranges, deadline, rel, final.unroll)
            if w:
                weakest[lab] = w
    signs = _declared_signs(prover, lhs, rhs, used, used_ranges, rel, deadline, final)
    return dataclasses.replace(final, used=list(used), weakest=weakest, signs=signs)


def _out_of_time(p: Proof, deadline) -> bool:
    """A trial that cannot say whether the link holds without the element dropped: the link's time is
    spent, or the facts left contradict each other.  A limit of another kind (``exp(-c t) -> 0`` undecided
    once ``c > 0`` is dropped, an expansion too large without a fact) is the trial failing: the element stays."""
    return p.inconsistent or (p.limited and deadline.remaining() <= 0)


def _unminimised(full: Proof, used, ranges, lhs, rhs) -> Proof:
    # the full proof stands; attribution could not be minimised in time: every declared sign is listed too
    signs = set(full.signs) | set(_signed_reals(lhs, rhs, []))
    return Proof(True, used=list(used), ranges=list(ranges), rules=list(full.rules), signs=sorted(signs, key=str),
                 message="attribution not minimised (limit reached): all candidates listed", limited=True)


def _signed_reals(lhs, rhs, facts) -> list:
    """The declared real symbols with a sign (``let c: positive real``) in the link and in its facts."""
    syms = set().union(lhs.free_symbols, rhs.free_symbols,
                       *(as_expr(x).free_symbols for f in facts if isinstance(f, (EqFact, IneqFact))
                         for x in (f.lhs, f.rhs)))
    return sorted(filter(signed_real, syms), key=str)


def _declared_signs(prover: LinkProver, lhs, rhs, used, ranges, rel, deadline, final: Proof) -> list:
    """The declared signs of real symbols the proof rests on, found as the facts are: by proving without.

    sympy reads the signs of the symbols it builds with (``sqrt(c^2 Var(X))`` is ``c sqrt(Var(X))`` for a
    positive c, ``log(c^2)`` is ``2 log(c)``) and does not say so.  Each declared sign is dropped in turn
    (the symbol made a real of no sign, in the link and in its facts alike) and the link proved again from
    the same facts; a sign whose loss leaves it unproved is one it rests on, and stays for the next trials
    (so the signs reported suffice together, and none of them can be dropped alone).  This also trims the
    signs an inequality's interval bounds read (c^2 + 1 > 0 needs no sign of c).  Integer symbols
    (dimensions) are not tried: their sign is what makes their ranges non-empty, reported as the ranges.
    """
    facts = [f for lab in used for f in prover.facts.get(lab, [])]
    reals = _signed_reals(lhs, rhs, facts)
    signs = {s for s in final.signs if s not in reals}
    sub: dict = {}
    for s in reals:
        trial = {**sub, s: Symbol(s.name, real=True)}
        p = _prover_without(prover, used, trial).prove_link(lhs.xreplace(trial), rhs.xreplace(trial), used, rel,
                                                            deadline, ranges, final.unroll)
        if p.holds:
            sub = trial
        else:  # unproved without it, or a limit reached: the sign stays (listed, never silently dropped)
            signs.add(s)
    return sorted(signs, key=str)


def _prover_without(prover: LinkProver, used, sub) -> LinkProver:
    """A prover of its own over the facts ``used`` with ``sub`` applied (the caller's is never written to)."""
    def apply(f):
        if isinstance(f, (EqFact, IneqFact)):
            return dataclasses.replace(f, lhs=as_expr(f.lhs).xreplace(sub), rhs=as_expr(f.rhs).xreplace(sub))
        return f
    return LinkProver(prover.decls, {lab: [apply(f) for f in prover.facts.get(lab, [])] for lab in used},
                      prover.limits)


def _weaker_uncorrelated(prover: LinkProver, lhs, rhs, lab, used, ranges, deadline, rel, unroll=None) -> str | None:
    """Does `Cov(q_i k_i, q_j k_j) = 0 for i != j` suffice where `independent(q, k)` was used?"""
    facts = prover.facts.get(lab, [])
    if len(facts) != 1 or not isinstance(facts[0], IndepFact) or facts[0].members or len(facts[0].families) < 1 \
            or facts[0].blocks:
        return None
    fams = facts[0].families
    rngs = {prover.decls.family_ranges.get(f) for f in fams}
    if len(rngs) != 1 or None in rngs:
        return None
    lo, hi = rngs.pop()
    i, j = Symbol("_wi", integer=True), Symbol("_wj", integer=True)
    gi = sympy.Mul(*[sympy.IndexedBase(f, real=True)[i] for f in fams])
    gj = gi.xreplace({i: j})
    wlab = f"{lab} (weakened)"
    # a prover of its own: the caller's declarations and fact table are never written to
    decls = dataclasses.replace(prover.decls, index_ranges={**prover.decls.index_ranges, i: (lo, hi), j: (lo, hi)})
    weak = ChainMap({wlab: [EqFact(wlab, Cov(gi, gj), Integer(0), free=(i, j), distinct=((i, j),))]}, prover.facts)
    p = LinkProver(decls, weak, prover.limits).prove_link(lhs, rhs, [x for x in used if x != lab] + [wlab], rel,
                                                           deadline, ranges, unroll)
    if not p.holds:
        return None
    prod = lambda x: " ".join(f"{f}_{x}" for f in fams)  # noqa: E731
    return f"Cov({prod('i')}, {prod('j')}) = 0 for i ≠ j"
