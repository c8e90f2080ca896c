"""The Python API (stepcheck.api), notebook display, the IPython magic, and docs/testing.md."""
from __future__ import annotations

import functools
import importlib.util
import os
import pickle
import re
import subprocess
import sys
from dataclasses import FrozenInstanceError
from pathlib import Path

import pytest

import stepcheck
from stepcheck import api
from stepcheck.api import (
    Assumption,
    ClaimError,
    ClaimResult,
    Link,
    ParseError,
    ReadError,
    Report,
    StepcheckError,
    assert_holds,
    check,
    verify_file,
    verify_text,
)
from stepcheck.errors import Diagnostic

ROOT = Path(__file__).resolve().parents[1]
DERIV = ROOT / "derivations"
SRC = str(ROOT / "src")

DOT = """
let n: positive integer
let i: index 1..n
random q_i, k_i for i in 1..n
assume indep: independent(q, k)
assume mean0: E[q_i] = 0, E[k_i] = 0
assume var1: Var(q_i) = 1, Var(k_i) = 1
"""
WRONG = "Var(sum(i=1..n, q_i k_i)) = sqrt(n)"


@pytest.fixture(autouse=True)
def _never_prints(capsys):
    yield
    out, err = capsys.readouterr()
    assert out == "" and err == "", "the API must not print"


# ------------------------------------------------------------------ check


def test_issue_example():
    r = check("Var(X / sqrt(d)) = Var(X) / d", given="random X; let d: positive real")
    assert isinstance(r, ClaimResult)
    assert r.holds and r.ok and bool(r)
    assert r.status == "holds"
    assert r.uses == {"d > 0"}  # sqrt(d) and 1/d are real numbers where d > 0: d's declaration gives it
    assert [(u.label, u.kind, u.implicit) for u in r.uses_detail] == [("d > 0", "sign", True)]
    assert r.rules == ("def Var", "linearity")
    assert r.counterexample is None and r.residual is None and r.message is None
    assert r.diagnostics == () and r.errors == ()
    assert r.name == "claim" and r.kind == "step" and r.file == os.path.relpath(__file__)
    assert r.statement == "Var(X / sqrt(d)) = Var(X) / d"
    assert r.rests_on == ("d > 0",)
    assert r.line == test_issue_example.__code__.co_firstlineno + 1  # the line of the check() call


def test_uses_compare_with_labels_and_carry_kinds():
    r = check("E[q_i k_i] = E[q_i] E[k_i] = 0", DOT)
    assert r.holds
    assert r.uses == {"indep", "mean0"}
    assert "indep" in r.uses and "var1" not in r.uses
    assert isinstance(r.uses, frozenset)
    detail = r.uses_detail
    assert [str(a) for a in detail] == ["indep", "mean0"]
    assert all(isinstance(a, Assumption) for a in detail)
    assert detail[0].kind == "independence" and detail[0].label == "indep"
    assert detail[0].weakest == "uncorrelated(q_i, k_i)"
    assert detail[1].kind == "zero mean" and not detail[1].implicit
    assert r.rests_on == ("indep", "mean0")
    assert r.rules == ("factorization", "facts")
    # links
    assert len(r.links) == 2
    l1, l2 = r.links
    assert isinstance(l1, Link)
    assert (l1.index, l1.rel, l1.lhs, l1.rhs, l1.status) == (1, "=", "E[q_i k_i]", "E[q_i] E[k_i]", "holds")
    assert l1.holds and l1.uses == {"indep"} and l1.rules == ("factorization",)
    assert l2.uses == {"mean0"} and l2.lhs == "E[q_i] E[k_i]" and l2.rhs == "0"
    assert l1.cited == () and l1.missing == () and l1.unneeded == ()
    assert l1.line == r.line and l1.col > 1
    assert l2.line == r.line and l2.col > l1.col  # both links on the claim line


def test_assumption_is_an_immutable_picklable_str():
    a = Assumption("indep", "independence", weakest="uncorrelated(X, Y)")
    assert a == "indep" and hash(a) == hash("indep") and {a} == {"indep"}
    assert repr(a) == "Assumption('indep', 'independence')"
    assert a.describe() == "indep (independence; weakest: uncorrelated(X, Y))"
    with pytest.raises(AttributeError):
        a.kind = "x"
    b = pickle.loads(pickle.dumps(a))
    assert b == a and b.kind == "independence" and b.weakest == a.weakest
    imp = Assumption("range of i", "range", implicit=True)
    assert imp.describe() == "range of i (implicit)"


