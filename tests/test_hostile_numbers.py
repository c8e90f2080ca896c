"""Three soundness classes of the hostile corpus, at their roots (tests/hostile/02, 09, 10).

* empty and reversed ranges: one semantics (an empty sum is 0, an empty
  product 1, ``lo..hi`` with ``hi < lo`` is empty) in check, table, simulate,
  the finite models, the distributions' moments and the mutation oracle,
  all through ``stepcheck.models.ranges``;
* simulations that prove nothing: a minimum sample size, the confidence
  reached, options out of range, quantities without certified moments;
* large inputs: numbers past Python's 4,300-digit printing limit, products
  and sums that grow before any limit, laws numpy cannot draw.

Each rule is tested where it applies and where it must not.
"""
from __future__ import annotations

import random
import time
from fractions import Fraction

import pytest
import sympy
from sympy import Dummy, Integer, Product, Rational, Sum

from stepcheck.checker import check_text
from stepcheck.models import ranges

from conftest import diagnostic_codes


def statuses(text):
    rep = check_text(text, "t.step")
    return {s.name: s.status for s in rep.steps}, rep


codes = diagnostic_codes


def step(rep, name):
    return next(s for s in rep.steps if s.name == name)


# ====================================================================== 1. empty and reversed ranges

i, j = Dummy("i", integer=True), Dummy("j", integer=True)


def test_the_helper_empty_ranges():
    assert list(ranges.index_range(3, 1)) == [] and ranges.count(3, 1) == 0 and ranges.count(1, 3) == 3
    assert ranges.evaluate(Sum(Integer(1), (i, 1, -2))) == 0  # sympy's doit says -2
    assert ranges.evaluate(Product(Integer(2), (i, 3, 1))) == 1  # sympy's doit says 1/2
    assert Sum(Integer(1), (i, 1, -2)).doit() == -2 and Product(Integer(2), (i, 3, 1)).doit() == Rational(1, 2)


def test_the_helper_nested_range_depending_on_the_outer_index():
    inner_reversed = Sum(Sum(Integer(1), (j, i, 1)), (i, 1, 3))  # 1 + 0 + 0 in the language
    assert ranges.evaluate(inner_reversed) == 1
    assert inner_reversed.doit() == 0  # sympy: 1 + 0 + (-1)


def test_the_helper_leaves_ordinary_ranges_alone():
    assert ranges.evaluate(Sum(i**2, (i, 1, 4))) == 30
    assert ranges.evaluate(Sum(i, (i, 2, 1))) == 0  # hi = lo - 1: both conventions say 0
    assert ranges.evaluate(Product(i, (i, 1, 5))) == 120
    assert ranges.evaluate(Sum(Rational(1, 2) ** i, (i, 1, 60))) == 1 - Rational(1, 2) ** 60
    n = sympy.Symbol("n", integer=True)
    assert ranges.evaluate(Sum(i, (i, 1, n))) == Sum(i, (i, 1, n))  # symbolic: no value yet


def test_the_helper_limits():
    with pytest.raises(ranges.RangeLimit):
        ranges.evaluate(Sum(i, (i, 1, 10**6)))
    with pytest.raises(ranges.RangeLimit):
        ranges.evaluate(Sum(i, (i, 1, Rational(5, 2))))
    with pytest.raises(ranges.RangeLimit):
        ranges.evaluate(Product(Integer(10) ** 999, (i, 1, 10_000)), max_bits=70_000)
    with pytest.raises(ranges.RangeLimit):
        ranges.evaluate(Sum(sympy.sqrt(i), (i, 1, 5000)), max_irrational=1000)
    # an empty range is never too long
    assert ranges.evaluate(Sum(i, (i, 1, -10**12))) == 0


