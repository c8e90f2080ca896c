"""Equations between random variables hold almost surely and are applied inside E (kernel/surely.py): an
assumed `Y = 2 X`, and `R^2 = 1` (`B^2 = B`) that a Rademacher (Bernoulli) declaration states."""
import pytest

from stepcheck.checker import check_text

DECLS = """let n: positive integer
let i: index 1..n
random R ~ Rademacher
random B ~ Bernoulli(1/3)
random q_i ~ Rademacher for i in 1..n
random A, X, Y, W
assume z: E[A] = 0
"""


def _status(claim, extra=""):
    rep = check_text(DECLS + extra + f"step s: {claim}\n", "t.step")
    assert not [d for d in rep.diagnostics if d.severity == "error" and d.code != "E-fails"], claim
    (lk,) = rep.steps[-1].links
    return lk


@pytest.mark.parametrize("claim, extra, uses", [
    ("E[R^2 A] = 0", "", {"R ~ Rademacher", "z"}),
    ("E[R^3 A] = E[R A]", "", {"R ~ Rademacher"}),
    ("E[R^4 X^2] = E[X^2]", "", {"R ~ Rademacher"}),
    ("E[B^3 X] = E[B X]", "", {"B ~ Bernoulli(1/3)"}),
    ("E[q_i^2 A] = 0", "", {"q_i ~ Rademacher", "z"}),
    ("E[sum(i=1..n, q_i^2 X)] = n E[X]", "", {"q_i ~ Rademacher"}),
    ("E[Y] = 2 E[X]", "assume a: Y = 2 X\n", {"a"}),
    ("E[Y A] = 2 E[X A]", "assume a: 2 X = Y\n", {"a"}),
    ("E[Y^2] = E[X^2] + 2 E[X] + 1", "assume a: Y = X + 1\n", {"a"}),
    ("E[X^2 A] = 0", "assume a: X^2 = 1\n", {"a", "z"}),
    ("Var(Y) = 4 Var(X)", "assume a: Y = 2 X\n", {"a"}),
    ("E[Y W] = E[X W]", "assume a: Y = X\nassume b: X = Y\n", {"b"}),     # both rewrite Y into X; one suffices
    ("E[W] = 2 E[A] + 1", "assume a: W = 2 A + 1\n", {"a"}),     # whatever the names' order (A before W)
    ("E[A] = 2 E[W] + 1", "assume a: A = 2 W + 1\n", {"a"}),     # (W after A: was unknown)
    ("Var(A) = 4 Var(W)", "assume a: A = 2 W + 1\nassume b: W = (A - 1)/2\n", {"b"}),   # the two would loop: one taken
])
def test_an_equation_between_random_variables_applies_inside_e(claim, extra, uses):
    lk = _status(claim, extra)
    assert lk.status == "holds", (claim, lk.message)
    assert {u.label for u in lk.uses} == uses, claim


@pytest.mark.parametrize("claim, extra", [
    ("E[R A] = 0", ""),                                   # R = 1 is no rule: only R^2 = 1
    ("E[B^2 X] = E[X]", ""),                              # B^2 = B, not 1
    ("E[Y] = E[X]", "assume a: Y = 2 X\n"),
    ("E[Y A] = 0", "assume a: Y^2 = 1\n"),                # Y^2 = 1 says nothing of Y A
    ("E[X^2] = 1", "assume a: E[X^2] = E[Y^2]\n"),        # an equation between moments is no rule
])
def test_no_rule_where_the_equation_does_not_give_it(claim, extra):
    assert _status(claim, extra).status != "holds", claim


def test_a_rule_over_part_of_a_family_is_no_rule_for_every_member():
    text = ("let n, m: positive integer\nlet j: index 1..m\nlet i: index 1..n\nrandom q_i for i in 1..n\nrandom A\n"
            "assume z: E[A] = 0\nassume a: q_j^2 = 1\nstep s: E[q_i^2 A] = 0\n")
    assert check_text(text, "t.step").steps[-1].links[0].status != "holds"
    same = text.replace("let j: index 1..m", "let j: index 1..n")
    assert check_text(same, "t.step").steps[-1].links[0].status == "holds"


