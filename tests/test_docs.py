"""The documentation cannot rot.

* docs/tutorial.md: every command output shown (``<!-- tutorial-output: verify ARGS -->``)
  equals the real output, every source shown (``<!-- tutorial-source: PATH -->``)
  equals the file, and its ``python`` blocks run.  Re-generate with
  ``python scripts/update_tutorial.py``.
* docs/language.md: every code block tagged ``step`` parses and all its steps
  hold; ``step-fails`` blocks parse and some step fails; ``step-unknown``
  blocks parse and some step is unknown (none fails); ``step-error`` blocks
  give an input error (a line ``# expect: E-code`` names the code it must have).
"""
from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

from stepcheck.checker import check_text
from stepcheck.results import FAILS, HOLDS, SIMULATED, UNKNOWN

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"

_spec = importlib.util.spec_from_file_location("update_tutorial", ROOT / "scripts" / "update_tutorial.py")
ut = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(ut)

TUTORIAL_TEXT = (DOCS / "tutorial.md").read_text(encoding="utf-8")
LANGUAGE_TEXT = (DOCS / "language.md").read_text(encoding="utf-8")

# ------------------------------------------------------------------ tutorial


@pytest.fixture(scope="module")
def real_outputs():
    return ut.run_all(TUTORIAL_TEXT)


def test_tutorial_has_marks():
    assert len(ut.output_marks(TUTORIAL_TEXT)) >= 8
    assert len(ut.source_marks(TUTORIAL_TEXT)) >= 7
    # every marked block was matched (a malformed mark would be silently skipped)
    assert TUTORIAL_TEXT.count("<!-- tutorial-output:") == len(ut.output_marks(TUTORIAL_TEXT))
    assert TUTORIAL_TEXT.count("<!-- tutorial-source:") == len(ut.source_marks(TUTORIAL_TEXT))


@pytest.mark.parametrize("args", list(dict.fromkeys(ut.output_marks(TUTORIAL_TEXT))))
def test_tutorial_output(args, real_outputs):
    shown = ut.shown_outputs(TUTORIAL_TEXT)[args]
    assert shown == real_outputs[args], (
        f"the output of `verify {args}` in docs/tutorial.md is out of date: run python scripts/update_tutorial.py")


README_TEXT = (ROOT / "README.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("args", list(dict.fromkeys(ut.output_marks(README_TEXT))))
def test_readme_output(args):
    assert ut.output_marks(README_TEXT), "README.md shows real output of verify"
    shown = ut.shown_outputs(README_TEXT)[args]
    assert shown == ut.run_verify(args), (
        f"the output of `verify {args}` in README.md is out of date: run python scripts/update_tutorial.py")


@pytest.mark.parametrize("path", ut.source_marks(TUTORIAL_TEXT))
def test_tutorial_source(path):
    assert ut.shown_sources(TUTORIAL_TEXT)[path] == ut.read_source(path), (
        f"the source of {path} in docs/tutorial.md differs from the file: run python scripts/update_tutorial.py")


def _python_blocks(text):
    return re.findall(r"```python\n(.*?)```", text, re.S)


@pytest.mark.parametrize("index", range(len(_python_blocks(TUTORIAL_TEXT))))
def test_tutorial_python(index, monkeypatch):
    monkeypatch.chdir(ROOT)
    ns: dict = {"__name__": f"docs_tutorial_{index}"}
    exec(compile(_python_blocks(TUTORIAL_TEXT)[index], f"docs/tutorial.md[python {index}]", "exec"), ns)
    tests = [fn for name, fn in ns.items() if name.startswith("test_") and callable(fn)]
    assert tests, "a python block of the tutorial defines no test"
    for fn in tests:
        fn()


# ------------------------------------------------------------------ language reference

_BLOCK = re.compile(r"^```(step|step-error|step-fails|step-unknown)\n(.*?)^```", re.S | re.M)


def _language_blocks():
    out = []
    for m in _BLOCK.finditer(LANGUAGE_TEXT):
        line = LANGUAGE_TEXT.count("\n", 0, m.start()) + 2
        out.append(pytest.param(m.group(1), m.group(2), line, id=f"line{line}-{m.group(1)}"))
    return out


def test_language_has_blocks():
    tags = [p.values[0] for p in _language_blocks()]
    assert tags.count("step") >= 20 and "step-error" in tags and "step-fails" in tags
    # a typo in a tag would leave a block untested
    for tag in re.findall(r"^```(\S+)", LANGUAGE_TEXT, re.M):
        assert tag in ("step", "step-error", "step-fails", "step-unknown", "text", "sh"), tag


def _problems(rep):
    lines = [f"{d.code}: {d.title}" for d in rep.diagnostics]
    for s in rep.steps:
        for lk in s.links:
            lines += [f"{s.name}: {d.code}: {d.title} {d.notes}" for d in lk.diagnostics]
    return "\n".join(lines)


@pytest.mark.parametrize("tag, text, line", _language_blocks())
def test_language_block(tag, text, line):
    rep = check_text(text, f"docs/language.md:{line}", timeout=5.0)
    where = f"docs/language.md, block at line {line}"
    if tag == "step-error":
        assert rep.fatal, f"{where}: expected an input error\n{_problems(rep)}"
        for code in re.findall(r"#\s*expect:\s*(E-[a-z-]+)", text):
            assert code in {d.code for d in rep.diagnostics}, f"{where}: expected {code}\n{_problems(rep)}"
        return
    assert not rep.fatal, f"{where}: input error\n{_problems(rep)}"
    assert rep.steps, f"{where}: no step or check in the block"
    statuses = {s.status for s in rep.steps}
    if tag == "step":
        assert rep.ok, f"{where}: not every step holds\n{_problems(rep)}"
        assert statuses <= {HOLDS, SIMULATED}
    elif tag == "step-fails":
        assert FAILS in statuses, f"{where}: expected a step to fail\n{_problems(rep)}"
    elif tag == "step-unknown":
        assert UNKNOWN in statuses and FAILS not in statuses, f"{where}: expected unknown\n{_problems(rep)}"
