"""The size estimate that keeps evalf, the re-check and the printer off numbers too large to compute
(terms/magnitude.py): an estimate that only guards work, so it may be loose, never a verdict."""
import pytest
import sympy

from stepcheck.terms.magnitude import EXACT_LIMIT, too_large

two = sympy.Integer(2)
E = sympy.exp


@pytest.mark.parametrize("x, large", [
    (E(E(E(E(E(two))))), True),                       # 10^(10^(10^702)): never evaluated
    (E(E(E(sympy.Integer(10)))), True),
    (E(sympy.Integer(10) ** 8), False),               # 10^(4.3·10^7): evalf reads it at once
    (E(E(E(two))), False),                            # 10^703
    (sympy.Rational(1, 3) + sympy.sqrt(2), False),
    (E(-E(E(E(two)))), True),                         # as small as the other is large
    (sympy.Pow(two, two ** 40, evaluate=False), False),  # 3.3·10^11 digits: within evalf's reach ...
])
def test_too_large(x, large):
    assert too_large(x) is large


def test_an_exact_power_has_a_tighter_limit():
    """... but not as an exact integer: the re-check never builds 2^(2^40)."""
    assert too_large(sympy.Pow(two, two ** 40, evaluate=False), EXACT_LIMIT)
    assert not too_large(sympy.Pow(two, sympy.Integer(1000), evaluate=False), EXACT_LIMIT)


def test_what_is_not_a_sympy_number_is_never_evaluated():
    assert too_large("exp(exp(10))")


def test_a_large_integer_power_is_bounded_through_its_ends_without_computing_them():
    """The interval evaluator never multiplies x^(2^40) out, nor computes 2^(2^40) or (1/2)^(2^40): ends past 1 in
    size become ±oo, ends inside (0, 1) become 0 (not reached) or themselves; every interval contains the true one."""
    from fractions import Fraction

    from stepcheck.kernel.calculus import Iv, bounds, symbol_domain

    x = sympy.Symbol("x", real=True)

    def on(lo, hi):
        return lambda s, used: Iv(lo, hi) if s == x else symbol_domain(s, used)

    half, three_q = sympy.Rational(1, 2), sympy.Rational(3, 4)
    assert bounds(x ** (2**40), on(half, three_q), set()) == Iv(0, three_q, True, False)
    assert bounds(x ** 17, on(sympy.Integer(-3), half), set()) == Iv(-sympy.oo, half, True, False)
    assert bounds(x ** 18, on(sympy.Integer(-3), half), set()) == Iv(0, sympy.oo, False, True)
    # the true ranges lie inside: (1/2)^17 > 0, (3/4)^17 < 3/4, (-3)^17 > -oo
    assert 0 < Fraction(1, 2) ** 17 < Fraction(3, 4) ** 17 <= Fraction(3, 4)
    assert bounds(x ** 5, on(half, three_q), set()) == Iv(half ** 5, three_q ** 5)  # small powers: exact
