"""Annotated proof PDFs: every shipped derivation renders (a typst compile
error is a bug), and the PDF's text holds every step name, every assumption
label, the verdict and (with a CJK font) the Chinese title.

The reports of the shipped files are the shared ones (``conftest.shipped_report``):
these tests are about rendering and writing, not checking."""
from __future__ import annotations

import io
import re

import pytest

pytest.importorskip("typst")
pypdf = pytest.importorskip("pypdf")

from conftest import DERIVATIONS, SHIPPED, shipped_report  # noqa: E402

from stepcheck import cli, pdf  # noqa: E402
from stepcheck.checker import check_file  # noqa: E402
from stepcheck.report import verdict  # noqa: E402

slow = pytest.mark.slow  # rendering every shipped file; the unit tests at the end are quick

FILES = SHIPPED  # derivations/*.step and derivations/bad/*.step
NO_CJK = "no CJK font installed (Debian: apt-get install fonts-noto-cjk); the Chinese title cannot be checked"


def _text(data: bytes) -> str:
    reader = pypdf.PdfReader(io.BytesIO(data))
    return "\n".join(page.extract_text() or "" for page in reader.pages)


def _squash(s: str) -> str:
    return re.sub(r"\s+", "", s)


@pytest.fixture(scope="module")
def rendered():
    out = {}
    for f in FILES:
        report = shipped_report(f)
        data, src, warnings = pdf.render([report])
        out[f.name if f.parent.name != "bad" else "bad/" + f.name] = (report, data, src, warnings)
    return out


def _ids():
    return [f.name if f.parent.name != "bad" else "bad/" + f.name for f in FILES]


@slow
def test_there_are_derivations():
    assert len(FILES) >= 3


@slow
@pytest.mark.parametrize("name", _ids())
def test_pdf_holds_steps_labels_and_verdict(rendered, name):
    report, data, src, _ = rendered[name]
    assert data.startswith(b"%PDF")
    text = _squash(_text(data))
    for step in report.steps:
        assert _squash(step.name) in text, f"step {step.name} missing from the PDF"
    for a in report.assumptions:
        assert _squash(a.label) in text, f"assumption {a.label} missing from the PDF"
    assert _squash(verdict(report)[1]) in text


@slow
@pytest.mark.parametrize("name", _ids())
def test_pdf_holds_the_chinese_title(rendered, name):
    if not pdf.find_cjk_fonts():
        pytest.skip(NO_CJK)
    report, data, _, warnings = rendered[name]
    assert not warnings
    title = pdf.title_of(report)  # read from the source when the file does not parse
    if not pdf.has_cjk(title):
        pytest.skip("this file's title has no Chinese text")
    assert _squash(title) in _squash(_text(data))


@slow
def test_some_titles_are_chinese(rendered):
    assert sum(pdf.has_cjk(pdf.title_of(r)) for r, _, _, _ in rendered.values()) >= 3


@slow
def test_failed_link_shows_its_counterexample(rendered):
    _, data, _, _ = rendered["bad/wrong_step.step"]
    text = _squash(_text(data))
    assert "counterexample" in text and "d_k=2" in text


@slow
def test_a_very_long_expression_compiles(tmp_path):
    terms = " + ".join(f"{c} E[q_i^{c}]" for c in range(1, 60))
    body = " + ".join(f"{c} q_i^{c}" for c in range(1, 60))
    step = tmp_path / "long.step"
    step.write_text(
        'derivation long "long"\nlet n: positive integer\nlet i: index 1..n\nrandom q_i for i in 1..n\n'
        f"step huge: E[{body}]\n    = {terms}\n"
        + "".join(f"step s{c}: E[q_i + {c}]\n    = E[q_i] + {c}\n" for c in range(40)),
        encoding="utf-8",
    )
    report = check_file(str(step))
    data, _, _ = pdf.render([report])
    reader = pypdf.PdfReader(io.BytesIO(data))
    assert len(reader.pages) >= 2  # long derivations paginate
    assert "s39" in _text(data)


