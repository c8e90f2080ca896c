"""Nothing lost (issue 8, part 5): verify writes nothing next to its input unless asked,
writes outputs atomically, and never overwrites an input file."""
from __future__ import annotations

import os
import shutil

import pytest

from stepcheck import cli, pdf

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SRC_STEP = os.path.join(ROOT, "derivations", "var_scaled.step")


def listing(d) -> dict:
    out = {}
    for root, _, files in os.walk(d):
        for f in files:
            p = os.path.join(root, f)
            with open(p, "rb") as fh:
                out[os.path.relpath(p, d)] = fh.read()
    return out


@pytest.fixture
def work(tmp_path, monkeypatch):
    inp = tmp_path / "in"
    inp.mkdir()
    shutil.copy(SRC_STEP, inp / "v.step")
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    monkeypatch.chdir(cwd)
    return inp, cwd


@pytest.mark.parametrize("args", [[], ["--json"], ["--why"], ["--strict"], ["--quiet"], ["--timeout", "1"]])
def test_verify_writes_nothing(work, args, capsys):
    inp, cwd = work
    before, before_cwd = listing(inp), listing(cwd)
    code = cli.main([str(inp / "v.step"), *args])
    assert code in (0, 1)
    assert listing(inp) == before
    assert listing(cwd) == before_cwd


def test_verify_of_a_directory_writes_nothing(work, capsys):
    inp, cwd = work
    before = listing(inp)
    cli.main([str(inp)])
    assert listing(inp) == before and listing(cwd) == {}


def test_typst_output_is_written_atomically(work, monkeypatch, capsys):
    inp, cwd = work
    calls = []
    real = os.replace

    def spy(src, dst):
        calls.append((str(src), str(dst)))
        assert os.path.dirname(os.path.abspath(src)) == os.path.dirname(os.path.abspath(dst))
        assert not os.path.exists(dst) or os.path.abspath(src) != os.path.abspath(dst)
        return real(src, dst)

    monkeypatch.setattr(pdf.os, "replace", spy)
    out = cwd / "doc.typ"
    code = cli.main([str(inp / "v.step"), "--typst", str(out)])
    assert code == 0
    assert out.exists() and out.read_text(encoding="utf-8").startswith("#")
    assert calls and calls[-1][1] == str(out)
    assert [f for f in os.listdir(cwd) if f.endswith(".tmp")] == []


def test_failed_write_leaves_no_partial_file(tmp_path, monkeypatch):
    target = tmp_path / "out.pdf"
    target.write_bytes(b"old")

    def boom(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(pdf.os, "replace", boom)
    with pytest.raises(OSError):
        pdf.atomic_write(str(target), b"new contents")
    assert target.read_bytes() == b"old"
    assert sorted(os.listdir(tmp_path)) == ["out.pdf"]


def test_atomic_write_refuses_a_step_file(tmp_path):
    p = tmp_path / "x.step"
    p.write_text("let x: real\n", encoding="utf-8")
    with pytest.raises(ValueError):
        pdf.atomic_write(str(p), b"%PDF")
    assert p.read_text(encoding="utf-8") == "let x: real\n"


@pytest.mark.parametrize("opt", ["--typst", "--pdf-combined"])
def test_output_over_a_step_file_is_refused(work, opt, capsys):
    inp, cwd = work
    before = listing(inp)
    try:
        code = cli.main([str(inp / "v.step"), opt, str(inp / "v.step")])
    except SystemExit as e:
        code = e.code
    assert code == 2
    assert "refusing to write over an input file" in capsys.readouterr().err
    assert listing(inp) == before


def test_pdf_with_a_step_path_treats_it_as_an_input(work, monkeypatch, capsys):
    """`verify --pdf x.step` never writes over x.step: x.step is read as an input."""
    inp, cwd = work
    written = []
    monkeypatch.setattr(pdf, "write_pdf", lambda reps, path, **k: written.append(path) or [])
    before = listing(inp)
    cli.main(["--pdf", str(inp / "v.step")])
    assert listing(inp) == before
    assert written and not any(p.endswith(".step") for p in written)


def test_output_never_overwrites_an_input_of_any_name(work, capsys):
    inp, cwd = work
    src = inp / "notes.txt"
    shutil.copy(SRC_STEP, src)
    before = src.read_bytes()
    try:
        cli.main([str(src), "--typst", str(src)])
    except SystemExit:
        pass
    assert src.read_bytes() == before
