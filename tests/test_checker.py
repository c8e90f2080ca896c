"""Tests through ``stepcheck.checker.check_text`` on small `.step` texts."""
from __future__ import annotations

import time

import pytest

from stepcheck.checker import check_file, check_text

XY = "random X, Y, Z\nlet a, b, c: real\n"
QN = "let n: positive integer\nlet i, j: index 1..n\nrandom q_i, k_i for i in 1..n\nlet mu: real\n"
QK = """let d_k: positive integer
let i, j: index 1..d_k
random q_i, k_i for i in 1..d_k
assume indep: independent(q, k)
assume mean0: E[q_i] = 0, E[k_i] = 0
assume var1:  Var(q_i) = 1, Var(k_i) = 1
"""


def link(rep, step, n=1):
    st = next(s for s in rep.steps if s.name == step)
    return st.links[n - 1]


def uses(lr):
    return [u.label for u in lr.uses]


def codes(rep, step=None):
    out = [d.code for d in rep.diagnostics]
    for s in rep.steps:
        if step is None or s.name == step:
            for lr in s.links:
                out += [d.code for d in lr.diagnostics]
    return out


def one(text, **kw):
    rep = check_text(text, **kw)
    assert not rep.fatal, [d.title for d in rep.diagnostics]
    return rep


# ---------------------------------------------------------------- rules through the language
@pytest.mark.parametrize("stmt", [
    "E[a X + b Y + c] = a E[X] + b E[Y] + c",
    "Var(a X) = a^2 Var(X)",
    "Var(X + c) = Var(X)",
    "SD(X) = sqrt(Var(X))",
    "Cov(X, Y) = E[X Y] - E[X] E[Y]",
    "Var(X + Y) = Var(X) + Var(Y) + 2 Cov(X, Y)",
])
def test_rules_hold_without_facts(stmt):
    rep = one(XY + f"step s: {stmt}")
    lr = link(rep, "s")
    assert lr.status == "holds"
    assert lr.uses == []
    assert rep.exit_code() == 0


@pytest.mark.parametrize("stmt", ["E[X^2] = E[X]^2", "Var(2 X) = 2 Var(X)", "E[X Y] = E[X] E[Y]"])
def test_rules_must_not_hold(stmt):
    rep = one(XY + f"step s: {stmt}")
    # false: the counterexample search (issue 5) refutes it with a finite model
    assert link(rep, "s").status == "fails"
    assert link(rep, "s").counterexample
    assert "E-fails" in codes(rep)
    assert rep.exit_code() == 1


def test_symbolic_sum_linearity():
    rep = one(QN + "step s: E[sum(i=1..n, q_i)] = sum(i=1..n, E[q_i])")
    assert link(rep, "s").status == "holds"


def test_factorization_weakest_is_uncorrelated():
    rep = one(XY + "assume ind: independent(X, Y)\nstep s: E[X Y] = E[X] E[Y] by ind")
    lr = link(rep, "s")
    assert lr.status == "holds"
    assert [(u.label, u.weakest) for u in lr.uses] == [("ind", "uncorrelated(X, Y)")]


def test_weakest_form_names_the_files_bound_indices():
    """Inside a sum the weakest form keeps the file's index names (r, s), not invented ones; where the
    file's name is taken (a free index r beside a bound r) another letter is used, never a clash."""
    head = ("let n: positive integer\nlet r, s: index 1..n\nrandom q_r, k_r for r in 1..n\n"
            "assume ind: independent(q, k)\nassume m0: E[q_r] = 0, E[k_r] = 0\n")
    rep = one(head + "step x: E[sum(r=1..n, q_r k_r)] = 0 by ind, m0\n"
                     "step y: E[sum(r=1..n, q_r) sum(s=1..n, k_s)] = 0 by ind, m0\n"
                     "step z: E[q_r sum(r=1..n, k_r)] = 0 by ind, m0\n")
    assert [(u.label, u.weakest) for u in link(rep, "x").uses][0] == ("ind", "uncorrelated(q_r, k_r)")
    w = link(rep, "y").uses[0].weakest
    assert "uncorrelated(q_r, k_s) for r ≠ s" in w and "_i" not in w, w
    w = link(rep, "z").uses[0].weakest or ""
    inside = [w[a + 1:w.find(")", a)].split(", ") for a in [k for k, c in enumerate(w) if c == "("]]
    assert all(len(set(x)) == len(x) for x in inside), w  # q_r beside a bound index never both named r


def test_factorization_higher_degree_full_independence():
    rep = one(XY + "assume ind: independent(X, Y)\nstep s: E[X^2 Y] = E[X^2] E[Y] by ind")
    lr = link(rep, "s")
    assert lr.status == "holds"
    assert [(u.label, u.weakest) for u in lr.uses] == [("ind", None)]


def test_pairwise_facts_do_not_factor_triple():
    rep = one(XY + "assume p1: X ⟂ Y\nassume p2: Y ⟂ Z\nstep s: E[X Y Z] = E[X] E[Y] E[Z]")
    # never holds; with the model finder it is refuted by a witness
    assert link(rep, "s").status in ("unknown", "fails")


def test_free_indices_may_coincide():
    rep = one(QN + "assume ind: independent(q)\nstep s: E[q_i q_j] = E[q_i] E[q_j] by ind")
    assert link(rep, "s").status != "holds"


def test_pairwise_fact_inside_sum():
    rep = one(QN + "assume ind: q_i ⟂ q_j for i != j\nassume m: E[q_i] = 0\n"
                   "step s: E[sum(i=1..n, q_i)^2] = sum(i=1..n, E[q_i^2]) by ind, m")
    lr = link(rep, "s")
    assert lr.status == "holds"
    assert sorted(uses(lr)) == ["ind", "m"]
    rep2 = one(QN + "assume ind: q_i ⟂ q_j for i != j\nstep s: E[q_i q_j] = E[q_i] E[q_j] by ind")
    assert link(rep2, "s").status != "holds"


