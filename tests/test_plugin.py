"""The pytest plugin, run with ``pytester``: collection, node ids, failure text, options, xdist.

Plugin autoloading is disabled in the inner runs and the plugin is named with
``-p stepcheck.pytest_plugin``, so the tests behave the same whether or not
stepcheck is installed (installed, its ``pytest11`` entry point would load it).
"""
from __future__ import annotations

import importlib.util
import os
import re
import sys
import tomllib
from pathlib import Path

import pytest

import stepcheck.api  # noqa: F401  (loaded once here: in-process runs then reuse it and sympy)
import stepcheck.checker  # noqa: F401
import stepcheck.pytest_plugin  # noqa: F401

ROOT = Path(__file__).resolve().parents[1]
SRC = str(ROOT / "src")
DERIV = ROOT / "derivations"
PLUGIN = ("-p", "stepcheck.pytest_plugin")

UNKNOWN = """\
derivation unk "unknown: contradictory assumptions prove nothing"
random X
assume one: E[X] = 1
assume two: E[X] = 2
step unk: E[X] = 1
"""

REFUTE = """\
random X
refute nope: Var(X) = 0
step lin: E[2 X] = 2 E[X]
"""

STRICT = """\
random X
random Y
assume indep: independent(X, Y)
step lin: E[X + Y] = E[X] + E[Y]   by indep
"""


@pytest.fixture
def pt(pytester, monkeypatch):
    monkeypatch.setenv("PYTHONPATH", SRC + os.pathsep + os.environ.get("PYTHONPATH", ""))
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    monkeypatch.delenv("PYTEST_ADDOPTS", raising=False)
    return pytester


def put(pt, rel: str, text: str | None = None, src: Path | None = None) -> Path:
    p = pt.path / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text if text is not None else src.read_text(encoding="utf-8"), encoding="utf-8")
    return p


def run(pt, *args):
    return pt.runpytest(*PLUGIN, "-p", "no:cacheprovider", *args)


def test_entry_point_declared():
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert meta["project"]["entry-points"]["pytest11"] == {"stepcheck": "stepcheck.pytest_plugin"}


def test_passing_file_one_item_per_step(pt):
    put(pt, "derivations/var_dot.step", src=DERIV / "var_dot.step")
    res = run(pt, "--collect-only", "-q", "derivations")
    res.stdout.fnmatch_lines([
        "derivations/var_dot.step::mean_term",
        "derivations/var_dot.step::var_term",
        "derivations/var_dot.step::var_sum",
    ])
    res = run(pt, "derivations", "-v")
    res.assert_outcomes(passed=3)
    res.stdout.fnmatch_lines(["derivations/var_dot.step::var_sum PASSED*"])


def test_failing_file_shows_the_diagnostic(pt):
    put(pt, "derivations/bad/wrong_step.step", src=DERIV / "bad/wrong_step.step")
    res = run(pt, "derivations", "--stepcheck-bad")
    res.assert_outcomes(failed=1)
    out = res.stdout.str()
    # the same text as the terminal: file:line:col, source line, carets, residual, counterexample
    assert "_ step var_sum _" in out
    assert "error: this step does not hold" in out
    assert "--> derivations/bad/wrong_step.step:12:43" in out
    assert "12 | step var_sum: Var(sum(i=1..d_k, q_i k_i)) = sqrt(d_k)" in out
    assert "^^^^^^^^^^^ the two sides differ" in out
    assert "reduces to: d_k - sqrt(d_k)" in out
    assert "counterexample: d_k = 2" in out
    assert "Traceback" not in out and "def runtest" not in out
    res.stdout.fnmatch_lines(["FAILED derivations/bad/wrong_step.step::var_sum*"])


def test_reportinfo_points_at_the_step_line(pt):
    put(pt, "var_dot.step", src=DERIV / "var_dot.step")
    items, _ = pt.inline_genitems(*PLUGIN, "var_dot.step")
    info = {it.name: it.reportinfo() for it in items}
    lines = (DERIV / "var_dot.step").read_text(encoding="utf-8").splitlines()
    for name, (path, line, label) in info.items():
        assert Path(path).name == "var_dot.step"
        assert lines[line].startswith(f"step {name}:")
        assert label == f"step {name}"
    assert [it.nodeid for it in items] == ["var_dot.step::mean_term", "var_dot.step::var_term", "var_dot.step::var_sum"]


