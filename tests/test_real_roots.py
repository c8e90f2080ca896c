"""The sign of a polynomial in one variable, or of a form in two, decided by its real roots
(kernel/real_roots.py, part of `inequality`): where interval bounds lose the sign of terms of opposite
signs (x^4 - 4 x + 3 = (x - 1)^2 (x^2 + 2 x + 3))."""
import pytest
import sympy
from sympy import Rational, oo

from conftest import assert_verdict, claim_link
from stepcheck.kernel.calculus import REALS, Iv, sign_proof
from stepcheck.kernel.real_roots import (NEGATIVE, NONNEGATIVE, NONPOSITIVE, POSITIVE, _on_interval, _outer,
                                         polynomial_sign)

x, a, b = sympy.symbols("x a b", real=True)
HALF_LINE = Iv(sympy.Integer(0), oo, False, True)  # [0, oo)
UNIT = Iv(sympy.Integer(0), sympy.Integer(1))  # [0, 1]


def enclosed(**ivs):
    return lambda g: ivs.get(str(g), REALS)


@pytest.mark.parametrize("f, ivs, sign", [
    (x**4 - 4 * x + 3, {}, NONNEGATIVE),                # (x - 1)^2 (x^2 + 2x + 3): 0 at x = 1
    (x**4 - 4 * x + 4, {}, POSITIVE),                   # its minimum is 1
    (-(x**4) + 4 * x - 3, {}, NONPOSITIVE),
    (x**4 - 4 * x + 2, {}, None),                       # 1 - 4 + 2 < 0 < 2: both signs
    (x**3 - x, {"x": Iv(sympy.Integer(1), oo, False, True)}, NONNEGATIVE),  # [1, oo): 0 at 1
    (x**3 - x, {"x": Iv(sympy.Integer(1), oo, True, True)}, POSITIVE),      # (1, oo)
    (x**3 - x, {"x": HALF_LINE}, None),                 # x = 1/2 gives -3/8
    (x - x**2, {"x": UNIT}, NONNEGATIVE),
    (x - x**2, {"x": Iv(sympy.Integer(0), sympy.Integer(1), True, True)}, POSITIVE),
    (x**2 - 2, {"x": Iv(sympy.sqrt(2), oo, False, True)}, None),  # an end moved outwards: 1.414213 < sqrt(2)
    (x**2 - 2, {"x": Iv(sympy.Integer(2), oo, False, True)}, POSITIVE),
    (a**4 + b**4 - a**3 * b - a * b**3, {}, NONNEGATIVE),  # (a - b)^2 (a^2 + a b + b^2): a form
    (a**4 + b**4 - a**3 * b - a * b**3 - a**2 * b**2, {}, None),  # a = b = 1: -1
    (a**3 * b + a * b**3, {}, None),                    # odd in (a, b): both signs
    (a**3 + b**3 - a**2 * b - a * b**2, {}, None),      # (a + b)(a - b)^2: a = -2, b = 0
    (a**3 + b**3 - a**2 * b - a * b**2, {"a": HALF_LINE, "b": HALF_LINE}, NONNEGATIVE),
    (a**3 + b**3 - a**2 * b - a * b**2, {"a": HALF_LINE, "b": Iv(-oo, sympy.Integer(0), True, False)}, None),
    (a**2 - a * b + b**2, {}, NONNEGATIVE),             # 0 at a = b = 0: not > 0
    (a**2 - a * b + b**2, {"b": Iv(sympy.Integer(1), oo, False, True)}, POSITIVE),
    (-(a**2) + a * b - b**2, {"a": Iv(-oo, sympy.Integer(-1), True, False)}, NEGATIVE),  # reflected
    (a**2 - 3 * a * b + b**2, {}, None),                # a = b = 1: -1
    (a**2 * b**2 - 2 * a * b**3 + b**4, {}, NONNEGATIVE),  # b^2 (a - b)^2: 0 along b = 0 as well
    (a**2 + b, {}, None),                               # not a form
    (x**3 + sympy.sqrt(2) * x, {}, None),               # not over QQ (sqrt(2) becomes a second variable)
    (x**2 + 10**700, {}, None),                         # a coefficient past MAX_BITS: not tried (a limit)
    (x**2 + 10**500, {}, POSITIVE),
])
def test_polynomial_sign(f, ivs, sign):
    assert polynomial_sign(sympy.expand(f), enclosed(**ivs)) == sign


def test_generators_are_variables_of_their_own():
    """log(1 + b) beside b: each its own variable (its own enclosure), never a function of the other."""
    g = sympy.log(1 + b) ** 2 - 2 * b * sympy.log(1 + b) + b**2  # (log(1 + b) - b)^2, a form in two
    assert polynomial_sign(g, lambda s: REALS) == NONNEGATIVE
    assert polynomial_sign(sympy.exp(x) ** 2 - sympy.exp(x), lambda s: Iv(sympy.Integer(0), oo, True, True)) is None