def test_check_and_table_follow_the_language():
    st, _ = statuses("check a: sum(i=1..-2, 1) = 0\ncheck b: prod(i=3..1, 2) = 1\n"
                     "check c: sum(i=1..-2, 1) = -2\ncheck d: prod(i=3..1, 2) = 1/2\n"
                     "check e: sum(i=1..3, sum(j=i..1, 1)) = 1\n"
                     'table "t" for n in [2, 0, -1, -3]:\n    sum(i=1..n, 1) = [2, 0, 0, 0]\n'
                     "    prod(i=1..n, 2) = [4, 1, 1, 1]\n")
    assert st.pop("c") == "fails" and st.pop("d") == "fails"
    assert set(st.values()) == {"holds"}, st


def test_check_of_ordinary_ranges_is_unchanged():
    st, _ = statuses("check squares: sum(i=1..4, i^2) = 30\ncheck product: prod(i=1..3, 2) = 8\n"
                     "check geometric: sum(i=1..10000, 2^(i/7)) > 3\ncheck wrong: sum(i=1..4, i) = 11\n")
    assert st == {"squares": "holds", "product": "holds", "geometric": "holds", "wrong": "fails"}


def test_probabilities_of_an_empty_sum():
    st, _ = statuses("random X_i ~ Rademacher for i in 1..4\nassume indep: independent(X)\n"
                     "check zero: P(sum(i=3..1, X_i) = 0) = 1\ncheck var: Var(sum(i=3..1, X_i)) = 0\n"
                     "check karr: Var(sum(i=3..1, X_i)) = 1\ncheck full: Var(sum(i=1..4, X_i)) = 4\n")
    assert st == {"zero": "holds", "var": "holds", "karr": "fails", "full": "holds"}


def test_simulate_follows_the_language():
    _, rep = statuses("random Z ~ Normal(0, 1)\nsimulate s: E[Z + sum(i=1..-3, 1)] ≈ 0\n"
                      "simulate k: E[Z + sum(i=1..-3, 1)] ≈ -3\nsimulate t: E[Z] ≈ sum(i=1..-3, 1)\n"
                      "simulate p: E[Z prod(i=3..1, 2)] ≈ 0\nsimulate q: E[Z + sum(i=1..3, 1)] ≈ 3\n")
    sims = {s.name: s.simulation["consistent"] for s in rep.steps}
    assert sims == {"s": True, "k": False, "t": True, "p": True, "q": True}


def test_models_evaluate_empty_ranges():
    from stepcheck.models import Model, evaluate
    from stepcheck.terms.facts import Decls

    d = Decls(random_symbols=frozenset(), random_families=frozenset(), index_ranges={}, family_ranges={})
    m = Model()
    assert evaluate(Sum(Integer(1), (i, 1, -2)), m, d) == 0
    assert evaluate(Product(Integer(2), (i, 3, 1)), m, d) == 1
    assert evaluate(Sum(i, (i, 1, 4)), m, d) == 10 and evaluate(Product(Integer(2), (i, 1, 3)), m, d) == 8


def test_counterexamples_reach_reversed_ranges():
    # m = -2 is the first value where Gauss's closed form and the empty sum differ
    from stepcheck.models.search import _dim_values

    assert -2 in _dim_values(sympy.Symbol("m", integer=True))
    assert _dim_values(sympy.Symbol("n", integer=True, positive=True)) == [1, 2, 3]
    st, _ = statuses("let m: integer\nstep gauss: sum(i=1..m, i) = m (m + 1) / 2\n"
                     "refute not_gauss: sum(i=1..m, i) = m (m + 1) / 2\n")
    assert st == {"gauss": "fails", "not_gauss": "holds"}
    st, _ = statuses("let n: positive integer\nstep ok: sum(i=1..n, 1) = n\n")
    assert st == {"ok": "holds"}


def test_the_mutation_oracle_uses_the_language():
    from benchmarks import mutate

    scope, _, dists = mutate._elaborate("let x: real\nstep s: x = x\n")
    o = mutate.Oracle(scope, dists, random.Random(0))
    assert o.value(Sum(Integer(1), (i, 1, -2)), {}, None) == 0
    assert o.value(Product(Integer(2), (i, 3, 1)), {}, None) == 1
    assert o.value(Sum(i, (i, 1, 4)), {}, None) == 10


