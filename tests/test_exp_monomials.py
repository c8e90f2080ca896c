"""Exponentials as monomials in positive unknowns (kernel/exp_monomials.py, through `monotone`)."""
import pytest
import sympy

from conftest import assert_verdict, claim_link
from stepcheck.kernel.exp_monomials import exp_monomials

DECLS = "let α, β, c: real\nlet a: positive real\nrandom X\n"


@pytest.mark.parametrize("claim, status", [
    ("exp(α) + exp(β) >= 2 exp((α + β)/2)", "holds"),              # AM-GM: (u_α - u_β)^2
    ("log(exp(α) + exp(β)) >= (α + β)/2 + log(2)", "holds"),       # through exp(g) - 1
    ("exp(α) + exp(-α) >= 2", "held before"),                      # (also by the interval evaluator)
    ("a exp(α) + a exp(β) >= 2 a exp((α + β)/2)", "holds"),         # a positive parameter as coefficient
    ("exp(α/3) + exp(α/3) + exp(-2 α/3) >= 3", "held before"),      # (also by tangent lines)
    ("4 exp(α) + exp(β) >= 4 exp((α + β)/2)", "holds"),           # (2 u_α - u_β)^2
    # a sum of three squares is not found by factoring: unknown, never false
    ("exp(2 α) + exp(2 β) + exp(2 c) >= exp(α + β) + exp(β + c) + exp(α + c)", "not fails"),
    ("exp(α) + exp(β) > 2 exp((α + β)/2)", "fails"),               # α = β
    ("exp(α) + exp(β) >= 3 exp((α + β)/2)", "fails"),
    ("log(exp(α) + exp(β)) > (α + β)/2 + log(2)", "fails"),
    ("log(exp(α) + exp(β)) >= (α + β)/2 + log(3)", "fails"),
    ("exp(α) + α >= 1", "fails"),                                   # α outside an exponential: not substituted
    ("c exp(α) + c exp(β) >= 2 c exp((α + β)/2)", "fails"),         # c of no sign
])
def test_exponentials_as_monomials(claim, status):
    if status == "not fails":
        assert claim_link(DECLS, claim).status != "fails", claim
    elif status == "held before":
        assert_verdict(claim_link(DECLS, claim), "holds", None, claim)
    else:
        assert_verdict(claim_link(DECLS, claim), status, "monotone" if status == "holds" else None, claim)


def test_the_substitution_applies_only_where_it_is_exact():
    al, be = sympy.symbols("α β", real=True)
    p = exp_monomials(sympy.exp(al) + sympy.exp(be) - 2 * sympy.exp((al + be) / 2))
    assert p is not None and sympy.factor(p).is_Pow  # (u_α - u_β)^2
    assert exp_monomials(sympy.exp(al) + al) is None                          # a symbol outside
    assert exp_monomials(sympy.exp(al + 1) + sympy.exp(be)) is None           # a constant term
    assert exp_monomials(sympy.exp(al * be) + 1) is None                      # not linear
    assert exp_monomials(sympy.exp(abs(al - be)) - 1) is None                 # not a polynomial (no PolynomialError)
    assert exp_monomials(sympy.exp(1 / al) - 1) is None
    assert exp_monomials(sympy.exp(sympy.sqrt(2) * al) + 1) is None           # an irrational coefficient
    assert exp_monomials(sympy.exp(sympy.exp(al)) - 1) is None                # nested
    assert exp_monomials(sympy.exp(40 * al) - 1) is None                      # degree past the limit
