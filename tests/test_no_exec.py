"""No code execution from input (issue 8, part 4).

A scan of ``src/`` (with ``ast``) for calls that turn text into code or
objects: eval, exec, compile, __import__, sympify, parse_expr, S("...") and
pickle loads.  And inputs that look like Python are rejected as syntax or
name errors (exit code 2), with no side effect.
"""
from __future__ import annotations

import ast
import glob
import os
import subprocess
import sys

import pytest

from stepcheck.checker import check_text

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SRC = os.path.join(ROOT, "src")

BANNED = {"eval", "exec", "compile", "__import__", "sympify", "parse_expr", "lambdify", "load", "loads"}
PICKLE_LIKE = {"pickle", "cPickle", "marshal", "dill", "shelve"}


def _name(func) -> str:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return ""


def _owner(func) -> str:
    return func.value.id if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) else ""


def offending_calls(tree: ast.AST) -> list[str]:
    bad = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        name, owner = _name(node.func), _owner(node.func)
        where = f"line {node.lineno}: {ast.unparse(node)[:80]}"
        if name in ("eval", "exec", "__import__", "parse_expr", "lambdify"):
            bad.append(where)
        elif name == "compile" and (isinstance(node.func, ast.Name) or owner == "builtins"):
            bad.append(where)  # re.compile, typst.compile are not Python code
        elif name == "sympify" and not any(k.arg == "strict" and isinstance(k.value, ast.Constant)
                                           and k.value.value is True for k in node.keywords):
            bad.append(where)  # sympify(x, strict=True) never parses a string; plain sympify does
        elif name in ("load", "loads") and owner in PICKLE_LIKE:
            bad.append(where)
        elif name == "S" and node.args and not isinstance(node.args[0], ast.Constant | ast.Name | ast.Call |
                                                           ast.BinOp | ast.UnaryOp) or (
                name == "S" and node.args and isinstance(node.args[0], ast.Constant)
                and isinstance(node.args[0].value, str)):
            bad.append(where)
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            mods = [a.name for a in node.names] + ([node.module] if isinstance(node, ast.ImportFrom) and node.module
                                                  else [])
            if any(m.split(".")[0] in PICKLE_LIKE for m in mods):
                bad.append(f"line {node.lineno}: imports {mods}")
    return bad


def test_the_scanner_finds_what_it_should():
    code = ("import pickle\neval('1')\nexec('x')\nsympy.sympify(t)\nparse_expr(t)\nS('x')\nsympy.S('1/2')\n"
            "pickle.loads(b)\n__import__('os')\ncompile(t, 'f', 'exec')\n")
    assert len(offending_calls(ast.parse(code))) == 10
    ok = "re.compile('a+')\nsympy.S(1)\nS.Zero\nsympy.sympify(x, strict=True)\ntypst.compile(src)\n"
    assert offending_calls(ast.parse(ok)) == []


# files with a known finding, reported to the lead (not this test's files to edit)
KNOWN: dict = {}  # file -> reason, for findings not yet fixed (none now)


def _params():
    for p in sorted(glob.glob(os.path.join(SRC, "stepcheck", "**", "*.py"), recursive=True)):
        rel = os.path.relpath(p, SRC)
        marks = [pytest.mark.xfail(strict=True, reason=KNOWN[rel])] if rel in KNOWN else []
        yield pytest.param(p, id=rel, marks=marks)


@pytest.mark.parametrize("path", list(_params()))
def test_no_code_from_text_in_src(path):
    with open(path, encoding="utf-8") as fh:
        tree = ast.parse(fh.read(), path)
    assert offending_calls(tree) == []


HOSTILE = [
    "step x: __import__('os').system('touch PWNED') = 0",
    "__import__('os').system('touch PWNED')",
    'exec("open(\'PWNED\', \'w\')")',
    "let x: real\nstep a: E[eval(1)] = 0",
    "let x: real\nstep a: x = eval(\"__import__('os').system('touch PWNED')\")",
    "random X\nstep a: E[X.__class__] = 0",
    "let x: real\nstep a: x = lambda: 0",
    "step a: [c for c in ().__class__.__bases__] = 0",
    "import os; os.system('touch PWNED')",
    "let x: real\nstep a: x = sympify('x')",
    "let x: real\nstep a: x = S('x')",
    "let x: real\nstep a: x = globals()",
    "define f = __import__\nstep a: f('os') = 0",
]


@pytest.mark.parametrize("text", HOSTILE)
def test_hostile_input_is_an_input_error(text, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    rep = check_text(text + "\n", "<hostile>", cross_check=False, timeout=1)
    assert rep.exit_code() == 2, [d.title for d in rep.diagnostics]
    assert rep.diagnostics
    assert not any("holds" == lk.status for s in rep.steps for lk in s.links)
    assert not (tmp_path / "PWNED").exists()


def test_hostile_file_on_the_command_line(tmp_path):
    p = tmp_path / "evil.step"
    p.write_text("\n".join(HOSTILE[:5]) + "\n", encoding="utf-8")
    r = subprocess.run([sys.executable, "-m", "stepcheck", str(p), "--no-color"], capture_output=True, text=True,
                       cwd=tmp_path, env={**os.environ, "PYTHONPATH": SRC}, timeout=120)
    assert r.returncode == 2, r.stdout + r.stderr
    assert "Traceback" not in r.stdout + r.stderr
    assert sorted(os.listdir(tmp_path)) == ["evil.step"]
