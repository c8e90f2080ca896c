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
