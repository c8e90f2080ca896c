"""Contradictions the ideal alone does not show (kernel/contradictions.py): an element of the equations'
ideal that is never 0 for real values, a moment fixed outside the range of its function, a law's own
condition broken by the equations, and a family's covariances over a small fixed range; each with the
consistent cases it must leave alone."""
import pytest

from stepcheck.checker import check_text


def _inconsistent(text):
    rep = check_text(text + "step t: 1 = 1\n", "t.step")
    hit = [d for d in rep.diagnostics if d.code == "E-inconsistent"]
    return hit[0] if hit else None


@pytest.mark.parametrize("text, labels, why", [
    ("let x: real\nassume a: x^2 - 2 x + 2 = 0\n", "`a`", "no real root"),
    ("let x, y: real\nassume a: x^2 + y^2 = 1\nassume b: x + y = 2\n", "`a`, `b`", "no real root"),
    ("let m: real\nrandom Z ~ Normal(m, 1)\nassume a: E[Z^2] = 1/2\n", "`a`", "1/2 + m^2 = 0"),
    ("let c: real\nrandom R ~ Rademacher\nassume a: E[R^2] = c^2 + 2\n", "`a`", "no real root"),
    ("let p: real\nrandom B ~ Bernoulli(p)\nassume a: Var(B) = 1/2\n", "`a`", "no real root"),
    ("random X, Y\nassume a: Var(X) + Var(Y) = -1\n", "`a`", "always positive"),
    ("random B ~ Bernoulli(1/2)\nrandom X\nassume ind: independent(B, X)\nassume a: E[B X^2] = -1\n",
     "`ind`", "always positive"),
    ("let a, b: integer\nrandom D ~ DiscreteUniform(a, b)\nassume g: E[D] = a - 1\n", "`g`", "b - a = -2"),
    ("random X\nassume a: E[tanh(X)] = 2\n", "`a`", "(-1, 1)"),
    ("random X\nassume a: E[exp(X)] = 0\n", "`a`", "E[exp(X)]"),
    ("random X\nassume a: E[|X|] = 1, E[X] = 2\n", "`a`", "E[|h|] ≥ |E[h]|"),
    ("let i, j: index 1..4\nrandom q_i for i in 1..4\nassume v: Var(q_i) = 1\nassume c: Cov(q_i, q_j) = -1/2 for i != j\n",
     "`v`, `c`", "not positive semidefinite"),
    # equations between random variables, applied inside E here as in proofs (kernel/surely.py)
    ("random X\nassume a: X^2 = 1\nassume b: E[X] = 2\n", "`b`, `a`", "Var(X) = -3"),
    ("random X\nassume a: X^2 = 1\nassume b: E[X^2] < 1\n", "`b`, `a`", "E[X^2] < 1"),
    ("random A\nrandom R ~ Rademacher\nassume b: E[R^2 A] < E[A]\n", "`b`, `R ~ Rademacher`", "E[R^2 A] < E[A]"),
    ("random X, Y\nassume a: Y = 2 X\nassume b: E[Y] > 2 E[X]\n", "`b`, `a`", "E[Y] > 2 E[X]"),
    ("random Z ~ Normal(0, 1)\nassume a: Z^2 = 1\n", "`a`", "no common solution"),          # E[Z^4] = 3
    ("random X, Y\nassume i: independent(X, Y)\nassume v: Var(X) = 1\nassume a: Y = X\n", "`v`, `a`, `i`",
     "no common solution"),                                                                     # Y = X is constant
    # a relation between means that the sign of one function of the outcome breaks
    ("random X\nassume a: E[|X|] < E[X]\n", "`a`", "-X + |X|, which is nonnegative"),
    ("random X\nassume a: E[tanh(X)] > 1\n", "`a`", "tanh(X)"),
    # an almost-sure bound the declared law breaks with positive probability
    ("random R ~ Rademacher\nassume pos: R >= 0\n", "`pos`, `R ~ Rademacher`", "at R = -1"),
    ("random Z ~ Normal(0, 1)\nassume pos: Z > -5\n", "`pos`, `Z ~ Normal(0, 1)`", "tail"),
    ("let n: positive integer\nrandom D ~ DiscreteUniform(1, n)\nassume big: D >= 2\n", "`big`", "at D = 1"),
])
def test_assumptions_with_no_real_model_are_contradictory(text, labels, why):
    d = _inconsistent(text)
    assert d is not None and labels in d.title and any(why in n for n in d.notes), (text, d and d.notes)


