"""The rule `bounded` (kernel/bounded.py): a mean, variance or SD bounded by a bound that holds on every outcome.

Where it applies the link holds with the rule `bounded`, and the claim is checked on random finite laws with
mpmath (independent of the kernel and of stepcheck's models); where it must not, the link does not hold (a
false claim fails with a witness, a true one the rule cannot reach stays unknown)."""
import random

import mpmath
import pytest
import sympy

from conftest import assert_verdict
from stepcheck.checker import check_text
from stepcheck.kernel.bounded import outcome_facts, pointwise_goals
from stepcheck.terms.facts import Decls, EqFact, IneqFact
from stepcheck.terms.objects import E, FamilyExtremum, Var

DECLS = ("let n: positive integer\nlet k: index 1..n\nreal w_k for k in 1..n\nrandom Z_k for k in 1..n\n"
         "random X, Y\nlet a, b: real\n")


def _link(claim, extra=""):
    rep = check_text(DECLS + extra + f"step t: {claim}\n", "t.step")
    (step,) = rep.steps
    (link,) = step.links
    return link


def _mean(f, law):
    return mpmath.fsum(p * f(*x) for x, p in law)


def _law(rng, dims):
    """A random finite joint law of ``dims`` variables (dependent in general): [(values, probability)]."""
    rows = [tuple(mpmath.mpf(rng.uniform(-6, 6)) for _ in range(dims)) for _ in range(rng.randint(1, 4))]
    weights = [mpmath.mpf(rng.randint(1, 9)) for _ in rows]
    return [(x, w / mpmath.fsum(weights)) for x, w in zip(rows, weights)]


def _var(f, law):
    m = _mean(f, law)
    return _mean(lambda *x: (f(*x) - m) ** 2, law)


TRUE = [
    # claim (with n = 3 and w = (1, -2, 0.5) in the independent check), left side and right side on a law of (Z_1..Z_3, X, Y)
    ("Var(sum(k=1..n, w_k tanh(Z_k))) <= (sum(k=1..n, |w_k|))^2",
     lambda law, w: _var(lambda *z: sum(wi * mpmath.tanh(zi) for wi, zi in zip(w, z[:3])), law),
     lambda law, w: sum(abs(wi) for wi in w) ** 2),
    ("(sum(k=1..n, |w_k|))^2 >= Var(sum(k=1..n, w_k tanh(Z_k)))",  # the other way round
     lambda law, w: _var(lambda *z: sum(wi * mpmath.tanh(zi) for wi, zi in zip(w, z[:3])), law),
     lambda law, w: sum(abs(wi) for wi in w) ** 2),
    ("SD(sum(k=1..n, w_k tanh(Z_k))) <= sum(k=1..n, |w_k|)",
     lambda law, w: mpmath.sqrt(_var(lambda *z: sum(wi * mpmath.tanh(zi) for wi, zi in zip(w, z[:3])), law)),
     lambda law, w: sum(abs(wi) for wi in w)),
    ("Var(tanh(X) + tanh(Y)) <= 4",
     lambda law, w: _var(lambda *z: mpmath.tanh(z[3]) + mpmath.tanh(z[4]), law), lambda law, w: 4),
    ("Var(tanh(X) + tanh(Y)) < 5",
     lambda law, w: _var(lambda *z: mpmath.tanh(z[3]) + mpmath.tanh(z[4]), law), lambda law, w: 5),
    ("SD(tanh(X) - tanh(Y)) <= 2",
     lambda law, w: mpmath.sqrt(_var(lambda *z: mpmath.tanh(z[3]) - mpmath.tanh(z[4]), law)), lambda law, w: 2),
    ("E[sum(k=1..n, w_k tanh(Z_k))] <= sum(k=1..n, |w_k|)",  # through g <= |g|
     lambda law, w: _mean(lambda *z: sum(wi * mpmath.tanh(zi) for wi, zi in zip(w, z[:3])), law),
     lambda law, w: sum(abs(wi) for wi in w)),
    ("-sum(k=1..n, |w_k|) <= E[sum(k=1..n, w_k tanh(Z_k))]",  # a lower bound, through -|g| <= g
     lambda law, w: -sum(abs(wi) for wi in w),
     lambda law, w: _mean(lambda *z: sum(wi * mpmath.tanh(zi) for wi, zi in zip(w, z[:3])), law)),
    ("Var(sum(k=1..n, tanh(Z_k))) <= n^2",
     lambda law, w: _var(lambda *z: sum(mpmath.tanh(zi) for zi in z[:3]), law), lambda law, w: 9),
]


