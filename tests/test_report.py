"""The terminal and JSON reports, on FileReports built by hand."""
from __future__ import annotations

import json
import re

import pytest

from stepcheck.errors import Diagnostic, Span, _display_width
from stepcheck.report import (
    Progress,
    file_status,
    render_matrix,
    render_text,
    supports_unicode,
    to_json,
    _Painter,
)
from stepcheck.results import AssumptionInfo, FileReport, LinkResult, StepResult, Use

ANSI = re.compile(r"\x1b\[[0-9;]*m")

PATH = "derivations/var_dot.step"
TEXT = """\
derivation var_dot "点积的方差: Var(q·k) = d_k"
source "Vaswani et al. 2017, section 3.2.1"

let d_k: positive integer
let i, j: index 1..d_k
random q_i, k_i for i in 1..d_k

assume indep: independent(q, k)
assume mean0: E[q_i] = 0, E[k_i] = 0
assume var1:  Var(q_i) = 1, Var(k_i) = 1

step mean_term: E[q_i k_i]
    = E[q_i] E[k_i]                       by indep
    = 0                                   by mean0

step lin: E[q_i + k_i]
    = E[q_i] + E[k_i]

step var_sum: Var(sum(i=1..d_k, q_i k_i))
    = sum(i=1..d_k, Var(q_i k_i))         by indep
    = sqrt(d_k)
"""


def sp(line, col, end_col=None):
    return Span(PATH, line, col, line, end_col or col + 1)


def assumption(label, kind, facts, line):
    return AssumptionInfo(label, kind, facts, [kind] * len(facts), sp(line, 8))


def link(i, rhs, status, line, lhs="", rules=(), uses=(), **kw):
    return LinkResult(i, "=", lhs, rhs, sp(line, 5, 5 + len(rhs) + 2), status, list(rules), list(uses), **kw)


def holds_report(title="点积的方差: Var(q·k) = d_k") -> FileReport:
    assumptions = [
        assumption("indep", "independence", ["independent(q, k)"], 8),
        assumption("mean0", "zero mean", ["E[q_i] = 0", "E[k_i] = 0"], 9),
        assumption("var1", "unit variance", ["Var(q_i) = 1", "Var(k_i) = 1"], 10),
    ]
    mean_term = StepResult(
        "mean_term", sp(12, 1), "step", "E[q_i k_i] = 0", "=",
        [
            link(1, "E[q_i] E[k_i]", "holds", 13, "E[q_i k_i]", ["factorization"],
                 [Use("indep", "independence", weakest="uncorrelated(q_i, k_i)")], cited=["indep"]),
            link(2, "0", "holds", 14, "E[q_i] E[k_i]", ["facts"], [Use("mean0", "zero mean")], cited=["mean0"]),
        ],
        "holds", ["indep", "mean0"],
    )
    lin = StepResult(
        "lin", sp(16, 1), "step", "E[q_i + k_i] = E[q_i] + E[k_i]", "=",
        [link(1, "E[q_i] + E[k_i]", "holds", 17, "E[q_i + k_i]", ["linearity"], [])],
        "holds", [],
    )
    return FileReport(PATH, TEXT, "var_dot", title, "Vaswani et al. 2017, section 3.2.1",
                      assumptions, [mean_term, lin])


def failing_report() -> FileReport:
    r = holds_report()
    diag = Diagnostic(
        "error", "this link does not hold", sp(21, 5, 16), "claimed here",
        notes=["residual: d_k - sqrt(d_k)"], help="the sum of d_k unit variances is d_k", code="E-fails",
    )
    var_sum = StepResult(
        "var_sum", sp(19, 1), "step", "Var(sum(i=1..d_k, q_i k_i)) = sqrt(d_k)", "=",
        [
            link(1, "sum(i=1..d_k, Var(q_i k_i))", "holds", 20, "Var(sum(i=1..d_k, q_i k_i))",
                 ["definitions", "sums", "factorization"],
                 [Use("indep", "independence", weakest="Cov(q_i k_i, q_j k_j) = 0 for i != j"),
                  Use("range of i", "range", implicit=True)], cited=["indep"]),
            link(2, "sqrt(d_k)", "fails", 21, "sum(i=1..d_k, Var(q_i k_i))", ["sums"],
                 [Use("var1", "unit variance")], residual="d_k - sqrt(d_k)",
                 counterexample="d_k = 4\n  Var(sum) = 4, but the step claims 2", diagnostics=[diag]),
        ],
        "fails", ["indep", "var1", "range of i"],
    )
    r.steps.append(var_sum)
    return r


