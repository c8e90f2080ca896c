"""The language's expressions are real-valued: an expression with no real value is an input error, never a
verdict (sympy computes sqrt(-4) sqrt(-9) = -6 through complex numbers, and writes sqrt(W)^2 as W)."""
import pytest

from stepcheck.checker import check_text


def _codes(rep):
    return {d.code for d in rep.diagnostics} | {d.code for s in rep.steps for lk in s.links for d in lk.diagnostics}


def _status(rep):
    return [lk.status for s in rep.steps for lk in s.links]


def _refused(text):
    """An input error E-undefined, and nothing holds."""
    rep = check_text(text, "t.step")
    assert "E-undefined" in _codes(rep), text
    assert "holds" not in _status(rep), text


def _checked(text):
    """No E-undefined, and the one link holds."""
    rep = check_text(text, "t.step")
    assert "E-undefined" not in _codes(rep), text
    assert _status(rep) == ["holds"], text


@pytest.mark.parametrize("text", [
    "step s: sqrt(-4) sqrt(-9) = -6\n",
    "check c: sqrt(-2)^2 + 3 = 1\n",
    "step s: exp(log(-3)) = -3\n",
    "check c: exp(2 log(-3)) = 9\n",
    "let c: positive real\nstep s: sqrt(-c) sqrt(-c) = -c\n",
    "let x: real\nstep s: sqrt(-1 - x^2)^2 = -1 - x^2\n",
    "let c: positive real\nstep s: log(-c) - log(-c) = 0\n",
    "check q: max(1, sqrt(-1)) = 1\n",                 # was a traceback (sympy cannot order I)
    "step m: min(log(-1), 0) = 0\n",
    "let x: real\nstep m: max(x, sqrt(-1 - x^2)) = x\n",
])
def test_an_expression_with_no_real_value_is_an_error(text):
    _refused(text)


@pytest.mark.parametrize("text", [
    "step s: sqrt(4) = 2\n",
    "step s: log(1) = 0\n",
    "step s: sqrt(0) = 0\n",
    "let c: positive real\nstep s: sqrt(c)^2 = c\n",
    "let c: real\nstep s: sqrt(-c)^2 = -c\n",          # defined where c ≤ 0: a condition, not an error
    "let c: positive real\nstep s: log(c) - log(c) = 0\n",
    "let x: real\nstep s: sqrt(1 + x^2)^2 = 1 + x^2\n",
])
def test_an_expression_defined_somewhere_is_checked(text):
    _checked(text)


@pytest.mark.parametrize("law, claim", [
    ("Uniform(-1, 1)", "E[sqrt(W)^2] = 0"),
    ("Uniform(-1, 1)", "P(sqrt(W)^2 < 0) = 1/2"),
    ("Rademacher", "P(log(W) < 1) = 1"),              # was a traceback (sympy cannot order i·π)
    ("Rademacher", "E[sqrt(W)^2] = 0"),
])
def test_a_numeric_claim_undefined_with_positive_probability_is_an_error(law, claim):
    _refused(f"random W ~ {law}\ncheck c: {claim}\n")


@pytest.mark.parametrize("law, claim", [
    ("Uniform(0, 1)", "E[sqrt(W)^2] = 1/2"),
    ("Bernoulli(1/2)", "E[sqrt(W)] = 1/2"),
    ("Bernoulli(1/2)", "E[1 / (W + 1)] = 3/4"),
])
def test_a_numeric_claim_defined_almost_surely_is_checked(law, claim):
    _checked(f"random W ~ {law}\ncheck c: {claim}\n")