def test_interval_ends_are_moved_outwards_only():
    r2 = sympy.sqrt(2)
    assert _outer(r2, below=True) < r2 < _outer(r2, below=False)
    assert _outer(Rational(1, 3), below=True) == Rational(1, 3)
    assert _outer(oo, below=False) is None
    # x^2 - 2 on (-sqrt(2), sqrt(2)): the ends are moved outwards, where x^2 - 2 > 0: not decided (sound)
    assert _on_interval(sympy.Poly(x**2 - 2, x), Iv(-r2, r2, True, True)) is None
    assert _on_interval(sympy.Poly(x**2 - 2, x), Iv(-1, 1)) == NEGATIVE
    assert _on_interval(sympy.Poly(x - 1, x), Iv(sympy.Integer(1), sympy.Integer(1))) == NONNEGATIVE  # a point: 0


@pytest.mark.parametrize("g, strict, proved", [
    ((x - 1) ** 2 * (x**2 + 2 * x + 3), False, True),
    ((x - 1) ** 2 * (x**2 + 2 * x + 3), True, False),
    (a**6 + b**6 - a**5 * b - a * b**5, False, True),   # (a - b)(a^5 - b^5)
    ((x**2 - 2) ** 2 * (x - 1), False, False),
])
def test_sign_proof_reads_the_roots(g, strict, proved):
    assert sign_proof(sympy.expand(g), strict)[0] is proved


DECLS = "let a, b, x: real\nlet u, v: nonnegative real\nlet w: positive real\nrandom X\n"


@pytest.mark.parametrize("claim, status", [
    ("a^4 + b^4 >= a^3 b + a b^3", "holds"),
    ("a^4 + b^4 > a^3 b + a b^3", "fails"),             # a = b
    ("a^4 + b^4 >= a^3 b + a b^3 + a^2 b^2", "fails"),  # a = b = 1
    ("a^3 b + a b^3 <= a^4 + b^4", "holds"),           # written the other way round
    ("x^4 + 1 >= x^3 + x", "holds"),
    ("x^4 - 4 x + 2 >= 0", "fails"),                   # x = 1
    ("x^6 + 1 >= x^5 + x", "holds"),
    ("u^3 + v^3 >= u^2 v + u v^2", "holds"),            # a form over [0, oo)^2
    ("u^3 + v^3 > u^2 v + u v^2", "fails"),             # u = v
    ("a^3 + b^3 >= a^2 b + a b^2", "fails"),            # a = -1, b = 0
    ("w^3 + 1 >= w^2 + w", "holds"),                   # (w - 1)^2 (w + 1) on (0, oo)
    ("w^3 + 1 > w^2 + w", "fails"),                    # w = 1
    ("E[X]^4 + 1 >= E[X]^3 + E[X]", "holds"),           # a moment as the variable
    ("Var(X)^3 >= Var(X)", "fails"),                    # Var(X) = 1/2
])
def test_claims_decided_by_real_roots(claim, status):
    assert_verdict(claim_link(DECLS, claim), status, "inequality", claim)


@pytest.mark.parametrize("assume, claim, status", [
    ("0 <= p, p <= 1", "p^2 (1 - p)^2 <= 1/16", "holds"),  # (p - 1/2)^2 (1/4 + p - p^2) >= 0 on [0, 1]
    ("0 <= p, p <= 1", "p^2 (1 - p)^2 < 1/16", "fails"),   # p = 1/2
    ("p >= 1", "p^3 >= p", "holds"),
    ("p >= 1/2", "p^3 >= p", "not holds"),                # p = 1/2: 1/8 < 1/2
])
def test_an_assumed_interval_is_the_variable_s_enclosure(assume, claim, status):
    link = claim_link("let p: real\n" + f"assume r: {assume}\n", claim + " by r")
    assert_verdict(link, status, "inequality", claim)


@pytest.mark.parametrize("claim, witness", [
    ("x^3 - 3 x + 2 >= 0", "x = -3"),          # left of its root -2: no small trial value is there
    ("x^4 + 1 >= 2 x^3", "x = 3/2"),           # between the roots 1 and 1.77
    ("a^4 + b^4 >= 2 a^3 b", "a = 3/2"),        # b at its first trial value 1
    ("u^3 >= u", "u = 1/2"),                    # inside (0, 1), a simple rational first
    ("(x - 1) (x - 1 - 1/1000000000) (x^2 + 1) >= 0", "x = 1000000002/1000000001"),  # roots 10^-9 apart
    ("x^3 + 4 sqrt(2) >= 6 x", "x = -4"),      # left of its root near -3.3; an irrational coefficient
])
def test_a_false_polynomial_claim_gets_a_witness_between_its_roots(claim, witness):
    link = claim_link(DECLS, claim)
    assert link.status == "fails", (claim, link.status, link.message)
    assert witness in link.message, link.message