@slow
def test_no_cjk_font_warns_once(tmp_path, monkeypatch, capsys, shared_checks):
    monkeypatch.setattr(pdf, "find_cjk_fonts", lambda: ())
    monkeypatch.chdir(tmp_path)
    files = [str(DERIVATIONS / "var_dot.step"), str(DERIVATIONS / "var_scaled.step")]
    code = cli.main(["-q", "--pdf", "--", *files])
    err = capsys.readouterr().err
    assert code == 0
    assert err.count("CJK font") == 1, err
    assert "apt-get install fonts-noto-cjk" in err
    assert (tmp_path / "var_dot.pdf").exists() and (tmp_path / "var_scaled.pdf").exists()


@slow
def test_cli_pdf_writes_into_the_current_directory(tmp_path, monkeypatch, capsys, shared_checks):
    monkeypatch.chdir(tmp_path)
    code = cli.main(["-q", "--pdf", str(DERIVATIONS / "var_dot.step")])
    err = capsys.readouterr().err
    assert code == 0
    assert (tmp_path / "var_dot.pdf").read_bytes().startswith(b"%PDF")
    assert "wrote var_dot.pdf" in err
    assert [p.name for p in tmp_path.iterdir()] == ["var_dot.pdf"]  # no temporary file left


@slow
def test_cli_pdf_path_and_combined(tmp_path, monkeypatch, capsys, shared_checks):
    monkeypatch.chdir(tmp_path)
    code = cli.main(["-q", "--pdf", "one.pdf", str(DERIVATIONS / "var_dot.step")])
    assert code == 0 and (tmp_path / "one.pdf").exists()
    code = cli.main(["-q", "--pdf-combined", "all.pdf", str(DERIVATIONS)])
    assert code == 0
    text = _text((tmp_path / "all.pdf").read_bytes())
    for name in ("mean_term", "lin_scaled", "quarter"):
        assert name in text


@slow
def test_cli_typst_writes_the_source(tmp_path, monkeypatch, capsys, shared_checks):
    monkeypatch.chdir(tmp_path)
    code = cli.main(["-q", "--typst", "var_dot.typ", str(DERIVATIONS / "var_dot.step")])
    assert code == 0
    src = (tmp_path / "var_dot.typ").read_text(encoding="utf-8")
    assert "#set page" in src and "mean_term" in src
    assert "@preview" not in src  # everything inline: no package fetched at compile time
    assert "wrote var_dot.typ" in capsys.readouterr().err


@slow
def test_never_overwrites_a_step_file(tmp_path, shared_checks):
    target = tmp_path / "x.step"
    target.write_text("random X\n", encoding="utf-8")
    with pytest.raises(ValueError):
        pdf.atomic_write(str(target), b"%PDF")
    assert target.read_text(encoding="utf-8") == "random X\n"
    assert cli.main(["--typst", str(target), str(DERIVATIONS / "var_dot.step")]) == 2


# ------------------------------------------------------------ issue 16: the PDF as a handout

from stepcheck import pdf_maths, syntax as S  # noqa: E402
from stepcheck.typst_template import PALETTE  # noqa: E402


def _placeholders(src: str) -> list[str]:
    """``?`` placeholders in the typst source (the ``?`` status mark of an unknown link is not one)."""
    return re.findall(r'"\?"|:= \?|\$\?\$', src)


@slow
@pytest.mark.parametrize("name", _ids())
def test_typst_source_shows_the_users_notation(rendered, name):
    """Every shipped file: no ``?`` placeholder, every side of every link typeset from the
    parse tree (never the raw source text nor the elaborated form), and the user's notation."""
    report, _, src, _ = rendered[name]
    assert not _placeholders(src)
    if report.program is None:
        return  # bad/syntax.step: nothing to typeset
    ts = pdf_maths.Typesetter(report)
    nodes = pdf_maths.result_nodes(report.program)
    for st in report.steps:
        assert st.name in nodes, st.name
        for node in nodes[st.name][0]:
            assert ts.node(node) is not None, (st.name, node)
    for let in report.program.statements:
        if isinstance(let, S.Let) and let.type.kind == "index":
            for n in let.names:
                assert ts.node(n) in src  # the user's own index names
    if any(isinstance(n, S.Call) and n.func == "softmax" for st in report.program.statements for n in S.walk(st)):
        assert re.search(r'(op|upright)\("softmax"\)', src)
    diffs = [n for st in report.program.statements for n in S.walk(st) if isinstance(n, S.Call) and n.func == "diff"]
    for n in diffs:  # ∂ for partials: written with ∂, or of a family member (∂p_i/∂s_j)
        x = n.args[1]
        if ts.written.wrote_partial(n) or isinstance(x, S.Subscript) or pdf_maths._base(x, ts.families) in ts.families:
            assert ts.node(n).startswith(("frac(partial", "(frac(partial")), ts.node(n)
            assert ts.node(n) in src