def test_uncorrelated_fact():
    base = XY + "assume u: uncorrelated(X, Y)\n"
    rep = one(base + "step s: Var(X + Y) = Var(X) + Var(Y) by u")
    assert link(rep, "s").status == "holds"
    assert uses(link(rep, "s")) == ["u"]
    rep2 = one(base + "step s: E[X^2 Y^2] = E[X^2] E[Y^2]")
    assert link(rep2, "s").status in ("unknown", "fails")


def test_sums_and_counts():
    rep = one(QN + "assume m: E[q_i] = mu\n"
                   "step c: sum(i=1..n, mu) = n mu\n"
                   "step d: sum(i=1..n, sum(j=1..n, E[q_i] E[q_j])) = n mu^2 + n (n - 1) mu^2 by m\n"
                   "step bad: sum(i=1..n, q_i) = n q_1\n")
    assert link(rep, "c").status == "holds"
    assert link(rep, "d").status == "holds"
    assert uses(link(rep, "d")) == ["m"]
    assert link(rep, "bad").status == "unknown"


def test_kronecker_uses_range_implicitly():
    rep = one(QN + "step s: sum(j=1..n, δ_ij) = 1")
    lr = link(rep, "s")
    assert lr.status == "holds"
    rng = [u for u in lr.uses if u.kind == "range"]
    assert [u.label for u in rng] == ["range of i"]
    assert rng[0].implicit


def test_fact_distinct_not_on_diagonal():
    rep = one(QN + "assume c: Cov(q_i, q_j) = 0 for i != j\n"
                   "step diag: Cov(q_i, q_i) = 0 by c\n"
                   "step sumv: Var(sum(i=1..n, q_i)) = sum(i=1..n, Var(q_i)) by c\n")
    assert link(rep, "diag").status != "holds"
    assert link(rep, "sumv").status == "holds"


def test_fact_not_applied_outside_range():
    t = "let i: index 1..4\nlet m: index 1..5\nrandom q_i for i in 1..5\nassume c: E[q_i] = 0\n"
    rep = one(t + "step inside: E[q_3] = 0 by c\nstep out: E[q_5] = 0 by c\nstep other: E[q_m] = 0 by c\n")
    assert link(rep, "inside").status == "holds"
    assert link(rep, "out").status == "fails"  # a finite model with E[q_5] != 0
    assert link(rep, "other").status == "fails"


def test_algebra():
    rep = one("let d: positive real\nlet x: real\nrandom X\n"
              "step sq: sqrt(d)^2 = d\n"
              "step absx: sqrt(x^2) = x\n"
              "let i: index 1..3\nrandom q_i, k_i for i in 1..3\n"
              "step quarter: (q_1 / d^(1/4)) (k_1 / d^(1/4)) = q_1 k_1 / sqrt(d)\n")
    assert link(rep, "sq").status == "holds"
    assert link(rep, "quarter").status == "holds"
    lr = link(rep, "absx")
    assert lr.status == "fails"
    assert lr.counterexample and "x = -" in lr.counterexample


# ---------------------------------------------------------------- var_dot
def test_var_dot():
    rep = one(QK + "step good: Var(sum(i=1..d_k, q_i k_i)) = d_k by indep, mean0, var1\n"
                   "step bad: Var(sum(i=1..d_k, q_i k_i)) = sqrt(d_k) by indep, mean0, var1\n")
    assert link(rep, "good").status == "holds"
    assert sorted(uses(link(rep, "good"))) == ["indep", "mean0", "var1"]
    bad = link(rep, "bad")
    assert bad.status == "fails"
    assert bad.counterexample and "d_k =" in bad.counterexample
    assert "E-fails" in codes(rep, "bad")


def test_var_dot_without_independence():
    t = QK.replace("assume indep: independent(q, k)\n", "")
    rep = one(t + "step s: Var(sum(i=1..d_k, q_i k_i)) = d_k by mean0, var1\n"
                  "step s2: Var(sum(i=1..d_k, q_i k_i)) = d_k\n")
    assert link(rep, "s").status in ("unknown", "fails")
    assert link(rep, "s2").status in ("unknown", "fails")


# ---------------------------------------------------------------- attribution
RED = XY + "assume fa: independent(X, Y)\nassume fb: Cov(X, Y) = 0\n"


def test_redundant_facts_sufficient_set():
    rep = one(RED + "step s: E[X Y] = E[X] E[Y]")
    lr = link(rep, "s")
    assert lr.status == "holds"
    assert len(lr.uses) == 1
    chosen = lr.uses[0].label
    rep2 = one(RED + f"step s: E[X Y] = E[X] E[Y] by {chosen}")
    assert link(rep2, "s").status == "holds"
    assert uses(link(rep2, "s")) == [chosen]


def test_unneeded_citation_warns_and_strict_errors():
    text = XY + "assume m: E[X] = 0\nassume junk: E[Y] = 1\nstep s: E[2 X] = 0 by m, junk"
    rep = one(text)
    lr = link(rep, "s")
    assert lr.status == "holds"
    assert lr.unneeded == ["junk"]
    assert [d.code for d in lr.diagnostics] == ["W-unneeded"]
    assert lr.diagnostics[0].severity == "warning"
    rep_s = one(text, strict=True)
    lr_s = link(rep_s, "s")
    assert [d.code for d in lr_s.diagnostics] == ["E-unneeded"]
    assert lr_s.diagnostics[0].severity == "error"


def test_strict_unneeded_makes_file_not_ok():
    rep = one(XY + "assume m: E[X] = 0\nassume junk: E[Y] = 1\nstep s: E[2 X] = 0 by m, junk", strict=True)
    assert rep.exit_code() != 0


def test_cites_too_little_names_missing():
    rep = one(XY + "assume m: E[X] = 0\nassume ind: independent(X, Y)\nstep s: E[X Y] = 0 by m")
    lr = link(rep, "s")
    assert lr.status == "fails"
    assert lr.missing == ["ind"]
    d = next(d for d in lr.diagnostics if d.code == "E-cites-too-little")
    assert "ind" in d.label and "ind" in d.help


