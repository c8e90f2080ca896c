"""Concrete sums: kept symbolic first, unrolled where the symbolic proof fails.

``Σ_{l=1..16} x_l y_l`` is proved as ``Σ_{l=1..n}`` is, without writing out
its 16 members (256 products under a variance); a concrete sum is unrolled
(its indices become literals) only where the symbolic proof fails and a sum
of at most ``UNROLL`` terms was kept symbolic: to meet literal members
(``x_3``), another range, or arithmetic in the index.  Both are sound
normalisations: the order changes the cost, never a verdict's soundness.
"""
from __future__ import annotations

import pytest
import sympy as sp

from stepcheck.checker import check_text
from stepcheck.judge.attribution import attribute
from stepcheck.kernel import Decls, EqFact, IndepFact, LinkProver, Var
from stepcheck.kernel.normal import UNROLL, UNROLL_FIRST
from stepcheck.terms.facts import Deadline
from stepcheck.terms.objects import E

x = sp.IndexedBase("x", real=True)
y = sp.IndexedBase("y", real=True)
l_ = sp.Symbol("l", integer=True)
DECLS = Decls(random_symbols=frozenset(), random_families=frozenset({"x", "y"}), index_ranges={l_: (1, 16)},
              family_ranges={"x": (1, 16), "y": (1, 16)})
FACTS = {
    "ind": [IndepFact("ind", families=("x", "y"))],
    "m0": [EqFact("m0", E(x[l_]), sp.Integer(0), free=(l_,)), EqFact("m0", E(y[l_]), sp.Integer(0), free=(l_,))],
    "v1": [EqFact("v1", Var(x[l_]), sp.Integer(1), free=(l_,)), EqFact("v1", Var(y[l_]), sp.Integer(1), free=(l_,))],
}


def _sum(body, lo, hi):
    m = sp.Dummy("m", integer=True)
    return sp.Sum(body(m), (m, lo, hi))


def _prove(lhs, rhs, unroll=None, cands=("ind", "m0", "v1")):
    return LinkProver(DECLS, FACTS).prove_link(lhs, rhs, list(cands), "=", Deadline(5), unroll=unroll)


def test_a_concrete_sum_is_proved_symbolically():
    p = _prove(Var(_sum(lambda m: x[m] * y[m], 1, 16)), sp.Integer(16))
    assert p.holds and p.unroll == UNROLL_FIRST


def test_attribution_from_the_symbolic_proof_is_minimal():
    prover = LinkProver(DECLS, {**FACTS, "extra": [EqFact("extra", E(x[l_] ** 4), sp.Integer(3), free=(l_,))]})
    p = attribute(prover, Var(_sum(lambda m: x[m] * y[m], 1, 16)), sp.Integer(16), ["ind", "m0", "v1", "extra"],
                  "=", Deadline(10))
    assert p.holds and sorted(p.used) == ["ind", "m0", "v1"]


def test_literal_members_are_met_by_unrolling():
    rhs = sp.Add(*[x[k] for k in range(1, 9)])
    p = _prove(_sum(lambda m: x[m], 1, 8), rhs, cands=())
    assert p.holds and p.unroll == UNROLL


def test_a_fixed_limit_is_honoured():
    """Attribution asks again at the limit its proof needed: the short limit alone does not unroll."""
    rhs = sp.Add(*[x[k] for k in range(1, 9)])
    assert not _prove(_sum(lambda m: x[m], 1, 8), rhs, unroll=UNROLL_FIRST, cands=()).holds
    assert _prove(_sum(lambda m: x[m], 1, 8), rhs, unroll=UNROLL, cands=()).holds


def test_false_variant_is_not_proved_either_way():
    p = _prove(Var(_sum(lambda m: x[m] * y[m], 1, 16)), sp.Integer(15))
    assert not p.holds


@pytest.mark.parametrize("step, status", [
    ("Var(sum(l=1..8, x_l y_l)) = 8          by ind, m0, v1", "holds"),
    ("SD(sum(t=1..8, x_t y_t)) = 2 sqrt(2)    by ind, m0, v1", "holds"),
    ("Var(sum(l=1..8, x_l y_l)) = 9          by ind, m0, v1", "unknown"),
    ("sum(l=1..6, x_l) = x_1 + x_2 + x_3 + x_4 + x_5 + x_6", "holds"),     # literal members
    ("sum(l=1..6, x_l) = x_1 + x_2 + x_3 + x_4 + x_5", "unknown"),
    ("sum(l=1..8, x_l) = sum(l=1..3, x_l) + sum(l=4..8, x_l)", "holds"),   # another range
    ("sum(i=1..10, i) = 55", "holds"),                                     # arithmetic in the index
    ("sum(i=1..10, i^2) = 385", "holds"),
    ("sum(i=1..10, i) = 56", "fails"),
    ("sum(i=1..9, c) = 9 c", "holds"),
])
def test_user_variants(step, status):
    head = ("let c: real\nrandom x_l, y_l for l in 1..8\nassume ind: independent(x, y)\n"
            "assume m0: E[x_l] = 0, E[y_l] = 0\nassume v1: Var(x_l) = 1, Var(y_l) = 1\n")
    lk = check_text(head + f"step s: {step}\n", "t.step").steps[0].links[0]
    assert lk.status == status, step