@pytest.mark.parametrize("a, b", [(1, 6), (-3, 4), (2, 2), (0, 0), (-5, -1)])
def test_discrete_uniform_moments_are_ordinary_sums(a, b):
    from stepcheck.distributions import Dist

    d = Dist("DiscreteUniform", (Integer(a), Integer(b)), "DU")
    for k in range(0, 7):
        assert d.moment(k) == Rational(sum(m**k for m in range(a, b + 1)), b - a + 1), (a, b, k)


# ====================================================================== 2. simulations that prove nothing

def sim(text, name="s"):
    rep = check_text("random Z ~ Normal(0, 1)\nrandom U ~ Uniform(0, 1)\nrandom B ~ Bernoulli(1/2)\n"
                     "assume indep: independent(Z, U, B)\n" + text, "t.step")
    return step(rep, name) if any(s.name == name for s in rep.steps) else None, rep


@pytest.mark.parametrize("n", [1, 2, 3, 99])
def test_too_few_samples_give_no_verdict(n):
    st, rep = sim(f"simulate s: E[Z] ≈ 100 with samples = {n}\n")
    assert st.status == "unknown" and "E-simulation-too-few" in codes(rep)
    assert "reaches only" in st.links[0].message


def test_enough_samples_give_a_verdict():
    st, rep = sim("simulate s: E[Z] ≈ 0 with samples = 100, seed = 1\n")
    assert st.status == "simulated" and "E-simulation-too-few" not in codes(rep)
    st, _ = sim("simulate s: E[Z] ≈ 100 with samples = 100\n")
    assert st.status == "simulated" and st.simulation["consistent"] is False


def test_the_confidence_reached_is_reported():
    from stepcheck.simulate import confidence_reached

    assert abs(confidence_reached(2, Rational(95, 100)) - 0.6997) < 1e-3
    assert abs(confidence_reached(100, Rational(95, 100)) - 0.9472) < 1e-3
    assert 0.9499 < confidence_reached(20_000, Rational(95, 100)) < 0.95
    st, _ = sim("simulate s: E[Z^2] ≈ 1\n")
    assert "confidence reached 94.99" in st.links[0].message
    assert 0.9499 < st.simulation["confidence_reached"] < 0.95


def test_high_confidence_needs_more_samples():
    st, rep = sim("simulate s: E[Z] ≈ 0.3 with samples = 200, confidence = 0.999999\n")
    assert st.status == "unknown" and "E-simulation-too-few" in codes(rep)
    st, _ = sim("simulate s: E[Z] ≈ 0 with samples = 20000, confidence = 0.999999\n")
    assert st.status == "simulated"


@pytest.mark.parametrize("opt", ["confidence = 1", "confidence = 0", "confidence = 1.5", "confidence = 95",
                                 "confidence = 0.99999999999999999999", "confidence = 0.9999999",
                                 "samples = 0", "samples = -5", "samples = 2.5", "seed = -1", "seed = 10^40",
                                 "seed = 2^128"])
def test_options_out_of_range_are_input_errors(opt):
    st, rep = sim(f"simulate s: E[Z] ≈ 0 with {opt}\n")
    assert rep.fatal and "E-simulate" in codes(rep), opt


def test_options_in_range_are_accepted():
    for opt in ("confidence = 0.999999", "confidence = 0.5", "seed = 2^127", "seed = 0", "samples = 10000000"):
        st, rep = sim(f"simulate s: E[Z] ≈ 0 with {opt}\n")
        assert not rep.fatal and st.status == "simulated", opt


@pytest.mark.parametrize("q", ["E[log(U)]", "E[1/(U + V - 1)]", "Var(log(U))"])
# E[Z^(1/2)] has no value at all (Z < 0 with probability 1/2): E-undefined, tests/test_real_values.py
def test_quantities_without_certified_moments_are_not_simulated(q):
    st, rep = sim(f"random V ~ Uniform(0, 1)\nassume iv: independent(U, V)\nsimulate s: {q} ≈ 0\n")
    assert st.status == "unknown" and "E-simulation-unknown" in codes(rep), q
    assert "finite moments" in st.links[0].message