def test_a_rule_is_not_read_from_an_equation_that_is_not_cited():
    rep = check_text(DECLS + "assume a: Y = 2 X\nassume other: E[W] = 0\nstep s: E[Y] = 2 E[X]   by other\n", "t.step")
    assert rep.steps[-1].links[0].status != "holds"


@pytest.mark.parametrize("claim, status", [
    ("E[Y] = 2", "fails"),      # E[2 R + 1] = 1: the witness is R's law with Y defined by `a` (was unknown)
    ("E[Y] = 1", "holds"),
    ("E[Y^2] = 6", "fails"),    # E[(2 R + 1)^2] = 5
])
def test_a_variable_an_equation_defines_is_part_of_the_witness(claim, status):
    text = "random R ~ Rademacher\nrandom Y\nassume a: Y = 2 R + 1\n" + f"step s: {claim}\n"
    (lk,) = check_text(text, "t.step").steps[0].links
    assert lk.status == status, (claim, lk.message)


def _inconsistent(text):
    rep = check_text(text, "t.step")
    return [d for d in rep.diagnostics if d.code == "E-inconsistent"], [lk.status for s in rep.steps for lk in s.links]


@pytest.mark.parametrize("text", [
    # a second rule about the same variable: only the first was applied, and 2 = 3 held
    "random X, Y\nassume a: Y = 2 X\nassume b: Y = 3 X\nassume c: E[X^2] = 1\nstep s: 2 E[X^2] = 3 E[X^2]\n",
    # the power-1 rule hid the power-2 one: 1 = 4 held
    "random X, Y\nassume a: X = 2 Y\nassume b: X^2 = 1\nassume c: E[Y^2] = 1\nstep s: E[X^2] = 4 E[Y^2]\n",
    # equations that are no rule: E[g] = 0 and E[g^2] = 0 for g = 0 on every outcome
    "random X, Y\nassume a: X + Y = 1\nassume c: E[X] = 2, E[Y] = 2\nstep s: E[X] + E[Y] = 4\n",
    "random Z\nassume d: 4 Z^2 = 1\nassume e: E[Z^2] = 1\nstep s: E[4 Z^2] = 4\n",
    # every member of an independent family equal to one X: X is constant, yet Var(q_2) = 1 (0 = 1 held)
    "let n: positive integer\nrandom X\nrandom q_i for i in 1..n\nassume i: independent(q)\nassume b: q_i = X\n"
    "assume c: Var(q_2) = 1\nstep s: Cov(q_1, q_2) = Var(X)\n",
])
def test_equations_between_random_variables_the_facts_cannot_meet(text):
    found, statuses = _inconsistent(text)
    assert found and "holds" not in statuses, (text, statuses)


@pytest.mark.parametrize("text", [
    "random X, Y\nassume a: Y = 2 X\nassume b: Y = 2 X\nassume c: E[X^2] = 1\nstep s: E[Y^2] = 4\n",
    "random X, Y\nassume a: X = 2 Y\nassume b: X^2 = 1\nassume c: E[Y^2] = 1/4\nstep s: E[X^2] = 1\n",
    "random X, Y\nassume a: X + Y = 1\nassume c: E[X] = 1/2, E[Y] = 1/2\nstep s: E[X + Y] = 1\n",
    "random Z\nassume d: 4 Z^2 = 1\nassume e: E[Z^2] = 1/4\nstep s: E[4 Z^2] = 1\n",
    # one member only (n may be 1, no literal second member): q_1 = X is no contradiction
    "let n: positive integer\nrandom X\nrandom q_i for i in 1..n\nassume i: independent(q)\nassume b: q_i = X\n"
    "assume c: Var(q_1) = 1\nstep s: Var(q_1) = Var(X)\n",
    # a constant for every member: independent and equal is fine
    "let n: positive integer\nlet c: real\nrandom q_i for i in 1..n\nassume i: independent(q)\nassume b: q_i = c\n"
    "step s: E[q_1] = c\n",
])
def test_equations_between_random_variables_the_facts_meet(text):
    found, statuses = _inconsistent(text)
    assert not found and statuses == ["holds"], (text, [d.notes for d in found], statuses)


