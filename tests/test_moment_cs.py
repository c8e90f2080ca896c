"""Cauchy-Schwarz for moments (kernel/moment_cs.py, rule `cauchy_schwarz`).

E[u v]^2 <= E[u^2] E[v^2] and Cov(u, v)^2 <= Var(u) Var(v) for any random u, v; Cov(u, v) = ρ SD(u) SD(v) for
some ρ in [-1, 1].  Where it applies the link holds and names the rule; where it must not (a strict bound met
where u and v are proportional, a bound the inequality does not give), the link does not hold."""
import pytest

from conftest import assert_verdict, claim_link

DECLS = ("random X, Y, Z, U, V\nrandom G ~ Normal(0, 1)\nassume unit: Var(U) = 1, Var(V) = 4\n")


def _link(claim):
    return claim_link(DECLS, claim)


@pytest.mark.parametrize("claim", [
    "Cov(X, Y)^2 <= Var(X) Var(Y)",
    "E[X Y]^2 <= E[X^2] E[Y^2]",
    "Var(Y) Var(X) >= Cov(Y, X)^2",
    "2 Cov(X, Y)^2 <= 2 Var(X) Var(Y) + 1",
    "|Cov(X, Y)| <= SD(X) SD(Y)",                   # with squared
    "SD(X + Y) <= SD(X) + SD(Y)",                   # with squared: 2 SD(X) SD(Y) - 2 Cov(X, Y) >= 0
    "Cov(X, Y) >= -SD(X) SD(Y)",
    "Cov(U, V) <= 2   by unit",                     # SD(U) SD(V) = 2 by the facts
    "E[G X]^2 <= E[X^2]",                           # E[G^2] = 1 by the law
    # pairs the link writes, before linearity splits them: a Gram determinant of compound quantities
    "Cov(X + Y, Z)^2 <= Var(X + Y) Var(Z)",
    "E[(X + Y) Z]^2 <= E[(X + Y)^2] E[Z^2]",
    "Cov(X - Y, X + Y)^2 <= Var(X - Y) Var(X + Y)",
    "3 Cov(2 X + Y, Z)^2 <= 3 Var(2 X + Y) Var(Z) + 1",
])
def test_cauchy_schwarz_holds(claim):
    assert_verdict(_link(claim), "holds", "cauchy_schwarz", claim)


@pytest.mark.parametrize("claim, status", [
    ("Cov(X, Y)^2 < Var(X) Var(Y)", "fails"),          # Y = X: equality
    ("Cov(X, Y) < SD(X) SD(Y)", "fails"),
    ("E[X Y]^2 <= E[X^2] E[Y]^2", "fails"),            # not Cauchy-Schwarz: E[Y]^2 may be 0
    ("Cov(X, Y)^2 <= Var(X) Var(Y) - 1", "fails"),
    ("E[X Y] <= E[X] E[Y]", "fails"),
    ("Cov(X, Y)^2 <= Var(X)", "fails"),
    ("Cov(U, V) <= 1   by unit", "fails"),             # 2 is the bound, reached where V = 2 U
    ("SD(X + Y) < SD(X) + SD(Y)", "not holds"),        # Y = X: equality
    ("Cov(X + Y, Z)^2 < Var(X + Y) Var(Z)", "not holds"),     # Z = X + Y: equality
    ("Cov(X + Y, Z)^2 <= Var(X) Var(Z)", "not holds"),        # Y = Z, X = 0
    ("Cov(X + Y, Z)^2 <= Var(X + Y) Var(Z) / 2", "not holds"),
    ("E[(X + Y) Z]^2 <= E[(X + Y)^2] E[Z]^2", "not holds"),   # E[Z] = 0
])
def test_cauchy_schwarz_gives_nothing_more(claim, status):
    assert_verdict(_link(claim), status, claim=claim)