@pytest.mark.parametrize("text", [
    "let x: real\nassume a: x^2 - 2 x + 1 = 0\n",                          # x = 1
    "let x, y: real\nassume a: x^2 + y^2 = 2\nassume b: x + y = 2\n",     # x = y = 1
    "let m: real\nrandom Z ~ Normal(m, 1)\nassume a: E[Z^2] = 2\n",        # m = ±1
    "let p: real\nrandom B ~ Bernoulli(p)\nassume a: Var(B) = 1/4\n",     # p = 1/2
    "random X, Y\nassume a: Var(X) + Var(Y) = 1\n",
    "let a, b: integer\nrandom D ~ DiscreteUniform(a, b)\nassume g: E[D] = a + 1\n",   # b = a + 2
    "random X\nassume a: E[tanh(X)] = 1/2\n",
    "random X\nassume a: E[|X|] = 2, E[X] = 1\n",
    "random X\nassume a: E[|X|] = 1, E[X] = -1\n",                        # X = -1
    "let i, j: index 1..4\nrandom q_i for i in 1..4\nassume v: Var(q_i) = 1\nassume c: Cov(q_i, q_j) = -1/3 for i != j\n",
    "let n: positive integer\nlet i: index 1..n\nrandom q_i for i in 1..n\nassume a: E[q_i] = -1\n",
    "random X\nassume a: X^2 = 1\nassume b: E[X] = 1/2\n",
    "random X, Y\nassume a: Y = 2 X\nassume b: E[Y] >= 2 E[X]\n",
    "random X, Y\nassume i: independent(X, Y)\nassume v: Var(X) = 0\nassume a: Y = X\n",    # a constant X
    "random X\nassume a: E[|X|] <= E[X]\n",                                                  # X >= 0
    "random X\nassume a: E[tanh(X)] > 1/2\n",
    "let p: real\nrandom B ~ Bernoulli(p)\nassume nn: B >= 0\n",
    "random U ~ Uniform(0, 1)\nassume pos: U > 0\n",                  # P(U = 0) = 0
    "random R ~ Rademacher\nassume a: R <= 1, R != 0\n",
    "random R ~ Rademacher\nrandom Y\nassume a: Y >= R\n",           # another variable: a bound on Y - R
    # a fact over a range that may be empty (2..n at n = 1) says nothing there
    "let n: positive integer\nlet i: index 2..n\nrandom q_i for i in 2..n\nassume a: E[exp(q_i)] = -1\n",
    "let n: positive integer\nlet i: index 2..n\nrandom q_i for i in 2..n\nassume a: E[|q_i|] = 1, E[q_i] = 2\n",
    "let n: positive integer\nlet i: index 2..n\nrandom q_i for i in 2..n\nassume a: Var(q_i) = -1\n",
    # `for i != j` over a range that may hold one index says nothing there
    "let i, j: index 1..1\nrandom q_i for i in 1..1\nassume a: E[q_i q_j] = 0 for i != j\nassume b: E[q_i q_j] = 1\n",
    "let n: positive integer\nlet i, j: index 1..n\nrandom q_i for i in 1..n\nassume a: E[q_i q_j] = 0 for i != j\n"
    "assume b: E[q_i q_j] = 1\n",
])
def test_assumptions_with_a_real_model_are_not(text):
    d = _inconsistent(text)
    assert d is None, (text, d.notes)


def test_the_consistency_check_stops_at_the_time_of_a_link():
    import time
    text = ("random X, Y, Z\n"
            "assume e1: E[X^2] + 3 E[X Y] - 2 E[Y Z] = 7\n"
            "assume e2: E[Y^2] - 5 E[X] E[Z] + 4 E[Z^2] = 3\n"
            "assume e3: E[Z^2] E[X] + 2 E[X Z] - 3 E[Y]^2 = 1\n"
            "assume e4: E[X Y Z] - 4 E[Y] E[X Z] + E[X]^3 = 5\n"
            "assume e5: E[X^2 Y] + 6 E[Z]^2 E[Y] - 2 = 0\n"
            "assume e6: E[Y]^3 - E[X] E[Y] E[Z] + 2 E[Z] = 4\n"
            "step s: E[X] + E[Y] + E[Z] = 1\n")
    t = time.monotonic()
    rep = check_text(text, "t.step", timeout=1.0)
    assert time.monotonic() - t < 30                         # was 74 s: the basis had no time limit
    assert any(d.code == "W-unchecked-assumptions" for d in rep.diagnostics)
    assert [lk.status for s in rep.steps for lk in s.links] == ["unknown"]


@pytest.mark.parametrize("claim", [
    "E[1/(X^2 + 2)] <= 1/2 + E[X^2]",      # 1/2 + X^2 - 1/(X^2 + 2) >= 0 on every outcome
    "E[max(X, 0)] >= 0",
    "E[abs(X)] >= E[X]",
    "E[tanh(X)] < 1",
    "E[abs(X - 1)] >= E[X] - 1",           # |X - 1| - (X - 1) >= 0: the cases X >= 1 and X < 1
    "E[abs(2 X + 1)] >= -2 E[X] - 1",
])
def test_a_mean_of_a_function_of_known_sign_has_that_sign(claim):
    rep = check_text(f"random X\nstep s: {claim}\n", "t.step")
    assert rep.steps[0].links[0].status == "holds", claim


@pytest.mark.parametrize("claim", ["E[abs(X)] > E[X]", "E[max(X, 0)] > 0", "E[X^2] > 0", "E[abs(X - 1)] >= E[X]"])
def test_no_strict_sign_where_the_function_may_vanish(claim):
    rep = check_text(f"random X\nstep s: {claim}\n", "t.step")
    assert rep.steps[0].links[0].status != "holds", claim
