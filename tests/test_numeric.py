"""Numeric claims: the precision rule, within, ~, distributions and P, tables, simulate."""
from __future__ import annotations

import pytest
import sympy
from conftest import DERIVATIONS, shipped_report

from stepcheck.checker import check_text
from stepcheck.numeric import MAX_OUTCOMES, sign, written_tolerance
from stepcheck.parser import parse

def status(src: str, name: str | None = None) -> str:
    rep = check_text(src, "t.step")
    assert not rep.fatal, [d.title for d in rep.diagnostics]
    st = rep.steps[-1] if name is None else next(s for s in rep.steps if s.name == name)
    return st.status


def result(src: str, name: str | None = None):
    rep = check_text(src, "t.step")
    assert not rep.fatal, [d.title for d in rep.diagnostics]
    return rep.steps[-1] if name is None else next(s for s in rep.steps if s.name == name)


# ------------------------------------------------------------ the precision rule


@pytest.mark.parametrize("claim,want", [
    ("sqrt(8) ≈ 2.83", "holds"),
    ("sqrt(8) ≈ 2.8", "holds"),
    ("sqrt(8) ≈ 2.9", "fails"),
    ("sqrt(8) ≈ 3", "holds"),
    ("sqrt(8) ≈ 2.828", "holds"),
    ("sqrt(8) ≈ 2.829", "fails"),
    ("e^24 ≈ 2.6 × 10^10", "holds"),
    ("e^24 ≈ 2.7 × 10^10", "fails"),
    ("e^24 ≈ 2.65 × 10^10", "holds"),
    ("e^24 ≈ 2.6e10", "holds"),
    ("exp(-24) ≈ 3.8 * 10^-11", "holds"),
    ("e^68 ≈ 3 × 10^29", "holds"),
    ("24 ≈ 24", "holds"),
    ("24.6 ≈ 24", "fails"),
    ("-sqrt(8) ≈ -2.83", "holds"),
])
def test_precision_as_written(claim, want):
    assert status(f"check {claim}\n") == want


def test_written_tolerance():
    def tol(src):
        return written_tolerance(parse(f"check x ≈ {src}\n").statements[0].rhs)

    assert tol("2.83") == sympy.Rational(1, 200)
    assert tol("8") == sympy.Rational(1, 2)
    assert tol("2.6 × 10^10") == sympy.Rational(5, 100) * 10**10
    assert tol("10^29") == sympy.Rational(1, 2) * 10**29
    assert tol("1e-9") == sympy.Rational(1, 2) * sympy.Rational(1, 10**9)
    assert tol("1/3") is None


def test_exactly_on_the_boundary_is_included():
    # 2.85 is half-way between 2.8 and 2.9: consistent with both roundings
    r = result("check 2.85 ≈ 2.8\n")
    assert r.status == "holds" and "boundary" in r.links[0].message
    assert status("check 2.85 ≈ 2.9\n") == "holds"
    # exact arithmetic: a hair beyond the boundary fails, however small
    assert status("check 2.85 + 10^-300 ≈ 2.8\n") == "fails"
    assert status("check 2.85 - 10^-300 ≈ 2.9\n") == "fails"
    # an irrational boundary value, exactly on it: sqrt(2)^2 / 2 + ... is exact
    assert status("check sqrt(2) * sqrt(2) / 4 + 2.35 ≈ 2.8\n") == "holds"


def test_within_rounding_of_the_boundary_is_unknown():
    # exact cancellation decides even a tiny excess ...
    assert status("check 2.85 + exp(-400) ≈ 2.8\n") == "fails"
    # ... but sqrt(2.85^2 + e^-1000) differs from 2.85 only in the 435th digit
    r = result("check sqrt(2.85^2 + exp(-1000)) ≈ 2.8\n")
    assert r.status == "unknown"
    assert "digits" in r.links[0].message and "2.85" in r.links[0].message


def test_within_absolute_and_relative():
    assert status("check sqrt(2) ≈ 1.4 within 0.02\n") == "holds"
    assert status("check sqrt(2) ≈ 1.4 within 0.01\n") == "fails"
    assert status("check e^24 ≈ 2.6 × 10^10 within 0.02 relative\n") == "holds"
    assert status("check e^24 ≈ 2.6 × 10^10 within 0.01 relative\n") == "fails"
    assert status("check 1/3 ≈ 0.3333 within 1e-4\n") == "holds"