def unknown_report() -> FileReport:
    r = holds_report()
    s = r.steps[0]
    s.links[1].status = "unknown"
    s.links[1].uses = []
    s.links[1].residual = "E[q_i] E[k_i]"
    s.links[1].message = "could not show the residual is zero"
    s.status = "unknown"
    s.links[0].unneeded = ["var1"]
    return r


def text(reports, **kw):
    kw.setdefault("color", False)
    kw.setdefault("ascii_only", False)
    return render_text(reports, **kw)


# ------------------------------------------------------------------- text


def test_holds_report_text():
    out = text([holds_report()])
    assert PATH in out
    assert "var_dot" in out and "点积的方差" in out and "Vaswani" in out
    assert "step mean_term: E[q_i k_i] = 0" in out
    assert "✓ = E[q_i] E[k_i]" in out
    assert "rules: factorization" in out
    assert "uses: indep (independence; weakest: uncorrelated(q_i, k_i))" in out
    assert "mean0 (zero mean)" in out
    assert "3 steps" not in out and "2 steps, 3 links: 3 holds, 0 fails, 0 unknown" in out
    assert "verified: every step holds" in out
    assert "NOT verified" not in out
    assert "step-by-assumption matrix" in out


def test_uses_nothing_is_explicit():
    out = text([holds_report()])
    line = next(l for l in out.splitlines() if "✓ = E[q_i] + E[k_i]" in l)
    assert "rules: linearity" in line and "uses: nothing" in line


def test_failing_link_has_diagnostic_residual_counterexample():
    out = text([failing_report()])
    assert "✗ = sqrt(d_k)" in out
    assert "error: this link does not hold" in out
    assert f"--> {PATH}:21:5" in out
    assert "21 |     = sqrt(d_k)" in out
    assert "^^^^^^^^^^^ claimed here" in out
    # the residual is in the diagnostic's note: not repeated
    assert out.count("d_k - sqrt(d_k)") == 1
    assert "counterexample: d_k = 4" in out
    assert "Var(sum) = 4, but the step claims 2" in out
    assert "(fails)" in out
    assert "NOT verified: 1 fails" in out
    assert "3 steps, 5 links: 4 holds, 1 fails, 0 unknown" in out


def test_implicit_use_and_weakest():
    out = text([failing_report()])
    assert "range of i (implicit)" in out
    assert "weakest: Cov(q_i k_i, q_j k_j) = 0 for i != j" in out
    # implicit labels get their own matrix column
    matrix = out[out.index("step-by-assumption matrix"):]
    assert "range of i" in matrix.splitlines()[1]
    assert "range of i (implicit)" in matrix


def test_unknown_and_warning():
    out = text([unknown_report()])
    assert "? = 0" in out
    assert "residual: E[q_i] E[k_i]" in out
    assert "could not show the residual is zero" in out
    assert "NOT verified: 1 unknown (unknown is not verified)" in out
    assert "warning: `var1` is cited but not needed" in out


def test_file_diagnostics_and_fatal():
    r = FileReport("x.step", "step s: 1 +\n", fatal=True,
                   diagnostics=[Diagnostic("error", "unexpected end of line", Span("x.step", 1, 12, 1, 13),
                                           "expected an expression")])
    out = text([r])
    assert "error: unexpected end of line" in out
    assert "1 | step s: 1 +" in out
    assert "NOT checked" in out
    assert "matrix" not in out


def test_quiet_shows_only_failures_and_summary():
    out = text([failing_report()], quiet=True)
    assert "step var_sum" in out and "✗ = sqrt(d_k)" in out
    assert "mean_term" not in out and "lin" not in out.split("step var_sum")[1].split("\n")[0]
    assert "✓" not in out
    assert "NOT verified" in out
    assert "matrix" not in out


def test_matrix_alignment_with_cjk():
    r = holds_report(title="注意力为什么除以 √d_k")
    r.assumptions[0].label = "独立"  # wide characters (not valid .step labels, but the renderer must cope)
    r.steps[0].rests_on = ["独立", "mean0"]
    r.steps[1].name = "linearity_of_expectation"
    out = text([r])
    assert "注意力为什么除以 √d_k" in out
    m = out[out.index("step-by-assumption matrix"):].splitlines()
    header, row1, row2 = m[1], m[2], m[3]
    # the columns of marks line up, counted in terminal cells
    def cells(line, ch):
        pos, w = [], 0
        for c in line:
            if c == ch or (ch == "mark" and c in "●·"):
                pos.append(w)
            w += _display_width(c)
        return pos
    assert cells(row1, "mark") == cells(row2, "mark")
    assert len(cells(row1, "mark")) == 3
    # each mark sits under its header label
    col = cells(row1, "mark")[0]
    w = 0
    starts = []
    for c in header:
        starts.append(w)
        w += _display_width(c)
    label_cells = [starts[i] for i, c in enumerate(header) if c in "独立"]
    assert min(label_cells) <= col <= max(label_cells) + 1
    assert "legend: 独立 (independence), mean0 (zero mean), var1 (unit variance)" in out