def test_citing_unverified_step_not_holds():
    rep = one(XY + "assume m: E[X] = 0\nstep s0: E[X Y] = E[X] E[Y]\nstep s1: E[X Y] = 0 by s0, m")
    assert link(rep, "s0").status == "fails"  # refuted by a finite model
    lr = link(rep, "s1")
    assert lr.status == "unknown"
    assert "E-unverified-citation" in [d.code for d in lr.diagnostics]
    assert rep.exit_code() == 1


def test_without_by_infers_from_verified_steps_only():
    rep = one(XY + "assume m: E[X] = 0\nstep s0: E[X Y] = E[X] E[Y]\nstep s1: E[X Y] = 0")
    assert link(rep, "s1").status == "fails"  # not from s0; refuted by a finite model
    rep2 = one(XY + "assume m: E[X] = 0\nassume ind: independent(X, Y)\n"
                    "step s0: E[X Y] = E[X] E[Y] by ind\nstep s1: E[X Y] = 0")
    lr = link(rep2, "s1")
    assert lr.status == "holds"
    assert "m" in uses(lr)
    assert set(uses(lr)) <= {"m", "ind", "s0"}


def test_step_rests_on_transitively():
    rep = one(XY + "assume m: E[X] = 0\nassume ind: independent(X, Y)\n"
                   "step s0: E[X Y] = E[X] E[Y] by ind\nstep s1: E[X Y] = 0 by s0, m")
    s1 = next(s for s in rep.steps if s.name == "s1")
    assert s1.status == "holds"
    assert set(s1.rests_on) == {"ind", "m"}
    assert s1.steps_cited == ["s0"]


# ---------------------------------------------------------------- consistency
def test_contradictory_assumptions():
    rep = one("random X\nassume one: Var(X) = 1\nassume two: Var(X) = 2\nstep s: E[X] = 42\n"
              "step t: Var(X) = 1 by one\n")
    assert "E-inconsistent" in codes(rep)
    assert all(lr.status != "holds" for st in rep.steps for lr in st.links)
    assert rep.exit_code() == 1


def test_negative_variance():
    rep = one("random X\nassume neg: Var(X) = -1\nstep s: Var(X) + 1 = 0 by neg")
    assert "E-inconsistent" in codes(rep)
    assert link(rep, "s").status != "holds"


def test_negative_variance_after_first_step():
    rep = one("random X\nstep s0: E[X] = E[X]\nassume neg: Var(X) = -1\nstep s: Var(X) + 1 = 0 by neg")
    assert "E-inconsistent" in codes(rep)
    assert link(rep, "s").status != "holds"


def test_negative_symbolic_variance():
    rep = one("random X\nlet d: positive real\nassume neg: Var(X) = -d\nstep s: Var(X) + d = 0 by neg")
    assert link(rep, "s").status != "holds"


# ---------------------------------------------------------------- three outcomes
def test_three_outcomes():
    # u is true (Jensen for t^3 on t >= 0) but not provable by the kernel, and no finite model refutes it
    rep = one(XY + "step f: E[X] + 1 = E[X]\nstep u: E[X^6] >= E[X^2]^3\nstep h: E[X] = E[X]\n")
    assert link(rep, "f").status == "fails"
    assert "E-fails" in codes(rep, "f")
    assert link(rep, "u").status == "unknown"
    assert "E-unknown" in codes(rep, "u")
    assert link(rep, "h").status == "holds"
    counts = rep.counts()
    assert (counts["holds"], counts["fails"], counts["unknown"]) == (1, 1, 1)
    assert sum(counts.values()) == 3


def test_inequality_assumption_respected_by_witness():
    rep = one("let x: real\nassume pos: x > 0\nstep s: sqrt(x^2) = x by pos")
    assert link(rep, "s").status != "fails"


def test_index_witness_respects_range():
    rep = one("let i: index 1..1\nrandom q_i for i in 1..1\nstep s: i = 1")
    assert link(rep, "s").status != "fails"


# ---------------------------------------------------------------- limits
def test_huge_power_unknown_quickly():
    t0 = time.perf_counter()
    rep = one(XY + "step s: E[(X + Y)^50] = 0")
    assert time.perf_counter() - t0 < 5
    assert link(rep, "s").status in ("unknown", "fails")  # fails when a finite model refutes it


def test_huge_power_limit_message():
    rep = one(XY + "step s: E[(X + Y)^50] = 0")
    lr = link(rep, "s")
    assert lr.message and "limit" in lr.message


def test_huge_literal_exponent_is_a_diagnostic():
    rep = check_text(XY + "step s: E[(X + Y)^100000] = 0")
    assert "E-limit" in codes(rep)
    assert rep.exit_code() == 2


# ---------------------------------------------------------------- bad input
def test_unknown_name_suggests_closest():
    rep = check_text("random X, Y\nstep s: E[Xx] = 0")
    d = next(d for d in rep.diagnostics if d.code == "E-unknown-name")
    assert "Xx" in d.title
    assert "`X`" in d.help
    assert rep.exit_code() == 2


def test_cov_arity():
    rep = check_text("random X, Y\nstep s: Cov(X) = 0")
    assert "E-arity" in codes(rep)
    assert rep.exit_code() == 2


def test_index_out_of_family_range():
    rep = check_text("let i: index 1..4\nrandom q_i for i in 1..4\nstep s: E[q_5] = 0")
    d = next(d for d in rep.diagnostics if d.code == "E-range")
    assert "5" in d.title
    assert rep.exit_code() == 2


def test_empty_text():
    rep = check_text("")
    assert rep.steps == []
    assert [d.code for d in rep.diagnostics] == ["W-empty"]


def test_unknown_reference_suggests():
    rep = check_text(XY + "assume mean0: E[X] = 0\nstep s: E[X] = 0 by mean")
    d = next(d for d in rep.diagnostics if d.code == "E-unknown-ref")
    assert "mean0" in d.help
    assert link(rep, "s").status != "holds"