@slow
def test_all_shipped_files_in_one_combined_pdf(tmp_path):
    reports = [shipped_report(f) for f in FILES]
    data, src, _ = pdf.render(reports)
    assert data.startswith(b"%PDF") and not _placeholders(src)
    assert len(pypdf.PdfReader(io.BytesIO(data)).pages) > len(reports)


def _check(tmp_path, text: str, name: str = "t.step"):
    f = tmp_path / name
    f.write_text(text, encoding="utf-8")
    return check_file(str(f))


SOFTMAX = """derivation sm "softmax"
let n: positive integer
let i, j: index 1..n
real s_i for i in 1..n
real z_i for i in 1..n
let c: real
define p_i = softmax(z)_i
step shift: softmax(s - c)_i = softmax(s)_i
step jac: diff(softmax(s)_i, s_j) = softmax(s)_i (delta(i, j) - softmax(s)_j)
"""


def test_define_softmax_entry_is_typeset_not_a_placeholder(tmp_path):
    src = pdf.build_typst([_check(tmp_path, SOFTMAX)], cjk_fonts=())
    assert 'p_i := upright("softmax")(z)_i' in src
    assert not _placeholders(src)


def test_steps_appear_as_written_not_elaborated(tmp_path):
    src = pdf.build_typst([_check(tmp_path, SOFTMAX)], cjk_fonts=())
    shift = src[src.index('"shift"'):src.index('"jac"')]
    assert 'upright("softmax")(s - c)_i' in shift and 'upright("softmax")(s)_i' in shift
    assert "frac(" not in shift and "e^" not in shift  # not re-expanded into exp(...)/sum(...)
    jac = src[src.index('"jac"'):]
    assert "frac(partial upright(\"softmax\")(s)_i, partial s_j)" in jac  # a family member: ∂
    assert "delta_(i j)" in jac


def test_single_variable_derivative_keeps_d(tmp_path):
    r = _check(tmp_path, 'derivation d "d"\nlet x: real\nlet y: real\nstep p: diff(x^3, x) = 3 x^2\n'
                         'step q: diff(x^2 y, x) = 2 x y\n')
    src = pdf.build_typst([r], cjk_fonts=())
    p = src[src.index('"p"'):src.index('"q"')]
    q = src[src.index('"q"'):]
    assert "upright(d)" in p and "partial" not in p  # one variable: d
    assert "partial" in q and "upright(d)" not in q  # y is a variable too: ∂


def test_checks_show_their_format_tables_their_point(tmp_path):
    r = _check(tmp_path, 'derivation f "f"\ncheck big: exp(700) = oo in float32\ncheck small: exp(1) ≈ 2.718 within 0.001\n'
                         'let d_k: positive integer\ntable "roots" for d_k in [4, 16]:\n    sqrt(d_k) = [2, 4]\n'
                         'random X\nsimulate sim: E[X + 1] ≈ E[X] + 1 where d_k = 4 with samples = 100, seed = 1\n')
    src = pdf.build_typst([r], cjk_fonts=())
    assert not _placeholders(src) and 'raw("oo in float32")' not in src
    assert '#raw("float32")' in src and "infinity" in src
    assert '#"within "$10^(-3)$' in src or '#"within "$0.001$' in src
    assert '#"at "$d_k$#" = "$16$' in src
    assert '#"where "$d_k$#" = "$4$' in src
    pdf.compile_pdf(src, cjk_fonts=())


