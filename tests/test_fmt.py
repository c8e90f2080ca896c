"""``stepcheck fmt``: only whitespace changes, the syntax tree never does, and a second run changes nothing."""
from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import test_fuzz as F
from stepcheck.errors import StepError
from stepcheck.fmt import format_checked, format_text, main, shape
from stepcheck.parser import parse
from stepcheck.tool import main as tool_main

REPO = Path(__file__).resolve().parent.parent
SHIPPED = sorted({*REPO.glob("derivations/**/*.step"), *REPO.glob("tests/corpus/**/*.step"),
                  *REPO.glob("tests/hostile/**/*.step"), *REPO.glob("docs/**/*.step")})


def _read(p: Path) -> str:
    with open(p, encoding="utf-8", newline="") as f:
        return f.read()


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.relative_to(REPO).as_posix())
def test_shipped_file_keeps_its_meaning_and_is_a_fixed_point(path):
    text = _read(path)
    try:
        before = parse(text, str(path))
    except (StepError, RecursionError):
        out, diag = format_checked(text, str(path))
        assert out == text and diag is not None  # left untouched, with a diagnostic
        return
    out = format_text(text)
    assert shape(parse(out, str(path))) == shape(before)
    assert format_text(out) == out
    # only whitespace changed
    assert "".join(out.split()) == "".join(text.lstrip("\ufeff").split())


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(st.one_of(F.programs(), st.lists(st.sampled_from(F.TOKENS), max_size=40).map(" ".join)))
def test_fuzzed_programs_keep_their_meaning(text):
    try:
        before = parse(text)
    except (StepError, RecursionError):
        return
    out = format_text(text)
    assert shape(parse(out)) == shape(before)
    assert format_text(out) == out


CHAIN = """\
derivation d "t"   # title
let x,y:  real
assume h: x = y          # a fact
step s: x
  = y   by h
     <=   y + 0     by   h ,linearity   # weak
  ≈ y

step t: x = y by h
table "t" for n in [1,2]:
   n  =  [1,  2]
"""


def test_aligns_links_and_normalises_spacing():
    out = format_text(CHAIN)
    lines = out.splitlines()
    assert lines[1] == "let x, y: real"
    assert lines[4] == "    =  y      by h"
    assert lines[5].startswith("    <= y + 0  by h, linearity")
    assert lines[6] == "    ≈  y"
    # trailing comments of one block share a column; a lone comment is kept as written
    assert lines[2].index("# a fact") == lines[5].index("# weak") == lines[0].index("# title")
    assert lines[8] == "step t: x = y by h"  # links on the header line are not a chain
    assert lines[10] == "    n = [1, 2]"  # a table row stays indented
    assert out.endswith("\n") and "\n\n\n" not in out


def test_strings_and_comments_are_kept_verbatim():
    text = 'derivation d "a  ,  b # not a comment"\n# a   comment ,x\nlet x: real\n'
    out = format_text(text)
    assert '"a  ,  b # not a comment"' in out and "# a   comment ,x" in out


def test_already_formatted_text_is_unchanged():
    out = format_text(CHAIN)
    assert format_checked(out)[0] == out and format_checked(out)[1] is None


def test_unparsable_file_is_left_untouched(tmp_path, capsys):
    f = tmp_path / "bad.step"
    f.write_text("let x:   real\nstep s: x\n    = = x\n", encoding="utf-8")
    before = f.read_bytes()
    assert main([str(f)]) == 2
    assert f.read_bytes() == before
    err = capsys.readouterr().err
    assert "error:" in err and "bad.step:3" in err and "left untouched" in err


def test_check_lists_files_and_changes_nothing(tmp_path, capsys):
    messy, tidy = tmp_path / "messy.step", tmp_path / "tidy.step"
    messy.write_text(CHAIN, encoding="utf-8")
    tidy.write_text(format_text(CHAIN), encoding="utf-8")
    assert tool_main(["fmt", "--check", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert f"would reformat {messy}" in out and "tidy.step" not in out
    assert messy.read_text(encoding="utf-8") == CHAIN
    assert tool_main(["fmt", "--check", str(tidy)]) == 0


def test_in_place_and_diff(tmp_path, capsys):
    f = tmp_path / "a.step"
    f.write_text(CHAIN, encoding="utf-8")
    assert main(["--diff", str(f)]) == 0
    assert "+    <= y + 0  by h, linearity" in capsys.readouterr().out
    assert f.read_text(encoding="utf-8") == CHAIN
    assert main([str(f)]) == 0
    assert f.read_text(encoding="utf-8") == format_text(CHAIN)
    assert main(["--check", str(f)]) == 0


def test_crlf_and_bom_are_kept():
    text = "\ufeffderivation d \"t\"\r\nlet x:  real\r\n"
    out = format_text(text)
    assert out == "\ufeffderivation d \"t\"\r\nlet x: real\r\n"


def test_directories_skip_bad_and_missing_paths_are_errors(tmp_path, capsys):
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "x.step").write_text(CHAIN, encoding="utf-8")
    (tmp_path / "ok.step").write_text(CHAIN, encoding="utf-8")
    assert main(["--check", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "ok.step" in out and "x.step" not in out
    assert main(["--check", str(tmp_path / "nope")]) == 2
    assert "no such file or directory" in capsys.readouterr().err