def test_huge_file(tmp_path):
    p = tmp_path / "big.step"
    p.write_text("# filler\n" * 600_000, encoding="utf-8")  # ~5.4 MB
    rep = check_file(str(p))
    assert rep.fatal
    assert [d.code for d in rep.diagnostics] == ["E-input-too-large"]
    assert rep.exit_code() == 2


def test_syntax_error_is_diagnostic():
    rep = check_text("random X\nstep broken: E[X + 1\n    = E[X] + 1\n")
    assert rep.fatal
    assert rep.diagnostics and rep.diagnostics[0].severity == "error"
    assert rep.exit_code() == 2


@pytest.mark.xfail(strict=True, reason="LANGUAGE: the off-diagonal sum `sum(i, j=1..n, i != j, f)` of LANGUAGE.md "
                                       "section 4 is a syntax error")
def test_off_diagonal_sum_syntax():
    rep = check_text(QN + "assume m: E[q_i] = mu\nassume ind: independent(q)\n"
                          "step s: sum(i, j=1..n, i != j, E[q_i] E[q_j]) = n (n - 1) mu^2 by m")
    assert not rep.fatal
    assert link(rep, "s").status == "holds"


def test_checking_restores_the_garbage_collector_thresholds():
    import gc

    from stepcheck.checker import _fewer_collections

    before = gc.get_threshold()
    check_text("random X\nstep s: E[2 X] = 2 E[X]\n")
    assert gc.get_threshold() == before
    with pytest.raises(RuntimeError):
        with _fewer_collections():
            assert gc.get_threshold()[0] >= 20_000
            raise RuntimeError("boom")
    assert gc.get_threshold() == before


def test_candidates_are_the_connected_facts_in_order():
    """Verified steps first (in the order verified), then assumptions (as written); unconnected ones left out."""
    rep = check_text("random X, Y, Z, W\nassume a: E[X] = 1\nassume b: E[Z] = 5\nassume c: E[Y] = E[X]\n"
                     "assume d: E[W] = 0\nstep s: E[Y] = 1\nstep t: E[Y] + E[Z] = 6\n")
    assert [lk.status for st in rep.steps for lk in st.links] == ["holds", "holds"]
    assert rep.steps[0].rests_on == ["a", "c"]
    # drop-one minimisation tries the candidates in order: the step `s` first, so it is dropped
    # (with the assumptions first, `a` would go and the answer would be ["s", "b"])
    assert rep.steps[1].rests_on == ["a", "b", "c"]


# ---------------------------------------------------------------- conditional steps: `for i != j`
_COND = """let n: positive integer
let i, j: index 1..n
random q_i, k_i for i in 1..n
assume indep: independent(q, k)
assume mean0: E[q_i] = 0, E[k_i] = 0
"""


def _statuses(src):
    from stepcheck.checker import check_text

    rep = check_text(_COND + src, "c.step")
    return {s.name: s.status for s in rep.steps}, {d.code for d in rep.diagnostics}


def test_a_conditional_step_holds_for_distinct_indices_and_is_cited_at_them():
    st, _ = _statuses("step off: E[q_i k_i q_j k_j]\n    = E[q_i] E[k_i] E[q_j] E[k_j]   by indep\n"
                      "    = 0   by mean0\n    for i != j\nstep pair: E[q_1 k_1 q_2 k_2] = 0   by off\n")
    assert st == {"off": "holds", "pair": "holds"}


def test_without_the_condition_the_same_claim_fails():
    st, _ = _statuses("step off: E[q_i k_i q_j k_j] = 0   by indep, mean0\n")
    assert st == {"off": "fails"}  # i = j gives E[q_i^2] E[k_i^2]


def test_the_condition_does_not_make_a_false_claim_hold():
    st, _ = _statuses("step d: delta(i, j) = 1 for i != j\nstep e: E[q_i q_j] = E[q_i^2] for i != j\n")
    assert st["d"] == "fails" and st["e"] != "holds"


def test_a_conditional_step_cited_at_equal_indices_proves_nothing():
    st, _ = _statuses("step off: E[q_i k_i q_j k_j] = 0   by indep, mean0 for i != j\n"
                      "step same: E[q_1 k_1 q_1 k_1] = 0   by off\n")
    assert st["off"] == "holds" and st["same"] != "holds"


def test_conditions_on_non_indices_and_strict_chains_are_errors():
    from stepcheck.checker import check_text

    rep = check_text(_COND + "let x: real\nstep a: x = x for x != i\nstep b: E[q_i] < 1 for i != j\n", "c.step")
    codes = {d.code for s in rep.steps for lk in s.links for d in lk.diagnostics} | {d.code for d in rep.diagnostics}
    assert {"E-index", "E-unsupported"} <= codes
    assert all(s.status != "holds" for s in rep.steps)


def test_a_literal_index_instantiates_only_facts_over_its_own_family_range():
    from stepcheck.checker import check_text

    src = ("let n, m: positive integer\nlet i: index 1..n\nlet a: index 1..m\n"
           "random x_i for i in 1..n\nrandom y_a for a in 1..m\n"
           "assume mx: E[x_i] = 0\nstep ok: E[x_2] = 0   by mx\nstep no: E[y_2] = 0   by mx\n")
    st = {s.name: s.status for s in check_text(src, "c.step").steps}
    assert st["ok"] == "holds" and st["no"] != "holds"


# ---------------------------------------------------------------- block independence: q ⟂ k
def _blocks(fact, step):
    from stepcheck.checker import check_text

    src = ("let n: positive integer\nlet i: index 1..n\nrandom q_i, k_i for i in 1..n\n"
           f"assume b: {fact}\nstep s: {step}\n")
    return check_text(src, "b.step").steps[0].status


@pytest.mark.parametrize("fact", ["q ⟂ k", "independent(vector q, vector k)"])
def test_block_independence_factorises_across_the_blocks(fact):
    assert _blocks(fact, "E[q_i k_i] = E[q_i] E[k_i]   by b") == "holds"
    assert _blocks(fact, "E[q_1 q_2 k_1 k_2] = E[q_1 q_2] E[k_1 k_2]   by b") == "holds"