def test_matrix_numbered_when_wide():
    r = holds_report()
    for i in range(12):
        r.assumptions.append(AssumptionInfo(f"a_long_assumption_label_{i}", "equation", ["x = 1"], ["equation"],
                                            sp(1, 1)))
    lines = render_matrix(r, _Painter(False, False))
    assert all(_display_width(l) <= 100 for l in lines)
    assert any("4 = a_long_assumption_label_0 (equation)" in l for l in lines)


def test_ascii_fallback():
    out = text([failing_report(), unknown_report()], ascii_only=True)
    assert re.search(r"^  \[ok\] += E\[q_i\] E\[k_i\]", out, re.M)
    assert "[FAIL] = sqrt(d_k)" in out
    assert re.search(r"^  \[\?\?\] += 0", out, re.M)
    assert "✓" not in out and "✗" not in out and "●" not in out
    m = out[out.index("step-by-assumption matrix"):].splitlines()
    assert " x " in m[2] + " " or m[2].rstrip().endswith("x")
    assert "total: 2 files" in out


def test_ascii_detection():
    class S:
        encoding = "ascii"

    class U:
        encoding = "utf-8"

    assert not supports_unicode(S())
    assert supports_unicode(U())


def test_color_off_has_no_ansi_and_on_has():
    plain = text([failing_report()], color=False)
    assert not ANSI.search(plain)
    coloured = text([failing_report()], color=True)
    assert ANSI.search(coloured)
    assert ANSI.sub("", coloured) == plain


def test_lines_fit_100_columns_except_user_text():
    out = text([failing_report()])
    for line in out.splitlines():
        if "|" in line:  # source lines quoted in diagnostics are the user's
            continue
        assert _display_width(line) <= 100, line


# ------------------------------------------------------------------- JSON


def test_json_schema_and_fields():
    data = to_json([failing_report(), unknown_report(), holds_report()])
    json.dumps(data)  # serialisable
    assert data["schema"] == "stepcheck-report" and data["version"] == 1
    f = data["files"][0]
    assert f["path"] == PATH and f["name"] == "var_dot" and f["title"].startswith("点积")
    assert f["status"] == "fails"
    assert data["files"][1]["status"] == "unknown"
    assert data["files"][2]["status"] == "holds"
    assert [a["label"] for a in f["assumptions"]] == ["indep", "mean0", "var1"]
    assert f["assumptions"][1] == {"label": "mean0", "kind": "zero mean", "facts": ["E[q_i] = 0", "E[k_i] = 0"],
                                   "kinds": ["zero mean", "zero mean"], "line": 9}
    s = f["steps"][2]
    assert s["name"] == "var_sum" and s["kind"] == "step" and s["line"] == 19 and s["status"] == "fails"
    assert s["rests_on"] == ["indep", "var1", "range of i"]
    l1, l2 = s["links"]
    assert l1["uses"][1] == {"label": "range of i", "kind": "range", "implicit": True, "weakest": None,
                             "detail": None}
    assert l1["uses"][0]["weakest"].startswith("Cov(")
    assert l2["index"] == 2 and l2["rel"] == "=" and l2["rhs"] == "sqrt(d_k)" and l2["line"] == 21
    assert l2["col"] == 5
    assert l2["residual"] == "d_k - sqrt(d_k)"
    assert l2["counterexample"].startswith("d_k = 4")
    assert l2["diagnostics"][0]["code"] == "E-fails" and l2["diagnostics"][0]["line"] == 21
    for key in ("rules", "cited", "missing", "unneeded", "message", "lhs", "status"):
        assert key in l2
    assert f["counts"] == {"steps": 3, "links": 5, "holds": 4, "fails": 1, "unknown": 0, "errors": 1,
                           "warnings": 0, "cross_checked": 0, "not_cross_checked": 0}
    summ = data["summary"]
    assert summ["files"] == 3 and summ["fails"] == 1 and summ["unknown"] == 1 and summ["exit_code"] == 1


def test_json_fatal():
    r = FileReport("nope.step", "", fatal=True, diagnostics=[Diagnostic("error", "cannot read nope.step")])
    data = to_json([r, holds_report()])
    assert data["files"][0]["status"] == "error"
    assert data["files"][0]["diagnostics"][0]["title"] == "cannot read nope.step"
    assert data["summary"]["exit_code"] == 2 and data["summary"]["unreadable"] == 1
    assert file_status(holds_report()) == "holds"


def test_json_all_holds_exit_0():
    assert to_json([holds_report()])["summary"]["exit_code"] == 0


# --------------------------------------------------------------- progress


