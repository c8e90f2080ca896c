"""E[g(X)] for X of a declared finite law with numeric parameters is the sum of g(x) P(X = x) over the
support (law_facts._finite_law_value): given to the kernel when a residual mentions it, and to the
consistency check when an assumption does."""
import pytest

from stepcheck.checker import check_text

DECLS = """random B ~ Bernoulli(1/2)
random R ~ Rademacher
random D ~ DiscreteUniform(-2, 2)
random N ~ Binomial(3, 1/2)
random Y ~ Bernoulli(1/4)
let n: positive integer
random q_i ~ Rademacher for i in 1..n
random W ~ Uniform(0, 1)
random X
let c: real
let t: positive real
let p: real
random U ~ Bernoulli(p)
assume pr: p > 0
assume pr1: p < 1
"""


def _link(claim):
    rep = check_text(DECLS + f"step s: {claim}\n", "t.step")
    assert not [d for d in rep.diagnostics if d.severity == "error"], claim
    (lk,) = rep.steps[-1].links
    return lk


@pytest.mark.parametrize("claim, law", [
    ("E[1/(B + 1)] = 3/4", "B ~ Bernoulli(1/2)"),
    ("E[exp(R)] = (exp(1) + exp(-1))/2", "R ~ Rademacher"),
    ("E[abs(D)] = 6/5", "D ~ DiscreteUniform(-2, 2)"),
    ("E[1/(N + 1)] = 15/32", "N ~ Binomial(3, 1/2)"),
    ("E[2^N] = 27/8", "N ~ Binomial(3, 1/2)"),
    ("E[log(Y + 1)] = log(2)/4", "Y ~ Bernoulli(1/4)"),
    ("E[exp(c R)] = (exp(c) + exp(-c))/2", "R ~ Rademacher"),           # a name in the term: exp(c) is total
    ("E[exp(t q_i)] = (exp(t) + exp(-t))/2", "q_i ~ Rademacher"),       # a family member
    ("3 E[1/(B + 1)] + 1 = 13/4", "B ~ Bernoulli(1/2)"),
])
def test_the_expectation_of_a_function_of_a_finite_law_is_its_sum_over_the_support(claim, law):
    lk = _link(claim)
    assert lk.status == "holds", claim
    assert [u.label for u in lk.uses if u.kind == "distribution"] == [law]


@pytest.mark.parametrize("claim, residual", [
    ("E[1/(B + 1)] = 1/2", "1/4"),
    ("E[abs(D)] = 1", "1/5"),
    ("E[2^N] = 3", "3/8"),
])
def test_a_wrong_value_fails_with_the_law_as_witness(claim, residual):
    lk = _link(claim)
    assert lk.status == "fails", claim
    assert lk.counterexample is not None


@pytest.mark.parametrize("claim", [
    "E[1/(c + R)] = c/(c^2 - 1)",      # 1/(c ± 1) has no value at c = ∓1: no fact
    "E[W^(1/2)] = 2/3",                # a continuous law: no sum over a support (true, not reached)
    "E[1/(U + 1)] = 1 - p/2",          # a symbolic parameter: no support to sum over
])
def test_no_sum_over_a_support_where_it_does_not_apply(claim):
    assert _link(claim).status == "unknown", claim


def test_no_sum_over_the_product_of_two_laws_not_declared_independent():
    # true for independent R and B, false for others with the same laws: the laws of each say nothing of it
    lk = _link("E[exp(R + B)] = (exp(1) + exp(-1))/4 + (exp(2) + 1)/4")
    assert lk.status == "fails" and lk.counterexample is not None


def test_an_assumption_contradicting_the_sum_over_the_support_is_inconsistent():
    rep = check_text("random B ~ Bernoulli(1/2)\nassume a: E[1/(B + 1)] = 1\nstep s: E[B] = 1/2\n", "t.step")
    assert "E-inconsistent" in {d.code for d in rep.diagnostics}
    ok = check_text("random B ~ Bernoulli(1/2)\nassume a: E[1/(B + 1)] = 3/4\nstep s: E[B] = 1/2\n", "t.step")
    assert "E-inconsistent" not in {d.code for d in ok.diagnostics}