@pytest.mark.parametrize("fact", ["q ⟂ k", "independent(vector q, vector k)"])
def test_block_independence_says_nothing_inside_a_block(fact):
    assert _blocks(fact, "E[q_1 q_2] = E[q_1] E[q_2]   by b") != "holds"
    assert _blocks(fact, "Cov(q_1, q_2) = 0   by b") != "holds"


def test_the_member_reading_still_factorises_inside_a_family():
    assert _blocks("independent(q, k)", "E[q_1 q_2] = E[q_1] E[q_2]   by b") == "holds"


BLOCK_VAR = ("random q_i, k_i for i in 1..2\nassume b: {fact}\nassume m: E[q_i] = 0, E[k_i] = 0\n"
             "assume v: Var(q_i) = 1, Var(k_i) = 1\nrefute r: Var(q_1 k_1 + q_2 k_2) = 2\n")


@pytest.mark.parametrize("fact", ["q ⟂ k", "independent(vector q, vector k)"])
def test_block_independence_has_models_with_dependent_components(fact):
    """Var(q·k) = d_k needs more than q ⟂ k: the finite models read blocks as blocks (q_1 = q_2 is allowed)."""
    from stepcheck.checker import check_text

    st = check_text(BLOCK_VAR.format(fact=fact), "b.step").steps[0]
    assert st.status == "holds"  # the refutation holds: a counterexample was found and re-checked
    cx = st.links[0].counterexample
    assert "(q_1, q_2)" in cx and "(k_1, k_2)" in cx


def test_the_member_reading_has_no_such_model():
    from stepcheck.checker import check_text

    st = check_text(BLOCK_VAR.format(fact="independent(q, k)"), "b.step").steps[0]
    assert st.status != "holds"  # the claim is true under mutual independence: nothing refutes it


def test_a_by_at_the_end_of_a_line_of_links_is_flagged():
    from stepcheck.checker import check_text

    one_line = "random X, Y\nassume m: E[X] = 0, E[Y] = 0\nstep s: E[X + Y] = E[X] + E[Y] = 0   by m\n"
    rep = check_text(one_line, "t.step")
    hit = [d for d in rep.diagnostics if d.code == "W-one-line-by"]
    assert len(hit) == 1 and hit[0].span.col == one_line.splitlines()[2].index("= E[X] +") + 1
    split = "random X, Y\nassume m: E[X] = 0, E[Y] = 0\nstep s: E[X + Y]\n    = E[X] + E[Y]\n    = 0   by m\n"
    assert not [d for d in check_text(split, "t.step").diagnostics if d.code == "W-one-line-by"]
    every = "random X, Y\nassume m: E[X] = 0, E[Y] = 0\nstep s: E[X + Y] = E[X] + E[Y] by m = 0 by m\n"
    assert not [d for d in check_text(every, "t.step").diagnostics if d.code == "W-one-line-by"]


def test_a_family_over_another_range_than_its_index_is_flagged():
    from stepcheck.checker import check_text

    def warned(text):
        return [d for d in check_text(text, "t.step").diagnostics if d.code == "W-family-index"]

    head = "let d_k: positive integer\nlet i: index 1..d_k\n"
    hit = warned(head + "random u_i for i in 1..64\n")
    assert len(hit) == 1 and "1..d_k, not 1..64" in hit[0].title
    assert not warned(head + "random u_i for i in 1..d_k\n")  # the same range
    assert not warned("let n: positive integer\nrandom q_i for i in 1..n\nrandom k_i for i in 1..n\n")  # implicit
    assert warned("let n, m: positive integer\nreal s_i for i in 1..n\nreal t_i for i in 1..m\n")


INEQ = ("let ε: nonnegative real\nlet a, b, c: real\nlet n: positive integer\nlet i: index 1..n\n"
        "real w_i for i in 1..n\nassume le: b <= ε\nassume lt: a < c\nassume pos: w_i >= 0\n")


@pytest.mark.parametrize("step, want", [
    ("b <= ε by le", "holds"),            # the assumption itself
    ("b - 1 <= ε by le", "holds"),        # the assumption plus a proved sign
    ("b < ε + 1 by le", "holds"),         # strict from the slack
    ("a <= c by lt", "holds"),
    ("a + 1 < c + 2 by lt", "holds"),
    ("w_i >= 0 by pos", "holds"),         # an instance of a quantified fact
    ("w_i + b^2 >= 0 by pos", "holds"),
    ("b < ε by le", "fails"),             # strictness not given
    ("b + 1 <= ε by le", "fails"),
    ("c < a by lt", "fails"),
    ("a < c - 1 by lt", "fails"),
    ("w_i > 0 by pos", "not holds"),      # false (w_i = 0); no witness is searched among family values here
])
def test_inequality_facts_are_used_as_slack(step, want):
    _step_status(INEQ, step, want)


def _step_status(head: str, step: str, want: str) -> None:
    """The status of ``step`` after the declarations ``head``: ``want``, or anything but holds."""
    from stepcheck.checker import check_text

    st = check_text(head + f"step s: {step}\n", "t.step").steps[0]
    if want == "not holds":
        assert st.status != "holds", step
    else:
        assert st.status == want, (step, [lk.message for lk in st.links])


MAXES = ("let n, m: positive integer\nlet i: index 1..n\nlet k: index 1..m\nreal s_i for i in 1..n\n"
         "real t_i for i in 1..m\nrandom q_i for i in 1..n\n")


@pytest.mark.parametrize("step, want", [
    ("max(s) >= s_i", "holds"),
    ("s_i - max(s) <= 0", "holds"),
    ("exp(s_i - max(s)) <= 1", "holds"),   # the stable softmax's numerators
    ("min(s) <= s_i", "holds"),
    ("exp(min(s) - s_i) <= 1", "holds"),
    ("s_1 <= max(s)", "holds"),            # 1 is in 1..n
    ("max(s) > s_i", "fails"),             # all equal: n = 1
    ("max(s) <= s_i", "fails"),
    ("max(s) >= s_k", "not holds"),        # k ranges over 1..m, not s's range
    ("max(t) >= s_i", "not holds"),        # another family's member
    ("max(q) >= q_i", "not holds"),        # a random family: max(q) - q_i is no number
])
def test_an_extremum_beside_a_member_of_its_range(step, want):
    _step_status(MAXES, step, want)


