"""A family's largest (smallest) entry is one of its members (kernel/attained.py, rule `attained`).

Where it applies (a link that holds at every member holds at the largest one) the link holds with
`attained`; where it must not (a random family, a claim about the largest member that another member
breaks, an empty range, a strict bound met with equality), the link does not hold."""
import pytest

from conftest import claim_link

DECLS = ("let n: positive integer\nlet m: integer\nlet T: positive real\nreal x_i for i in 1..n\n"
         "real y_i for i in 1..m\nrandom q_i for i in 1..n\n")


def _link(claim):
    return claim_link(DECLS, claim)


@pytest.mark.parametrize("claim", [
    "log(sum(j=1..n, exp(x_j))) >= max(x)",                 # log-sum-exp is at least the largest logit
    "sum(j=1..n, exp(x_j)) >= exp(max(x))",
    "T log(sum(j=1..n, exp(x_j / T))) >= max(x)",           # at a temperature
    "sum(j=1..n, exp(-x_j)) >= exp(-min(x))",               # the smallest entry likewise
])
def test_a_link_true_at_every_member_holds_at_the_largest(claim):
    link = _link(claim)
    assert link.status == "holds", (claim, link.status, link.residual)
    assert "attained" in link.rules


@pytest.mark.parametrize("claim", [
    "max(x) = x_1",                                         # x_2 may be larger
    "log(sum(j=1..n, exp(x_j))) > max(x)",                  # n = 1: equality
    "sum(j=1..n, x_j) >= max(x)",                           # the other members may be negative
    "log(sum(j=1..n, exp(x_j))) >= max(x) + 1",
    "log(sum(j=1..m, exp(y_j))) >= max(y)",                 # 1..m may be empty: no largest entry
    "log(sum(j=1..n, exp(q_j))) >= max(q)",                 # a random family: not by this rule
])
def test_no_more_than_at_some_member(claim):
    link = _link(claim)
    assert link.status != "holds" or "attained" not in link.rules, claim
    if claim.startswith(("max(x) =", "log(sum(j=1..n, exp(x_j))) >", "sum(j=1..n, x_j)")):
        assert link.status == "fails", (claim, link.status)
