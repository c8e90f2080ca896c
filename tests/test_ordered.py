"""Assumed orderings put in (kernel/ordered.py, part of the rule `inequality`).

A fact u > v is used by writing one value of u - v through a fresh G > 0, an identity wherever the fact
holds.  Where it applies the link holds and cites the fact; where it must not (the ordering the other
way, a margin the fact does not give, a whole number or a random variable), the link does not hold."""
import pytest

from conftest import assert_verdict, claim_link
from stepcheck.checker import check_text

DECLS = ("let a, b, c, u, w: real\nlet k: positive real\nlet n: positive integer\nreal s_i for i in 1..n\n"
         "random X\nassume ab: a > b\nassume bc: b > c\nassume uw: 2 u > 2 w\nassume weak: u >= c\n"
         "assume two: n >= 2\nassume top: s_1 > s_2\nassume rv: X > a\n")


def _link(claim):
    return claim_link(DECLS, claim)


@pytest.mark.parametrize("claim, uses", [
    ("2 a > 2 b", {"ab"}),
    ("a/2 > b/2", {"ab"}),
    ("exp(a) > exp(b)", {"ab"}),                      # exp(b) (exp(G) - 1) > 0
    ("k (a - b) > 0", {"ab"}),
    ("(a - b)^3 > 0", {"ab"}),
    ("u > w", {"uw"}),                                # the fact scaled: 2 u > 2 w
    ("a > c", {"ab", "bc"}),                          # two facts, one after the other
    ("3 a - 3 c > 0", {"ab", "bc"}),
    ("u >= c", {"weak"}),
    ("exp(s_1) / sum(m=1..n, exp(s_m)) > exp(s_2) / sum(m=1..n, exp(s_m))", {"top"}),   # softmax keeps the order
])
def test_orderings_put_in_hold(claim, uses):
    link = _link(claim + "   by " + ", ".join(sorted(uses)))
    assert link.status == "holds", (claim, link.status, link.residual)
    assert uses <= {u.label for u in link.uses}


@pytest.mark.parametrize("claim", [
    "exp(b) > exp(a)   by ab",        # the other way
    "a - 1 > b   by ab",              # a margin of 1 is not assumed
    "2 a >= 2 b + 1   by ab",
    "u > c   by weak",                # weak: u = c is allowed
    "a^2 > b^2   by ab",              # a = 0, b = -1
    "a > c   by ab",                  # b > c is not cited
    "E[X] > a + 1   by rv",           # a random variable is never written through a gap
])
def test_orderings_do_not_give_more(claim):
    assert _link(claim).status != "holds", claim


def test_a_whole_number_is_not_written_through_a_gap():
    from sympy import Symbol

    from stepcheck.kernel.ordered import _values

    n, x = Symbol("n", integer=True, positive=True), Symbol("x", real=True)
    assert _values(n - 2 + x, x, lambda t: False) == [x]


INC = ("let x, y, u, w: real\nlet c: positive real\nlet n: positive integer\nreal s_i for i in 1..n\n"
       "assume xy: x > y\nassume uw: u >= w\nassume wpos: w > 0\nassume top: s_1 > s_2\n")


@pytest.mark.parametrize("claim, status", [
    # f(A) - f(B) has the sign of A - B for a strictly increasing f (kernel/increasing.py, rule monotone)
    ("tanh(x) > tanh(y)   by xy", "holds"),
    ("log(1 + exp(x)) > log(1 + exp(y))   by xy", "holds"),     # nested: through exp(x) - exp(y)
    ("tanh(x)^3 > tanh(y)^3   by xy", "holds"),                  # an odd power, on the reals (x^3 > y^3 alone
                                                                 # is a form in y and x - y: real_roots)
    ("sqrt(u) >= sqrt(w)   by uw, wpos", "holds"),               # u, w >= 0 proved with the facts
    ("c tanh(2 x) > c tanh(2 y)   by xy", "holds"),
    ("log(exp(s_1) + 1) > log(exp(s_2) + 1)   by top", "holds"),
    ("tanh(u) > tanh(w)   by uw", "fails"),                      # u = w: not strict
    ("sqrt(u) > sqrt(w)   by uw, wpos", "fails"),
    ("x^2 > y^2   by xy", "fails"),                              # an even power of no sign: x = 1, y = -1
    ("exp(-x) > exp(-y)   by xy", "fails"),                      # decreasing in x
    ("tanh(x) > tanh(y) + 1/100   by xy", "not holds"),          # a margin the order does not give
    ("tanh(u) > tanh(x)   by xy", "not holds"),                  # no order between u and x
])
def test_differences_of_an_increasing_function(claim, status):
    link = check_text(INC + f"step t: {claim}\n", "t.step").steps[-1].links[0]
    assert_verdict(link, status, "monotone", claim)


@pytest.mark.parametrize("claim, status", [
    ("u >= w   by a", "holds"),        # p u >= p w with p declared positive: u = w + G/p
    ("w > u   by b", "holds"),         # -p u > -p w
    ("u > w   by a", "fails"),         # weak: u = w
    ("u > w   by c", "not holds"),     # k of no sign: k = -1 turns the order
])
def test_a_fact_scaled_by_a_declared_sign(claim, status):
    text = ("let u, w, k: real\nlet p: positive real\nassume a: p u >= p w\nassume b: -p u > -p w\n"
            "assume c: k u > k w\n" f"step t: {claim}\n")
    link = check_text(text, "t.step").steps[-1].links[0]
    assert_verdict(link, status, "inequality", claim)
    if status == "holds":
        assert "p > 0" in [u.label for u in link.uses]