@pytest.mark.parametrize("text", [
    "let x: real\nstep s: max(exp(2 log(x)), x in [-3, 1]) = 9\n",    # sympy: x^2, whose max on [-3, 1] is 9
    "let x: real\nstep s: argmax(exp(2 log(x)), x in [-3, 1]) = -3\n",
    "let x: real\nstep s: min(sqrt(x)^2, x in [-2, 1]) = -2\n",
    "let x: real\nstep s: max(1 / (x - 2), x in [0, 3]) = 1\n",
    "step s: limit(exp(2 log(t)), t -> -1) = 1\n",
    "step s: limit(log(t), t -> -oo) = oo\n",
    "let c: positive real\nstep s: limit(sqrt(t - c)^2, t -> 0+) < 0\n",   # t - c < 0 at 0, so near it
    "let c: positive real\nstep s: limit(sqrt(c - t)^2, t -> oo) = -oo\n",
    "step s: limit(sqrt(t - 1/10^12)^2, t -> 0+) = -1/10^12\n",             # between 0 and the probes
    "step s: limit(sqrt(t), t -> 0) = 0\n",                                 # two-sided: no value on the left
    "step s: limit(log(t), t -> 0) = -oo\n",
])
def test_an_extremum_or_a_limit_where_the_expression_has_no_value_is_an_error(text):
    _refused(text)


@pytest.mark.parametrize("text", [
    "let x: real\nstep s: max(log(x), x in [1, 3]) = log(3)\n",
    "let x: real\nstep s: max(sqrt(x), x in [0, 4]) = 2\n",
    "let x: real\nstep s: max(1 / x, x in [1, 2]) = 1\n",
    "step s: limit(sqrt(t), t -> 0+) = 0\n",
    "step s: limit(t log(t), t -> 0+) = 0\n",
    "step s: limit(exp(-t), t -> oo) = 0\n",
    "step s: limit(log(t) / t, t -> oo) = 0\n",
    "let c: positive real\nstep s: limit(sqrt(t + c)^2, t -> 0) = c\n",
    "let c: positive real\nstep s: limit(log(t) - log(c), t -> c) = 0\n",
    "step s: limit(sqrt(t^2), t -> 0) = 0\n",
])
def test_an_extremum_or_a_limit_where_it_is_defined_is_checked(text):
    _checked(text)


@pytest.mark.parametrize("step, status, where", [
    # a symbolic exponent: an integer one keeps a negative base real; 0^x needs x > 0; else the base > 0
    ("(-1)^(2 m) = 1", "holds", ""),
    ("(-1)^m = 1", "fails", ""),
    ("0^c = 0", "holds", ""),
    ("0^x = 0", "holds", "x > 0"),
    ("x^m x^(-m) = 1", "holds", "x ≠ 0"),
    ("x^y x^y = x^(2 y)", "holds", "x > 0"),
])
def test_powers_with_a_symbolic_exponent(step, status, where):
    rep = check_text(f"let m: integer\nlet c: positive real\nlet x, y: real\nstep s: {step}\n", "t.step")
    lk = rep.steps[0].links[0]
    assert lk.status == status, step
    shown = [u.label for u in lk.uses if u.kind == "domain"]
    assert shown == ([where] if where else []), (step, shown)


@pytest.mark.parametrize("text", [
    "random Z ~ Normal(0, 1)\ncheck c: E[sqrt(-Z^2)^2] = -1\n",        # -Z^2 >= 0 only where Z = 0: probability 0
    "random W ~ Uniform(-1, 1)\ncheck c: P(sqrt(-W^2) < 1) = 0\n",
    "check c: sum(i=1..5, sqrt(3 - i)^2) = 0\n",                         # a term past i = 3 has no real value
    "check c: sum(i=1..10, sqrt(5 - i)^2) = -5\n",
])
def test_a_check_guard_failing_on_a_set_of_positive_probability_or_in_a_long_sum(text):
    _refused(text)


@pytest.mark.parametrize("text", [
    "check c: sum(i=1..5, sqrt(6 - i)^2) = 15\n",
    "random Z ~ Normal(0, 1)\ncheck c: E[sqrt(Z^2)^2] = 1\n",
])
def test_a_check_guard_that_holds_is_checked(text):
    _checked(text)