@pytest.mark.parametrize("decls, claim, witness", [
    # strict claims that fail only where a square touches 0 at an irrational point
    ("let p: real\nassume r: 0 <= p, p <= 1\n", "p (1 - p) (1 - 2 p)^2 < 1/16 by r", "p = 1/2 - sqrt(2)/4"),
    ("let x: real\n", "(x^2 - 2)^2 > 0", "x = -sqrt(2)"),
    ("let s: positive real\n", "(s^2 - 2)^2 > 0", "s = sqrt(2)"),  # the positive root only
    ("let a, b: real\n", "(a^2 - 3)^2 + b^2 > 0", "sqrt(3)"),
    ("let t: real\nassume r: t >= 1\n", "(2 t^2 - 4 t + 1)^2 > 0 by r", "t = sqrt(2)/2 + 1"),  # 1 - sqrt(2)/2 < 1
    # coefficients in QQ(sqrt(2)): factored over that field, (x - sqrt(2))^2
    ("let x: real\n", "x^2 + 2 > 2 sqrt(2) x", "x = sqrt(2)"),
    ("let y: positive real\n", "y^3 + 4 sqrt(2) > 6 y", "y = sqrt(2)"),   # (y - sqrt(2))^2 (y + 2 sqrt(2))
    ("let y: positive real\n", "y^2 + 4/y^2 > 4", "y = sqrt(2)"),          # a rational function: (y^2 - 2)^2/y^2
])
def test_a_strict_claim_fails_at_an_irrational_root(decls, claim, witness):
    link = claim_link(decls, claim)
    assert link.status == "fails", (claim, link.status, link.message)
    assert witness in link.message and "(margin 0)" in link.message, link.message


@pytest.mark.parametrize("decls, claim", [
    ("let x: real\n", "(x^2 - 2)^2 >= 0"),               # the weak form holds at the roots
    ("let x: real\nassume r: x >= 2\n", "(x^2 - 2)^2 > 0 by r"),  # both roots outside the assumed range
    ("let x: real\n", "(x^2 - 2)^2 + 1/1000 > 0"),        # no root at all
    ("let x: real\n", "x^2 + 2 >= 2 sqrt(2) x"),           # the weak forms hold at sqrt(2)
    ("let y: positive real\n", "y^3 + 4 sqrt(2) >= 6 y"),
    ("let y: positive real\n", "y^2 + 4/y^2 >= 4"),
    ("let x: real\n", "x^2 + 1/x^2 >= 2"),                  # its pole x = 0 is no witness
])
def test_an_irrational_root_refutes_nothing_where_the_claim_holds_there(decls, claim):
    assert claim_link(decls, claim).status != "fails"


def test_a_true_polynomial_claim_the_kernel_misses_gets_no_witness():
    """The Motzkin polynomial is >= 0 (not a sum of squares); no point of the search refutes it."""
    link = claim_link("let x, y: real\n", "x^4 y^2 + x^2 y^4 + 1 >= 3 x^2 y^2")
    assert link.status == "unknown"
    assert claim_link("let x, y: real\n", "x^4 y^2 + x^2 y^4 + 1 >= 3 x^2 y^2 + 1/1000").status == "fails"


def test_an_odd_power_after_a_bound_is_a_form_in_two():
    """x^3 > y^3 under x > y: with x = y + t (t > 0), 3 y^2 t + 3 y t^2 + t^3 is a form in (y, t) with t > 0."""
    link = claim_link("let x, y: real\nassume xy: x > y\n", "x^3 > y^3 by xy")
    assert_verdict(link, "holds", "inequality", "x^3 > y^3")
    assert claim_link("let x, y: real\nassume xy: x > y\n", "x^4 > y^4 by xy").status != "holds"  # x = 1, y = -2


def test_the_simplest_rational_between_two_numbers():
    from sympy import Rational as R

    from stepcheck.judge.witness import _simplest

    assert _simplest(R(1), R(177, 100)) == R(3, 2)
    assert _simplest(R(0), R(1)) == R(1, 2)
    assert _simplest(R(2), R(3)) == R(5, 2)
    assert _simplest(R(-5, 2), R(-2)) == R(-7, 3)
    assert _simplest(R(1), R(1) + R(1, 10**9)) == R(1000000002, 1000000001)
    assert _simplest(R(7, 2), None) == 4