def test_approx_needs_a_decimal_or_within():
    r = result("check 1/3 ≈ sqrt(2) / 4\n")
    assert r.status == "unknown" and "within" in r.links[0].message


def test_order_of_magnitude():
    r = result("check e^68 ~ 10^29\n")
    assert r.status == "holds"
    msg = r.links[0].message
    assert "3.4e29" in msg and "floor(log10) = 29" in msg
    assert status("check e^68 ~ 10^30\n") == "fails"
    assert status("check 10^29 ~ 9.99 × 10^29\n") == "holds"
    assert status("check 10^29 ~ 9.99 × 10^28\n") == "fails"


def test_exact_relations():
    assert status("check (16 + 4·4 + 6·0 + 4·4 + 16)/16 = 4\n") == "holds"
    assert status("check sqrt(8) = 2 sqrt(2)\n") == "holds"
    assert status("check sqrt(8) > 2.83\n") == "fails"
    assert status("check sqrt(8) < 2.83\n") == "holds"
    assert status("check sqrt(8) > 2.828\n") == "holds"
    assert status("check 1/3 != 0.3333\n") == "holds"


def test_vectors_elementwise():
    assert status("check softmax([24, 0, 0, 0, 0, 0, 0, 0]) ≈ [1, 0, 0, 0, 0, 0, 0, 0] within 1e-9\n") == "holds"
    r = result("check softmax([1, 0]) ≈ [1, 0] within 1e-3\n")
    assert r.status == "fails" and "entry 1" in r.links[0].message
    assert status("check softmax([20, 1, -3, 0]) ≈ [1, 0, 0, 0]\n") == "holds"
    assert status("check softmax([1, 0]) ≈ [0.73, 0.27]\n") == "holds"
    assert status("check softmax([1, 0])_2 ≈ 0.27\n") == "holds"


def test_auto_name():
    r = result("\ncheck 1 = 1\n")
    assert r.name == "check_2" and r.kind == "check"


# ------------------------------------------------------------ distributions


def test_rademacher_enumeration_and_attribution():
    src = ("random X_i ~ Rademacher for i in 1..4\nassume indep: independent(X)\n"
           "define S = X_1 + X_2 + X_3 + X_4\n")
    assert status(src + "check P(S = 0) = 6/16\n") == "holds"
    assert status(src + "check P(S = 0) = 4/16\n") == "fails"
    assert status(src + "check E[S^2] = 4\n") == "holds"
    assert status(src + "check Var(S) = 4\n") == "holds"
    assert status(src + "check Var(S) = 2\n") == "fails"
    assert status(src + "check SD(S) = 2\n") == "holds"
    assert status(src + "check E[X_1^3] = 0\n") == "holds"
    r = result(src + "check Var(S) = 4\n")
    assert [(u.label, u.kind) for u in r.links[0].uses] == [("X_i ~ Rademacher", "distribution"),
                                                           ("indep", "independence")]


def test_enumeration_needs_independence():
    r = result("random X_i ~ Rademacher for i in 1..2\ncheck P(X_1 + X_2 = 0) = 1/2\n")
    assert r.status == "unknown" and "independent" in r.links[0].message
    # a single variable needs none
    assert status("random X ~ Rademacher\ncheck P(X = 1) = 1/2\n") == "holds"


def test_enumeration_limit():
    big = 17  # 2^17 outcomes > MAX_OUTCOMES
    assert 2**big > MAX_OUTCOMES
    src = (f"random X_i ~ Bernoulli(1/2) for i in 1..{big}\nassume indep: independent(X)\n"
           f"check P(sum(i=1..{big}, X_i) = 0) = 1/2^{big}\n")
    r = result(src)
    assert r.status == "unknown" and "outcomes" in r.links[0].message
    # 2^10 is fine
    src = ("random X_i ~ Bernoulli(1/2) for i in 1..10\nassume indep: independent(X)\n"
           "check P(sum(i=1..10, X_i) = 0) = 1/2^10\n")
    assert status(src) == "holds"