@pytest.mark.parametrize("claim, left, right", TRUE)
def test_bounded_means_hold_and_are_true_on_random_laws(claim, left, right):
    link = _link(claim)
    assert link.status == "holds", (claim, link.status, link.message)
    assert "bounded" in link.rules
    rng = random.Random(claim)
    w = (mpmath.mpf(1), mpmath.mpf(-2), mpmath.mpf("0.5"))
    for _ in range(40):
        law = _law(rng, 5)
        assert left(law, w) <= right(law, w) + mpmath.mpf(10) ** -20


@pytest.mark.parametrize("claim, witness", [
    ("Var(a tanh(X) + b) <= a^2/2", "a = "),  # the pointwise bound is a^2, not a^2/2
    ("SD(sum(k=1..n, w_k tanh(Z_k))) <= sum(k=1..n, w_k)", "n = "),  # Σ w_k, not Σ |w_k|
    ("Var(sum(k=1..n, tanh(Z_k))) <= n", "n = "),  # dependent inputs: the variance reaches about n^2
    ("Var(a tanh(X)) <= 1", "a = "),  # no bound on a
    ("E[max(X, 1)] <= 1", "X = "),  # max(x, 1) is not bounded by 1
])
def test_false_near_misses_fail(claim, witness):
    link = _link(claim)
    assert link.status == "fails", (claim, link.status)
    assert link.counterexample.startswith(witness) and link.decided_by == "re-checked witness"


def test_a_strict_bound_is_not_read_from_a_weak_one():
    # -Σ|w_k| <= g on every outcome, with equality at w = 0: the strict bound is false there
    link = _link("E[sum(k=1..n, w_k tanh(Z_k))] > -sum(k=1..n, |w_k|)")
    assert link.status != "holds"


def test_a_fact_about_the_values_of_a_random_variable_holds_on_each_outcome():
    # X^2 <= 1 (outside a mean) holds almost surely: Var(X) <= E[X^2] <= 1, and E[B^2] <= 1 under 0 <= B <= 1
    link = _link("Var(X) <= 1", "assume xb: X^2 <= 1\n")
    assert link.status == "holds" and "bounded" in link.rules and "xb" in [u.label for u in link.uses]
    assert _link("E[X^2] <= 1/2", "assume xb: X^2 <= 1\n").status == "fails"     # X = ±1
    # a fact about the law is no bound on one value: E[X^2] <= 1 says nothing of E[X^4]
    assert _link("E[X^4] <= 1", "assume m: E[X^2] <= 1\n").status != "holds"


def test_a_deterministic_fact_is_used_and_reported():
    extra = "let h: positive real\nassume hb: h <= 1\n"
    link = _link("Var(h tanh(X) + tanh(Y)) <= 4", extra)
    assert link.status == "holds" and "bounded" in link.rules
    assert "hb" in [u.label for u in link.uses]
    # without the fact the bound is false: h = 3, X = Y = ±large gives about 16
    assert _link("Var(h tanh(X) + tanh(Y)) <= 4", "let h: positive real\n").status != "holds"


def test_a_bound_that_holds_only_on_average_is_not_read_pointwise():
    # Var(tanh(X) + b) = Var(tanh(X)) <= 1 <= a^2 is true, but |tanh(x) + b| <= a is not: the rule finds no
    # pointwise bound and must not claim one
    link = _link("Var(tanh(X) + b) <= a^2", "assume ab: a >= 1\n")
    assert "bounded" not in (link.rules or [])
    assert link.status != "fails"


# ------------------------------------------------------------------ the goals, unit by unit