@pytest.mark.parametrize("claim, undefined", [
    ("E[sqrt(W)^2] ≈ 0", True),
    ("P(log(W) < 0) ≈ 0.5", True),
    ("E[W^(1/2)] ≈ 0", True),
    ("E[W^2] ≈ 1/3", False),
])
def test_a_simulation_of_an_expression_undefined_with_positive_probability_is_an_error(claim, undefined):
    rep = check_text(f"random W ~ Uniform(-1, 1)\nsimulate s: {claim} with samples = 1000, seed = 1\n", "t.step")
    assert ("E-undefined" in _codes(rep)) == undefined, claim


@pytest.mark.parametrize("text", [
    "random W ~ Uniform(-1, 1)\nstep s: E[sqrt(W)^2] = 0\n",        # held `where: W ≥ 0 almost surely`
    "random W ~ Uniform(-1, 1)\nstep s: E[sqrt(W)^2] = E[W]\n",
    "random R ~ Rademacher\nstep s: E[sqrt(R)^2] = 0\n",
    "random B ~ Bernoulli(1/2)\nstep s: E[1/B] = 1\n",
    "random Z ~ Normal(0, 1)\nstep s: E[log(Z^2 + Z)] = E[log(Z^2 + Z)]\n",
])
def test_a_step_whose_guard_the_declared_law_breaks_is_an_error(text):
    _refused(text)


@pytest.mark.parametrize("text, where", [
    ("random W ~ Uniform(0, 1)\nstep s: E[sqrt(W)^2] = 1/2\n", ["W ≥ 0 almost surely"]),
    ("random X\nstep s: E[sqrt(X)^2] = E[X]\n", ["X ≥ 0 almost surely"]),  # no law: a condition, shown
    ("random Z ~ Normal(0, 1)\nstep s: E[sqrt(Z^2)^2] = 1\n", []),
    ("random B ~ Bernoulli(1/2)\nstep s: E[sqrt(B)^2] = 1/2\n", ["B ≥ 0 almost surely"]),
])
def test_a_step_whose_guard_the_declared_law_keeps_holds(text, where):
    rep = check_text(text, "t.step")
    assert "E-undefined" not in _codes(rep) and _status(rep) == ["holds"], text
    assert sorted(u.label for u in rep.steps[0].links[0].uses if u.kind == "domain") == where


# sympy writes sqrt(2 W) as sqrt(2) sqrt(W) and sqrt(c R) as sqrt(c) sqrt(R): the guard is a product
@pytest.mark.parametrize("law, claim", [
    ("Uniform(-1, 1)", "E[sqrt(2 W)^2] = 0"),
    ("Uniform(-1, 1)", "E[sqrt(W/2)^2] = 0"),
    ("Uniform(-1, 1)", "E[sqrt(W + W)^2] = 0"),
    ("Uniform(-1, 1)", "Var(sqrt(2 W)^2) = 4/3"),
    ("Uniform(-1, 1)", "E[sqrt(W - E[W])^2] = 0"),
    ("Uniform(0, 1)", "E[sqrt(W - E[W])^2] = 0"),          # W < 1/2 with probability 1/2
    ("Normal(0, 1)", "E[sqrt(2 W)^2] = 0"),
    ("Rademacher", "E[sqrt(c W)^2] = 0"),
    ("Bernoulli(1/2)", "E[sqrt(-c W)^2] = -c/2"),
])
@pytest.mark.parametrize("kind", ["check", "step"])
def test_a_scaled_root_undefined_with_positive_probability_is_an_error(law, claim, kind):
    _refused(f"random W ~ {law}\nlet c: positive real\n{kind} s: {claim}\n")


@pytest.mark.parametrize("law, claim, where", [
    ("Uniform(0, 1)", "E[sqrt(2 W)^2] = 1", ["W ≥ 0 almost surely"]),
    ("Uniform(0, 1)", "E[sqrt(W/2)^2] = 1/4", ["W ≥ 0 almost surely"]),
    ("Normal(0, 1)", "E[sqrt(2 W^2)^2] = 2", []),
    ("Bernoulli(1/2)", "E[sqrt(c W)^2] = c/2", ["W ≥ 0 almost surely"]),
])
def test_a_scaled_root_defined_almost_surely_holds(law, claim, where):
    rep = check_text(f"random W ~ {law}\nlet c: positive real\nstep s: {claim}\n", "t.step")
    assert "E-undefined" not in _codes(rep) and _status(rep) == ["holds"], claim
    assert sorted(u.label for u in rep.steps[0].links[0].uses if u.kind == "domain") == where
    if "c" not in claim:
        _checked(f"random W ~ {law}\ncheck s: {claim}\n")


