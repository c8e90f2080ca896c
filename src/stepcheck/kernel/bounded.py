"""Means of surely bounded quantities (rule ``bounded``).

Expectation is monotone: where ``g <= R`` on every outcome, ``E[g] <= R``; and
``Var(Y) = E[Y^2] - E[Y]^2 <= E[Y^2]``.  So a bound on a mean, a variance or a
standard deviation by a deterministic ``R`` follows from a bound that holds
*pointwise*, for every value the random variables can take:

* ``E[g] <= R``  from  ``g <= R``          (``>=`` likewise, ``E[g] >= L`` from ``g >= L``);
* ``Var(Y) <= R`` and ``E[Y^2] <= R``  from  ``Y^2 <= R``, or, where ``R = b^2``, from ``|Y| <= b``;
* ``SD(Y) <= R``  from  ``|Y| <= R``;

strict from strict (the mean of a quantity positive on every outcome is
positive).  The pointwise bound also makes the mean exist (``g`` is bounded
above, so ``E[g]`` is a number or ``-oo``, below ``R`` either way).

The pointwise link is a deterministic one: every random variable (``X``, a
member ``U_j`` of a random family) is written as a fresh real of no sign
(``X'``, ``U'_j``: a prime no user name can hold), and it is proved by the
kernel from the facts that hold on (almost) every outcome, written there:
deterministic ones, and ones about the values of random variables outside
any mean (``B <= 1``, read as holding almost surely, so ``B' <= 1``); a fact
about ``X``'s law (``E[X^2] <= 1``) says nothing about one value of ``X``.  A proof for every
real value is a proof for every outcome, whatever the laws.  Not tried where
``g`` holds a mean, a probability, a limit or a derivative (their value is not
the outcome's), nor where ``R`` is random.
"""
from __future__ import annotations

import dataclasses

import sympy
from sympy import Abs, Indexed, IndexedBase, Pow, Symbol

from ..terms.facts import Decls, EqFact, IneqFact
from ..terms.objects import SD, Cov, DSum, E, Var, as_expr
from ..terms.probability import Prob
from .normal import RuleSet

_OPAQUE = (E, Var, Cov, SD, Prob, DSum, sympy.Limit, sympy.Derivative, sympy.Integral)
_FLIP = {">": "<", ">=": "<="}


def _deterministic(x, decls: Decls) -> bool:
    """No mean, probability, limit or derivative, and no random variable: neither a random symbol, nor a
    member of a random family, nor the family itself (``max(U)`` of a random family ``U``)."""
    return not x.has(*_OPAQUE) and not any(decls.is_rv(a) for a in x.atoms(Symbol, Indexed)) and \
        not any(b.label.name in decls.random_families for b in x.atoms(IndexedBase))


def outcome(decls: Decls) -> Decls:
    """The declarations with the fresh families (``U'`` for a random family ``U``) over their ranges."""
    ranges = dict(decls.family_ranges)
    for name in decls.random_families:
        if name in decls.family_ranges:
            ranges[f"{name}'"] = decls.family_ranges[name]
    return dataclasses.replace(decls, family_ranges=ranges)


def _written(g, decls: Decls):
    """``g`` on one outcome: each random variable (a symbol, a member of a random family) replaced by its
    fresh real, named with a prime."""
    reps = {a: Symbol(f"{a.name}'", real=True) for a in g.free_symbols if a in decls.random_symbols}
    for a in g.atoms(IndexedBase):  # the base of each member, and of max(U) over the family
        if a.label.name in decls.random_families:
            reps[a] = IndexedBase(f"{a.label.name}'", real=True)
    return g.xreplace(reps)


def pointwise_goals(lhs, rhs, rel: str, decls: Decls) -> list:
    """The pointwise links, deterministic, any one of which proves ``lhs REL rhs`` (rule ``bounded``):
    [(left, right, relation)], each to be proved ``left REL right`` for every real value of the fresh
    variables.  Empty where the rule does not apply."""
    lhs, rhs = as_expr(lhs), as_expr(rhs)
    if rel in _FLIP:
        lhs, rhs, rel = rhs, lhs, _FLIP[rel]
    if rel not in ("<", "<="):
        return []
    goals = []
    if isinstance(lhs, (E, Var, SD)) and _deterministic(rhs, decls):  # an upper bound on a mean
        inner = lhs.args[0]
        if inner.has(*_OPAQUE) or _deterministic(inner, decls):
            return []
        y = _written(inner, decls)
        if isinstance(lhs, SD):
            goals.append((Abs(y), rhs))
        else:
            g = y ** 2 if isinstance(lhs, Var) else y
            if isinstance(g, Pow) and g.exp == 2 and isinstance(rhs, Pow) and rhs.exp == 2:
                goals.append((Abs(g.base), rhs.base))  # |Y| <= b gives Y^2 <= b^2
            elif isinstance(g, Pow) and g.exp == 2 and rhs.is_number and rhs.is_nonnegative:
                goals.append((Abs(g.base), sympy.sqrt(rhs)))  # |Y| <= 3 gives Y^2 <= 9
            goals.append((g, rhs))
            if isinstance(lhs, E):
                goals.append((Abs(g), rhs))  # g <= |g|: Σ_k w_k tanh(z_k) <= Σ_k |w_k| by the triangle inequality
    if isinstance(rhs, E) and _deterministic(lhs, decls):  # a lower bound on a mean
        inner = rhs.args[0]
        if not (inner.has(*_OPAQUE) or _deterministic(inner, decls)):
            g = _written(inner, decls)
            goals += [(lhs, g), (Abs(g), -lhs)]  # -|g| <= g
    if not _deterministic(lhs, decls) and not _deterministic(rhs, decls):  # means on both sides
        margin = _outcome_of_means(sympy.expand(rhs - lhs), decls)  # products of means may cancel (E[B]^2)
        if margin is not None:
            goals.append((sympy.Integer(0), margin))  # E[B^2] <= E[B] from 0 <= B - B^2 on every outcome
    # every random variable written: a goal still holding one (a form this reading misses) is no goal
    return [(a, b, rel) for a, b in goals if _deterministic(a, decls) and _deterministic(b, decls)]