def test_failing_claim():
    r = check(WRONG, DOT)
    assert not r.holds and not r.ok and not r
    assert r.status == "fails"
    assert r.counterexample.startswith("n = 2")
    assert r.residual == "n - sqrt(n)"
    assert r.message
    assert [d.code for d in r.diagnostics] == ["E-fails"]
    assert r.errors == r.diagnostics
    assert isinstance(r.diagnostics[0], Diagnostic)
    assert r.links[0].counterexample == r.counterexample
    assert "error: this step does not hold" in r.text
    assert r.explain(why=True).startswith("step claim:")


CONTRA = "random X\nassume one: E[X] = 1\nassume two: E[X] = 2"


def test_unknown_claim():
    r = check("E[X] = 1", CONTRA)  # nothing is verified from contradictory assumptions
    assert r.status == "unknown" and not r.holds and not r.ok
    assert r.counterexample is None and r.residual is None
    assert r.message == "rests on contradictory assumptions: one, two"


def test_claim_with_by_and_several_lines():
    r = check("E[X Y]\n  = E[X] E[Y]   by indep", "random X, Y\nassume indep: independent(X, Y)")
    assert r.holds and r.uses == {"indep"}
    assert r.links[0].cited == ("indep",)
    r = check("E[2 X + 1]\n= 2 E[X] + 1\n= 1 + 2 E[X]", given="random X")
    assert r.holds and len(r.links) == 2


def test_missing_citation():
    r = check("E[q_i k_i] = 0   by mean0", DOT)
    assert r.status == "fails"
    assert r.links[0].missing == ("indep",)
    assert r.diagnostics[0].title == "this step cites too little"


def test_strict():
    given = "random X, Y; assume indep: independent(X, Y)"
    lax = check("E[X + Y] = E[X] + E[Y] by indep", given)
    assert lax.holds and lax.ok
    assert lax.links[0].unneeded == ("indep",)
    assert [d.severity for d in lax.diagnostics] == ["warning"]
    r = check("E[X + Y] = E[X] + E[Y] by indep", given, strict=True)
    assert r.holds and not r.ok
    assert r.errors[0].code == "E-unneeded"
    with pytest.raises(AssertionError, match="cited but not needed"):
        assert_holds(r)


def test_given_contradiction_is_reported():
    r = check("E[X] = 1", CONTRA)
    assert r.status == "unknown"
    assert any("contradictory assumptions" in d.title for d in r.diagnostics)


def test_given_split_respects_quotes_and_comments():
    assert api._split_given('derivation d "a; b"; random X # c; d\n  let n: integer') == [
        ('derivation d "a; b"', 1, 0), ("random X", 1, 21), ("let n: integer", 2, 2)]


def test_claim_name_avoids_given_labels():
    r = check("E[X] = 1 by claim", "random X; assume claim: E[X] = 1")
    assert r.holds and r.name == "claim_2" and r.uses == {"claim"}


# ------------------------------------------------------------------ exceptions


def test_exception_hierarchy():
    assert issubclass(ParseError, StepcheckError) and issubclass(ParseError, ValueError)
    assert issubclass(ClaimError, ParseError)
    assert issubclass(ReadError, StepcheckError) and issubclass(ReadError, OSError)


@pytest.mark.parametrize("claim", ["", "   ", "\n\n"])
def test_empty_claim(claim):
    with pytest.raises(ClaimError) as ei:
        check(claim, "random X")
    assert ei.value.diagnostic.code == "E-claim-empty"
    assert "the claim is empty" in ei.value.text and ei.value.report is None


def test_claim_not_a_relation():
    with pytest.raises(ClaimError) as ei:
        check("E[X]", "random X")
    e = ei.value
    assert "this step has no link" in e.text
    assert "-->" in e.text and "^" in e.text
    assert str(e) == e.text
    assert e.diagnostics[0] is e.diagnostic


def test_claim_syntax_and_name_errors():
    with pytest.raises(ClaimError, match="unclosed"):
        check("E[X + 1 = 2", "random X")
    with pytest.raises(ClaimError, match="unknown name `Y`") as ei:
        check("E[Y] = 0", "random X")
    assert ei.value.report is not None and ei.value.report.fatal


