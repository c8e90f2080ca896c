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
