"""kernel/elementary.py: identities of elementary functions that hold for every real value, applied to each
term while normalising (a rule's test where it applies, and where it must not)."""
import pytest
import sympy

from stepcheck.checker import check_text
from stepcheck.kernel.elementary import elementary

DECLS = "let n: positive integer\nlet x: real\nlet c: positive real\nlet r: real\n"


def _status(step):
    rep = check_text(DECLS + f"step s: {step}\n", "t.step")
    return [lk.status for s in rep.steps for lk in s.links]


@pytest.mark.parametrize("step", [
    "(2^n)^2 = 4^n",
    "(-2)^n (-2)^n = 4^n",
    "2^n + 2^n = 2^(n + 1)",
    "12^n = 4^n 3^n",
    "4^x = 2^(2 x)",
    "(1/4)^x = 2^(-2 x)",
    "(2/3)^x 3^x = 2^x",
    "exp(x log(3)) = 3^x",
    "exp(x log(c)) = c^x",
    "exp(log(2) + x) = 2 exp(x)",
    "exp(n log(4)) = 2^(2 n)",
])
def test_equal_powers_and_exponentials_of_logs_hold(step):
    assert _status(step) == ["holds"], step


@pytest.mark.parametrize("step", [
    "4^n = 2^n", "(-2)^n (-2)^n = -4^n", "exp(x log(3)) = 2^x", "2^n + 2^n = 2^(n + 2)", "6^x = 2^x",
])
def test_unequal_powers_fail(step):
    assert _status(step) == ["fails"], step


def test_a_negative_base_or_a_base_of_no_known_sign_is_left_alone():
    x, r = sympy.Symbol("x", real=True), sympy.Symbol("r", real=True)
    assert elementary(sympy.Pow(-4, x, evaluate=False)) == sympy.Pow(-4, x, evaluate=False)
    assert elementary(sympy.exp(x * sympy.log(r))) == sympy.exp(x * sympy.log(r))  # r may be negative
    assert elementary(sympy.Pow(2, x)) == sympy.Pow(2, x)                          # a prime: already its form
    assert elementary(sympy.Pow(4, 3)) == 64                                        # a number: sympy's own


def test_a_base_too_large_to_factor_quickly_is_left_alone():
    x = sympy.Symbol("x", real=True)
    big = sympy.Integer(10**13)
    assert elementary(sympy.Pow(big, x)) == sympy.Pow(big, x)
    assert elementary(sympy.Pow(sympy.Integer(10**6), x)) == sympy.Pow(2, 6 * x) * sympy.Pow(5, 6 * x)


@pytest.mark.parametrize("step, status", [
    ("log(r^2) = 2 log(abs(r))", "holds"),       # for any real r, where r ≠ 0
    ("log(r^4) = 4 log(abs(r))", "holds"),
    ("log(c^2) = 2 log(c)", "holds"),
    ("log(r^2) = log(abs(r))", "fails"),
])
def test_the_log_of_an_even_power_is_read_with_an_absolute_value(step, status):
    assert _status(step) == [status], step


def test_the_log_of_an_odd_power_or_of_a_base_of_unknown_reality_is_left_alone():
    r = sympy.Symbol("r", real=True)
    z = sympy.Symbol("z")
    assert elementary(sympy.log(r**3)) == sympy.log(r**3)
    assert elementary(sympy.log(z**2)) == sympy.log(z**2)


def test_the_condition_of_the_log_of_an_even_power_reads_as_a_person_writes_it():
    from stepcheck.checker import check_text
    rep = check_text(DECLS + "step s: log(r^2) = 2 log(abs(r))\n", "t.step")
    (lk,) = rep.steps[0].links
    assert lk.status == "holds" and [u.label for u in lk.uses if u.kind == "domain"] == ["r ≠ 0"]


@pytest.mark.parametrize("text, status", [
    ("let m: positive integer\nrandom X\nassume v: Var(X) = 4\nstep s: Var(X)^m = 4^m\n", "holds"),  # 4^m - 2^(2 m)
    ("let m: positive integer\nrandom X\nassume v: Var(X) = 4\nstep s: Var(X)^m = 2^(2 m)\n", "holds"),
    ("let m: positive integer\nrandom X\nassume v: Var(X) = 4\nstep s: Var(X)^m = 2^m\n", "fails"),
])
def test_a_power_a_fact_puts_a_number_in_is_read_in_prime_powers(text, status):
    from stepcheck.checker import check_text
    assert [lk.status for lk in check_text(text, "t.step").steps[0].links] == [status], text


@pytest.mark.parametrize("step, where", [
    ("Var(X / a) = 1/a^2", ["a ≠ 0"]),            # was: a ≠ 0, a^2 ≠ 0
    ("SD(X / a) = 1/abs(a)", ["a ≠ 0"]),          # was: a ≠ 0, Abs(a) ≠ 0
    ("Var(X / (a - 1)) = 1/(a - 1)^2", ["a ≠ 1"]),
])
def test_conditions_implied_by_each_other_are_shown_once(step, where):
    from stepcheck.checker import check_text
    rep = check_text(f"let a: real\nrandom X\nassume v: Var(X) = 1\nstep s: {step}   by v\n", "t.step")
    (lk,) = rep.steps[0].links
    assert lk.status == "holds" and [u.label for u in lk.uses if u.kind == "domain"] == where, step


@pytest.mark.parametrize("step, status", [
    ("tanh(x) = (exp(2 x) - 1)/(exp(2 x) + 1)", "holds"),       # tanh read with exp where the residual has it
    ("tanh(x) = 2/(1 + exp(-2 x)) - 1", "holds"),               # 2 sigmoid(2 x) - 1
    ("tanh(2 x) = 2 tanh(x)/(1 + tanh(x)^2)", "holds"),
    ("tanh(x) = (exp(2 x) + 1)/(exp(2 x) - 1)", "fails"),
    ("tanh(2 x) = 2 tanh(x)", "fails"),
])
def test_tanh_is_read_with_exp(step, status):
    from stepcheck.checker import check_text
    assert [lk.status for lk in check_text(f"let x: real\nstep s: {step}\n", "t.step").steps[0].links] == [status], step