def test_refute_is_typeset(tmp_path):
    r = _check(tmp_path, 'derivation r "r"\nrandom X, Y\nrefute wrong: Var(X + Y) = Var(X) + Var(Y)\n')
    src = pdf.build_typst([r], cjk_fonts=())
    assert "Refute" in src and 'op("Var")(X + Y)' in src and not _placeholders(src)


def test_unknown_link_keeps_its_question_mark_status(tmp_path):
    """The ``?`` mark of an unknown link is a status, not a placeholder: it stays."""
    assert pdf.STATUS_MARK["unknown"] == "?"
    assert "[?]" in pdf._preamble([])


def test_multiletter_names_upright_in_the_pdf(tmp_path):
    r = _check(tmp_path, 'derivation m "m"\nlet cap, kk: positive real\nlet d_k: positive integer\n'
                         'step s: cap kk d_k = kk cap d_k\n')
    src = pdf.build_typst([r], cjk_fonts=())
    assert 'upright("cap") upright("kk") d_k' in src
    assert 'italic("cap")' not in src and "k k" not in src


def test_comments_are_text_with_typst_characters_escaped(tmp_path):
    comment = "# costs $5 * #x_1 <= 3 @ref [b] `E[X]` -> done\n"
    r = _check(tmp_path, 'derivation c "c"\nrandom X\n' + comment + "step s: E[X + 1] = E[X] + 1\n")
    src = pdf.build_typst([r], cjk_fonts=())
    assert '#"costs $5 * #x_1 ≤ 3 @ref [b] "#raw("E[X]")#" → done"' in src
    text = _text(pdf.compile_pdf(src, cjk_fonts=()))
    assert "costs $5 * #x_1 ≤ 3 @ref [b]" in text


def test_prose_never_leaves_markup_unquoted():
    out = pdf_maths.prose('a "quoted" \\ back $x$ *b* _c_ <lab> `code`')
    assert out == '#"a \\"quoted\\" \\\\ back $x$ *b* _c_ <lab> "#raw("code")'


def test_weakest_note_is_maths_when_it_is_a_fact():
    from stepcheck.results import Use

    ts = pdf_maths.Typesetter(type("R", (), {"program": None, "text": ""})())
    b = pdf._use_badge(Use("indep", "independence", weakest="uncorrelated(q_i, k_i)"), ts)
    assert 'note: [#emph[weakest:] $upright("uncorrelated")(q_i, k_i)$]' in b
    b = pdf._use_badge(Use("indep", "independence", weakest="Cov(q_i k_i, q_j k_j) = 0 for i != j"), ts)
    assert '$op("Cov")(q_i k_i, q_j k_j) = 0 quad "for" i != j$' in b
    b = pdf._use_badge(Use("indep", "independence", weakest="not a fact #$"), ts)  # plain text, escaped
    assert '#"not a fact #$"' in b


def test_distribution_facts_are_maths(tmp_path):
    r = _check(tmp_path, 'derivation d "d"\nrandom X ~ Rademacher\nstep s: E[X^2] = 1\n')
    src = pdf.build_typst([r], cjk_fonts=())
    assert "$EE[X] = 0$" in src and '$op("Var")(X) = 1$' in src and "$EE[X^2] = 1$" in src
    assert 'raw("E = 0")' not in src
    r = _check(tmp_path, 'derivation d "d"\nlet n: positive integer\nrandom q_i ~ Normal(0, 1) for i in 1..n\n'
                         'step s: E[q_i^2] = 1\n', "q.step")
    src = pdf.build_typst([r], cjk_fonts=())
    assert "$EE[q_i^2] = 1$" in src and "$EE[q_i^4] = 3$" in src and "EE[X" not in src


def test_assumption_facts_never_break_after_their_sign_and_lines_do_not_touch(tmp_path):
    """In the assumptions table each fact is a box (E[D^4] = and its long value stay together; a fact
    wider than the column wraps inside its box), and the facts' lines are spaced for inline fractions."""
    r = _check(tmp_path, 'derivation d "d"\nlet m, k: integer\nrandom D ~ DiscreteUniform(m, k)\n'
                         'step s: E[D] = (m + k)/2\n')
    src = pdf.build_typst([r], cjk_fonts=())
    row = src[src.index('badge("D ~ DiscreteUniform(m, k)"'):]
    row = row[:row.index("\n  badge(") if "\n  badge(" in row else len(row)]
    # E[D], Var(D), E[D^2..4] and where the law exists (k - m ≥ 0): each boxed
    assert row.count("#box($") == 6 and "#h(1.5em)#$" not in row
    assert "set par(leading: 1.1em)" in row