@pytest.mark.parametrize("decl,claims", [
    ("Normal(2, 9)", ["E[X] = 2", "Var(X) = 9", "E[X^2] = 13", "SD(X) = 3", "E[(X - 2)^4] = 243"]),
    ("Uniform(0, 1)", ["E[X] = 1/2", "Var(X) = 1/12", "E[X^3] = 1/4", "P(X <= 1/4) = 1/4"]),
    ("Bernoulli(1/3)", ["E[X] = 1/3", "Var(X) = 2/9", "P(X = 1) = 1/3", "E[X^5] = 1/3"]),
    ("Rademacher", ["E[X] = 0", "E[X^2] = 1", "E[X^3] = 0", "E[X^4] = 1", "P(X = -1) = 1/2"]),
    ("DiscreteUniform(1, 6)", ["E[X] = 7/2", "Var(X) = 35/12", "P(X >= 5) = 1/3"]),
    ("Binomial(4, 1/2)", ["E[X] = 2", "Var(X) = 1", "P(X = 2) = 6/16", "E[X^2] = 5"]),
])
def test_each_distribution(decl, claims):
    for c in claims:
        assert status(f"random X ~ {decl}\ncheck {c}\n") == "holds", c


def test_normal_events_closed_form():
    src = "random Z ~ Normal(0, 1)\n"
    assert status(src + "check P(-1 <= Z <= 1) ≈ 0.68\n") == "holds"
    assert status(src + "check P(|Z| <= 3) ≈ 0.997\n") == "holds"
    assert status(src + "check P(|Z| <= 3) ≈ 0.99\n") == "fails"
    r = result(src + "check P(-1 <= Z <= 1) ≈ 0.683\n")
    assert "erf(sqrt(2)/2)" in r.links[0].message
    assert status(src + "check P(Z = 0) = 0\n") == "holds"
    assert status(src + "check P(Z > 0) = 1/2\n") == "holds"


def test_moments_are_kernel_facts():
    src = ("random X_i ~ Rademacher for i in 1..4\nassume indep: independent(X)\n"
           "step v: Var(X_1 + X_2 + X_3 + X_4)\n"
           "    = Var(X_1) + Var(X_2) + Var(X_3) + Var(X_4)   by indep\n"
           "    = 4\n"
           "step m4: E[X_1^4] = 1\n"
           "step m3: E[X_2^3] = 0\n")
    rep = check_text(src, "t.step")
    st = {s.name: s for s in rep.steps}
    assert all(s.status == "holds" for s in st.values()), [(s.name, s.status) for s in rep.steps]
    assert [u.kind for u in st["m4"].links[0].uses] == ["distribution"]


def test_bad_distribution_parameters():
    rep = check_text("random X ~ Bernoulli(2)\n", "t.step")
    assert rep.fatal and rep.diagnostics[0].code == "E-distribution"
    rep = check_text("random X ~ Normal(0)\n", "t.step")
    assert rep.fatal and rep.diagnostics[0].code == "E-arity"
    rep = check_text("random X ~ Poisson(1)\n", "t.step")
    assert rep.fatal and rep.diagnostics[0].code == "E-unsupported"


def test_relation_outside_p_is_an_error():
    rep = check_text("let x: real\ncheck max(x = 1, 2) = 1\n", "t.step")
    assert rep.fatal


# ------------------------------------------------------------ tables


def test_table_cells_and_diagnostic():
    src = ('table "σ" for d_k in [8, 32]:\n'
           "    sqrt(d_k)   ≈ [2.83, 5.66]\n"
           "    3 sqrt(d_k) ≈ [8.6, 17]\n")
    rep = check_text(src, "t.step")
    names = [s.name for s in rep.steps]
    assert names == ["table_1[1,1]", "table_1[1,2]", "table_1[2,1]", "table_1[2,2]"]
    bad = [s for s in rep.steps if s.status != "holds"]
    assert [s.name for s in bad] == ["table_1[2,1]"]
    d = bad[0].links[0].diagnostics[0]
    assert "row 2, column 1" in d.title
    note = d.notes[0]
    assert "`3 sqrt(d_k)`" in note and "d_k = 8" in note and "8.485281374" in note and "[8.55, 8.65]" in note
    assert d.span.line == 3 and d.span.col == 20
    assert rep.exit_code() == 1