def test_bad_given_is_a_parse_error_not_a_claim_error():
    with pytest.raises(ParseError) as ei:
        check("E[X] = E[X]", "random X; let d: bogus")
    assert not isinstance(ei.value, ClaimError)
    # the position is in the `given` argument of this call: its line 1, column 18
    span = ei.value.diagnostic.span
    line = test_bad_given_is_a_parse_error_not_a_claim_error.__code__.co_firstlineno + 2
    assert (span.file, span.line, span.col) == (f"{os.path.relpath(__file__)}:{line} (given)", 1, 18)
    assert "1 | random X; let d: bogus\n  |                  ^^^^^" in ei.value.text


def test_type_errors():
    with pytest.raises(TypeError):
        check(1)
    with pytest.raises(TypeError):
        check("E[X] = E[X]", given=None)
    with pytest.raises(TypeError):
        verify_text(b"random X")
    with pytest.raises(TypeError):
        assert_holds(42)
    with pytest.raises(TypeError):
        assert_holds(check("E[X] = E[X]", "random X"), given="random X")


# ------------------------------------------------------------------ files


@functools.lru_cache(maxsize=None)
def var_dot_report() -> Report:
    """``verify_file`` of derivations/var_dot.step, once for this module (the tests only read it)."""
    return verify_file(DERIV / "var_dot.step")


def test_verify_file_report_fields():
    r = var_dot_report()
    assert isinstance(r, Report)
    assert r.ok and bool(r) and r.status == "holds" and not r.fatal
    assert r.path.endswith("var_dot.step")
    assert r.name == "var_dot" and r.title.startswith("点积的方差") and r.source.startswith("Vaswani")
    assert [s.name for s in r.steps] == ["mean_term", "var_term", "var_sum"]
    assert [s.name for s in r] == ["mean_term", "var_term", "var_sum"] and len(r) == 3
    assert r["var_sum"].rests_on == ("indep", "mean0", "var1")
    assert r["var_term"].uses == {"indep", "mean_term", "var1", "mean0"}
    assert {a.label: a.kind for a in r["var_term"].uses_detail}["mean_term"] == "step"
    with pytest.raises(KeyError):
        r["nope"]
    assert [(a, a.kind) for a in r.assumptions] == [
        ("indep", "independence"), ("mean0", "zero mean"), ("var1", "unit variance")]
    assert r.assumptions[1].facts == ("E[q_i] = 0", "E[k_i] = 0")
    assert (r.counts["holds"], r.counts["fails"], r.counts["unknown"]) == (7, 0, 0)
    assert r.failures == () and r.diagnostics == ()
    assert "verified: every step holds" in r.text
    assert "step-by-assumption matrix" not in r.render(quiet=True)
    assert r.seconds >= 0


def test_verify_file_failing():
    r = verify_file(str(DERIV / "bad" / "wrong_step.step"))
    assert not r.ok and r.status == "fails"
    assert [s.name for s in r.failures] == ["var_sum"]
    with pytest.raises(AssertionError) as ei:
        assert_holds(r)
    msg = str(ei.value)
    assert "wrong_step.step: NOT verified: 1 fails" in msg
    assert "wrong_step.step:12:43" in msg and "counterexample: d_k = 2" in msg


def test_verify_file_parse_errors():
    with pytest.raises(ParseError) as ei:
        verify_file(DERIV / "bad" / "syntax.step")
    assert ei.value.diagnostic.title == "unclosed `[`"
    assert "syntax.step:5:15" in ei.value.text
    assert ei.value.report.fatal and ei.value.report.steps == () and ei.value.report.status == "error"
    with pytest.raises(ParseError) as ei:
        verify_file(DERIV / "bad" / "typo.step")
    assert "unknown name `qq_i`" in ei.value.text
    assert [s.name for s in ei.value.report.steps] == ["mean_q"]
    # a side that did not elaborate is typeset from its source text
    assert r"\texttt{E[qq\_i]}" in ei.value.report.steps[0].latex


def test_verify_file_read_errors(tmp_path):
    with pytest.raises(ReadError) as ei:
        verify_file(tmp_path / "missing.step")
    assert ei.value.diagnostic.code == "E-input-not-found"
    assert isinstance(ei.value, OSError)
    with pytest.raises(ReadError):
        verify_file(tmp_path)


def test_verify_text():
    r = verify_text("random X\nstep lin: E[2 X] = 2 E[X]\n", file="mine.step")
    assert r.ok and r.path == "mine.step" and r["lin"].file == "mine.step"
    with pytest.raises(ParseError, match="mine.step:2"):
        verify_text("random X\nstep lin: E[2 X\n", file="mine.step")


