"""Matrices and vectors of symbolic shape (src/stepcheck/matrices.py), where each rule applies and where it must not.

A link between matrices is checked entrywise at a fresh row and column
index; shapes are checked as the expression is read (``E-shape``); a false
matrix claim fails with concrete entries that the independent re-check has
evaluated.
"""
from __future__ import annotations

import pytest

from stepcheck.checker import check_text

from conftest import diagnostic_codes

HEAD = "let n, d: positive integer\nlet c: positive real\nlet Q, K: matrix n × d\n"
SOFT = "let n: positive integer\nreal s_i for i in 1..n\ndefine p = softmax(s)\n"


def run(text):
    rep = check_text(text, "t.step")
    return {s.name: s for s in rep.steps}, rep


codes = diagnostic_codes


@pytest.mark.parametrize("claim", [
    "(Q / c) K^T = Q K^T / c",
    "(Q / c) Kᵀ = (1 / c) (Q Kᵀ)",
    "(Q K^T)^T = K Q^T",
    "(Q^T)^T = Q",
    "(Q + K)^T = Q^T + K^T",
    "Q K^T - K Q^T = (Q K^T) - (Q K^T)^T",
    "(Q K^T)_{1, 2} = sum(t=1..d, Q_{1, t} K_{2, t})",
    "Q^T Q = (Q^T Q)^T",
])
def test_matrix_identities_hold(claim):
    steps, rep = run(HEAD + f"step s: {claim}\n")
    assert steps["s"].status == "holds", (claim, [lk.message for lk in steps["s"].links])
    assert not rep.errors


@pytest.mark.parametrize("claim", [
    "(Q / c) K^T = Q K^T / c^2",
    "(Q K^T)^T = Q K^T",
    "Q^T Q = K^T K",
    "(Q K^T)_{1, 2} = sum(t=1..d, Q_{2, t} K_{1, t})",
])
def test_false_matrix_identities_fail_with_entries(claim):
    steps, _ = run(HEAD + f"step s: {claim}\n")
    lk = steps["s"].links[0]
    assert lk.status == "fails", (claim, lk.message)
    assert "_{" in lk.counterexample  # the entries the re-check evaluated are listed


def test_matrix_products_do_not_commute():
    steps, _ = run("let n: positive integer\nlet A, B: matrix n × n\nstep s: A B = B A\nstep t: A B = A B\n")
    assert steps["s"].status == "fails"
    assert steps["t"].status == "holds"


def test_an_entry_at_declared_indices():
    text = HEAD + "let a, b: index 1..n\nstep e: (Q K^T / sqrt(d))_{a, b} = sum(t=1..d, Q_{a, t} K_{b, t}) / sqrt(d)\n"
    steps, _ = run(text)
    assert steps["e"].status == "holds"
    assert [u.label for u in steps["e"].links[0].uses] == []  # no assumption; the entry indices are not uses


@pytest.mark.parametrize("claim, label", [
    ("Q K = Q K", "n × d times n × d"),
    ("Q K^T = K^T Q", "n × n and d × d"),
    ("Q + Q^T = Q", "n × d + d × n"),
    ("Q = 1", "a matrix (n × d) and a number"),
    ("Q + 1 = Q", "n × d and a number"),
    ("E[Q] = 0", "this is n × d"),
])
def test_shape_errors(claim, label):
    steps, rep = run(HEAD + f"step s: {claim}\n")
    shape = [d for d in rep.diagnostics if d.code == "E-shape"]
    assert shape, (claim, codes(rep))
    assert any(label in (d.label or "") for d in shape), [d.label for d in shape]
    assert steps["s"].status == "unknown"


def test_zero_is_the_zero_matrix():
    steps, _ = run(HEAD + "step z: Q - Q = 0\nstep w: Q - K = 0\n")
    assert steps["z"].status == "holds"
    assert steps["w"].status == "fails"


def test_softmax_jacobian_as_a_matrix():
    steps, _ = run(SOFT + "step jac: diff(p, s) = diag(p) - p p^T\nstep rows: (diag(p) - p p^T) ones(n) = 0\n"
                          "step plus: diff(p, s) = diag(p) + p p^T\nstep entry: diff(p, s)_{1, 2} = -p_1 p_2\n")
    assert steps["jac"].status == "holds"
    assert steps["rows"].status == "holds"
    assert steps["plus"].status == "fails"
    assert steps["entry"].status == "holds"


def test_outer_and_inner_products():
    # p p^T is n × n; p^T p is a number; q · k of two vectors is their dot product
    steps, rep = run(SOFT + "step outer: (p p^T)_{1, 2} = p_1 p_2\nstep inner: p^T p = sum(i=1..n, p_i^2)\n"
                            "step dot: s · s = sum(i=1..n, s_i^2)\nstep bad: diag(p) - p^T p = 0\n")
    assert steps["outer"].status == "holds"
    assert steps["inner"].status == "holds"
    assert steps["dot"].status == "holds"
    assert steps["bad"].status == "unknown" and "E-shape" in codes(rep)


def test_a_family_alone_is_still_not_a_number():
    _, rep = run("let n: positive integer\nrandom q_i for i in 1..n\nstep s: E[q] = 0\n")
    assert any("needs an index" in d.title for d in rep.diagnostics)