def test_unknown_step_fails(pt):
    put(pt, "unk.step", UNKNOWN)
    res = run(pt, "unk.step", "-rf")
    res.assert_outcomes(failed=1)
    out = res.stdout.str()
    assert "_ step unk _" in out
    assert "step unk: E[X] = 1  (unknown)" in out
    assert "rests on contradictory assumptions: one, two" in out
    # the file-level error that explains it is shown with the step
    assert "error: contradictory assumptions: `one`, `two`" in out
    assert "--> unk.step:3:8" in out
    res.stdout.fnmatch_lines(["FAILED unk.step::unk*"])


def test_refute_steps_are_items(pt):
    from stepcheck.checker import check_text

    put(pt, "ref.step", REFUTE)
    items, _ = pt.inline_genitems(*PLUGIN, "ref.step")
    assert [it.nodeid for it in items] == ["ref.step::nope", "ref.step::lin"]
    assert items[0].reportinfo()[1:] == (1, "refute nope")
    # the item passes exactly when the checker says the refutation holds
    expected = check_text(REFUTE, "ref.step").steps[0].status == "holds"
    res = run(pt, "ref.step")
    res.assert_outcomes(passed=1 + expected, failed=1 - expected)


def test_unparsable_file_fails_collection(pt):
    put(pt, "derivations/bad/syntax.step", src=DERIV / "bad/syntax.step")
    put(pt, "derivations/var_dot.step", src=DERIV / "var_dot.step")
    res = run(pt, "derivations", "--stepcheck-bad")
    assert res.ret == pytest.ExitCode.INTERRUPTED
    out = res.stdout.str()
    assert "ERROR collecting derivations/bad/syntax.step" in out
    assert "error: unclosed `[`" in out
    assert "--> derivations/bad/syntax.step:5:15" in out
    assert "5 | step broken: E[X + 1" in out
    assert "Traceback" not in out and "CollectError" not in out
    res = run(pt, "derivations", "--stepcheck-bad", "--continue-on-collection-errors")
    res.assert_outcomes(passed=3, errors=1)


def test_input_error_inside_a_step_fails_that_step(pt):
    put(pt, "typo.step", src=DERIV / "bad/typo.step")
    res = run(pt, "typo.step")
    res.assert_outcomes(failed=1)
    assert "error: unknown name `qq_i`" in res.stdout.str()
    assert "help: did you mean `q_i`?" in res.stdout.str()


def test_input_error_outside_steps_fails_every_step(pt):
    """Collection only parses; an error found when the file is checked fails each of its items."""
    put(pt, "loose.step", "random X\nassume a: E[Y] = 0\nstep s: E[X] = E[X]\nstep t: E[2 X] = 2 E[X]\n")
    res = run(pt, "loose.step")
    res.assert_outcomes(failed=2)
    failures = res.stdout.str().split("short test summary info")[0]  # newer pytest repeats them in the summary
    assert failures.count("--> loose.step:2:13") == 2


def test_file_without_steps_fails_collection_with_its_errors(pt):
    put(pt, "nosteps.step", "random X\nassume a: E[Y] = 0\n")
    res = run(pt, "nosteps.step")
    res.assert_outcomes(errors=1)
    assert "error: unknown name `Y`" in res.stdout.str()
    put(pt, "empty.step", "random X\n")
    run(pt, "empty.step").assert_outcomes()


def test_a_name_used_twice_fails_its_second_item(pt):
    put(pt, "twice.step", "random X\nstep s: E[X] = E[X]\nstep s: E[2 X] = 2 E[X]\n")
    res = run(pt, "twice.step")
    res.assert_outcomes(passed=1, failed=1)
    assert "the name `s` is used twice" in res.stdout.str()


def test_contradiction_is_shown_with_the_failing_step(pt):
    put(pt, "c.step", src=DERIV / "bad/contradiction.step")
    res = run(pt, "c.step")
    res.assert_outcomes(failed=1)
    assert "error: contradictory assumptions: `one`, `two`" in res.stdout.str()