# ------------------------------------------------------------------ assert_holds


def test_assert_holds_passes_and_returns():
    r = assert_holds("E[2 X + 1] = 2 E[X] + 1", given="random X")
    assert r.holds
    assert assert_holds(r) is r
    rep = var_dot_report()
    assert assert_holds(rep) is rep


def test_assert_holds_message_is_the_diagnostic():
    with pytest.raises(AssertionError) as ei:
        assert_holds(WRONG, DOT)
    msg = str(ei.value)
    assert "error: this step does not hold" in msg
    here = os.path.relpath(__file__)
    assert f"--> {here}:" in msg and "<claim>" not in msg  # the claim's place is the call's line
    assert re.search(r"\|\s+\^+ the two sides differ", msg)
    assert "reduces to: n - sqrt(n)" in msg
    assert "counterexample: n = 2" in msg


def test_assert_holds_shows_given_errors():
    with pytest.raises(AssertionError, match="contradictory assumptions"):
        assert_holds("E[X] = 1", CONTRA)


# ------------------------------------------------------------------ display


def test_markdown_and_html_of_a_verified_claim():
    r = check("E[q_i k_i] = E[q_i] E[k_i] = 0", DOT)
    md = r._repr_markdown_()
    assert md.startswith("✓ **step claim** holds: $")
    assert r"\mathbb{E}\left[" in md and "q_{i}" in md
    assert "`indep` (independence)" in md and "`mean0` (zero mean)" in md
    assert "```" not in md  # no diagnostic block when it holds
    h = r._repr_html_()
    assert "stepcheck-holds" in h and "✓" in h
    assert r"\(\mathbb{E}\left[" in h
    assert 'class="stepcheck-badge stepcheck-kind-independence"' in h
    assert 'class="stepcheck-badge stepcheck-kind-zero-mean"' in h


def test_markdown_and_html_of_a_failed_claim():
    r = check(WRONG, DOT)
    md = r._repr_markdown_()
    assert md.startswith("✗ **step claim** fails: $")
    assert r"\operatorname{Var}\left(\sum_{i=1}^{n}" in md and r"\sqrt{n}" in md
    assert "**counterexample:**" in md and "n = 2" in md
    assert "```text" in md and "error: this step does not hold" in md
    h = r._repr_html_()
    assert "stepcheck-fails" in h and "✗" in h
    assert '<pre class="stepcheck-diagnostic">' in h and "test_api.py:" in h
    assert "stepcheck-counterexample" in h


def test_markdown_and_html_of_a_report():
    r = var_dot_report()
    md = r._repr_markdown_()
    assert md.startswith("**derivation var_dot** — 点积的方差")
    assert "`indep` (independence)" in md and md.rstrip().endswith("✓ **verified: every step holds**")
    h = r._repr_html_()
    assert h.count('stepcheck-kind-independence') >= 2  # assumptions line and uses
    assert "stepcheck-verdict" in h
    bad = verify_file(DERIV / "bad" / "cites_too_little.step")
    assert "✗ **NOT verified: 1 fails**" in bad._repr_markdown_()
    assert "stepcheck-fails" in bad._repr_html_()


def test_unknown_mark_and_other_relations():
    r = check("E[X] = 1", CONTRA)
    assert r._repr_markdown_().startswith("? **step claim** unknown")
    assert "stepcheck-unknown" in r._repr_html_()
    assert r"\ge" in check("Var(X) >= 0", "random X").latex


def test_latex_of_kernel_objects():
    import sympy

    from stepcheck.terms.objects import DSum, SD, Cov, E, Var, canon_bound

    X, Y, n = sympy.symbols("X Y n")
    b1, b2 = canon_bound(1), canon_bound(2)
    assert api.to_latex(Cov(X, Y)) == r"\operatorname{Cov}\left(X, Y\right)"
    assert api.to_latex(SD(X)) == r"\operatorname{SD}\left(X\right)"
    assert api.to_latex(Var(E(X))) == r"\operatorname{Var}\left(\mathbb{E}\left[X\right]\right)"
    q = sympy.IndexedBase("q")
    one = DSum(q[b1], sympy.Tuple(sympy.Tuple(b1, 1, n)), sympy.Tuple())
    assert api.to_latex(one) == r"\sum_{b_{1}=1}^{n} q_{b_{1}}"
    two = DSum(q[b1] * q[b2], sympy.Tuple(sympy.Tuple(b1, 1, n), sympy.Tuple(b2, 1, n)), sympy.Tuple())
    assert r"\substack{b_{2}=1 \\ b_{2} \ne b_{1}}" in api.to_latex(two)