@pytest.mark.parametrize("claim, status", [
    ("E[exp(10^8 R)] = 1", "fails"),        # exp(10^8) is e to the 10^8th for sympy's dense polynomials
    ("E[2^(2^(40 B))] = 1", "unknown"),     # 2^(2^40) is never computed exactly
    ("E[2^(3 B)] = 9/2", "holds"),
])
def test_huge_powers_at_a_support_point_end_in_a_verdict_not_in_memory(claim, status):
    assert _link(claim).status == status, claim


def test_a_polynomial_with_a_huge_exponent_is_refused_before_it_is_built():
    import sympy

    from stepcheck.kernel.reduce import _exponent_guard
    from stepcheck.terms.facts import KernelLimit
    x = sympy.Symbol("x")
    with pytest.raises(KernelLimit):
        _exponent_guard([sympy.exp(10**8) - 1])
    with pytest.raises(KernelLimit):
        _exponent_guard([x ** (10**6) + 1])
    _exponent_guard([x ** 12 + sympy.exp(3 * x)])  # small: nothing to say


@pytest.mark.parametrize("text, status", [
    # where a law exists is a fact of its declaration, for links about its parameters alone too
    ("let p: real\nrandom U ~ Bernoulli(p)\nstep s: p - p^2 >= 0\n", "holds"),
    ("let p: real\nrandom U ~ Bernoulli(p)\nstep s: Var(U)\n    = p - p^2\n    >= 0\n", "holds"),
    ("let p: real\nrandom U ~ Bernoulli(p)\nstep s: p <= 1\n", "holds"),
    ("let v: real\nrandom H ~ Normal(0, v)\nstep s: v > 0\n", "holds"),
    # near misses: the ends themselves are allowed
    ("let p: real\nrandom U ~ Bernoulli(p)\nstep s: p < 1\n", "fails"),
    ("let p: real\nrandom U ~ Bernoulli(p)\nstep s: p > 0\n", "fails"),
    ("let p: real\nrandom U ~ Bernoulli(p)\nstep s: p - p^2 > 0\n", "fails"),
])
def test_where_a_law_exists_is_a_fact_of_its_declaration(text, status):
    rep = check_text(text, "t.step")
    assert [lk.status for s in rep.steps for lk in s.links][-1] == status, text


def test_a_parameter_assumed_outside_where_its_law_exists_is_a_contradiction():
    rep = check_text("let p: real\nrandom U ~ Bernoulli(p)\nassume big: p > 1\nstep s: p > 1\n", "t.step")
    assert "E-inconsistent" in {d.code for d in rep.diagnostics}
    assert [lk.status for s in rep.steps for lk in s.links] != ["holds"]


def test_a_law_of_numbers_gives_no_condition_facts():
    rep = check_text("random U ~ Bernoulli(1/2)\nstep s: E[U] = 1/2\n", "t.step")
    assert not any("≥" in t or "≤" in t for t in rep.assumptions[0].facts), rep.assumptions[0].facts
    rep = check_text("let p: real\nrandom U ~ Bernoulli(p)\nstep s: E[U] = p\n", "t.step")
    assert {"p ≥ 0", "p ≤ 1"} <= set(rep.assumptions[0].facts), rep.assumptions[0].facts


MGF = """let t: real
let m: real
let s: positive real
random Z ~ Normal(0, 1)
random G ~ Normal(m, s^2)
random V ~ Uniform(0, 1)
random H ~ Normal(0, 1)
"""


@pytest.mark.parametrize("claim, status", [
    ("E[exp(Z)] = exp(1/2)", "holds"),                        # the moment generating function of a law
    ("E[exp(t Z)] = exp(t^2/2)", "holds"),
    ("E[exp(G)] = exp(m + s^2/2)", "holds"),                  # the lognormal mean
    ("E[exp(2 Z) + 3 exp(-Z)] = exp(2) + 3 exp(1/2)", "holds"),
    ("E[exp(V)] = exp(1) - 1", "holds"),
    ("E[exp(Z)] = 1", "fails"),
    ("E[exp(t Z)] = exp(t^2)", "fails"),
    ("E[exp(Z^2)] = 2", "unknown"),                           # not exp of a linear function: no value here
    ("E[exp(Z + H)] = exp(1)", "unknown"),                    # two variables, not declared independent
    ("E[Z exp(Z)] = exp(1/2)", "unknown"),                    # true, but no product with a polynomial here
])
def test_the_mean_of_exp_of_a_linear_function_of_a_continuous_law(claim, status):
    from stepcheck.checker import check_text
    (lk,) = check_text(MGF + f"step s: {claim}\n", "t.step").steps[0].links
    assert lk.status == status, (claim, lk.message)


