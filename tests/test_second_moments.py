"""Margins quadratic in one value, and the second moment of a surely bounded variable (kernel/second_moments.py).

a m^2 + b m + c >= 0 where a > 0 and 4 a c - b^2 >= 0; E[X^2] = (lo + hi) E[X] - lo hi - G, G >= 0, where
lo <= X <= hi on every outcome (Popoviciu: Var(X) <= (hi - lo)^2 / 4).  Where each applies the link holds;
where it must not (a bound on one side only, a bound on the law rather than the outcome, a tighter constant,
a strict bound reached), the link does not hold."""
import pytest

from conftest import assert_verdict, claim_link

DECLS = ("let n, m: positive integer\nlet i, j: index 1..n\nlet k: index 2..n\nlet a: index 1..m\nrandom Q_i for i in 1..n\n"
         "random P_i for i in 1..n\nassume p01: P_i >= 0, P_i <= 1\n"
         "assume q01: Q_k >= 0, Q_k <= 1\nlet x, y, t: real\nrandom B, A, C, D, X, O\nassume b01: B >= 0, B <= 1\nassume a11: A >= -1, A <= 1\n"
         "assume c24: C >= 2, C <= 4\nassume o01: O > 0, O < 1\nassume dlaw: E[D] >= 0, E[D] <= 1, E[D^2] <= 1\nassume xlow: X >= 0\n")


def _link(claim):
    return claim_link(DECLS, claim)


@pytest.mark.parametrize("claim, rule, uses", [
    ("Var(B) <= 1/4", "bounded", {"b01"}),
    ("Var(B) <= E[B] (1 - E[B])", "bounded", {"b01"}),
    ("E[B^2] - E[B]^2 <= 1/4", "bounded", {"b01"}),
    ("Var(A) <= 1", "bounded", {"a11"}),
    ("Var(C) <= 1", "bounded", {"c24"}),
    ("SD(C) <= 1", "bounded", {"c24"}),                # with squared
    ("Var(O) < 1/4", "bounded", {"o01"}),              # strict bounds: (O - 0)(1 - O) > 0 on every outcome
    ("Var(Q_k) <= 1/4", "bounded", {"q01"}),           # a family member at the fact's own index
    ("Var(P_j) <= 1/4", "bounded", {"p01"}),           # bounds over the family's own range: every member
    ("Var(P_1) <= 1/4", "bounded", {"p01"}),           # 1 is in 1..n for every positive n
    ("x^2 - 2 x y + 2 y^2 >= 0", "inequality", set()),
    ("t^2 + t + 1 > 0", "inequality", set()),
])
def test_holds(claim, rule, uses):
    link = _link(claim)
    assert_verdict(link, "holds", rule, claim)
    assert uses <= {u.label for u in link.uses}, (claim, link.uses)


@pytest.mark.parametrize("claim, status", [
    ("Var(B) < 1/4", "not holds"),          # B = 0 or 1 with probability 1/2 each: Var(B) = 1/4
    ("Var(B) <= 1/5", "not holds"),
    ("Var(C) <= 1/2", "not holds"),
    ("Var(X) <= 1/4", "not holds"),         # a bound on one side only
    ("Var(D) <= 1/4", "not holds"),         # bounds on the law, not on each outcome
    ("Var(Q_i) <= 1/4", "not holds"),       # i ranges over 1..n, the bounds are about 2..n
    ("Var(Q_k) <= 1/5", "not holds"),
    ("Var(Q_1) <= 1/4", "not holds"),       # the bounds are over 2..n, not the family's 1..n
    ("Var(P_a) <= 1/4", "not holds"),       # a ranges over 1..m, which may reach past n
    ("Var(P_2) <= 1/4", "not holds"),       # 2 is in 1..n only where n >= 2
    ("x^2 - 3 x y + 2 y^2 >= 0", "not holds"),  # x = 3/2, y = 1 (between the trial values)
    ("t^2 + 2 t + 1 > 0", "fails"),         # t = -1
])
def test_gives_nothing_more(claim, status):
    assert_verdict(_link(claim), status, claim=claim)


def test_quadratic_rule_itself():
    import sympy as sp

    from stepcheck.kernel.calculus import symbol_domain
    from stepcheck.kernel.second_moments import quadratic_proof

    m, c = sp.symbols("m c", real=True)
    g = sp.Symbol("g", nonnegative=True)
    assert quadratic_proof(m**2 - m + sp.Rational(1, 4) + g, False, symbol_domain)[0]
    assert not quadratic_proof(m**2 - m + sp.Rational(1, 4) + g, True, symbol_domain)[0]   # 0 at m = 1/2, g = 0
    assert not quadratic_proof(m**2 - m + c, False, symbol_domain)[0]                       # c of no sign
    assert not quadratic_proof(-m**2 + 1, False, symbol_domain)[0]                          # a < 0


SYMBOLIC = ("random G, H, K\nlet lo, hi, m: real\nlet c: positive real\nassume box: lo <= G, G <= hi\n"
            "assume hbox: H >= -c, c > H\nassume one: m <= K\n")


@pytest.mark.parametrize("claim, status", [
    ("Var(G) <= (hi - lo)^2 / 4", "holds"),                  # Popoviciu with the bounds as names
    ("Var(G) <= E[G] (hi + lo) - lo hi - E[G]^2", "holds"),
    ("Var(G) <= (hi - lo)^2 / 8", "fails"),                  # G in {lo, hi}, each with probability 1/2
    ("Var(G) < (hi - lo)^2 / 4", "fails"),                   # reached there
    ("Var(H) <= c^2", "holds"),                              # written the other way round, one bound strict
    ("Var(H) <= c^2 / 2", "not holds"),
    ("Var(K) <= m^2", "not holds"),                          # a bound on one side only
])
def test_popoviciu_with_bounds_by_names(claim, status):
    link = claim_link(SYMBOLIC, claim)
    assert_verdict(link, status, "bounded", claim)
