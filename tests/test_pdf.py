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

pytestmark = pytest.mark.slow

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


def test_there_are_derivations():
    assert len(FILES) >= 3


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


def test_some_titles_are_chinese(rendered):
    assert sum(pdf.has_cjk(pdf.title_of(r)) for r, _, _, _ in rendered.values()) >= 3


def test_failed_link_shows_its_counterexample(rendered):
    _, data, _, _ = rendered["bad/wrong_step.step"]
    text = _squash(_text(data))
    assert "counterexample" in text and "d_k=2" in text


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


def test_cli_pdf_writes_into_the_current_directory(tmp_path, monkeypatch, capsys, shared_checks):
    monkeypatch.chdir(tmp_path)
    code = cli.main(["-q", "--pdf", str(DERIVATIONS / "var_dot.step")])
    err = capsys.readouterr().err
    assert code == 0
    assert (tmp_path / "var_dot.pdf").read_bytes().startswith(b"%PDF")
    assert "wrote var_dot.pdf" in err
    assert [p.name for p in tmp_path.iterdir()] == ["var_dot.pdf"]  # no temporary file left


def test_cli_pdf_path_and_combined(tmp_path, monkeypatch, capsys, shared_checks):
    monkeypatch.chdir(tmp_path)
    code = cli.main(["-q", "--pdf", "one.pdf", str(DERIVATIONS / "var_dot.step")])
    assert code == 0 and (tmp_path / "one.pdf").exists()
    code = cli.main(["-q", "--pdf-combined", "all.pdf", str(DERIVATIONS)])
    assert code == 0
    text = _text((tmp_path / "all.pdf").read_bytes())
    for name in ("mean_term", "lin_scaled", "quarter"):
        assert name in text


def test_cli_typst_writes_the_source(tmp_path, monkeypatch, capsys, shared_checks):
    monkeypatch.chdir(tmp_path)
    code = cli.main(["-q", "--typst", "var_dot.typ", str(DERIVATIONS / "var_dot.step")])
    assert code == 0
    src = (tmp_path / "var_dot.typ").read_text(encoding="utf-8")
    assert "#set page" in src and "mean_term" in src
    assert "@preview" not in src  # everything inline: no package fetched at compile time
    assert "wrote var_dot.typ" in capsys.readouterr().err


def test_never_overwrites_a_step_file(tmp_path, shared_checks):
    target = tmp_path / "x.step"
    target.write_text("random X\n", encoding="utf-8")
    with pytest.raises(ValueError):
        pdf.atomic_write(str(target), b"%PDF")
    assert target.read_text(encoding="utf-8") == "random X\n"
    assert cli.main(["--typst", str(target), str(DERIVATIONS / "var_dot.step")]) == 2