def test_the_mean_of_exp_of_a_continuous_law_in_a_check():
    from stepcheck.checker import check_text
    rep = check_text(MGF + "check a: E[exp(Z)] ≈ 1.6487\ncheck b: E[exp(V)] = exp(1) - 1\ncheck c: E[exp(Z)] ≈ 1.7\n", "t.step")
    assert [s.links[0].status for s in rep.steps] == ["holds", "holds", "fails"]


@pytest.mark.parametrize("text, status", [
    # two declared laws the witness realises independently: a wrong value fails (was unknown: the re-check
    # evaluated one law at a time)
    ("assume ind: independent(Z, H)\nstep s: Var(Z H) = 2\n", "fails"),
    ("assume ind: independent(Z, H)\nstep s: Var(Z H) = 1\n", "holds"),
    ("assume ind: independent(Z, H)\nstep s: E[Z^2 H^2] = 3\n", "fails"),
    # a fact the independent coupling breaks: no witness from it (E[Z H] = 1/2 is not 0 there)
    ("assume c: E[Z H] = 1/2\nstep s: E[Z H] = 0\n", "not fails"),
])
def test_a_witness_realises_declared_laws_independently_and_rechecks_the_facts_on_it(text, status):
    from stepcheck.checker import check_text
    (lk,) = check_text(MGF + text, "t.step").steps[0].links
    assert (lk.status != "fails") if status == "not fails" else (lk.status == status), (text, lk.status)


def test_no_moment_generating_function_with_a_random_coefficient():
    from stepcheck.checker import check_text
    text = ("random Z ~ Normal(0, 1)\nrandom q_i ~ Bernoulli(1/2) for i in 1..2\nassume ind: independent(Z, q)\n"
            "step s: E[exp(Z max(q))] = exp(max(q)^2/2)\n")     # a random right side: max(q) is no constant
    assert check_text(text, "t.step").steps[0].links[0].status != "holds"


ABS = MGF + "random U ~ Uniform(-1, 3)\nlet a: real\nrandom A ~ Uniform(a, 1)\n"


@pytest.mark.parametrize("claim, status", [
    ("E[max(Z, 0)^2] = 1/2", "holds"),                        # He initialisation: E[relu(Z)^2] = σ²/2
    ("E[max(G - m, 0)^2] = s^2/2", "unknown"),                # true, but a shifted law: not read here
    ("E[abs(Z)] = sqrt(2/pi)", "holds"),
    ("E[max(Z, 0)] = 1/sqrt(2 pi)", "holds"),
    ("E[abs(Z)^3] = 2 sqrt(2/pi)", "holds"),
    ("E[Z abs(Z)] = 0", "holds"),                             # odd: 0 for a centred Normal
    ("E[Z^2 abs(Z)] = 2 sqrt(2/pi)", "holds"),
    ("Var(max(Z, 0)) = 1/2 - 1/(2 pi)", "holds"),             # E|Z|^2 with E|Z| = sqrt(2/pi) put in
    ("E[abs(U)] = 5/4", "holds"),                             # (1/4)(∫_0^3 x dx + ∫_-1^0 -x dx)
    ("E[U abs(U)] = 13/6", "holds"),
    ("E[max(U, 0)] = 9/8", "holds"),
    ("E[max(Z, 0)^2] = 1", "fails"),
    ("E[abs(Z)] = 1", "fails"),
    ("E[max(Z, 0)] = 1/2", "fails"),
    ("E[abs(U)] = 1", "fails"),
    ("E[abs(G)] = s sqrt(2/pi)", "not holds"),                # false unless m = 0: no value for a law with a mean
    ("E[abs(A)] = (1 + a^2)/(2 (1 - a))", "unknown"),         # true only for a <= 0: ends that are names: no value
    ("E[sqrt(abs(Z))] = 1", "unknown"),                       # not an integer power of |Z|
])
def test_absolute_moments_of_a_centred_normal_and_of_a_uniform(claim, status):
    rep = check_text(ABS + f"step s: {claim}\n", "t.step")
    (lk,) = rep.steps[0].links
    assert (lk.status != "holds") if status == "not holds" else (lk.status == status), (claim, lk.message)