def test_table_wrong_number_of_cells():
    rep = check_text('table "t" for x in [1, 2]:\n    x ≈ [1]\n', "t.step")
    assert rep.fatal and any(d.code == "E-table" for d in rep.diagnostics)


# ------------------------------------------------------------ simulate

SIM = ("let d_k: positive integer\n"
       "random q_i, k_i ~ Normal(0, 1) for i in 1..d_k\n"
       "assume indep: independent(q, k)\n"
       "step var_term: Var(q_i k_i) = 1\n"
       "step var_sum: Var(sum(i=1..d_k, q_i k_i))\n"
       "    = sum(i=1..d_k, Var(q_i k_i))   by indep\n"
       "    = d_k                           by var_term\n")


def test_simulate_status_and_determinism():
    src = SIM + "simulate mc: Var(sum(i=1..d_k, q_i k_i)) ≈ d_k where d_k = 16 with samples = 4000, seed = 3 by var_sum\n"
    a = check_text(src, "t.step")
    b = check_text(src, "t.step")
    sa = next(s for s in a.steps if s.name == "mc")
    sb = next(s for s in b.steps if s.name == "mc")
    assert sa.status == "simulated" and sa.links[0].status == "simulated"
    assert sa.simulation["estimate"] == sb.simulation["estimate"]
    assert sa.simulation["consistent"] is True
    assert sa.simulation["low"] < 16 < sa.simulation["high"]
    assert "var_sum" in sa.steps_cited and "var_sum" in sa.links[0].message
    assert a.exit_code() == 0 and a.ok
    # a different seed gives a different estimate
    c = check_text(src.replace("seed = 3", "seed = 4"), "t.step")
    assert next(s for s in c.steps if s.name == "mc").simulation["estimate"] != sa.simulation["estimate"]
    counts = a.counts()
    assert counts["simulated"] == 1 and counts["holds"] >= 3


def test_simulate_inconsistent_fails_the_file():
    src = SIM + "simulate mc: Var(sum(i=1..d_k, q_i k_i)) ≈ 2 d_k where d_k = 16 with samples = 4000\n"
    rep = check_text(src, "t.step")
    st = next(s for s in rep.steps if s.name == "mc")
    assert st.status == "simulated" and st.simulation["consistent"] is False
    assert any(d.code == "E-simulation-inconsistent" for d in st.links[0].diagnostics)
    assert rep.exit_code() == 1


def test_simulate_probability_and_mean():
    src = "random Z ~ Normal(0, 1)\n"
    r = result(src + "simulate p: P(-1 <= Z <= 1) ≈ 0.6827 with samples = 20000, seed = 1\n")
    assert r.status == "simulated" and r.simulation["consistent"]
    r = result(src + "simulate m: E[Z^2] ≈ 1 with samples = 20000\n")
    assert r.status == "simulated" and r.simulation["consistent"]


def test_simulate_within_a_tolerance():
    """`≈ V within T`: the claim is |true − V| ≤ T, consistent where the interval meets [V − T, V + T].  At
    d_k = 4 the scaled dot product has kurtosis 3 + 6/4, and P(S ≤ 1) ≈ 0.87 (Edgeworth: Φ(1) + 2 φ(1)·1.5/24),
    not Φ(1) = 0.841: within 0.05 of Φ(1), not within 0.01, and not without a tolerance."""
    src = SIM + "random Z ~ Normal(0, 1)\n"
    claim = "simulate c: P(sum(i=1..d_k, q_i k_i) / sqrt(d_k) <= 1) ≈ P(Z <= 1){} where d_k = 4 " \
            "with samples = 20000, seed = 4\n"
    loose, tight, bare = (result(src + claim.format(t)) for t in (" within 0.05", " within 0.01", ""))
    assert loose.simulation["consistent"] and loose.simulation["tolerance"] == 0.05
    assert not tight.simulation["consistent"] and not bare.simulation["consistent"]
    assert "± 0.05" in loose.links[0].message and "within 0.05" in loose.statement
    rel = result(src + claim.format(" within 0.01 relative"))
    assert rel.simulation["tolerance"] == pytest.approx(0.01 * 0.8413447, rel=1e-6)
    bad = check_text(src + claim.format(" within -1"), "t.step")
    assert any(d.code == "E-tolerance" for d in bad.diagnostics)


