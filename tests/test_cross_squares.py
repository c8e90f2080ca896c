"""Cross terms under squares (kernel/cross_squares.py, part of the rule `inequality`).

-c w u v beside a w u^2 and b w v^2 (4 a b >= c^2, w >= 0) is at least what is left after (c/2)(t u^2 + v^2/t);
where it applies the link holds; where it must not (a cross term larger than its diagonal allows, a multiplier
of no sign, a strict bound met with equality), the link does not hold."""
import pytest

from conftest import assert_verdict, claim_link

DECLS = ("let n: positive integer\nlet i, j: index 1..n\nlet x, y, z: real\nlet u, v: positive real\n"
         "real s_i for i in 1..n\ndefine p_i = exp(s_i) / sum(r=1..n, exp(s_r))\n")


def _link(claim):
    return claim_link(DECLS, claim)


@pytest.mark.parametrize("claim", [
    "p_i p_j <= 1/4 for i != j",                    # (e_i - e_j)^2 + R^2 + 2 (e_i + e_j) R over the rest R
    "diff(p_i, s_j) >= -1/4",                       # i = j: p (1 - p) >= 0; i != j: -p_i p_j >= -1/4
    "x^2 + y^2 + z^2 >= x y + y z + z x",           # each diagonal shared by two cross terms
    "x^2 + 4 y^2 >= 3 x y",                         # unequal weights: t = 3/4 .. 8/3
    "x^2 y^2 + 1 >= 2 x y",
    "u^2 v + v^3 >= 2 u v^2",                       # a common factor v > 0
])
def test_cross_terms_under_squares_hold(claim):
    assert_verdict(_link(claim), "holds", "inequality", claim)


@pytest.mark.parametrize("claim, status", [
    ("x^2 + y^2 >= 3 x y", "fails"),                # 4 a b < c^2
    ("x^2 + y^2 + z^2 >= 2 x y + y z", "fails"),    # not positive semidefinite
    ("u^2 + v^2 > 2 u v", "fails"),                 # u = v
    ("x^2 z + y^2 z >= 2 x y z", "fails"),          # z of no sign
    ("p_i p_j <= 1/5 for i != j", "fails"),
    ("diff(p_i, s_j) >= -1/5", "fails"),
])
def test_cross_terms_give_nothing_more(claim, status):
    assert_verdict(_link(claim), status, claim=claim)


def test_the_rule_itself_where_it_applies_and_where_it_must_not():
    import sympy as sp

    from stepcheck.kernel.calculus import symbol_domain
    from stepcheck.kernel.cross_squares import cross_squares_proof

    x, y, z = sp.symbols("x y z", real=True)
    w = sp.Symbol("w", positive=True)
    assert cross_squares_proof(x**2 + y**2 + z**2 - x*y - y*z - z*x, False, symbol_domain)[0]
    assert cross_squares_proof(w * (x**2 + y**2) - 2 * w * x * y + 1, True, symbol_domain)[0]   # 1 > 0 is left
    assert not cross_squares_proof(x**2 + y**2 - 2*x*y, True, symbol_domain)[0]                 # 0 at x = y
    assert not cross_squares_proof(x**2 + y**2 - 3*x*y, False, symbol_domain)[0]
    assert not cross_squares_proof(z * (x**2 + y**2) - 2 * z * x * y, False, symbol_domain)[0]  # z of no sign
