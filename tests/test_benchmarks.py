"""The benchmark suite (benchmarks/run.py) still runs: quick mode, no timing assertions.

``benchmarks`` is importable because pyproject.toml puts the repository root on
pytest's ``pythonpath``.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_generated_derivation_is_valid_and_true():
    from benchmarks.run import generate
    from stepcheck.checker import check_text

    for first in (False, True):
        rep = check_text(generate(8, assumptions_first=first), "generated.step")
        links = [lr for st in rep.steps for lr in st.links]
        assert len(rep.steps) == 8 and links and not rep.diagnostics
        assert all(lr.status == "holds" for lr in links), [(lr.lhs, lr.rhs, lr.message) for lr in links]


@pytest.mark.slow
def test_benchmark_quick_mode_runs(tmp_path):
    out = tmp_path / "perf.md"
    raw = tmp_path / "raw.json"
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT / "src") + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    cp = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "run.py"), "--quick", "--out", str(out),
                         "--json", str(raw)], capture_output=True, text=True, env=env, cwd=str(tmp_path), timeout=600)
    assert cp.returncode == 0, cp.stderr[-3000:]
    text = out.read_text(encoding="utf-8")
    for heading in ("## Summary", "## 1. Symbolic dimension", "## 2. Cold start", "## 3. Per-link cost",
                    "## 4. Scaling", "## 5. Attribution overhead"):
        assert heading in text
    data = json.loads(raw.read_text(encoding="utf-8"))
    assert data["sympy"]["rows"][0]["n"] == 1
    assert data["cold"]["--help"]["imports"] == [] and data["cold"]["--version"]["imports"] == []
    for series in data["scaling"].values():
        assert all(r["holds"] == r["links"] for r in series["rows"])
    assert data["links"]["n"] > 0 and data["attribution"]["calls"] > 0
    # the plot is written next to the report when matplotlib is installed
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        assert "matplotlib is not installed" in text
    else:
        assert (tmp_path / "perf.png").stat().st_size > 0
    # docs/ is left alone
    assert not (tmp_path / "docs").exists()


def test_phases_split_the_checking_time_by_stage(tmp_path):
    """benchmarks/phases.py: every stage is reported, the kernel's calls are counted, the parts add up."""
    from benchmarks import phases

    (tmp_path / "a.step").write_text("random X, Y\nassume u: E[X] = 1\nstep s: E[2 X + Y] = 2 + E[Y]\n"
                                     "step t: E[X] = 2\n", encoding="utf-8")
    r = phases.measure(tmp_path)
    kernel_rows = {k: v for k, v in r["rows"].items() if k.startswith("kernel: ")}
    assert sum(n for _, n in kernel_rows.values()) >= 2  # at least one proof per link
    assert "everything else" in r["rows"] and 0 < r["kernel"] <= r["seconds"]
    assert r["bound_if_kernel_free"] >= 1
    assert "Amdahl" in phases.table_md(r)


def test_ring_backends_replay_the_kernels_reductions(tmp_path):
    """benchmarks/ring_backends.py: the reductions a check asks are recorded and replayed; the engines agree
    on which remainders are 0 (python-flint only where it is installed)."""
    import sympy

    from benchmarks import ring_backends
    from stepcheck.terms.objects import E

    (tmp_path / "a.step").write_text("random X, Y\nlet c: real\nassume u: E[X] = c\nassume v: E[Y] = c^2\n"
                                     "step s: E[X]^2 - E[Y] = 0 by u, v\n", encoding="utf-8")
    r = ring_backends.measure(tmp_path)
    assert r["kernel_replay"]["calls"] >= 1 and r["systems"] >= 1 and r["reductions"] >= 1
    x, c = E(sympy.Symbol("X")), sympy.Symbol("c", real=True)
    facts = frozenset({x - c, c ** 2 - 2})
    data = ring_backends.polynomial_data([(x ** 2 - 2, facts), (x ** 2 - c, facts), (x * c - 2, facts)])
    zeros = ring_backends.sympy_ring(data)["zeros"]
    assert zeros == [True, False, True]  # E[X]^2 - 2 and c E[X] - 2 are in the ideal, E[X]^2 - c is not
    fl = ring_backends.flint_ring(data)
    if fl is not None:
        assert fl["zeros"] == zeros and r["zero_tests_agree"] == r["zero_tests"]
    assert "PolyRing" in ring_backends.render(r)