def test_keyword_selects_one_step(pt):
    put(pt, "derivations/var_dot.step", src=DERIV / "var_dot.step")
    res = run(pt, "derivations", "-k", "var_sum", "-v")
    res.assert_outcomes(passed=1, deselected=2)
    res.stdout.fnmatch_lines(["derivations/var_dot.step::var_sum PASSED*"])


def test_node_id_selects_one_step(pt):
    put(pt, "derivations/var_dot.step", src=DERIV / "var_dot.step")
    res = run(pt, "derivations/var_dot.step::var_term")
    res.assert_outcomes(passed=1)


def test_strict_option_makes_unneeded_citation_fail(pt):
    put(pt, "strict.step", STRICT)
    run(pt, "strict.step").assert_outcomes(passed=1)
    res = run(pt, "strict.step", "--stepcheck-strict")
    res.assert_outcomes(failed=1)
    out = res.stdout.str()
    assert "error: cited but not needed: `indep`" in out
    assert "--> strict.step:4:" in out


def test_why_option(pt):
    put(pt, "c.step", src=DERIV / "bad/cites_too_little.step")
    res = run(pt, "c.step", "--stepcheck-why")
    res.assert_outcomes(failed=1)
    assert "error: this step cites too little" in res.stdout.str()
    assert "--stepcheck-why" in run(pt, "--help").stdout.str()


def test_ini_option_chooses_the_files(pt):
    put(pt, "a.step", STRICT)
    put(pt, "b.deriv", STRICT.replace("step lin", "step other"))
    pt.makeini("[pytest]\nstepcheck_files = *.deriv\n")
    res = run(pt, "--collect-only", "-q", ".")
    out = res.stdout.str()
    assert "b.deriv::other" in out and "a.step" not in out


def test_each_file_is_checked_once(pt):
    put(pt, "derivations/var_dot.step", src=DERIV / "var_dot.step")
    pt.makeconftest(
        """
import stepcheck.checker as C
calls = []
_orig = C.check_file
def counting(path, *a, **kw):
    calls.append(path)
    return _orig(path, *a, **kw)
def pytest_configure(config):
    C.check_file = counting
def pytest_unconfigure(config):
    C.check_file = _orig
    open("calls.txt", "w").write(str(len(calls)))
"""
    )
    run(pt, "derivations").assert_outcomes(passed=3)
    assert (pt.path / "calls.txt").read_text() == "1"
    # collection alone parses: nothing is checked
    run(pt, "derivations", "--collect-only")
    assert (pt.path / "calls.txt").read_text() == "0"


@pytest.mark.skipif(importlib.util.find_spec("xdist") is None, reason="pytest-xdist not installed")
def test_xdist(pt):
    put(pt, "derivations/var_dot.step", src=DERIV / "var_dot.step")
    put(pt, "derivations/bad/wrong_step.step", src=DERIV / "bad/wrong_step.step")
    res = pt.runpytest_subprocess(*PLUGIN, "-p", "xdist", "-p", "no:cacheprovider", "-n", "2", "derivations",
                                  "--stepcheck-bad")
    res.assert_outcomes(passed=3, failed=1)
    out = res.stdout.str()
    assert "--> derivations/bad/wrong_step.step:12:43" in out
    assert "counterexample: d_k = 2" in out


@pytest.mark.skipif(importlib.util.find_spec("xdist") is None, reason="pytest-xdist not installed")
@pytest.mark.parametrize("ini, together", [("", True), ("[pytest]\nstepcheck_xdist_group = false\n", False)])
def test_xdist_keeps_a_files_steps_on_one_worker(pt, ini, together):
    """Each file is checked once in all under `-n 2` (its items form one xdist group), unless turned off."""
    for k in range(2):
        put(pt, f"derivations/f{k}.step", "random X\n" + "".join(f"step s{j}: E[{j} X] = {j} E[X]\n"
                                                                 for j in range(1, 9)))
    pt.makepyfile(test_plain="import pytest\n@pytest.mark.parametrize('k', range(6))\ndef test_p(k): pass\n")
    if ini:
        pt.makeini(ini)
    pt.makeconftest(
        """
import os, stepcheck.checker as C
_orig = C.check_file
def counting(path, *a, **kw):
    with open(os.path.join(os.path.dirname(__file__), "calls.txt"), "a") as f:
        f.write(os.path.basename(path) + "\\n")
    return _orig(path, *a, **kw)
C.check_file = counting
"""
    )
    res = pt.runpytest_subprocess(*PLUGIN, "-p", "xdist", "-p", "no:cacheprovider", "-n", "2", "-v", ".")
    res.assert_outcomes(passed=22)
    calls = sorted((pt.path / "calls.txt").read_text().split())
    if together:
        assert calls == ["f0.step", "f1.step"]
    else:  # items spread over both workers: a file is checked by each worker that runs one of its steps
        assert len(calls) >= 2
    workers = {}
    for line in res.stdout.lines:
        if "PASSED" in line and ".step::" in line:
            gw = line.split("]")[0].strip("[")
            workers.setdefault(line.split("::")[0].split()[-1], set()).add(gw)
    assert workers and (all(len(w) == 1 for w in workers.values()) or not together)


