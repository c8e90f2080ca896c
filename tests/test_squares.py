"""Both sides squared (kernel/squares.py): A <= B for B proved >= 0 (or A proved <= 0), as A^2 <= B^2.

Where it applies the link holds with `squared`; where it must not (a side that may be negative, a bound
missed by a margin, a strict bound met with equality) the link does not hold."""
import pytest

from conftest import claim_link

DECLS = ("let n: positive integer\nreal a_i, b_i for i in 1..n\nlet u: real\nlet p, q: nonnegative real\n"
         "random R ~ Rademacher\nrandom ε_i ~ Rademacher for i in 1..n\nrandom Z ~ Normal(0, 1)\n")


def _link(claim):
    return claim_link(DECLS, claim)


@pytest.mark.parametrize("claim", [
    "|sum(i=1..n, a_i b_i)| <= sqrt(sum(i=1..n, a_i^2)) sqrt(sum(i=1..n, b_i^2))",  # Cauchy-Schwarz
    "sqrt(sum(i=1..n, a_i^2)) sqrt(sum(i=1..n, b_i^2)) >= |sum(i=1..n, a_i b_i)|",
    "sqrt(p q) <= (p + q) / 2",                                                        # AM-GM
    "|sum(i=1..n, a_i)| <= sqrt(n) sqrt(sum(i=1..n, a_i^2))",
    "|R| = 1",                                        # equal squares of two nonnegative sides: R^2 = 1 by the law
    "sqrt(R^2) = 1",
    "|ε_i| = 1",
    "2 * |R| = sqrt(4)",
    # a smaller side of no sign: A <= |A| <= B, and for A <= 0 the mirror, -B <= |B| <= -A
    "sum(i=1..n, a_i b_i) <= sqrt(sum(i=1..n, a_i^2)) sqrt(sum(i=1..n, b_i^2))",
    "-sqrt(sum(i=1..n, a_i^2)) sqrt(sum(i=1..n, b_i^2)) <= sum(i=1..n, a_i b_i)",
    "u <= sqrt(u^2 + 1)",
    "u < sqrt(u^2 + 1)",
    "-sqrt(u^2 + 1) < u",
])
def test_squared_holds(claim):
    link = _link(claim)
    assert link.status == "holds", (claim, link.status, link.message)
    assert "squared" in link.rules


@pytest.mark.parametrize("claim", [
    "|u| <= sqrt(u^2 + 1) - 2",                       # u = 0: the right side is negative, never squared
    "-1 <= -sqrt(u^2 + 4)",                           # squared, 1 <= u^2 + 4 holds: the sign matters
    "sqrt(p q) < (p + q) / 2",                        # p = q: equality
    "|sum(i=1..n, a_i)| <= sqrt(sum(i=1..n, a_i^2))",  # n = 2, a = (1, 1): 2 > sqrt(2)
    "|u| = sqrt(u^2 + 1) - 1",                        # u = 1: equal squares needs both sides' signs and values
    "u <= sqrt(u^2 - 2 u + 1)",                       # u = 1: 1 > 0 (the squares are equal only for u <= 1/2)
    "-sqrt(u^2 + 1) <= u - 1",                        # u = -1/2 ... u^2 + 1 >= (u - 1)^2 fails for u < 0
    "u + 1 <= sqrt(u^2 + 1)",                         # u = 1: 2 > sqrt(2)
])
def test_squared_near_misses_fail(claim):
    link = _link(claim)
    assert link.status == "fails", (claim, link.status)


@pytest.mark.parametrize("claim", [
    "R = 1",                                          # R^2 = 1, but R may be -1: R is not proved >= 0
    "-|R| = -1 + 0 R",                                # a side proved <= 0 is never squared
    "|Z| = 1",                                        # Z^2 = 1 is not a fact of the normal law
    "|R + ε_1| = 2",                                  # (R + ε_1)^2 = 2 + 2 R ε_1, not 4
])
def test_equal_squares_do_not_give_more(claim):
    link = _link(claim)
    assert link.status != "holds", (claim, link.status)
    assert "squared" not in link.rules
