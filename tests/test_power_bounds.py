"""A bound on an even power or an absolute value of one symbol narrows the symbol (kernel/twins.py:
power_bounds): `y^2 <= 1` gives -1 <= y <= 1 to the inequality proofs; a bound from below gives no interval."""
import pytest

from conftest import assert_verdict, claim_link

DECLS = "let y, x, u, w: real\nlet q: positive real\nrandom X\n"


@pytest.mark.parametrize("assume, claim, status", [
    ("y^2 <= 1", "y <= 1", "holds"),
    ("y^2 <= 1", "y >= -1", "holds"),
    ("y^2 <= 1", "y^3 <= 1", "holds"),
    ("y^2 <= 1", "y <= 1/2", "fails"),            # y = 1
    ("y^2 <= 1", "y < 1", "fails"),               # y = 1: the closed end stays closed
    ("y^2 < 1", "y < 1", "holds"),
    ("1 >= y^2", "y <= 1", "holds"),              # the number on the left
    ("4 - x^4 > 0", "x < sqrt(2)", "holds"),      # a fourth power, moved across
    ("4 - x^4 > 0", "x < 7/5", "not holds"),      # x = 1.41
    ("|u| <= 2", "u >= -2", "holds"),
    ("|u| <= 2", "u <= 1", "fails"),
    ("q^2 <= 9", "q <= 3", "holds"),              # with the declared sign
    ("q^2 <= 9", "q < 3", "fails"),
    ("X^2 <= 1", "E[X] <= 1", "holds"),           # on every outcome
    ("X^2 <= 1", "E[X] <= 1/2", "fails"),
    ("|w - 1| <= 1/2", "w >= 1/2", "holds"),      # k v + c inside: 1/2 <= w <= 3/2
    ("|w - 1| <= 1/2", "1/w <= 2", "holds"),
    ("|w - 1| <= 1/2", "w <= 1", "not holds"),    # w = 3/2
    ("(x - 2)^2 <= 4", "x <= 4", "holds"),        # as written, not expanded: 0 <= x <= 4
    ("(x - 2)^2 <= 4", "x <= 3", "not holds"),
    ("(3 - 2 y)^2 < 1", "y > 1", "holds"),        # a negative coefficient: 1 < y < 2
    ("(3 - 2 y)^2 < 1", "y >= 3/2", "not holds"),
    ("y^2 >= 1", "y >= 1", "fails"),              # from below: y = -1
    ("y^2 >= 1", "y <= -1", "fails"),             # y = 1
    ("y^3 <= 1", "y >= -1", "not holds"),         # an odd power bounds one side only: y = -2
    ("y^2 + x <= 1", "y <= 1", "not holds"),      # another name beside the power: x = -3, y = 2
])
def test_a_bound_on_an_even_power_or_an_absolute_value_narrows_the_symbol(assume, claim, status):
    link = claim_link(DECLS + f"assume a: {assume}\n", claim)
    assert_verdict(link, status, "inequality", claim)
    if status == "holds":
        assert [u.label for u in link.uses] == ["a"], link.uses