def test_spacing_in_the_template(tmp_path):
    r = _check(tmp_path, 'derivation s "s"\nrandom X\nassume a: E[X] = 0\nstep t: E[X + 1] = E[X] + 1 by a\n')
    src = pdf.build_typst([r], cjk_fonts=())
    gutters = [float(g) for g in re.findall(r"row-gutter: ([0-9.]+)em", src)]
    assert gutters and min(gutters) >= 0.75  # a tall fraction does not touch the next row
    assert re.search(r'block\(above: [0-9.]+em, below: 1em, sticky: true\)\[#text\(weight: "bold"\)\[Step\]', src)
    assert "#badges(" in src and "h(4pt" in src  # badges are spaced apart and wrap with leading
    assert "leading: 0.95em" in src
    assert 'let disp = text(top-edge: "bounds", bottom-edge: "bounds", disp)' in src  # rows take the maths' height


def test_equation_and_step_badges_differ_and_the_legend_shows_steps(tmp_path):
    assert PALETTE["equation"] != PALETTE["step"]
    assert len(set(PALETTE.values())) == len(PALETTE)  # every kind its own colour
    r = _check(tmp_path, 'derivation l "l"\nlet c: real\nrandom X\nassume a: E[X] = c\nstep t: E[2 X] = 2 c by a\n'
                         'step u: E[2 X] + 1 = 2 c + 1 by t\n')
    assert [u.kind for u in r.steps[1].links[0].uses] == ["step"]
    legend = pdf._legend(r)
    assert 'kind-color("step")' in legend and 'kind-color("equation")' in legend
    r2 = _check(tmp_path, 'derivation l "l"\nlet c: real\nrandom X\nassume a: E[X] = c\nstep t: E[2 X] = 2 c by a\n',
                "u.step")
    assert 'kind-color("step")' not in pdf._legend(r2)  # no step cited: not in the legend


def test_verdict_is_never_alone_on_its_page(tmp_path):
    """Whatever the page holds before the matrix (a spacer swept over a page height), the page
    with the verdict also holds the matrix's legend: the verdict is never left alone."""
    r = _check(tmp_path, 'derivation v "v"\nrandom X\nassume a: E[X] = 0\n'
               + "".join(f"step s{k}: E[X + {k}] = E[X] + {k}\n" for k in range(3)))
    src = pdf.build_typst([r], cjk_fonts=())
    assert "breakable: false" in pdf._verdict(r)
    pages_seen = set()
    for k in range(50):
        spaced = src.replace("== Step-by-assumption matrix", f"#v({4 + 0.4 * k}cm)\n== Step-by-assumption matrix")
        pages = pypdf.PdfReader(io.BytesIO(pdf.compile_pdf(spaced, cjk_fonts=()))).pages
        pages_seen.add(len(pages))
        last = _squash(pages[-1].extract_text())
        assert "verified" in last and "restson" in last, k
    assert pages_seen == {1, 2}  # the sweep did push the end over a page break


@pytest.mark.parametrize("mask", [0o022, 0o077, 0o002])
def test_written_files_respect_the_umask(tmp_path, mask):
    import os

    old = os.umask(mask)
    try:
        target = tmp_path / "out.pdf"
        pdf.atomic_write(str(target), b"%PDF-1.7")
        assert (target.stat().st_mode & 0o777) == 0o666 & ~mask
        pdf.atomic_write(str(target), b"%PDF-1.7 again")  # replacing keeps the rule
        assert (target.stat().st_mode & 0o777) == 0o666 & ~mask
        assert target.read_bytes() == b"%PDF-1.7 again"
        assert [p.name for p in tmp_path.iterdir()] == ["out.pdf"]  # no temporary file left
    finally:
        os.umask(old)