def test_a_scaled_root_of_a_variable_with_no_law_keeps_its_condition():
    rep = check_text("random X\nlet c: positive real\nstep s: E[sqrt(2 c X)^2] = 2 c E[X]\n", "t.step")
    assert _status(rep) == ["holds"]
    assert [u.label for u in rep.steps[0].links[0].uses if u.kind == "domain"] == ["X ≥ 0 almost surely"]


_FAMILY = "let n: positive integer\nlet i: index 1..n\nrandom q_i ~ {law} for i in 1..n\nstep s: {claim}\n"


@pytest.mark.parametrize("law, claim", [
    ("Rademacher", "E[sqrt(q_i - 1)^2] = -1"),   # held `where: q_i ≥ 1 almost surely`
    ("Uniform(-1, 1)", "E[sqrt(q_i)^2] = 0"),
    ("Uniform(-1, 1)", "E[log(q_i)] = E[log(q_i)]"),
])
def test_a_guard_on_a_family_member_the_law_breaks_is_an_error(law, claim):
    _refused(_FAMILY.format(law=law, claim=claim))


@pytest.mark.parametrize("law, claim", [
    ("Uniform(0, 1)", "E[sqrt(q_i)^2] = 1/2"),
    ("Uniform(0, 1)", "E[sqrt(2 q_i)^2] = 1"),
    ("Rademacher", "E[sqrt(q_i + 1)^2] = 1"),
])
def test_a_guard_on_a_family_member_the_law_keeps_holds(law, claim):
    _checked(_FAMILY.format(law=law, claim=claim))


@pytest.mark.parametrize("text", [
    "check c: E[limit(sqrt(R + t)^2, t -> 0)] = 0\n",
    "step s: E[limit(sqrt(R + t)^2, t -> 0)] = 0\n",
    "step s: limit(E[sqrt(R + t)^2], t -> 0) = 0\n",
    "check c: limit(E[sqrt(R + t)^2], t -> 0) = 0\n",
    "step s: max(E[sqrt(R + t)^2], t in [0, 1]) = 1\n",   # defined at t = 1 only
])
def test_a_limit_or_extremum_of_a_random_expression_with_a_condition_is_refused(text):
    rep = check_text("random R ~ Rademacher\n" + text, "t.step")
    assert "E-unsupported" in _codes(rep) and "holds" not in _status(rep), text


@pytest.mark.parametrize("text", [
    "step s: limit(E[(R + t)^2], t -> 0) = 1\n",
    "check c: E[limit(R + t, t -> 0)] = 0\n",
    "step s: limit(sqrt(E[R^2] + t^2), t -> 0) = 1\n",
])
def test_a_limit_of_a_random_expression_defined_everywhere_is_checked(text):
    _checked("random R ~ Rademacher\n" + text)


@pytest.mark.parametrize("text", [
    "random B ~ Bernoulli(1/2)\nlet x: positive real\nstep s: E[B^x] = 1/2\n",    # 0^x = 0: was E-undefined
    "random B ~ Bernoulli(1/2)\ncheck s: E[B^(1/2)] = 1/2\n",
    "let x: positive real\nlet y: real\nstep s: y^x y^x = y^(2 x)\n",
])
def test_a_zero_base_with_a_positive_exponent_is_defined(text):
    _checked(text)


@pytest.mark.parametrize("text", [
    "random R ~ Rademacher\nlet x: positive real\nstep s: E[R^x] = 1/2\n",
    "random W ~ Uniform(-1, 1)\nlet x: positive real\nstep s: E[W^x] = 0\n",
])
def test_a_negative_base_with_a_positive_symbolic_exponent_is_an_error(text):
    _refused(text)