@pytest.mark.parametrize("decls, claim, status", [
    # factored over the field of the square roots among the coefficients: (y - sqrt(2))^2 (y + 2 sqrt(2))
    ("let y: positive real\n", "y^3 + 4 sqrt(2) >= 6 y", "holds"),
    ("let x: real\n", "x^2 + 3 >= 2 sqrt(3) x", "holds"),                 # (x - sqrt(3))^2
    ("let x, y: real\n", "x^2 + 2 y^2 >= 2 sqrt(2) x y", "holds"),         # (x - sqrt(2) y)^2
    ("let y: positive real\n", "y^3 + 4 sqrt(2) > 6 y", "fails"),          # y = sqrt(2)
    ("let x: real\n", "x^2 + 2 >= 3 sqrt(2) x", "fails"),
    ("let x: real\n", "x^3 + 4 sqrt(2) >= 6 x", "fails"),                  # no sign of x: x = -4
])
def test_a_margin_with_square_roots_among_its_coefficients(decls, claim, status):
    assert_verdict(claim_link(decls, claim), status, "inequality", claim)


def test_a_residual_over_many_square_roots_is_not_factored_by_the_witness_search(monkeypatch):
    """Over QQ(sqrt 2, ..., sqrt 13) sympy's factoring took two minutes for one link (a primitive element of
    degree 2^k): the witness search reads a residual over the field of at most two square roots."""
    from stepcheck.judge import witness
    from stepcheck.judge.witness import _roots_and_factors

    x = sympy.Symbol("x", real=True)
    r = [sympy.sqrt(k) for k in (2, 3, 5, 7, 11, 13)]
    many = (x**2 + r[0] * x + r[1])**2 + (r[2] * x - r[3])**2 + r[4] * x**4 + r[5]
    over_fields = []
    inner = witness.sympy.Poly

    def poly(*a, **k):
        if k.get("extension"):
            over_fields.append(a[0])
            raise sympy.PolynomialError("not built in this test")  # (built, it took two minutes)
        return inner(*a, **k)

    monkeypatch.setattr(witness.sympy, "Poly", poly)
    assert _roots_and_factors(sympy.expand(many), x) is None and not over_fields
    monkeypatch.undo()
    ends, factors = _roots_and_factors(sympy.expand((x**2 - r[0])**2 * (x - 2 * r[0])), x)
    assert any(f.degree() == 1 for f in factors) and len(ends) == 3  # -2^(1/4), 2^(1/4), 2 sqrt(2)


@pytest.mark.parametrize("decls, claim, status", [
    # a polynomial in one integer symbol: the integers of its enclosure near its roots, one by one
    ("let m: integer\n", "m^2 >= m", "holds"),                 # < 0 only strictly between 0 and 1
    ("let m: integer\n", "m^2 + m >= 0", "holds"),
    ("let m: integer\n", "(2 m + 1)^2 >= 1", "holds"),
    ("let m: integer\n", "(2 m - 1)^2 > 0", "holds"),         # its root 1/2 is no integer: strict
    ("let m: integer\n", "m^4 - 5 m^2 + 4 >= 0", "holds"),    # < 0 on (1, 2) and (-2, -1) only
    ("let n: positive integer\n", "n^2 - 3 n + 2 >= 0", "holds"),
    # where it must not hold
    ("let m: real\n", "m^2 >= m", "fails"),                    # a real m: m = 1/2
    ("let m: integer\n", "m^2 > m", "fails"),                  # m = 0
    ("let m: integer\n", "m^3 >= m", "fails"),                 # m = -2
    ("let m: integer\n", "(m - 10)^2 >= 1", "fails"),          # m = 10, past the small trial values
    ("let m: integer\n", "m (m + 1) (m + 2) >= 0", "fails"),   # m = -3
    ("let n: positive integer\n", "n^2 - 3 n + 2 > 0", "fails"),  # n = 1
    # true, but more integers below Cauchy's bound than MAX_INTEGERS: not decided
    ("let m: integer\n", "m^2 - 201 m + 10100 >= 0", "unknown"),  # (m - 100)(m - 101)
])
def test_a_polynomial_in_an_integer_symbol(decls, claim, status):
    assert_verdict(claim_link(decls, claim), status, "inequality", claim)


@pytest.mark.parametrize("decls, claim, witness", [
    ("let m: integer\n", "m^2 > m", "m = 0"),
    ("let m: integer\n", "(m - 10)^2 >= 1", "m = 10"),
])
def test_an_integer_symbol_s_witness_is_an_integer(decls, claim, witness):
    link = claim_link(decls, claim)
    assert link.status == "fails" and witness in link.message, link.message