@pytest.mark.parametrize("seed", [1, 7])
def test_a_sample_ruled_by_one_draw_gives_no_verdict(seed):
    """E[exp(5 Z)] = exp(12.5) ≈ 268337, but at 10^5 samples the mean is ruled by draws too rare to see: the
    normal interval came out INCONSISTENT with the true value at 9 seeds of 10 (red team, stop 51).  One sample
    giving most of the sample's spread now means no verdict; E[exp(Z)] keeps its verdict."""
    src = "random Z ~ Normal(0, 1)\n"
    r = result(src + f"simulate s: E[exp(5 Z)] ≈ exp(12.5) within 0.05 relative with samples = 100000, seed = {seed}\n")
    assert r.status == "unknown" and "too skewed" in r.links[0].message, r.links[0].message
    r = result(src + f"simulate s: E[exp(Z)] ≈ exp(0.5) within 0.05 relative with samples = 100000, seed = {seed}\n")
    assert r.status == "simulated" and r.simulation["consistent"]
    r = result(src + f"simulate s: Var(exp(4 Z)) ≈ exp(32) - exp(16) within 0.05 relative with samples = 100000, "
                     f"seed = {seed}\n")
    assert r.status == "unknown", r.links[0].message


def test_simulate_bad_option():
    rep = check_text("random Z ~ Normal(0, 1)\nsimulate p: E[Z] ≈ 0 with sample = 10\n", "t.step")
    assert rep.fatal and any(d.code == "E-simulate" for d in rep.diagnostics)


def test_simulated_report_marks():
    from stepcheck.report import render_text, to_json

    src = SIM + "simulate mc: Var(sum(i=1..d_k, q_i k_i)) ≈ d_k where d_k = 8 with samples = 2000 by var_sum\n"
    rep = check_text(src, "t.step")
    text = render_text([rep], color=False, ascii_only=False)
    lines = text.splitlines()
    i = next(k for k, l in enumerate(lines) if l.startswith("step var_sum"))
    j = next(k for k, l in enumerate(lines) if l.startswith("simulate mc"))
    assert j > i
    assert any(l.strip().startswith("~ ") for l in lines[j:j + 3])
    assert "1 simulated" in text
    js = to_json([rep])
    st = next(s for s in js["files"][0]["steps"] if s["name"] == "mc")
    assert st["status"] == "simulated" and st["simulation"]["consistent"] is True


# ------------------------------------------------------------ the derivations


@pytest.mark.parametrize("name", ["numbers.step", "pm_one.step"])
def test_derivations_verify(name):
    rep = shipped_report(DERIVATIONS / name)
    assert rep.exit_code() == 0, [(s.name, s.status) for s in rep.steps if s.status != "holds"]
    assert all(s.status in ("holds", "simulated") for s in rep.steps)


@pytest.mark.parametrize("name,step", [
    ("sqrt8_rounding.step", "sigma_8"),
    ("e24_mantissa.step", "e24"),
    ("pm_one_p0.step", "p_0"),
    ("pm_one_var.step", "var_S"),
    ("table_cell.step", "table_3[2,1]"),
])
def test_bad_files(name, step):
    rep = shipped_report(DERIVATIONS / "bad" / name)
    assert rep.exit_code() == 1
    st = next(s for s in rep.steps if s.name == step)
    assert st.status == "fails"
    assert [s.name for s in rep.steps if s.status != "holds"] == [step]


def test_sign_helper():
    assert sign(sympy.sqrt(2) - sympy.Rational(141, 100)) == 1
    assert sign(sympy.Integer(0)) == 0
    assert sign(sympy.exp(-400)) == 1
    assert sign(sympy.Rational(2) + sympy.exp(-400) - 2 - sympy.exp(-400)) == 0
