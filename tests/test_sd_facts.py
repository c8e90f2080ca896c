"""An equation that sets a standard deviation (assumptions.sd_squared): ``SD(X) = σ`` also states
``Var(X) = σ^2`` and ``σ >= 0`` under its label, so the kernel's polynomials can read it."""
import pytest

from conftest import assert_verdict, claim_link
from stepcheck.checker import check_text

DECLS = ("random X, Y, Z\nlet a, c, s: real\nlet σ: positive real\nlet d: positive integer\nlet i: index 1..d\n"
         "random q_i for i in 1..d\n"
         "assume sX: SD(X) = σ\nassume m: E[X] = 0\nassume sY: 2 = SD(Y)\nassume sZ: SD(Z) = s\n"
         "assume sq: SD(q_i) = 3\n")


@pytest.mark.parametrize("claim, uses", [
    ("Var(X) = σ^2 by sX", {"sX"}),
    ("E[X^2] = σ^2 by sX, m", {"sX", "m"}),
    ("E[X^2] = σ^2 + E[X]^2 by sX", {"sX"}),
    ("SD(a X) = |a| σ by sX", {"sX"}),
    ("SD(X + c) = σ by sX", {"sX"}),
    ("Var(Y) = 4 by sY", {"sY"}),                     # the SD on the right of its equation
    ("Var(Z) = s^2 by sZ", {"sZ"}),
    ("s >= 0 by sZ", {"sZ"}),                         # a standard deviation is never negative
    ("Var(q_i) = 9 by sq", {"sq"}),                   # quantified alike
    ("sum(i=1..d, Var(q_i)) = 9 d by sq", {"sq"}),
])
def test_an_sd_fact_gives_the_variance(claim, uses):
    link = claim_link(DECLS, claim)
    assert_verdict(link, "holds", claim=claim)
    assert {u.label for u in link.uses} == uses, (claim, [u.label for u in link.uses])


@pytest.mark.parametrize("claim", [
    "Var(X) = σ by sX",                  # not squared
    "SD(a X) = a σ by sX",               # a = -1
    "E[X^2] = σ^2 by sX",                # the mean is not given
    "s > 0 by sZ",                       # SD(Z) = 0 is allowed
    "Var(Y) = 2 by sY",
])
def test_an_sd_fact_gives_no_more(claim):
    assert_verdict(claim_link(DECLS, claim), "fails", claim=claim)


def test_a_negative_sd_is_a_contradiction():
    rep = check_text("random Y\nassume bad: SD(Y) = -1\nstep y: Var(Y) = 1 by bad\n", "t.step")
    assert "E-inconsistent" in {d.code for d in rep.diagnostics} and rep.steps[0].status == "unknown"