@pytest.mark.parametrize("q", ["E[1/Z]", "E[1/U]", "E[exp(Z^2)]", "E[exp(exp(Z))]", "Var(1/Z)", "SD(1/U)",
                               "E[(Z^2)^(-1)]", "Var(exp(Z^2/2))", "E[2^(Z^2)]"])
def test_infinite_means_are_input_errors_before_any_simulation(q):
    """Read as means that do not exist (integrability.py): no simulation is run, and nothing is simulated."""
    rep = check_text("random Z ~ Normal(0, 1)\nrandom U ~ Uniform(0, 1)\n" f"simulate s: {q} ≈ 0\n", "t.step")
    assert "E-undefined" in codes(rep) and not any(s.status == "simulated" for s in rep.steps), q


@pytest.mark.parametrize("q, v", [("E[exp(Z)]", "1.6487"), ("E[1/(1 + U)]", "0.6931"), ("E[tanh(Z)]", "0"),
                                  ("E[Z^4]", "3"), ("Var(Z^2)", "2"), ("E[|Z|]", "0.798"),
                                  ("E[sqrt(U)]", "0.667"), ("E[log(1 + U)]", "0.386"), ("E[2^Z]", "1.27"),
                                  ("E[max(Z, 0)]", "0.399"), ("P(1/Z > 1)", "0.3413"), ("E[exp(-Z^2)]", "0.577"),
                                  ("E[B/(1 + U)]", "0.3466"), ("E[(U + 1)^(-2)]", "0.5")])
def test_quantities_with_finite_moments_are_simulated(q, v):
    st, rep = sim(f"simulate s: {q} ≈ {v}\n")
    assert st.status == "simulated" and st.simulation["consistent"], (q, st.links[0].message)


def test_the_attention_simulation_is_unchanged():
    rep = check_text("let d_k: positive integer\nrandom q_i, k_i ~ Normal(0, 1) for i in 1..d_k\n"
                     "assume indep: independent(q, k)\n"
                     "simulate v: Var(sum(i=1..d_k, q_i k_i) / sqrt(d_k)) ≈ 1 where d_k = 64 with samples = 4000\n",
                     "t.step")
    assert rep.steps[0].status == "simulated" and rep.steps[0].simulation["consistent"]


# ====================================================================== 3. large inputs

def test_fmt_never_prints_a_huge_integer():
    from stepcheck.compare import fmt, huge, safe_str

    x = Integer(10) ** 5000
    assert fmt(x) == "1.0e+5000" and huge(x) and not huge(Integer(10) ** 500)
    assert safe_str(x) == "1.0e+5000" and safe_str(Rational(1, 3)) == "1/3"
    assert "e+" in fmt(Rational(10**5000 + 1, 3))


@pytest.mark.parametrize("claim, want", [
    ("10^999 10^999 10^999 10^999 10^999 > 3", "holds"),
    ("10^999 10^999 10^999 10^999 10^999 = 10^999", "fails"),
    ("prod(i=1..5, 10^999) ≈ 10^999", "fails"),
    ("prod(i=1..5, 10^999) ~ 10^999", "fails"),
    ("sum(i=1..10000, 1/i) > 9", "holds"),
    ("prod(i=1..10000, 10^999) > 3", "unknown"),
    ("prod(i=1..10000, i) > 3", "unknown"),
    ("sum(i=1..10000, sqrt(i)) > 3", "unknown"),
    ("999^999 = 3", "fails"),
])
def test_large_numbers_end_in_a_verdict_or_unknown_quickly(claim, want):
    t0 = time.perf_counter()
    st, rep = statuses(f"check c: {claim}\n")
    assert st == {"c": want} and not rep.fatal, claim
    assert time.perf_counter() - t0 < 6, claim


