"""`check ... in float32`: IEEE 754 arithmetic as written (src/stepcheck/floats.py), where it applies and not."""
from __future__ import annotations

import pytest

from stepcheck.checker import check_text


def status(line):
    rep = check_text(line + "\n", "f.step")
    return rep.steps[0].status if rep.steps else None, rep


@pytest.mark.parametrize("claim, want", [
    ("exp(700) = oo in float32", "holds"),
    ("exp(700) = oo in float64", "fails"),          # finite: 1.01e304
    ("exp(710) = oo in float64", "holds"),
    ("exp(12) = oo in float16", "holds"),
    ("exp(11) = oo in float16", "fails"),
    ("0.1 + 0.2 = 0.3 in float64", "fails"),        # 0.30000000000000004
    ("0.1 + 0.2 = 0.3 in float32", "holds"),
    ("1 + 2^-53 = 1 in float64", "holds"),          # rounded away
    ("1 + 2^-52 = 1 in float64", "fails"),
    ("softmax([1000, 0]) != [1, 0] in float64", "holds"),  # NaN: inf / inf
    ("softmax([1000 - 1000, 0 - 1000]) = [1, 0] in float64", "holds"),
    ("softmax([1, 0]) ≈ [0.731, 0.269] in float32", "holds"),
    ("softmax([1, 0]) ≈ [0.73, 0.26] in float32", "fails"),
    ("-exp(800) = -oo in float64", "holds"),
    ("1 / 0 = oo in float64", "holds"),
    # one entry of a vector, as the whole vector gives it
    ("softmax([20, 0])_1 = 1 in float32", "holds"),     # 1/(1 + e^-20) rounds to 1
    ("softmax([20, 0])_2 = 0 in float32", "fails"),     # 2.06e-9
    ("softmax([20, 0])_1 = 1 in float64", "fails"),
    ("softmax([1000, 0])_1 != 1 in float64", "holds"),  # NaN
])
def test_float_checks(claim, want):
    got, _ = status("check c: " + claim)
    assert got == want, claim


def test_as_reals_the_same_claims_differ():
    assert status("check c: 0.1 + 0.2 = 0.3")[0] == "holds"  # exact arithmetic
    assert status("check c: exp(700) < 10^305")[0] == "holds"


def test_the_written_order_is_kept():
    # (1e16 + 1) - 1e16 is 0 in float64, 1e16 - 1e16 + 1 is 1: sympy would reorder both into 1
    assert status("check c: (10^16 + 1) - 10^16 = 0 in float64")[0] == "holds"
    assert status("check c: (10^16 - 10^16) + 1 = 1 in float64")[0] == "holds"


def test_names_and_unknown_formats():
    got, rep = status("let x: real\ncheck c: x = 1 in float32")
    assert got == "unknown"
    _, rep = status("check c: 1 = 1 in float128")
    assert any(d.code == "E-unsupported" for d in rep.diagnostics)


def test_the_statement_shows_the_format():
    rep = check_text("check c: exp(700) = oo in float32\n", "f.step")
    assert rep.steps[0].statement.endswith("in float32")


