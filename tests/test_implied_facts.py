"""Facts an assumption implies under its own label (assumptions.implied_facts): an equation that sets a
standard deviation, ``SD(X) = σ``, also states ``Var(X) = σ^2`` and ``σ >= 0``, so the kernel's polynomials
can read it (sd_squared); ``|u| <= c`` states ``u <= c`` and ``-u <= c`` (abs_sides)."""
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


ABS = ("let h: positive integer\nlet t: index 1..h\nreal g_t for t in 1..h\nlet x, y, c: real\n"
       "assume box: |g_t| <= 1\nassume open: 2 > |x|\nassume far: |y| >= 1\nassume cb: |x - c| <= 1\n"
       "assume low: |x| >= -4\n")


@pytest.mark.parametrize("claim, status", [
    ("sum(t=1..h, g_t) >= -h by box", "holds"),       # member by member: g_t >= -1
    ("sum(t=1..h, g_t^2) <= h by box", "holds"),
    ("g_t <= 1 by box", "holds"),
    ("x < 2 by open", "holds"),                        # strict stays strict
    ("x > -2 by open", "holds"),
    ("c - 1 <= x by cb", "holds"),
    ("x <= 1 + c by cb", "holds"),
    ("sum(t=1..h, g_t) > -h by box", "not holds"),     # all -1 (no witness pattern gives every member -1)
    ("x <= -2 by open", "fails"),
    ("x < 1 + c by cb", "fails"),                      # x = c + 1
    ("y >= 1 by far", "fails"),                        # |y| >= 1 bounds y from no side
    ("y <= -1 by far", "fails"),
    ("y^2 >= 1 by far", "holds"),                      # but its square from below
    ("y^2 > 1 by far", "fails"),
    ("x^2 >= 4 by low", "not holds"),                  # |x| >= -4 says nothing
])
def test_an_absolute_bound_gives_both_sides(claim, status):
    assert_verdict(claim_link(ABS, claim), status, claim=claim)