def _outcome_of_means(x, decls: Decls):
    """``x``, a linear combination of means with deterministic coefficients (``2 E[B^2] - c E[B] + 1``), as the
    same combination of the outcomes (``2 B'^2 - c B' + 1``), whose mean it is (linearity); None otherwise."""
    out = []
    for t in sympy.Add.make_args(sympy.expand(x)):
        means = [f for f in sympy.Mul.make_args(t) if isinstance(f, E)]
        rest = sympy.Mul(*[f for f in sympy.Mul.make_args(t) if not isinstance(f, E)])
        if len(means) > 1 or not _deterministic(rest, decls) or means and means[0].args[0].has(*_OPAQUE):
            return None
        out.append(rest * (_written(means[0].args[0], decls) if means else 1))
    return sympy.Add(*out)


def outcome_facts(facts: dict, labels, decls: Decls) -> dict:
    """label -> those of its facts that hold on (almost) every outcome, written there: the equations and
    inequalities without a mean, a probability, a limit or a derivative -- deterministic ones, and ones about
    the values of random variables, which the language reads as holding almost surely (``assume hi: B <= 1``,
    ``Y = 2 X``) -- with each random variable written as its fresh real.  A fact about a law (``E[X^2] <= 1``)
    says nothing about one value and is left out; so is a label's independence."""
    out = {}
    for lab in labels:
        fs = []
        for f in facts.get(lab, []):
            if not isinstance(f, (EqFact, IneqFact)) or any(as_expr(x).has(*_OPAQUE) for x in (f.lhs, f.rhs)):
                continue
            w = dataclasses.replace(f, lhs=_written(as_expr(f.lhs), decls), rhs=_written(as_expr(f.rhs), decls))
            if _deterministic(w.lhs, decls) and _deterministic(w.rhs, decls):
                fs.append(w)
        if fs:
            out[lab] = fs
    return out


def bounded_proof(prover, lhs, rhs, candidates, rel: str, deadline, ranges, unroll):
    """A proof of ``lhs REL rhs`` by rule ``bounded`` (a pointwise link proved by a prover of its own over the
    deterministic facts among ``candidates``), or None.  The proof lists every candidate, as a proof of the
    link itself does: attribution drops the ones it does not need."""
    goals = pointwise_goals(lhs, rhs, rel, prover.decls)
    if not goals:
        return None
    sub, labels = _outcome_prover(prover, candidates)
    for a, b, r in goals:
        if deadline.remaining() <= 0:
            return None
        p = sub.prove_link(a, b, labels, r, deadline, ranges, unroll)
        if p.holds:
            rules = RuleSet(p.rules)
            rules.add("bounded")
            return dataclasses.replace(p, used=list(candidates), rules=sorted(rules))
    return None


def _outcome_prover(prover, candidates) -> tuple:
    """The prover of pointwise links over the facts among ``candidates`` that hold on every outcome (one per
    set of such facts, kept by ``prover``), and their labels."""
    facts = outcome_facts(prover.facts, candidates, prover.decls)
    labels = list(facts)
    sub = prover._bounded_provers.get(tuple(labels))
    if sub is None:
        sub = prover._bounded_provers[tuple(labels)] = type(prover)(outcome(prover.decls), facts, prover.limits)
    return sub, labels


def surely_signed(prover, w, candidates, sign: str, deadline, ranges) -> bool:
    """Whether ``w`` (holding random variables, no mean) is ``> 0`` (``sign`` ``">"``) or ``>= 0`` on every
    outcome: the pointwise link ``w' > 0`` proved from the facts among ``candidates`` that hold on every
    outcome (as for rule ``bounded``)."""
    y = _written(w, prover.decls)
    if w.has(*_OPAQUE) or not _deterministic(y, prover.decls) or deadline.remaining() <= 0:
        return False
    sub, labels = _outcome_prover(prover, candidates)
    return sub.prove_link(sympy.Integer(0), y, labels, "<" if sign == ">" else "<=", deadline, ranges).holds
