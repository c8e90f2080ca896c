"""Markdown files with ```step blocks: extraction, `verify article.md`, the pytest plugin's opt-in."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

import stepcheck.checker  # noqa: F401  (loaded once: in-process pytester runs reuse it)
import stepcheck.pytest_plugin  # noqa: F401
from stepcheck.checker import check_file
from stepcheck.markdown import extract, has_step_blocks, read_any

ROOT = Path(__file__).resolve().parents[1]
SRC = str(ROOT / "src")
PLUGIN = ("-p", "stepcheck.pytest_plugin", "-p", "no:cacheprovider")

ARTICLE = """\
# Title

Text with $x$ and `step s: x = 1` in code.

```step
let x: real
random X, Y
```

Between the blocks.

```step
step good: (x + 1)^2 = x^2 + 2 x + 1
step bad: (x + 1)^2 = x^2 + 1
```

```python
step not_step: this is python, not a step block
```
"""


def write(tmp_path: Path, name: str, text: str) -> str:
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return str(p)


def test_extract_keeps_lines_and_blanks_the_rest():
    out = extract(ARTICLE)
    src_lines, out_lines = ARTICLE.split("\n"), out.split("\n")
    assert len(out_lines) == len(src_lines)
    kept = [n + 1 for n, line in enumerate(out_lines) if line]
    assert kept == [6, 7, 13, 14]
    for n in kept:
        assert out_lines[n - 1] == src_lines[n - 1]
    assert "not_step" not in out and "Title" not in out


def test_tilde_fence_list_and_blockquote_keep_columns():
    text = "- item\n\n  ```step\n  let x: real\n  ```\n\n> ~~~step\n> step s: x = x\n> ~~~\n"
    out = extract(text).split("\n")
    assert out[3] == "  let x: real"
    assert out[7] == "  step s: x = x"  # the `>` of the quote became a space: same column
    assert out[2] == out[4] == out[6] == out[8] == ""


def test_only_the_step_info_string_counts():
    text = "```step-error\nlet x: real\n```\n\n```steps\nlet y: real\n```\n\n    ```step\n    indented code\n"
    assert not has_step_blocks(text)
    assert extract(text).strip() == ""
    assert has_step_blocks("```step\nlet x: real\n```\n")
    assert has_step_blocks("```step title words\nlet x: real\n```\n")


def test_a_fence_inside_another_code_block_is_not_a_block():
    text = "````markdown\n```step\nlet x: real\n```\n````\n"
    assert not has_step_blocks(text)


def test_verify_md_positions_are_the_markdown_files(tmp_path):
    path = write(tmp_path, "article.md", ARTICLE)
    rep = check_file(path)
    assert not rep.fatal
    by_name = {s.name: s for s in rep.steps}
    assert by_name["good"].status == "holds"
    assert by_name["bad"].status == "fails"
    assert by_name["good"].span.line == 13 and by_name["bad"].span.line == 14
    link = by_name["bad"].links[0]
    assert (link.span.line, link.span.col) == (14, ARTICLE.split("\n")[13].index("= x^2 + 1") + 1)
    assert [d.span.line for d in link.diagnostics if d.severity == "error"] == [14]


def test_error_column_in_an_indented_block(tmp_path):
    text = "intro\n\n- a list\n\n    ```step\n    let x: real\n    step s: x = y\n    ```\n"
    rep = check_file(write(tmp_path, "list.md", text))
    errs = [d for d in rep.diagnostics if d.severity == "error"]
    assert errs, rep.diagnostics
    span = errs[0].span
    assert (span.line, span.col) == (7, text.split("\n")[6].index("y") + 1)


def test_declarations_carry_from_block_to_block(tmp_path):
    text = "```step\nlet a, b: real\n```\n\nprose\n\n```step\nstep comm: a b = b a\n```\n"
    rep = check_file(write(tmp_path, "carry.md", text))
    assert [s.status for s in rep.steps] == ["holds"]
    # and without the first block the name is unknown, at the .md line
    rep2 = check_file(write(tmp_path, "nocarry.md", text.split("prose")[1]))
    assert rep2.fatal or any(d.severity == "error" for d in rep2.diagnostics)
    assert any(d.span is not None and d.span.line == 4 for d in rep2.diagnostics)  # "\n\n```step\nstep comm"


def test_no_step_block_is_an_empty_report(tmp_path):
    rep = check_file(write(tmp_path, "plain.md", "# nothing\n\n$$x = 1$$\n"))
    assert rep.steps == []
    assert [d.code for d in rep.diagnostics] == ["W-empty"]


def test_a_step_file_is_not_extracted(tmp_path):
    text = "let x: real\nstep s: x = x\n"
    assert read_any(write(tmp_path, "plain.step", text)) == text
    # the same text as Markdown has no step block
    assert read_any(write(tmp_path, "plain.md", text)).strip() == ""


def test_missing_md_is_a_diagnostic(tmp_path):
    rep = check_file(str(tmp_path / "missing.md"))
    assert rep.fatal and rep.diagnostics[0].code == "E-input-not-found"


def test_cli_verify_md_and_directory_scans_only_step(tmp_path, capsys):
    from stepcheck.cli import main

    write(tmp_path, "article.md", ARTICLE)
    assert main([str(tmp_path / "article.md")]) == 1
    out = capsys.readouterr().out
    assert "article.md:14:" in out and "step good" in out
    # a directory keeps scanning only *.step: the Markdown file is not checked
    write(tmp_path, "ok.step", "let x: real\nstep s: x + x = 2 x\n")
    assert main([str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "article.md" not in out and "ok.step" in out


# ---------------------------------------------------------------- the pytest plugin

@pytest.fixture
def pt(pytester, monkeypatch):
    monkeypatch.setenv("PYTHONPATH", SRC + os.pathsep + os.environ.get("PYTHONPATH", ""))
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    monkeypatch.delenv("PYTEST_ADDOPTS", raising=False)
    (pytester.path / "article.md").write_text(ARTICLE, encoding="utf-8")
    (pytester.path / "README.md").write_text("# no step blocks\n\n```python\nx = 1\n```\n", encoding="utf-8")
    return pytester


def test_plugin_ignores_markdown_by_default(pt):
    res = pt.runpytest(*PLUGIN, "--collect-only", "-q")
    assert "article.md" not in res.stdout.str()


def test_plugin_collects_markdown_with_the_option(pt):
    res = pt.runpytest(*PLUGIN, "--collect-only", "-q", "--stepcheck-markdown-glob", "*.md")
    res.stdout.fnmatch_lines(["article.md::good", "article.md::bad"])
    assert "README.md" not in res.stdout.str()  # no step blocks: not collected


def test_plugin_collects_markdown_with_the_ini_option_and_fails_at_md_line(pt):
    pt.makeini("[pytest]\nstepcheck_markdown = *.md\n")
    res = pt.runpytest(*PLUGIN, "-q")
    res.assert_outcomes(passed=1, failed=1)
    assert "article.md:14:" in res.stdout.str()


def test_docs_markdown_page_verifies():
    # docs/markdown.md is itself an article with step blocks; what it shows must hold
    rep = check_file(str(ROOT / "docs" / "markdown.md"))
    assert not rep.fatal and [s.name for s in rep.steps] == ["mean_term", "var_sum"]
    assert all(s.status == "holds" for s in rep.steps)
    assert "2 steps, 4 links: 4 holds" in (ROOT / "docs" / "markdown.md").read_text(encoding="utf-8")
