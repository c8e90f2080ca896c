"""A guard a declared law breaks whatever its names stand for (judge/support.py): where the probability of
the guard cannot be computed (names in the law or in the guard), an outcome the law always charges at
which the guard provably fails makes the expression E-undefined, instead of a link that holds only
"where" the law is contradicted."""
import pytest

from stepcheck.checker import check_text

DECLS = """let m: real
let c: real
let n: positive integer
let p: real
let a: real
let b: real
random Z ~ Normal(m, 1)
random K ~ Binomial(n, 1/2)
random R ~ Rademacher
random B ~ Bernoulli(p)
random D ~ DiscreteUniform(1, n)
random W ~ Uniform(a, b)
random q_i ~ Rademacher for i in 1..n
"""


def _check(claim, assume=""):
    rep = check_text(DECLS + assume + f"step s: {claim}\n", "t.step")
    undefined = [d for d in rep.diagnostics if d.code == "E-undefined"]
    return undefined, [lk.status for lk in rep.steps[-1].links] if rep.steps else []


@pytest.mark.parametrize("claim, assume, where", [
    ("E[sqrt(Z)^2] = m", "", "tail"),                                      # a Normal charges every half-line
    ("E[sqrt(Z - m - 1)^2] = -1", "", "near Z = m"),
    ("E[log(Z)] = 0", "", "tail"),
    ("E[sqrt(K - 1)^2] = n/2 - 1", "", "at K = 0"),                      # P(K = 0) = 2^-n
    ("E[sqrt(c + R)^2] = c", "assume b1: -1 < c, c < 1\n", "at R = -1"),  # R + c < 0 at R = -1, by c < 1
    ("E[sqrt(B - 1)^2] = p - 1", "assume pr: p < 1\n", "at B = 0"),       # P(B = 0) = 1 - p > 0
    ("E[1/(D - 1)] = 0", "", "at D = 1"),                                  # P(D = 1) = 1/n
    ("E[sqrt(q_i + c)^2] = c", "let i: index 1..n\nassume b1: c < 1\n", "at q_1 = -1"),   # one member
])
def test_a_guard_the_law_breaks_for_every_value_of_the_names_is_undefined(claim, assume, where):
    undefined, statuses = _check(claim, assume)
    assert undefined and any(where in n for n in undefined[0].notes), claim
    assert "holds" not in statuses


@pytest.mark.parametrize("claim, assume", [
    ("E[sqrt(c + R)^2] = c", "assume b1: c >= 1\n"),          # R + c >= 0 on the whole support
    ("E[sqrt(c + R)^2] = c", ""),                              # c >= 1 is possible: the condition is shown
    ("E[sqrt(B - 1)^2] = p - 1", ""),                          # p = 1 makes B = 1 almost surely
    ("E[sqrt(Z^2)] = E[abs(Z)]", ""),                          # Z^2 >= 0 everywhere
    ("E[log(exp(Z))] = m", ""),
    ("E[1/(Z - m)] = E[1/(Z - m)]", ""),                       # P(Z = m) = 0 under a continuous law
    ("E[1/R] = 0", ""),
    ("E[sqrt(W - a)^2] = (b - a)/2", ""),                      # W >= a on the support of Uniform(a, b)
    ("E[sqrt(K)^2] = n/2", ""),
    ("E[sqrt(Y - Z)^2] = E[Y] - E[Z]", "random Y\nassume a: Y >= Z\n"),    # another random variable moves with Z
    ("E[sqrt(max(G) - G_1)^2] = E[max(G)] - E[G_1]", "random G_i ~ Normal(0, 1) for i in 1..2\n"),  # max(G) >= G_1
])
def test_a_guard_the_law_may_keep_is_not_undefined(claim, assume):
    undefined, statuses = _check(claim, assume)
    assert not undefined, (claim, [d.notes for d in undefined])
    assert statuses and "fails" not in statuses, claim