@pytest.mark.parametrize("law, j, k", [
    (("Normal", (0, 1)), 0, 1), (("Normal", (0, 1)), 1, 1), (("Normal", (0, 3)), 0, 3), (("Normal", (0, 2)), 2, 2),
    (("Normal", (0, 1)), 1, 4), (("Uniform", (-1, 3)), 0, 1), (("Uniform", (-2, -1)), 1, 2),
    (("Uniform", (0, 5)), 3, 1), (("Uniform", ("-1/2", "1/3")), 2, 3),
])
def test_absolute_moments_agree_with_numerical_integration(law, j, k):
    import mpmath
    import sympy

    from stepcheck.distributions import Dist

    name, params = law
    d = Dist(name, tuple(sympy.Rational(p) for p in params), "t")
    got = float(d.abs_moment(j, k))
    f = lambda x: x ** j * abs(x) ** k
    if name == "Normal":
        v = float(params[1])
        want = mpmath.quad(lambda x: f(x) * mpmath.exp(-x * x / (2 * v)) / mpmath.sqrt(2 * mpmath.pi * v),
                           [-mpmath.inf, 0, mpmath.inf])
    else:
        lo, hi = (float(sympy.Rational(p)) for p in params)
        want = mpmath.quad(f, sorted({lo, hi} | ({0.0} if lo < 0 < hi else set()))) / (hi - lo)
    assert got == pytest.approx(float(want), rel=1e-10, abs=1e-12)


def test_no_absolute_moment_where_the_formula_does_not_apply():
    import sympy

    from stepcheck.distributions import Dist
    from stepcheck.law_means import abs_power

    x, c = sympy.Symbol("x", real=True), sympy.Symbol("c", real=True)
    assert Dist("Normal", (sympy.Integer(1), sympy.Integer(1)), "t").abs_moment(0, 1) is None   # a mean
    assert Dist("Uniform", (c, sympy.Integer(1)), "t").abs_moment(0, 1) is None                # an end a name
    assert abs_power(sympy.Abs(x) ** 3 * x, x) == (3, 1)  # sympy writes it x^3 |x|
    for g in (sympy.sqrt(sympy.Abs(x)), sympy.Abs(x - 1), x ** 2, c * sympy.Abs(x), sympy.Abs(x) ** 65):
        assert abs_power(g, x) is None, g


FAMILY_LAW = """let d: positive integer
let i: index 1..d
let s: positive real
random q_i, k_i ~ Normal(0, s) for i in 1..d
assume ind: independent(q, k)
"""


@pytest.mark.parametrize("claim, status", [
    # a member of a family with a declared law the witness's model leaves out is realised independently
    # (it was "k_1 is not in the model": a wrong constant of the article's own claim stayed unknown)
    ("E[(sum(i=1..d, q_i k_i))^4] = 3 d^2 s^4", "fails"),     # 3 d^2 s^4 + 6 d s^4
    ("Var(sum(i=1..d, q_i k_i)) = d s", "fails"),
    ("E[q_1 k_1] = s", "fails"),
    ("E[(sum(i=1..d, q_i k_i))^4] = 3 d^2 s^4 + 6 d s^4", "holds"),
    ("Var(sum(i=1..d, q_i k_i)) = d s^2", "holds"),
])
def test_wrong_constants_on_families_of_a_declared_law_fail(claim, status):
    (lk,) = check_text(FAMILY_LAW + f"step s: {claim}\n", "t.step").steps[0].links
    assert lk.status == status, (claim, lk.message)


@pytest.mark.parametrize("claim, status", [
    ("E[max(G, 0)^2] = 1/2", "holds"),          # He initialisation, in a check (was unknown: not a polynomial)
    ("E[max(G, 0)] = 1/sqrt(2 pi)", "holds"),
    ("E[abs(V) + 1] = 9/4", "holds"),
    ("E[max(G, 0)^2] = 1", "fails"),
    ("E[abs(H)] = sqrt(2/pi)", "unknown"),      # a Normal with a mean: no closed form here
    ("E[sqrt(abs(G))] = 1", "unknown"),
])
def test_absolute_moments_in_a_check(claim, status):
    text = ("random G ~ Normal(0, 1)\nrandom V ~ Uniform(-1, 3)\nrandom H ~ Normal(1, 1)\n"
            f"check c: {claim}\n")
    (lk,) = check_text(text, "t.step").steps[0].links
    assert lk.status == status, (claim, lk.message)