def test_files_meant_to_fail_are_skipped_below_the_given_path(pt):
    put(pt, "derivations/var_dot.step", src=DERIV / "var_dot.step")
    put(pt, "derivations/bad/wrong_step.step", src=DERIV / "bad/wrong_step.step")
    run(pt, "derivations").assert_outcomes(passed=3)  # `pytest derivations/` passes as shipped
    run(pt, "derivations/bad").assert_outcomes(failed=1)  # the bad/ directory named: collected
    run(pt, "derivations/bad/wrong_step.step").assert_outcomes(failed=1)


# ------------------------------------------------------------------ failing asserts on API results (issue 16, item 2)

API_TESTS = '''\
from stepcheck import assert_holds, check, verify_text

GIVEN = """
let n: positive integer
let i: index 1..n
random q_i, k_i for i in 1..n
assume indep: independent(q, k)
assume mean0: E[q_i] = 0, E[k_i] = 0
"""


def test_ok():
    r = check("E[q_i k_i] = E[q_i] E[k_i] + 1", GIVEN)
    assert r.ok


def test_inline():
    assert check("Var(2 q_i) = 2 Var(q_i)", GIVEN).holds


def test_report():
    report = verify_text("random X\\nstep a: E[2 X] = 2 E[X]\\nstep b: Var(2 X) = 2 Var(X)\\n")
    assert report.ok


def test_uses():
    r = check("E[q_i k_i] = E[q_i] E[k_i] = 0", GIVEN)
    assert r.uses == {"indep"}


def test_in_uses():
    r = check("E[q_i k_i] = E[q_i] E[k_i] = 0", GIVEN)
    assert "var1" in r.uses


def test_assert_holds():
    assert_holds("E[q_i + k_i] = E[q_i] + 1", GIVEN)


def test_passing_result_other_failure():
    r = check("E[q_i k_i] = 0", GIVEN)
    assert r.ok and 1 + 1 == 3


def test_passes():
    assert check("E[q_i k_i] = 0", GIVEN).ok
'''


_API_RUN: dict = {}


@pytest.fixture
def api_run(pt):
    """The output of one inner session on API_TESTS (run once, shared by the tests below)."""
    if "res" not in _API_RUN:
        pt.makepyfile(test_api_use=API_TESTS)
        res = run(pt, "test_api_use.py")
        _API_RUN["res"] = (res.parseoutcomes(), res.stdout.str())
    return _API_RUN["res"]


def section(out: str, test: str) -> str:
    """The failure block of ``test`` in pytest's output."""
    m = re.search(rf"_+ {test} _+\n(.*?)(?=\n_{{5,}} \w|\n=+ short test summary)", out, re.S)
    assert m, f"no failure block for {test}"
    return m.group(1)


def test_assert_ok_shows_the_diagnostic_at_the_test_line(api_run):
    outcomes, out = api_run
    assert outcomes == {"failed": 7, "passed": 1}
    block = section(out, "test_ok")
    # the repr pytest prints for `assert r.ok` is short and names the failing link and its place
    where = next(ln for ln in block.splitlines() if "where False = ClaimResult(" in ln)
    assert "fails at test_api_use.py:13" in where and "✗ link 1 `= E[q_i] E[k_i] + 1`" in where
    assert "the two sides differ" in where and "Link(" not in where and "diagnostics=" not in where
    # then the rendered diagnostic: the test file's own line, carets under the claim in it
    assert "- stepcheck -" in block
    assert "--> test_api_use.py:13:27" in block
    assert '13 |     r = check("E[q_i k_i] = E[q_i] E[k_i] + 1", GIVEN)' in block
    assert "|" + " " * 27 + "^" * 19 + " the two sides differ\n" in block  # under `= E[q_i] E[k_i] + 1`
    assert "<claim>" not in block and "given" not in block