def test_a_rule_whose_replacement_names_a_member_of_its_own_family_is_no_rule():
    """``q_i = q_1`` rewrote q_1 to q_1 forever (RecursionError, reported as 'nested too deeply')."""
    text = ("let n: positive integer\nlet i: index 1..n\nrandom q_i for i in 1..n\nassume a: q_i = q_1\n"
            "step s: E[q_2^2] = E[q_1^2]\n")
    rep = check_text(text, "t.step")
    (lk,) = rep.steps[0].links
    assert lk.status == "unknown" and "nested too deeply" not in (lk.message or "")
    assert not rep.diagnostics


@pytest.mark.parametrize("text", [
    # an assumption presupposes its expressions have a real value (found by a hostile round: each held)
    "random Y\nrandom R ~ Rademacher\nassume a: Y = sqrt(R)\nstep s: E[Y^2] = 0\n",          # R = -1
    "random Y\nrandom Z ~ Normal(0, 1)\nassume a: Y = log(Z)\nstep s: E[exp(Y)] = 0\n",     # Z <= 0
    "random X, Y\nassume a: Y = sqrt(X)\nassume b: E[X] = -1\nstep s: E[Y^2] = -1\n",      # X >= 0 a.s.
    "let c: real\nrandom Y\nrandom R ~ Rademacher\nassume a: Y = sqrt(c) R\nassume b: c = -1\nstep s: E[Y^2] = -1\n",
    "let c: real\nrandom Y\nrandom R ~ Rademacher\nassume a: Y = (R + 1)/c\nassume b: c = 0\nstep s: E[c Y] = 1\n",
    # a polynomial equation in one variable of a declared law: the law breaks it
    "random Z ~ Normal(0, 1)\nassume a: Z^3 = 3 Z\nstep s: E[Z^6] = 9\n",
    "random U ~ Uniform(-1, 1)\nassume a: U^3 = 3/5 U\nstep s: E[U^6] = 3/25\n",
    "random D ~ DiscreteUniform(1, 3)\nassume a: D^3 = 3 D^2 + D - 4\nstep s: E[D^3] = 3 E[D^2] + E[D] - 4\n",
])
def test_assumptions_that_presuppose_what_their_laws_or_facts_deny(text):
    found, statuses = _inconsistent(text)
    assert found and "holds" not in statuses, (text, statuses)


@pytest.mark.parametrize("text", [
    "random Y\nrandom B ~ Bernoulli(1/2)\nassume a: Y = sqrt(B)\nstep s: E[Y^2] = 1/2\n",   # B >= 0: fine
    "random Y, X\nassume a: Y = sqrt(X)\nassume b: E[X] = 1\nstep s: E[Y^2] = 1\n",
    "let c: real\nrandom Y\nrandom R ~ Rademacher\nassume a: Y = (R + 1)/c\nassume b: c = 2\nstep s: E[Y] = 1/2\n",
    "random D ~ DiscreteUniform(1, 3)\nassume a: (D - 1) (D - 2) (D - 3) = 0\nstep s: E[D] = 2\n",  # on the support
    "random R ~ Rademacher\nassume a: R^4 = 1\nstep s: E[R^4] = 1\n",
    "random X\nassume a: X^3 = 3 X\nassume b: E[X^2] = 3\nstep s: E[X^4] = 9\n",               # no law: X = ±√3
])
def test_assumptions_whose_presuppositions_their_laws_and_facts_allow(text):
    found, statuses = _inconsistent(text)
    assert not found and statuses == ["holds"], (text, [d.notes for d in found], statuses)


def test_every_contradiction_among_the_assumptions_is_reported():
    text = ("let c: real\nrandom X\nassume a: sqrt(c)^2 = -1\nassume b: E[sqrt(X)^2] = -1\n"
            "step s: sqrt(c)^2 < 0   by a\nstep t: E[sqrt(X)^2] < 0   by b\n")
    found, statuses = _inconsistent(text)
    assert len(found) == 2 and statuses == ["unknown", "unknown"]  # t held "where X >= 0": b denies it