X, Y = sympy.Symbol("X", real=True), sympy.Symbol("Y", real=True)
c = sympy.Symbol("c", real=True)
Z = sympy.IndexedBase("Z", real=True)
j = sympy.Symbol("j", integer=True)
DEC = Decls(random_symbols=frozenset({X, Y}), random_families=frozenset({"Z"}), family_ranges={"Z": (1, 3)})


def test_the_goals_write_every_random_variable_as_a_fresh_real():
    goals = pointwise_goals(Var(sympy.tanh(X) + sympy.tanh(Z[j])), sympy.Integer(4), "<=", DEC)
    assert goals
    for left, right, rel in goals:
        names = {s.name for s in left.free_symbols} | {b.label.name for b in left.atoms(sympy.IndexedBase)}
        assert "X" not in names and "Z" not in names and {"X'", "Z'"} <= names
        assert rel == "<="
    assert (sympy.Abs(sympy.tanh(sympy.Symbol("X'", real=True)) + sympy.tanh(sympy.IndexedBase("Z'", real=True)[j])),
            sympy.Integer(2), "<=") in goals


@pytest.mark.parametrize("lhs, rhs, rel", [
    (E(X), Y, "<="),  # a random right side
    (Var(X - E(X)), sympy.Integer(1), "<="),  # a mean inside: its value is not the outcome's
    (Var(sympy.tanh(X)), sympy.Integer(1), "="),  # an equation
    (Var(sympy.tanh(X)), sympy.Integer(1), ">="),  # a lower bound on a variance
    (Var(c), sympy.Integer(1), "<="),  # nothing random
    (E(sympy.tanh(X)), FamilyExtremum(Z, 1, 3, sympy.core.symbol.Str("max")), "<="),  # max of a random family: random
    (E(sympy.tanh(X)), Z[1], "<="),  # a member of a random family
])
def test_no_goal_where_the_rule_does_not_apply(lhs, rhs, rel):
    assert pointwise_goals(lhs, rhs, rel, DEC) == []


def test_only_facts_true_on_every_outcome_are_usable():
    # a fact about the values of X (outside a mean) holds almost surely: written for the outcome, X as X';
    # a fact about the law (E[X] = 0, Var(X) = 1) says nothing about one value
    facts = {"det": [IneqFact("det", c, sympy.Integer(1), "<=")], "law": [EqFact("law", E(X), sympy.Integer(0))],
             "surely": [IneqFact("surely", X ** 2, sympy.Integer(1), "<=")],
             "mixed": [IneqFact("mixed", c, sympy.Integer(1), "<="), EqFact("mixed", Var(X), sympy.Integer(1))]}
    got = outcome_facts(facts, list(facts), DEC)
    assert list(got) == ["det", "surely", "mixed"]
    assert got["surely"][0].lhs == sympy.Symbol("X'", real=True) ** 2 and len(got["mixed"]) == 1


@pytest.mark.parametrize("claim, facts, status", [
    # means on both sides, linear in them: the same combination of outcomes, proved on every outcome
    ("E[X^2] <= E[X]", "assume lo: X >= 0\nassume hi: X <= 1\n", "holds"),         # X^2 <= X on [0, 1]
    ("E[X^3] + 1 <= E[X^2] + 1", "assume lo: X >= 0\nassume hi: X <= 1\n", "holds"),  # X^3 <= X^2 on [0, 1]
    ("E[X^2] < E[X]", "assume lo: X >= 0\nassume hi: X <= 1\n", "fails"),          # X = 0 or 1
    ("E[X] <= E[X^2]", "assume lo: X >= 0\nassume hi: X <= 1\n", "not holds"),   # X = 1/2
    ("E[X^2] <= E[X]", "", "fails"),                                                # X = 2
    ("E[X^2] <= E[X]", "assume m: E[X] <= 1\nassume p: E[X] >= 0\n", "not holds"),   # facts about the law only
    ("E[X^2] <= E[X] E[X]", "assume lo: X >= 0\nassume hi: X <= 1\n", "not holds"),  # a product of means
])
def test_means_on_both_sides(claim, facts, status):
    assert_verdict(_link(claim, facts), status, "bounded", claim)