class FakeTTY:
    encoding = "utf-8"

    def __init__(self, tty):
        self.tty, self.buf = tty, []

    def isatty(self):
        return self.tty

    def write(self, s):
        self.buf.append(s)

    def flush(self):
        pass


def test_progress_only_on_tty():
    off = FakeTTY(False)
    with Progress(3, stream=off) as p:
        p.update(1, "a.step")
    assert off.buf == []
    on = FakeTTY(True)
    with Progress(3, stream=on) as p:
        p.update(1, "a.step")
        p.update(2, "b.step")
    s = "".join(on.buf)
    assert "\r[1/3] checking a.step" in s and "[2/3] checking b.step" in s
    assert s.endswith("\r")  # cleared at the end


def test_residuals_are_printed_in_the_language_and_clipped():
    from stepcheck.checker import check_text
    from stepcheck.errors import clip

    rep = check_text("let n: positive integer\nreal s_i for i in 1..n\nlet x: real\n"
                     "step a: x^3 = x^2\nstep b: sum(i=1..n, s_i^2) = 0\n", "t.step")
    notes = [n for s in rep.steps for lk in s.links for d in lk.diagnostics for n in d.notes]
    text = " ".join(notes)
    assert "x^3 - x^2" in text and "**" not in text
    assert "sum(" in text and "Σ[" not in text
    long = "x + " * 200
    assert clip(long).endswith("`verify --json` shows all of it)") and len(clip(long)) < 400
    assert clip("x + 1") == "x + 1"


# ---------------------------------------------------------------- expressions in the language's notation
def test_bound_indices_take_readable_names_that_capture_nothing():
    import sympy

    from stepcheck.terms.printer import show

    b1, b2 = sympy.Symbol("_b1", integer=True), sympy.Symbol("_b2", integer=True)
    n, m = sympy.Symbol("n", integer=True, positive=True), sympy.Symbol("m")
    x = sympy.IndexedBase("x")
    assert show(sympy.Sum(x[b1] ** 2, (b1, 1, n))) == "sum(m=1..n, x_m^2)"
    # `m` is free: the bound index takes another name, and the user's own comes first
    assert show(sympy.Sum(m * x[b1], (b1, 1, n))) == "sum(t=1..n, m x_t)"
    assert show(sympy.Sum(m * x[b1], (b1, 1, n)), prefer=["i"]) == "sum(i=1..n, m x_i)"
    assert show(sympy.Sum(x[b1], (b1, 1, n)), prefer=["x", "n"]) == "sum(m=1..n, x_m)"  # taken: a family, a bound
    two = sympy.Sum(x[b1] * x[b2], (b1, 1, n), (b2, 1, n))
    assert show(two, prefer=["i", "j"]) == "sum(j=1..n, sum(i=1..n, x_i x_j))"
    assert "b1" not in show(two) and "b2" not in show(two)


def test_residual_uses_the_index_name_of_the_link():
    from stepcheck.checker import check_text

    rep = check_text("let n: positive integer\nlet c: real\nreal x_i for i in 1..n\n"
                     "step s: sum(r=1..n, c x_r) = c sum(r=1..n, x_r^2)\n")
    lr = rep.steps[0].links[0]
    assert lr.status == "fails"
    assert "sum(r=1..n" in lr.residual and "b1" not in lr.residual


def test_long_notes_wrap_and_stay_whole():
    from stepcheck.errors import WRAP, Diagnostic, wrap_lines

    note = "left side − right side reduces to: " + " + ".join(f"exp(s_{k}/T)" for k in range(40))
    text = Diagnostic("error", "does not hold", None, notes=[note], help="cite " + "x" * 150).render()
    lines = text.splitlines()
    assert all(len(line) <= WRAP for line in lines if "xxxx" not in line)
    assert " ".join(t.strip() for t in lines[1:-2]).replace("= note: ", "") == note  # nothing lost
    assert any("x" * 150 in line for line in lines)  # a word longer than the width is not broken
    assert wrap_lines(["short"], 80) == ["short"]
    # an error's title is never wrapped (it names files, and people search for it)
    long_title = "cannot read /a/" + "very/" * 30 + "long.step"
    assert Diagnostic("error", long_title, None).render().splitlines()[0] == "error: " + long_title


def test_a_residuals_bound_index_is_never_named_like_a_declared_name():
    """With `let m: positive integer` declared, the residual's bound index is not printed `m`."""
    from stepcheck.checker import check_text
    rep = check_text("let m: positive integer\nlet n: positive integer\nstep s: sum(u=0..n-1, u^13) = 0\n", "t.step")
    res = rep.steps[0].links[0].residual
    assert res.startswith("sum(") and not res.startswith("sum(m=") and "m^13" not in res