# ---------------------------------------------------------------- notation bloggers write (issue 16)
def test_superscripts_are_powers():
    rep = one("random X\nlet σ: positive real\nassume v: Var(X) = σ²\nstep a: Var(2 X) = 4 σ² by v\n"
              "step b: Var(2 X) = 4 σ³ by v\n")
    assert link(rep, "a").status == "holds"
    assert link(rep, "b").status == "fails"  # 4σ² is not 4σ³ (σ = 2)


def test_negative_superscript_needs_nonzero():
    rep = one("let x: real\nstep a: x⁻¹ x = 1\n")
    lr = link(rep, "a")
    assert lr.status == "holds" and "E-undefined" not in codes(rep)


@pytest.mark.parametrize("claim, status", [
    ("∂²f/∂x∂y = 6 x y^2", "holds"),
    ("∂²f/∂y∂x = 6 x y^2", "holds"),
    ("∂²f/∂x² = 2 y^3", "holds"),
    ("∂³f/∂x∂y² = 12 x y", "holds"),
    ("∂²/∂y² f = 6 x^2 y", "holds"),
    ("∂²f/∂x∂y = 6 x y", "fails"),
    ("∂²f/∂x² = 2 x y^3", "fails"),
])
def test_higher_partials(claim, status):
    rep = one(f"let x, y: real\ndefine f = x^2 y^3\nstep a: {claim}\n")
    assert link(rep, "a").status == status


def test_false_partial_after_a_true_one_still_fails():
    """A true step with derivatives in scope must not hide the counterexample of a later false one."""
    rep = one("let x, y: real\ndefine f = x^2 y^3\nstep a: ∂²f/∂x∂y = 6 x y^2\nstep h: ∂²f/∂x∂y = 6 x y\n")
    assert link(rep, "a").status == "holds"
    assert link(rep, "h").status == "fails"


def test_softmax_of_a_vector_expression():
    lhs = "softmax([20, 1, -3, 0] / 8)_1"
    rep = one(f"step a: {lhs} = exp(20/8) / (exp(20/8) + exp(1/8) + exp(-3/8) + 1)\n"
              f"step b: {lhs} = exp(20) / (exp(20) + exp(1) + exp(-3) + 1)\n"
              "step c: softmax(2 * [1, 2])_2 = softmax([2, 4])_2\n"
              "step d: softmax([1, 2] + [1, 1])_2 = softmax([2, 3])_2\n")
    assert [link(rep, s).status for s in "abcd"] == ["holds", "fails", "holds", "holds"]


@pytest.mark.parametrize("claim, code", [
    ("softmax([1, 2] + [3, 4, 5])_1 = 1", "E-shape"),
    ("[1, 2] + [3, 4, 5] = [4, 6]", "E-shape"),
    ("[1, 2] * [3, 4] = [3, 8]", "E-shape"),
    ("softmax([1, 2] / 2)_3 = 1", "E-range"),
    ("softmax([1, 2] / 2)_i = 1", "E-index"),
    ("[1, 2] / 0 = [1, 2]", "E-undefined"),
])
def test_vector_expressions_that_are_errors(claim, code):
    rep = check_text(f"let n: positive integer\nlet i: index 1..n\nstep a: {claim}\n")
    assert code in codes(rep)
    assert link(rep, "a").status == "unknown"


def test_a_false_step_without_variables_says_so():
    rep = one("step a: 2⁻¹ = 2\n")
    lr = link(rep, "a")
    assert lr.status == "fails"
    first = lr.counterexample.splitlines()[0]
    assert first.strip() and "no variables" in first


NARROW = """let d_k: positive integer
let i: index 1..d_k
random q_i, k_i for i in 1..d_k
assume indep: independent(q, k)
assume mean0: E[q_i] = 0, E[k_i] = 0
assume var1: Var(q_i) = 1, Var(k_i) = 1
step a: E[q_i] = E[k_i] = 0
step b: Var(q_i) = Var(k_i) = 1
step c: Var(q * k) = d_k
"""


def test_an_uncited_link_the_whole_scope_is_too_large_for_is_tried_on_the_assumptions():
    """Without `by`, every connected fact is a candidate; the verified steps' facts made the system too
    large here (unknown). The assumptions alone prove it; what the link uses is still reported."""
    rep = one(NARROW + "step d: E[q_i k_i] = E[q_i] E[k_i] = 0\n")
    lr = link(rep, "d", 2)
    assert lr.status == "holds" and uses(lr) == ["mean0"]


def test_the_narrower_try_never_makes_a_false_link_hold():
    rep = check_text(NARROW + "step d: E[q_i k_i] = E[q_i] E[k_i] = 1\n")
    assert link(rep, "d", 2).status != "holds"


def test_the_residual_of_an_inequality_is_named_as_its_margin():
    """`a < b` not proved: the note shows b - a (what must be positive), and says so; `=` keeps lhs - rhs."""
    # (p (1 - p) < 1/4 + c is proved since stop 45, as a quadratic in p: a true claim still beyond the kernel)
    rep = check_text("let p: real\nlet c: positive real\nstep s: p^2 < p^4 + 1/4 + c\nstep t: p = p^2\n")
    notes = {s.name: [n for lk in s.links for d in lk.diagnostics for n in d.notes] for s in rep.steps}
    assert any(n.startswith("right side − left side (must be > 0) reduces to: 1/4 + c") for n in notes["s"])
    assert any(n.startswith("left side − right side reduces to:") for n in notes["t"])


