"""End to end: every derivations/*.step verifies; every derivations/bad/*.step
fails with the diagnostic recorded for it here.

The report of each file is the shared one (``conftest.shipped_report``); the
``verify`` front end (``cli.main``) runs once per shipped file, here.
"""
from __future__ import annotations

import importlib
from pathlib import Path

import pytest
from conftest import BAD as BAD_FILES
from conftest import DERIVATIONS, GOOD, REPO, SHIPPED, TUTORIAL, shipped_report

from stepcheck import cli

BAD_DIR = DERIVATIONS / "bad"

# file -> (exit code, failing step (None: no step checked), its status, diagnostic code, title fragment)
BAD = {
    "cites_too_little.step": (1, "mean_term", "fails", "E-cites-too-little", "this step cites too little"),
    "contradiction.step": (1, "anything", "unknown", "E-inconsistent", "contradictory assumptions: `one`, `two`"),
    "negative_variance.step": (1, "from_it", "unknown", "E-inconsistent", "contradictory assumptions: `neg`"),
    "syntax.step": (2, None, None, "E-syntax", "unclosed `[`"),
    "typo.step": (2, "mean_q", "unknown", "E-unknown-name", "unknown name `qq_i`"),
    "no_real_value.step": (2, "complex_product", "unknown", "E-undefined", "this expression has no real value"),
    "infinite_mean.step": (2, "cancel", "unknown", "E-undefined", "this mean does not exist"),
    "a001_s12_heavy.step": (2, "unit_var", "unknown", "E-undefined", "this variance does not exist"),
    "wrong_step.step": (1, "var_sum", "fails", "E-fails", "this step does not hold"),
    "conditional_step.step": (1, "abs_is_x", "fails", "E-fails", "this step does not hold"),
    "jacobian_plus.step": (1, "jacobian", "fails", "E-fails", "this step does not hold"),
    "max_half.step": (1, "diag_max", "fails", "E-fails", "this step does not hold"),
    "softmax_scale.step": (1, "scale", "fails", "E-fails", "this step does not hold"),
    "cap_no_sign.step": (1, "cap_bound", "fails", "E-fails", "this step does not hold"),
    "article_errata.step": (1, "printed_scaled", "fails", "E-numeric-fails", "this numeric claim does not hold"),
    "sqrt8_rounding.step": (1, "sigma_8", "fails", "E-numeric-fails", "this numeric claim does not hold"),
    "e24_mantissa.step": (1, "e24", "fails", "E-numeric-fails", "this numeric claim does not hold"),
    "pm_one_p0.step": (1, "p_0", "fails", "E-numeric-fails", "this numeric claim does not hold"),
    "pm_one_var.step": (1, "var_S", "fails", "E-numeric-fails", "this numeric claim does not hold"),
    "table_cell.step": (1, "table_3[2,1]", "fails", "E-numeric-fails", "table cell row 2, column 1 does not hold"),
    # the articles' errata (docs/errata.md)
    "a001_s15_printed_softmax.step": (1, "printed_scaled", "fails", "E-numeric-fails",
                                      "this numeric claim does not hold"),
    "a001_s2_e68.step": (1, "e68", "fails", "E-numeric-fails", "this numeric claim does not hold"),
    "a001_s2_each_needed.step": (1, "needs_iq", "fails", "E-refute-proved",
                                 "this refutation fails: the statement is proved"),
    "a001_s2_pm3.step": (1, "always_within_3", "fails", "E-numeric-fails", "this numeric claim does not hold"),
    "a001_s7_lipschitz.step": (1, "lip_is_1", "fails", "E-fails", "this step does not hold"),
    "a001_s10_exp700.step": (1, "exp700", "fails", "E-numeric-fails", "this numeric claim does not hold"),
    "a002_theorem1_hyp.step": (1, "theorem1", "fails", "E-fails", "this step does not hold"),
    "a001_s13_gap.step": (1, "gap_order_one", "simulated", "E-simulation-inconsistent",
                          "the simulation is inconsistent with this claim"),
}


def test_there_are_good_derivations():
    assert {p.name for p in GOOD} >= {"var_dot.step", "var_rules.step", "var_scaled.step"}


# test modules whose cases are parametrized by lists of repository files (module, list)
FILE_LISTS = [("test_models", "SHIPPED_PATHS"), ("test_parser", "PLANNED_PATHS")]


def test_parametrized_derivation_lists_are_not_empty():
    """A glob relative to the working directory collects nothing when pytest starts in tests/:
    the lists are anchored to the repository and none is empty (an empty parametrize list
    also fails collection: ``empty_parameter_set_mark`` in pyproject.toml)."""
    assert len(GOOD) >= 5 and len(BAD_FILES) >= 10 and TUTORIAL
    assert SHIPPED == GOOD + BAD_FILES
    lists = {"conftest.SHIPPED": SHIPPED, "conftest.TUTORIAL": TUTORIAL}
    for module, attr in FILE_LISTS:
        lists[f"{module}.{attr}"] = getattr(importlib.import_module(module), attr)
    for name, paths in lists.items():
        assert paths, f"{name} is empty"
        outside = [p for p in paths if not (Path(p).is_absolute() and REPO in Path(p).parents)]
        assert not outside, f"{name}: not anchored to the repository: {outside}"


@pytest.mark.parametrize("path", GOOD, ids=lambda p: p.name)
def test_good_derivation_verifies(path, capsys):
    rep = shipped_report(path)
    assert not rep.fatal
    assert rep.steps
    for st in rep.steps:
        # a simulation is evidence, never a proof: it is reported as `simulated`
        assert st.status in ("holds", "simulated"), st.name
        for lr in st.links:
            assert lr.status in ("holds", "simulated"), (st.name, lr.index, lr.message)
            if lr.status == "simulated":
                assert st.kind == "simulate", st.name  # only `simulate` statements may be simulated
    assert rep.errors == []
    assert cli.main([str(path), "--no-color"]) == 0
    assert "every step holds" in capsys.readouterr().out


def test_var_dot_attribution():
    rep = shipped_report(DERIVATIONS / "var_dot.step")
    st = {s.name: s for s in rep.steps}
    first = st["mean_term"].links[0]
    assert [(u.label, u.weakest) for u in first.uses] == [("indep", "uncorrelated(q_i, k_i)")]
    assert set(st["var_sum"].rests_on) == {"indep", "mean0", "var1"}


def test_bad_files_all_have_expectations():
    assert {p.name for p in BAD_DIR.glob("*.step")} == set(BAD)


@pytest.mark.parametrize("name", sorted(BAD))
def test_bad_derivation_fails(name, capsys):
    code, step, status, diag, title = BAD[name]
    path = BAD_DIR / name
    rep = shipped_report(path)
    assert rep.exit_code() == code
    assert cli.main([str(path), "--no-color"]) == code
    capsys.readouterr()
    diags = list(rep.diagnostics)
    if step is None:
        assert rep.steps == []
    else:
        st = next(s for s in rep.steps if s.name == step)
        assert st.status == status
        for lr in st.links:
            diags += lr.diagnostics
        assert all(s.status != "holds" for s in rep.steps if s.name == step)
    hit = [d for d in diags if d.code == diag]
    assert hit, [d.code for d in diags]
    assert any(title in d.title for d in hit)
    assert any(d.severity == "error" for d in hit)