def test_diag_and_ones_stay_ordinary_names():
    steps, rep = run("let diag, ones: real\nstep diag: diag + ones = ones + diag\n")
    assert steps["diag"].status == "holds" and not rep.errors


def test_matrix_arguments_are_checked():
    _, rep = run("let x: real\nstep s: diag(x) = x\n")
    assert "E-shape" in codes(rep)
    _, rep = run("let x: real\nlet Q: matrix 2 × x\n")
    assert "E-index" in codes(rep)
    _, rep = run(HEAD + "step s: (Q K^T)_{0, 1} = 0\n")
    assert "E-range" in codes(rep)
    _, rep = run(HEAD + "let Q2: matrix 2 × 3\nstep s: Q2_{3, 1} = 0\n")
    assert "E-range" in codes(rep)


def test_matrix_names_are_declared_once():
    _, rep = run("let n: positive integer\nlet Q: matrix n × n\nlet Q: real\n")
    assert "E-redeclared" in codes(rep)


# ---------------------------------------------------------------- symbolic indices inside the shape
def _where(step) -> str:
    """The link's side conditions as shown after ``where:``."""
    return " ".join(u.label for u in step.links[0].uses if u.kind == "domain")


def test_an_index_over_another_dimension_is_a_side_condition():
    # K is n × d: K_{t, j} with t over 1..d as the row index exists only where d ≤ n, and j (1..n) as the
    # column index only where n ≤ d; the link says nothing elsewhere (red team: it was read silently)
    steps, rep = run(HEAD + "let i, j: index 1..n\nstep s: sum(t=1..d, K_{t, j}) = sum(t=1..d, K_{t, j})\n")
    assert not rep.errors and steps["s"].status == "holds"
    shown = _where(steps["s"])
    assert "n - d ≥ 0" in shown or "n ≥ d" in shown, shown
    assert "d ≥ n" in shown or "d - n ≥ 0" in shown, shown


def test_an_index_inside_the_shape_adds_nothing():
    steps, rep = run(HEAD + "let i: index 1..n\nstep s: sum(t=1..d, Q_{i, t} K_{i, t}) = (Q K^T)_{i, i}\n")
    assert steps["s"].status == "holds" and not _where(steps["s"])


def test_an_index_certainly_past_the_shape_is_an_error():
    _, rep = run(HEAD + "let i: index 1..n\nstep s: sum(t=1..d+1, Q_{i, t}) = 0\n")
    assert "E-range" in codes(rep)
    assert any("past the columns of `Q`" in d.title for d in rep.diagnostics)
    _, rep = run(HEAD + "let i: index 0..n\nstep s: Q_{i, 1} = Q_{i, 1}\n")
    assert "E-range" in codes(rep)
    # an empty sum invents nothing
    _, rep = run(HEAD + "let i: index 1..n\nstep s: sum(t=3..2, Q_{i, t}) = 0\n")
    assert "E-range" not in codes(rep)


def test_a_family_member_over_another_range_is_a_side_condition():
    steps, rep = run("let n, m: positive integer\nreal x_k for k in 1..n\n"
                     "step s: sum(t=1..m, x_t) = sum(t=1..m, x_t)\n"
                     "step same: sum(t=1..n, x_t) = sum(t=1..n, x_t)\n")
    assert "n ≥ m" in _where(steps["s"]), _where(steps["s"])
    assert not _where(steps["same"])


@pytest.mark.parametrize("claim", [
    "(Q K^T)_{i, j} = sum(t=1..d, Q_{i, t} K_{t, j})",  # (Q K)_{ij}: the index order of K swapped
    "((Q / c) K^T)_{i, j} = sum(t=1..d, Q_{i, t} K_{t, j}) / c",
])
def test_a_false_entry_claim_fails_with_the_entries_read(claim):
    # the witness's patterns of one index do not apply to a matrix's entries: the scrambled entries, which the
    # independent re-check evaluates the same way, refute it (it came back unknown)
    steps, _ = run(HEAD + "let i, j: index 1..n\nstep s: " + claim + "\n")
    link = steps["s"].links[0]
    assert link.status == "fails", link
    assert "K_{" in link.counterexample and "Q_{" in link.counterexample


@pytest.mark.parametrize("claim, shown", [
    ("(Q Q^T)_{i, i} > 0", "every entry of Q = 0"),                       # Q = 0: the pattern all 0
    ("(Q K^T)_{i, j} = sum(t=1..n, Q_{i, t} K_{j, t})", "d = 3, n = 2"),  # the sum over the other dimension
])
def test_matrix_witnesses_all_zero_and_of_unequal_dimensions(claim, shown):
    # found by the witness search and re-evaluated by the re-check, inside the link's side conditions (the
    # second holds only where d ≥ n: a witness with d = 2, n = 3 would refute nothing)
    steps, _ = run(HEAD + "let i, j: index 1..n\nstep s: " + claim + "\n")
    link = steps["s"].links[0]
    assert link.status == "fails" and shown in link.counterexample, (link.status, link.counterexample)


def test_a_true_gram_entry_bound_has_no_witness():
    steps, _ = run(HEAD + "let i: index 1..n\nstep s: (Q Q^T)_{i, i} >= 0\n")
    assert steps["s"].status == "holds"