def test_identities_in_scope_too_large_for_the_prover_do_not_block_a_witness():
    """Two true Jacobian identities in scope give a fact system too large to solve; the false third step is
    then tried from the assumptions alone, and the witness of that residual is re-checked against every step
    in scope before it refutes (a longer budget than the default: the doomed first attempt takes seconds)."""
    from pathlib import Path

    path = Path(__file__).parent / "hostile" / "08-nonpolynomial" / "identities_in_scope_do_not_block_a_witness.step"
    rep = check_file(str(path), timeout=30)
    status = {s.name: s.status for s in rep.steps}
    assert status == {"j1": "holds", "ls": "holds", "bad": "fails"}
    bad = rep.steps[-1].links[0]
    assert "N = 2" in (bad.counterexample or "")


@pytest.mark.parametrize("step, want", [
    ("exp(max(s)) > 0", "holds"),          # max(s) is some real number: exp of it is positive
    ("max(s)^2 >= 0", "holds"),
    ("exp(max(s)) > 1", "not holds"),      # s_i = -1: exp(-1) < 1
    ("max(s) > 0", "not holds"),
    ("max(s) + 1 > 0", "not holds"),
])
def test_a_real_value_of_no_known_sign_is_any_real_number(step, want):
    """The interval bounds take a value they know only to be real (max(s) of a real family) as any real
    number: enough for the sign of exp(...) or of a square, never for its own sign."""
    _step_status(MAXES, step, want)


def test_a_shifted_softmax_needs_no_condition():
    """exp(s_j - max(s)) > 0, so the sum over 1..n of them is not 0: the condition is discharged."""
    from stepcheck.checker import check_text

    st = check_text(MAXES + "let j: index 1..n\n"
                    "step s: softmax(s)_i = exp(s_i - max(s)) / sum(j=1..n, exp(s_j - max(s)))\n", "t.step").steps[0]
    assert st.status == "holds"
    assert [u.kind for u in st.links[0].uses] == []


DIFFS = "let n: positive integer\nlet i, j: index 1..n\nreal s_i for i in 1..n\n"


@pytest.mark.parametrize("step, want", [
    ("sum(i=1..n, diff(softmax(s)_i, s_j)) = 0", "holds"),   # the Jacobian's columns sum to 0
    ("sum(k=1..n, diff(exp(s_k) / sum(m=1..n, exp(s_m)), s_j)) = 0", "holds"),
    ("diff(s_i, s_j) = δ_ij", "holds"),
    ("sum(i=1..n, diff(softmax(s)_i, s_j)) = 1", "fails"),
    ("sum(i=1..n, diff(s_i, s_j)) = n", "fails"),           # it is 1
    ("diff(s_i, s_j) = 0", "fails"),                        # at i = j
])
def test_the_index_of_a_derivative_variable_is_free(step, want):
    """sympy counts ∂/∂s_j's variable as bound; j is a free index of the link all the same (its range and
    the case j = i are the proof's to use, and a witness's to choose)."""
    _step_status(DIFFS, step, want)


def test_a_witness_is_completed_with_the_values_it_leaves_out():
    """The residual -2 s_i of ∂(s_i^2)/∂s_j = 2 s_i is refuted at i = 1, j = 2, which needs n = 2 although
    the link does not mention n: the value is given and shown with the witness."""
    from stepcheck.checker import check_text

    b = check_text(DIFFS + "step b: diff(s_i^2, s_j) = 2 s_i\n", "t.step").steps[0].links[0]
    assert b.status == "fails" and "n = 2" in b.counterexample and "j = 2" in b.counterexample


SPLITS = ("let n: positive integer\nlet i: index 1..n\nlet u: index 2..n\nreal s_i for i in 1..n\n"
          "random q_i for i in 1..n\ndefine R = sum(m=2..n, exp(s_m))\n")


@pytest.mark.parametrize("step, want", [
    ("sum(m=1..n, s_m) = s_1 + sum(m=2..n, s_m)", "holds"),
    ("softmax(s)_1 = exp(s_1) / (exp(s_1) + R)", "holds"),      # the denominator's first term split off
    ("softmax(s)_u = exp(s_u) / (exp(s_1) + R)", "holds"),      # R then leaves u out: subtracted once
    ("E[sum(m=1..n, q_m)] = E[q_1] + sum(m=2..n, E[q_m])", "holds"),
    ("sum(m=1..n, s_m) = s_2 + sum(m=2..n, s_m)", "fails"),
    ("sum(m=1..n, s_m) = s_1 + sum(m=3..n, s_m)", "fails"),
    ("sum(m=2..n, s_m) = sum(m=1..n, s_m) - s_u", "fails"),
    ("sum(m=1..n, s_m) = s_1 + s_2 + sum(m=3..n, s_m)", "not holds"),  # n = 1: there is no s_2
])
def test_sums_over_ranges_with_other_lower_ends_meet(step, want):
    _step_status(SPLITS, step, want)



@pytest.mark.parametrize("step, want", [
    ("log(softmax(s)_i) = s_i - log(sum(m=1..n, exp(s_m)))", "holds"),
    ("sum(i=1..n, softmax(s)_i log(softmax(s)_i)) = sum(i=1..n, softmax(s)_i s_i) - log(sum(i=1..n, exp(s_i)))",
     "holds"),                                                   # the entropy of softmax, rewritten
    ("log(sum(i=1..n, exp(s_i))) >= 0", "not holds"),           # n = 1, s_1 = -1
    ("log(sum(i=1..n, s_i^2)) = 2 log(sum(i=1..n, s_i))", "not holds"),
])
def test_log_splits_over_a_sum_of_exponentials(step, want):
    _step_status(SPLITS, step, want)



@pytest.mark.parametrize("step, want", [
    ("s_2 <= max(s) by n2", "holds"),     # 2 is in 1..n where n >= 2
    ("min(s) <= s_2 by n2", "holds"),
    ("s_3 <= max(s) by n2", "not holds"),  # n = 2: there is no s_3
    ("s_2 < max(s) by n2", "fails"),
])
def test_a_literal_member_in_range_by_an_assumed_bound(step, want):
    _step_status(MAXES + "assume n2: n >= 2\n", step, want)


