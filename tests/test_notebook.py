"""Notebook parity (issue 16, item 7): ``%%stepcheck --why`` shows what ``verify --why`` prints,
``why=True`` in the API, and LaTeX that keeps the user's factor order.

IPython is not needed: the magic runs on a fake shell with a fake display
(``tests/test_api.py`` runs it in a real shell when IPython is installed).
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

import stepcheck
from stepcheck import check, cli, ipython, verify_file, verify_text
from stepcheck.api import Report
from test_api import FakeIP  # the fake IPython shell the API's own magic test uses

CELL = """\
let n: positive integer
let i: index 1..n
random q_i, k_i for i in 1..n
assume indep: independent(q, k)
assume mean0: E[q_i] = 0, E[k_i] = 0
step a: E[q_i k_i] = E[q_i] E[k_i] = 0
"""


@pytest.fixture
def magic(monkeypatch):
    shown = []
    monkeypatch.setattr(ipython, "_display", shown.append)
    ip = FakeIP()
    stepcheck.load_ipython_extension(ip)
    run = ip.magics[("cell", "stepcheck")]

    def go(line, cell):
        run(line, cell)
        return shown[-1]

    return go


def cli_why_lines(tmp_path, capsys, text: str) -> list[str]:
    """What ``verify --why`` prints for ``text`` (the step blocks and the matrix), line by line."""
    p = tmp_path / "cell.step"
    p.write_text(text, encoding="utf-8")
    capsys.readouterr()
    cli.main(["--why", "--color", "never", str(p)])
    out = capsys.readouterr().out
    return [ln for ln in out.splitlines() if ln.strip() and str(p) not in ln]


def test_why_magic_shows_what_verify_why_prints(magic, tmp_path, capsys):
    rep = magic("--why", CELL)
    assert isinstance(rep, Report) and rep.why and rep.ok
    md, h = rep._repr_markdown_(), rep._repr_html_()
    expected = cli_why_lines(tmp_path, capsys, CELL)
    why_lines = [ln for ln in expected if ln.lstrip().startswith(("without ", "uses: "))]
    assert any("without indep: needed (witness:" in ln for ln in why_lines)
    assert any("weakest: uncorrelated(q_i, k_i)" in ln for ln in why_lines)  # the assumption details
    for ln in why_lines:  # every witness and detail line of the command, word for word
        assert ln in md, ln
    assert "●!" in md  # the step-by-assumption matrix, with its needed marks
    # the whole terminal report is the command's (minus the file name line)
    assert [ln for ln in rep.text.splitlines() if ln.strip() and ln != "<cell>"] == expected
    assert 'class="stepcheck-why"' in h and "without indep: needed (witness:" in h


def test_magic_without_why_shows_no_witnesses(magic):
    rep = magic("", CELL)
    assert not rep.why
    md = rep._repr_markdown_()
    assert "without indep" not in md and "witness" not in md and "●!" not in md
    assert "stepcheck-why" not in rep._repr_html_()
    assert "```" not in md  # nothing fails: no text block at all


def test_why_magic_on_a_failing_cell_shows_the_diagnostic_once(magic):
    rep = magic("--why", CELL.replace("= E[q_i] E[k_i] = 0", "= E[q_i] E[k_i] = 1"))
    md = rep._repr_markdown_()
    assert not rep.ok and md.count("error: this step does not hold") == 1
    assert "--> <cell>:6:" in md


def test_api_why_true(tmp_path):
    r = check("E[q_i k_i] = 0", CELL.split("step")[0], why=True)
    assert r.why and "without indep: needed (witness:" in r.text
    assert "without mean0: needed (witness:" in r.text
    plain = check("E[q_i k_i] = 0", CELL.split("step")[0])
    assert not plain.why and "without" not in plain.text
    rep = verify_text(CELL, why=True)
    assert rep.why and "without indep: needed (witness:" in rep.text and "●!" in rep.text
    assert "without indep" in rep["a"].text and "without" not in verify_text(CELL).text
    p = tmp_path / "d.step"
    p.write_text(CELL, encoding="utf-8")
    f = verify_file(p, why=True)
    assert "without indep: needed (witness:" in f.text and "without" not in verify_file(p).text


@pytest.mark.parametrize("claim, given, kept, not_this", [
    ("E[q_i k_i] = E[q_i] E[k_i]", CELL.split("assume mean0")[0],
     r"\mathbb{E}\left[q_{i} k_{i}\right] = \mathbb{E}\left[q_{i}\right] \mathbb{E}\left[k_{i}\right]", "k_{i} q_{i}"),
    ("b a = a b", "let a: real; let b: real", "b a = a b", "a b = a b"),
    ("x^2 y = y x^2", "let x: real; let y: real", "x^{2} y = y x^{2}", "x^{2} y = x^{2} y"),
])
def test_latex_keeps_the_written_factor_order(claim, given, kept, not_this):
    r = check(claim, given)
    assert r.holds
    assert r.latex == kept and r.links[0].latex == kept
    assert not_this not in r.latex
    assert kept in r._repr_markdown_() and kept.replace("<", "&lt;") in r._repr_html_()


def test_latex_of_each_link_and_of_the_magic(magic):
    rep = magic("", CELL)
    md = rep._repr_markdown_()
    assert r"$\mathbb{E}\left[q_{i} k_{i}\right] = 0$" in md  # the statement, first and last side
    assert r"$\mathbb{E}\left[q_{i}\right] \mathbb{E}\left[k_{i}\right] = 0$" in md  # the second link
    assert "k_{i} q_{i}" not in md


def test_latex_falls_back_where_the_written_form_does_not_apply():
    # a side with an error did not elaborate: its source text, not typeset maths
    with pytest.raises(stepcheck.api.ParseError) as ei:
        verify_text("random X\nstep s: E[Y] = 0\n")
    assert r"\texttt{E[Y]}" in ei.value.report.steps[0].latex
    # a form as_written cannot typeset (a limit) uses the elaborated expression
    r = check("limit(1 / x, x -> oo) = 0", "let x: positive real")
    lk = r.links[0]
    assert r.holds and lk.written[0] is not None  # the parse tree is there, but not typesettable
    assert lk.latex == stepcheck.api.to_latex(lk.raw.lhs_expr) + " = 0"
    assert lk.latex.startswith(r"\lim_{x \to")


def test_docs_show_the_real_why_output(magic):
    doc = (Path(__file__).resolve().parents[1] / "docs" / "testing.md").read_text(encoding="utf-8")
    cell = re.search(r"%%stepcheck --why report\n(.*?)```", doc, re.S).group(1)
    shown = re.search(r"The cell above displays\n.*?\n````text\n(.*?)````", doc, re.S).group(1)
    assert magic("--why report", cell)._repr_markdown_() == shown