def test_huge_values_are_not_handed_to_the_printers():
    rep = check_text("check c: 10^999 10^999 10^999 10^999 10^999 > 3\ncheck d: 10^99 > 3\n", "t.step")
    assert rep.steps[0].links[0].lhs_expr is None and rep.steps[1].links[0].lhs_expr == Integer(10) ** 99


def test_moments_of_big_polynomials_are_refused_before_expanding():
    t0 = time.perf_counter()
    st, _ = statuses("random X, Y, Z ~ Normal(0, 1)\nassume i: independent(X, Y, Z)\n"
                     "check big: E[(X + Y + Z)^200] = 0\ncheck small: E[(X + Y)^4] = 12\n")
    assert st == {"big": "unknown", "small": "holds"} and time.perf_counter() - t0 < 5


@pytest.mark.parametrize("law, q", [("DiscreteUniform(1, 10^30)", "E[X]"), ("DiscreteUniform(-10^30, 10^30)", "P(X = 0)"),
                                    ("Binomial(10^25, 1/2)", "E[X]"), ("Normal(0, 10^300)", "Var(X)"),
                                    ("Normal(10^400, 1)", "E[X]"), ("Bernoulli(10^-400)", "P(X = 1)"),
                                    ("Normal(0, 10^999 10^999 10^999 10^999 10^999)", "E[X]")])
def test_laws_numpy_cannot_draw_are_not_simulated(law, q):
    rep = check_text(f"random X ~ {law}\nsimulate s: {q} ≈ 0\n", "t.step")
    assert rep.steps[0].status == "unknown" and "E-simulation-unknown" in codes(rep), law
    assert "cannot be simulated" in rep.steps[0].links[0].message


@pytest.mark.parametrize("law, q, v", [("DiscreteUniform(1, 6)", "E[X]", "3.5"), ("Binomial(10, 1/2)", "Var(X)", "2.5"),
                                       ("DiscreteUniform(1, 2^40)", "P(X <= 2^39)", "0.5"),
                                       ("Normal(0, 10^10)", "SD(X)", "10^5")])
def test_ordinary_laws_are_simulated(law, q, v):
    rep = check_text(f"random X ~ {law}\nsimulate s: {q} ≈ {v}\n", "t.step")
    assert rep.steps[0].status == "simulated", rep.steps[0].links[0].message


def test_simulations_past_the_draw_limit_are_unknown_quickly():
    t0 = time.perf_counter()
    rep = check_text("let n: positive integer\nrandom X_i ~ Normal(0, 1) for i in 1..n\nassume indep: independent(X)\n"
                     "simulate a: E[sum(i=1..n, X_i)] ≈ 0 where n = 10^30\n"
                     "simulate b: E[sum(i=1..n, X_i)] ≈ 0 where n = 10000 with samples = 10000000\n", "t.step")
    assert [s.status for s in rep.steps] == ["unknown", "unknown"] and time.perf_counter() - t0 < 5


def test_an_overflowing_estimate_gives_no_verdict():
    rep = check_text("random X, Y, Z ~ Normal(0, 1)\nassume i: independent(X, Y, Z)\n"
                     "simulate s: E[(X + Y + Z)^200] ≈ 0\n", "t.step")
    assert rep.steps[0].status == "unknown" and "overflow" in rep.steps[0].links[0].message


def test_model_values_are_printable():
    from stepcheck.models.numbers import ModelError, n_pow
    from stepcheck.models.render import show_value

    assert n_pow(Fraction(3), Fraction(200)) == 3**200  # exact, past the old exponent limit of 64
    with pytest.raises(ModelError):
        n_pow(Fraction(3), Fraction(100_000))
    assert show_value(Fraction(10**5000)).startswith("≈ 1.0e+5000")
    assert show_value(Fraction(3, 4)) == "3/4" and show_value(Fraction(10**50)) == str(10**50)


def test_a_big_power_step_gets_a_counterexample():
    st, rep = statuses("let x, y, z: real\nstep s: (x + y + z)^200 = x^200\nrefute r: (x + y + z)^200 = x^200\n")
    assert st == {"s": "fails", "r": "holds"}