# ------------------------------------------------------------------ package


def test_lazy_package_attributes():
    assert stepcheck.check is check and stepcheck.verify_file is verify_file
    assert stepcheck.verify_text is verify_text and stepcheck.assert_holds is assert_holds
    assert {"check", "verify_file", "verify_text", "assert_holds"} <= set(dir(stepcheck))
    with pytest.raises(AttributeError):
        stepcheck.nope


def test_import_stays_light():
    code = ("import sys, stepcheck, stepcheck.api, stepcheck.pytest_plugin, stepcheck.ipython; "
            "stepcheck.check; assert 'sympy' not in sys.modules and 'lark' not in sys.modules, 'heavy'")
    env = dict(os.environ, PYTHONPATH=SRC)
    subprocess.run([sys.executable, "-c", code], check=True, env=env)


# ------------------------------------------------------------------ IPython


class FakeIP:
    def __init__(self):
        self.magics = {}
        self.user_ns = {}

    def register_magic_function(self, func, magic_kind="line", magic_name=None):
        self.magics[(magic_kind, magic_name or func.__name__)] = func


def test_cell_magic_with_a_fake_shell(monkeypatch):
    from stepcheck import ipython

    shown = []
    monkeypatch.setattr(ipython, "_display", shown.append)
    ip = FakeIP()
    stepcheck.load_ipython_extension(ip)
    magic = ip.magics[("cell", "stepcheck")]
    assert magic("rep", "random X\nstep lin: E[2 X + 1] = 2 E[X] + 1\n") is None
    rep = ip.user_ns["rep"]
    assert isinstance(rep, Report) and rep.ok and shown == [rep] and ip.user_ns["_stepcheck"] is rep
    assert rep.path == "<cell>"
    # a cell that does not parse: displays the diagnostic, raises nothing
    magic("", "random X\nstep s: E[X\n")
    bad = shown[-1]
    assert bad.fatal and "error: unclosed `[`" in bad._repr_markdown_()
    assert "NOT checked" in bad._repr_html_()
    # options
    magic("--strict", "random X, Y\nassume i: independent(X, Y)\nstep s: E[X + Y] = E[X] + E[Y] by i\n")
    assert not shown[-1].ok
    with pytest.raises(Exception, match="unexpected argument"):
        magic("--nope", "random X\n")


@pytest.mark.skipif(importlib.util.find_spec("IPython") is None, reason="IPython not installed")
def test_cell_magic_in_a_real_shell():
    code = r"""
from IPython.core.interactiveshell import InteractiveShell
ip = InteractiveShell.instance()
ip.run_line_magic("load_ext", "stepcheck")
ip.run_cell_magic("stepcheck", "rep", "random X\nstep lin: E[2 X + 1] = 2 E[X] + 1\n")
assert ip.user_ns["rep"].ok
ip.run_line_magic("load_ext", "stepcheck.ipython")
"""
    env = dict(os.environ, PYTHONPATH=SRC, IPYTHONDIR=str(Path(os.environ.get("TMPDIR", "/tmp")) / "stepcheck-ipy"))
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "Report(" in out.stdout  # displayed (as text/plain outside a notebook)


# ------------------------------------------------------------------ docs


def _doc_blocks():
    text = (ROOT / "docs" / "testing.md").read_text(encoding="utf-8")
    return re.findall(r"```python\n(.*?)```", text, re.S)


def test_docs_have_examples():
    assert len(_doc_blocks()) >= 5


@pytest.mark.parametrize("index", range(len(_doc_blocks())))
def test_docs_examples(index):
    ns: dict = {"__name__": f"docs_testing_{index}"}
    exec(compile(_doc_blocks()[index], f"docs/testing.md[{index}]", "exec"), ns)
    for name, fn in list(ns.items()):
        if name.startswith("test_") and callable(fn):
            fn()


# ------------------------------------------------------------------ positions and reprs (issue 16, item 2)


def _line_of(text: str) -> int:
    """The line of this file that ends with ``text`` (once)."""
    lines = [k for k, ln in enumerate(Path(__file__).read_text(encoding="utf-8").splitlines(), 1)
             if ln.rstrip().endswith(text)]
    assert len(lines) == 1, lines
    return lines[0]


