"""Build the wheel (once), check what it holds, install it in a fresh virtual environment, run `verify`.

This proves the wheel holds the product and nothing else (the package's
modules, the grammar and the dist-info: no tests, benchmarks or development
tools such as benchmarks/mutate.py), that the grammar ships inside it, and
that the console script works outside the source tree. It is slow, so it runs
only when CI=true or STEPCHECK_WHEEL_TEST=1 (`.ci/run` sets CI=true); locally:

    STEPCHECK_WHEEL_TEST=1 python -m pytest tests/test_wheel.py
"""
import os
import re
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytestmark = [
    pytest.mark.wheel,
    pytest.mark.slow,
    pytest.mark.skipif(not (os.environ.get("CI") == "true" or os.environ.get("STEPCHECK_WHEEL_TEST") == "1"),
                       reason="slow: set STEPCHECK_WHEEL_TEST=1 (CI sets CI=true)"),
]


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=600, **kw)


def build_wheel(dist: Path) -> Path:
    """The wheel built from the working tree into ``dist``."""
    r = run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-w", str(dist), str(ROOT)])
    if r.returncode != 0:  # hatchling missing from the test environment: let pip fetch it
        r = run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", str(dist), str(ROOT)])
    assert r.returncode == 0, r.stdout + r.stderr
    wheels = list(dist.glob("stepcheck-*.whl"))
    assert len(wheels) == 1
    return wheels[0]


# what the wheel may hold: the package's modules, the grammar, the dist-info
PRODUCT = [
    re.compile(r"stepcheck/([A-Za-z_]\w*/)*[A-Za-z_]\w*\.py"),
    re.compile(r"stepcheck/grammar/[\w-]+\.lark"),
    re.compile(r"stepcheck-[^/]+\.dist-info/.+"),
]


def assert_only_the_product(names: list[str]) -> None:
    assert "stepcheck/grammar/step.lark" in names
    assert "stepcheck/kernel/prove.py" in names
    other = [n for n in names if not any(p.fullmatch(n) for p in PRODUCT)]
    assert not other, f"not part of the product: {other}"
    assert "stepcheck/mutate.py" not in names  # a development tool: benchmarks/mutate.py
    assert not [n for n in names if n.split("/")[0] in ("tests", "benchmarks", "scripts", "derivations", "docs")]
    # and every module of the package and every grammar file is in it
    src = ROOT / "src"
    modules = {p.relative_to(src).as_posix() for p in (src / "stepcheck").rglob("*.py") if "__pycache__" not in p.parts}
    assert modules == {n for n in names if n.endswith(".py")}
    grammar = {f"stepcheck/grammar/{p.name}" for p in (ROOT / "grammar").glob("*.lark")}
    assert grammar and grammar == {n for n in names if n.endswith(".lark")}


def test_installed_wheel_holds_the_product_and_runs_verify(tmp_path):
    # one build (it takes a while) for both checks: one test, so that pytest-xdist cannot split them
    wheel = build_wheel(tmp_path / "dist")
    assert_only_the_product(zipfile.ZipFile(wheel).namelist())

    venv = tmp_path / "venv"
    # reuse the test environment's sympy and lark (no download), but not its stepcheck
    r = run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)])
    assert r.returncode == 0, r.stderr
    py = venv / "bin" / "python"
    # the test environment may itself be a virtual environment: add its site-packages after the new one's
    # (a path from a .pth file: the .pth files in it, such as an editable stepcheck's, are not read)
    r = run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"])
    assert r.returncode == 0, r.stderr
    (Path(r.stdout.strip()) / "_test_environment.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    r = run([str(py), "-m", "pip", "install", "--no-deps", "--force-reinstall", str(wheel)])
    assert r.returncode == 0, r.stdout + r.stderr

    work = tmp_path / "elsewhere"
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    r = run([str(py), "-c", "import stepcheck, stepcheck.parser as p; print(stepcheck.__file__); "
                            "print(len(p._grammar_text()))"], cwd=work, env=env)
    assert r.returncode == 0, r.stderr
    where = r.stdout.splitlines()[0]
    assert str(venv) in where, where  # the installed copy, not the source tree

    verify = venv / "bin" / "verify"
    r = run([str(verify), "--no-color", str(ROOT / "derivations" / "var_dot.step")], cwd=work, env=env)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "every step holds" in r.stdout
    r = run([str(verify), "--version"], cwd=work, env=env)
    assert r.returncode == 0 and r.stdout.strip()