@pytest.mark.parametrize("claim, want", [
    # a literal is rounded once, from its exact value: just above the float16 midpoint 1 + 2^-11 it
    # rounds up (through float64 first it landed on the midpoint and went down to 1)
    ("1.00048828125000000000001 = 1 in float16", "fails"),
    ("1.00048828125 = 1 in float16", "holds"),                        # the exact midpoint: ties to even
    ("1.00146484375 = 1.001953125 in float16", "holds"),              # 1 + 3 2^-11: ties to even, upwards
    ("1.00000005960464477539062500001 = 1 in float32", "fails"),
    ("1.000000059604644775390625 = 1 in float32", "holds"),
    # exp and log correctly rounded: float32 exp(1) is 2.71828174591064453125, whose log is 0.99999997...,
    # 0.99999994 in float32 (numpy's float32 exp(1) is one unit in the last place above on some CPUs)
    ("exp(1) = 2.71828174591064453125 in float32", "holds"),
    ("log(exp(1)) < 1 in float32", "holds"),
    ("log(exp(1)) > 1 in float32", "fails"),
    ("pi = 3.1415927410125732421875 in float32", "holds"),
    ("2^0.5 = sqrt(2) in float32", "holds"),
    ("log(0) = -oo in float32", "holds"),
    ("sqrt(0 - 1) != sqrt(0 - 1) in float64", "holds"),             # NaN
    ("exp(10^10) = oo in float64", "holds"),                          # far past the range: no huge rational
    ("exp(0 - 10^10) = 0 in float16", "holds"),
    ("log(0.5) < 0 in float32", "holds"),
    # a negative base with a whole exponent is exact, then rounded once (libm's pow was 1 ulp off here)
    ("(-5.6036702991936975)^27 = -(5.6036702991936975^27) in float64", "holds"),
    ("(-5.6036702991936975)^27 = -1.6171843280729267e20 in float64", "fails"),
    # IEEE 754 / C99 special values: signed zeros, infinities, NaN
    ("1/tanh(-0.0) = -oo in float64", "holds"),
    ("1/((-0.0)^0.5) = oo in float64", "holds"),
    ("(-oo)^0.5 = oo in float64", "holds"),
    ("(-0.0)^(-1) = -oo in float64", "holds"),
    ("(-8)^(1/3) != (-8)^(1/3) in float64", "holds"),             # NaN
    ("225^1.5 = 3376 in float16", "holds"),                         # 3375 exactly: a tie, to even
    ("(10^300)^4096 = oo in float64", "holds"),                     # no 4-million-bit rational
])
def test_rounding_is_once_and_correct(claim, want):
    got, _ = status("check c: " + claim)
    assert got == want, claim


def test_correctly_rounded_agrees_with_an_independent_rounding():
    """float64 results against CPython's float(Fraction) (correctly rounded) of a 400-bit value."""
    import math
    import random
    from fractions import Fraction

    import mpmath

    from stepcheck.floats import correctly_rounded, round_exact

    rng = random.Random(5)
    for _ in range(300):
        x = rng.uniform(-30, 30) if rng.random() < 0.5 else rng.uniform(0, 1) * 2.0 ** rng.randint(-60, 60)
        x = x if abs(x) < 700 else math.copysign(700, x)  # exp stays finite: a float to compare with
        for name in ("exp", "log", "tanh", "sqrt"):
            if name in ("log", "sqrt") and x <= 0:
                continue
            fn = getattr(mpmath, name)
            with mpmath.workprec(400):
                v = fn(mpmath.mpf(x))
            sign, man, ex, _ = v._mpf_
            want = (-1) ** sign * float(Fraction(man) * Fraction(2) ** ex)
            assert correctly_rounded(fn, (x,), "float64") == want, (name, x)
    assert round_exact(Fraction(2) ** 1024, "float64") == math.inf
    assert round_exact(Fraction(-1, 2 ** 1080), "float64") == 0.0 and math.copysign(1, round_exact(Fraction(-1, 2 ** 1080), "float64")) < 0
    assert round_exact(Fraction(65520), "float16") == math.inf and round_exact(Fraction(65519), "float16") == 65504.0


@pytest.mark.parametrize("claim, note", [
    ("softmax([20, 0])_3 = 0 in float32", "there is no entry 3 in a vector of 2"),
    ("softmax([20, 0])_0 = 0 in float32", "there is no entry 0"),
])
def test_an_entry_that_is_not_there_is_unknown_and_says_why(claim, note):
    got, rep = status("check c: " + claim)
    assert got == "unknown"
    notes = [n for s in rep.steps for lk in s.links for d in lk.diagnostics for n in d.notes]
    assert any(note in n for n in notes), notes