def test_claim_positions_are_the_callers_line():
    r = check("E[2 X] = 3 E[X]", "random X")  # position-test-1
    line, here = _line_of("# position-test-1"), os.path.relpath(__file__)
    assert (r.file, r.line, r.links[0].line, r.links[0].col) == (here, line, line, 23)
    text = r.text
    assert f"--> {here}:{line}:23" in text
    assert f'{line} |     r = check("E[2 X] = 3 E[X]", "random X")  # position-test-1' in text
    assert "|" + " " * 23 + "^" * 8 + " the two sides differ" in text  # under `= 3 E[X]`


def test_claim_on_several_lines_of_the_file():
    r = check("""E[2 X]
        = 2 E[X]
        = 3 E[X]""", "random X")  # position-test-2
    last = _line_of("# position-test-2")
    assert [(lk.line, lk.col, lk.status) for lk in r.links] == [(last - 1, 9, "holds"), (last, 9, "fails")]
    assert f"--> {os.path.relpath(__file__)}:{last}:9" in r.text


def test_claim_not_written_at_the_call_gets_the_call_line_and_its_own_text():
    claim = "E[2 X] = 3 E[X]"
    r = check(claim, "random X")  # position-test-3
    place = f"{os.path.relpath(__file__)}:{_line_of('# position-test-3')} (claim)"
    assert r.file == place and (r.line, r.links[0].col) == (1, 8)
    assert f"--> {place}:1:8\n" in r.text and "1 | E[2 X] = 3 E[X]\n" in r.text


def test_given_positions_are_in_the_given_argument():
    with pytest.raises(ParseError) as ei:
        check("E[X] = 0", "random X\n  let d: bogus")  # position-test-4
    place = f"{os.path.relpath(__file__)}:{_line_of('# position-test-4')} (given)"
    assert f"--> {place}:2:10\n" in ei.value.text
    assert "2 |   let d: bogus\n  |          ^^^^^" in ei.value.text
    with pytest.raises(AssertionError) as ei:
        assert_holds("E[X] = 1", CONTRA)
    assert re.search(r"--> \S+test_api\.py:\d+ \(given\):\d+:\d+", str(ei.value))


def test_without_a_caller_file_the_claim_and_given_are_their_own_sources():
    ns = {"check": check}
    code = compile("r = check('Var(2 X) = 2 Var(X)', 'random X')\n", "<stdin>", "exec")  # a REPL line
    exec(code, ns)
    text = ns["r"].text
    assert "--> <claim>:1:10\n" in text and "1 | Var(2 X) = 2 Var(X)\n" in text
    assert ns["r"].file == "<claim>" and ns["r"].line == 1
    with pytest.raises(ParseError) as ei:
        exec(compile("check('E[X] = 0', 'random X; let d: bogus')\n", "<stdin>", "exec"), ns)
    assert "--> <given>:1:18\n" in ei.value.text and "1 | random X; let d: bogus" in ei.value.text


def test_reprs_are_short_and_name_what_fails():
    bad = check(WRONG, DOT)
    r = repr(bad)
    assert r.startswith("ClaimResult(step claim: Var(sum(i=1..n, q_i k_i)) = sqrt(n) — fails at ")
    assert "✗ link 1 `= sqrt(n)`: the two sides differ; counterexample: n = 2" in r
    assert len(r) < 240 and "\n" not in r  # pytest shows 240 characters of a repr on one line
    good = check("E[q_i k_i] = E[q_i] E[k_i] = 0", DOT)
    assert repr(good) == "ClaimResult(step claim: E[q_i k_i] = 0 — holds)"
    assert repr(good.links[1]) == "Link(2 `E[q_i] E[k_i] = 0` holds)"
    rep = verify_file(DERIV / "bad" / "cites_too_little.step")
    rr = repr(rep)
    assert rr.startswith("Report(") and "NOT verified" in rr and len(rr) < 400
    assert all(f"step {s.name}:" in rr for s in rep.failures[:2])
    assert repr(var_dot_report()).endswith(": verified: every step holds)")
    strict = check("E[X + Y] = E[X] + E[Y] by indep", "random X, Y; assume indep: independent(X, Y)", strict=True)
    assert "holds, with an error" in repr(strict) and "cited but not needed" in repr(strict)