def test_an_extremums_variable_is_no_name_of_its_fact():
    """`max(x exp(-x), x in [0, 3])` binds x: the step's fact is no candidate for a later link about a free x
    (it could not be evaluated at a witness, and hid the refutation of a false derivative)."""
    text = ("let x: real\nstep a: max(x exp(-x), x in [0, 3]) = exp(-1)\n"
            "step b: diff(tanh(2 x), x) = 1 - tanh(2 x)^2\n")
    rep = check_text(text, "t.step")
    assert [lk.status for s in rep.steps for lk in s.links] == ["holds", "fails"]


def test_a_citation_missing_an_assumption_is_named_even_after_a_large_verified_step():
    """With `by`, the wider proof is tried again from the assumptions alone when everything in scope (a
    verified step's large fact) is too much: the link cites too little, it is not "does not hold"."""
    text = ("let n: positive integer\nrandom x_j, y_j for j in 1..n\nassume ind: independent(x, y)\n"
            "assume m0: E[x_j] = 0, E[y_j] = 0\nassume v1: Var(x_j) = 1, Var(y_j) = 1\n"
            "step ch1: Var(sum(j=1..n, x_j y_j)) = n\nstep a: E[x_j] = 0     by v1\n")
    lk = check_text(text, "t.step").steps[-1].links[0]
    assert lk.status == "fails" and [d.code for d in lk.diagnostics if d.severity == "error"] == ["E-cites-too-little"]
    assert "m0" in lk.diagnostics[0].label


def test_a_refutation_on_the_cited_facts_says_other_facts_may_give_it():
    text = "random X\nassume v: Var(X) = 1\nassume m: E[X] = 5\nstep s: E[X^2] = 3   by v\n"
    lk = check_text(text, "t.step").steps[-1].links[0]
    d = next(d for d in lk.diagnostics if d.code == "E-fails")
    assert lk.status == "fails" and "`by`" in d.help
    # every fact in scope cited: the step is false outright, and no such help
    lk = check_text("random X\nassume v: Var(X) = 1\nstep s: E[X^2] = 3   by v\n", "t.step").steps[-1].links[0]
    assert lk.status == "fails" and [d.help for d in lk.diagnostics if d.code == "E-fails"] == [None]


@pytest.mark.parametrize("text, title, help_part", [
    ("let x: real\nstep s: d/dx e^x = e^x\n", "unknown name `e`", "write `exp(x)` for e^x"),
    ("let n: positive integer\nreal x_i for i in 1..n\nstep s: sum(i=1..n, x_i) = x_1 + x_n\n",
     "unknown name `x_n`", "written `x_{n}` or `x[n]`"),
    ("let w: real\nstep s: w = w_2\n", "unknown name `w_2`", "declare it with"),   # w is no family: as before
    ("random X\nstep s: E[X] ≈ 1\n", "`≈` is not a chain relation", "is a `check`"),
    ("random X\nstep s: E[X] != 1\n", "`!=` is not a chain relation", "as a `check` or an `assume`"),
    ("random X\nstep s: E[X] = E[X] != 1\n", "`!=` is not a chain relation", "as a `check`"),  # was a crash
    ("random Z ~ Normal(0, 1)\nstep s: P(Z > 0) = 1/2\n", "could not verify this step", "by `check`"),
    ("let t: real\nstep s: limit(t / abs(t), t -> 0) = 1\n", "could not verify this step", "one-sided limit"),
])
def test_newcomers_get_help_that_fits_their_mistake(text, title, help_part):
    rep = check_text(text, "t.step")
    diags = rep.diagnostics + [d for s in rep.steps for lk in s.links for d in lk.diagnostics]
    hit = [d for d in diags if d.title == title]
    assert hit and help_part in (hit[0].help or ""), [(d.title, d.help) for d in diags]
    assert all(s.status != "holds" for s in rep.steps)


def test_a_verified_identity_in_scope_does_not_hide_a_witness():
    """A false link after a true one that rests on no fact (a derivative over a family, a matrix entry) fails with
    its witness, as it does alone: the earlier identity holds wherever it is defined and constrains no point."""
    head = ("let n, m: positive integer\nlet i, j: index 1..n\nlet c: positive real\nreal s_i for i in 1..n\n"
            "define y_i = exp(s_i / c) / sum(r=1..n, exp(s_r / c))\n")
    chain = "step chain: ∂y_i/∂s_j = (1 / c) y_i (δ_ij - y_j)\n"
    for claim in ("let x, g: real\nstep wrong: diff(g (x / c)^2, x) = 2 g x / c\n",
                  "let Q, K: matrix n × m\nstep wrong: (c Q) (c K)^T = c Q K^T\n"):
        rep = one(head + chain + claim)
        assert link(rep, "chain").status == "holds"
        assert link(rep, "wrong").status == "fails", link(rep, "wrong").message
    rep = one(head + chain + "step right: diff((x / c)^2, x) = 2 x / c^2\n".replace("step", "let x: real\nstep"))
    assert link(rep, "right").status == "holds"


def test_a_law_nothing_else_mentions_never_blocks_a_refutation():
    """A Student t law has no finite model; declared beside a statement that does not mention its variable, it
    blocked every refutation in the file (red team, stop 51).  A model of the rest extends by that variable,
    drawn from its law independently, so the law is left out of the search; a law the statement (or another fact)
    does mention still blocks it."""
    head = "let x: real\nrandom X, Y\nrandom T2 ~ StudentT(2)\n"
    rep = check_text(head + "refute r: sqrt(x^2) = x\nrefute s: E[X Y] = E[X] E[Y]\n", "t.step")
    assert [s.status for s in rep.steps] == ["holds", "holds"], [lk.message for s in rep.steps for lk in s.links]
    rep = check_text(head + "refute r: E[T2 X] = E[T2] E[X]\n", "t.step")
    assert rep.steps[0].status == "unknown"
    rep = check_text(head + "assume ind: independent(T2, X)\nrefute r: E[X^2] = E[X]^2\n", "t.step")
    assert rep.steps[0].status == "unknown" and "no finite model" in rep.steps[0].links[0].message