def test_inline_and_report_asserts_show_the_diagnostic(api_run):
    out = api_run[1]
    inline = section(out, "test_inline")
    assert "- stepcheck -" in inline and "--> test_api_use.py:18:30" in inline and "counterexample:" in inline
    rep = section(out, "test_report")
    assert "where False = Report(<string>: NOT verified: 1 fails; step b:" in rep
    assert "--> <string>:3:18" in rep and "step a" not in rep.split("- stepcheck -")[1]


def test_uses_comparison_names_the_assumptions_that_differ(api_run):
    out = api_run[1]
    uses = section(out, "test_uses")
    assert "assert {'indep', 'mean0'} == {'indep'}" in uses
    assert "stepcheck: used but not expected: mean0 (zero mean)" in uses
    assert "Assumption(" not in uses and "- stepcheck -" not in uses  # the claim holds: no diagnostic
    inn = section(out, "test_in_uses")
    assert "stepcheck: `var1` is not among the assumptions used: indep (independence" in inn


def test_plain_comparisons_are_left_to_pytest(pt):
    pt.makepyfile(test_plain="def test_sets():\n    assert {'a', 'b'} == {'a'}\n")
    out = run(pt, "test_plain.py").stdout.str()
    assert "Extra items in the left set" in out and "stepcheck" not in out


def test_assert_holds_hides_stepcheck_frames(api_run):
    block = section(api_run[1], "test_assert_holds")
    assert ">       assert_holds(" in block
    assert "--> test_api_use.py:37:32" in block and "^^^^^^^^^^^^ the two sides differ" in block
    for internal in ("def assert_holds", "raise AssertionError", "__tracebackhide__", "res = check(",
                     "api/__init__.py", "claim_or_result ="):
        assert internal not in block, internal


def test_no_diagnostic_for_a_passing_result(api_run):
    out = api_run[1]
    other = section(out, "test_passing_result_other_failure")
    assert "- stepcheck -" not in other and "assert (True and (1 + 1) == 3)" in other
    assert "test_passes" not in out.split("short test summary")[1]


def test_docs_show_the_real_pytest_output(pt):
    doc = (ROOT / "docs" / "testing.md").read_text(encoding="utf-8")
    source = re.search(r"```text\n# test_maths.py\n(.*?)```", doc, re.S).group(1)
    shown = re.search(r"`pytest -q test_maths.py` prints:\n\n```text\n(.*?)```", doc, re.S).group(1)
    pt.makepyfile(test_maths=source)
    out = run(pt, "-q", "test_maths.py").stdout.str()
    start = out.rindex("\n", 0, out.index(" test_term ")) + 1
    end = out.index("test_maths.py:23: AssertionError") + len("test_maths.py:23: AssertionError\n")
    assert out[start:end] == shown.lstrip("\n")


def test_terse_tracebacks_get_no_section(pt):
    pt.makepyfile(test_terse='from stepcheck import check\n\ndef test_t():\n'
                             '    r = check("E[2 X] = 3 E[X]", "random X")\n    assert r.ok\n')
    assert "- stepcheck -" not in run(pt, "test_terse.py", "--tb=line").stdout.str()
    assert "- stepcheck -" in run(pt, "test_terse.py", "--tb=short").stdout.str()


def test_steps_survive_plugins_that_read_funcargs(pt):
    """pytest-lsp 1.0 wraps every test's call and returns without running it when the item has no
    `funcargs`; a step item has an empty one, as a test function without fixtures does."""
    put(pt, "d.step", "random X\nstep lin: E[2 X] = 2 E[X]\n")
    pt.makeconftest(
        """
import pytest
@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    if not hasattr(item, "funcargs"):
        return
    for arg in item.funcargs.values():
        pass
    yield
"""
    )
    run(pt, "d.step").assert_outcomes(passed=1)
