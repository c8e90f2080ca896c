"""Limits (issue 8, part 3): every resource limit gives `unknown` or a diagnostic, quickly.

Time per link, size of an expansion, powers of sums, numeric exponents,
nesting depth, expression depth, statement length, file size and number of
steps: each is hit on purpose; the answer must name the limit and come back
in bounded time (bounds are generous: CI machines are slow) and memory.
"""
from __future__ import annotations

import os
import resource
import subprocess
import sys
import time

import pytest

from stepcheck import checker, parser
from stepcheck.checker import check_file, check_text
from stepcheck.elaborate import MAX_EXPONENT

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BOUND = 15.0  # seconds


def timed(text, **kw):
    kw.setdefault("cross_check", False)
    t0 = time.perf_counter()
    rep = check_text(text, "<limit>", **kw)
    dt = time.perf_counter() - t0
    assert dt < BOUND, f"took {dt:.1f} s"
    return rep


def titles(rep) -> str:
    return " | ".join(d.title for d in rep.diagnostics)


def links(rep):
    return [lk for s in rep.steps for lk in s.links]


def test_time_per_link():
    text = open(os.path.join(ROOT, "derivations", "var_dot.step"), encoding="utf-8").read()
    rep = timed(text, timeout=0.001)
    lks = links(rep)
    assert lks and all(lk.status in ("unknown", "holds") for lk in lks)  # a limit never gives `fails`
    timed_out = [lk for lk in lks if lk.status == "unknown"]
    assert timed_out and all("time limit" in (lk.message or "") for lk in timed_out)
    assert rep.exit_code() == 1


def test_timeout_option_on_the_command_line(tmp_path):
    p = tmp_path / "v.step"
    p.write_text(open(os.path.join(ROOT, "derivations", "var_dot.step"), encoding="utf-8").read(), encoding="utf-8")
    t0 = time.perf_counter()
    r = subprocess.run([sys.executable, "-m", "stepcheck", str(p), "--timeout", "0.001", "--no-color"],
                       capture_output=True, text=True, env={**os.environ, "PYTHONPATH": os.path.join(ROOT, "src")},
                       timeout=60)
    assert time.perf_counter() - t0 < 60
    assert r.returncode == 1, r.stderr
    assert "time limit" in r.stdout


def test_huge_expansion_is_unknown_not_a_hang():
    # true, but proving it needs an expansion beyond MAX_EXPANSION terms (terms/facts.py)
    text = ("random X, Y, Z, W, U, V\n"
            "step big: E[(X + Y + Z + W + U + V)^10 (X - Y)^2] = E[(X + Y + Z + W + U + V)^10 (X^2 - 2 X Y + Y^2)]\n")
    rep = timed(text)
    (lk,) = links(rep)
    assert lk.status == "unknown"
    from stepcheck.terms.facts import MAX_EXPANSION
    assert f"more than {MAX_EXPANSION} terms" in lk.message


def test_power_of_a_sum_beyond_the_limit():
    text = ("let n: positive integer\nrandom x_i for i in 1..n\n"
            "step p: E[sum(i=1..n, x_i)^13] = E[sum(i=1..n, x_i)^13]\n"
            "step q: E[sum(i=1..n, x_i)^13] = E[sum(i=1..n, x_i)^12 sum(i=1..n, x_i)]\n")
    rep = timed(text)
    q = rep.steps[1].links[0]
    assert q.status != "holds" or "limit" in (q.message or "")
    assert q.status in ("unknown", "holds")
    if q.status == "unknown":
        assert "exceeds the limit" in q.message or "limit" in q.message


@pytest.mark.parametrize("expr", ["2^2^2^2^2^2", "10^10^10", "2^(10^6)", "(3/2)^100000", "x^1000000"])
def test_exponents(expr):
    rep = timed(f"let x: real\nstep e: {expr} = 1\n")
    assert rep.fatal or all(lk.status != "holds" for lk in links(rep))
    assert "exponent too large" in titles(rep) or "too large" in titles(rep), titles(rep)


def test_exponent_limit_value():
    ok = timed(f"step e: 2^{MAX_EXPONENT} = 2^{MAX_EXPONENT}\n")
    assert not ok.fatal
    bad = timed(f"step e: 2^{MAX_EXPONENT + 1} = 2^{MAX_EXPONENT + 1}\n")
    assert "exponent too large" in titles(bad)


def test_decimal_exponent():
    rep = timed("check big: 1e500 > 1\n")
    assert rep.fatal and "too large" in titles(rep)


def test_ten_thousand_nested_parentheses():
    rep = timed("step n: " + "(" * 10_000 + "1" + ")" * 10_000 + " = 1\n")
    assert rep.fatal and f"more than {parser.MAX_NESTING} levels" in titles(rep)


def test_nested_calls_and_brackets():
    rep = timed("random X\nstep n: " + "E[" * 5000 + "X" + "]" * 5000 + " = 0\n")
    assert rep.fatal and "nested too deeply" in titles(rep)


@pytest.mark.parametrize("body", ["1+" * 5000 + "1", "-" * 5000 + "1", "x^" * 3000 + "x", "sqrt(" * 150 + "x" + ")" * 150
                                  + " + " + "1 - " * 3000 + "1"])
def test_expression_depth(body):
    rep = timed(f"let x: positive real\nstep d: {body} = 1\n")
    assert rep.fatal
    assert "too deep" in titles(rep) or "nested too deeply" in titles(rep) or "exponent" in titles(rep)


def test_statement_length():
    rep = timed("let x: real\nstep l: x" + " + x" * 6000 + " = 1\n")
    assert rep.fatal and "statement too long" in titles(rep)


def test_file_size(tmp_path):
    p = tmp_path / "big.step"
    p.write_text("# " + "a" * (parser.MAX_FILE_BYTES + 10) + "\n", encoding="utf-8")
    t0 = time.perf_counter()
    rep = check_file(str(p))
    assert time.perf_counter() - t0 < BOUND
    assert rep.fatal and rep.exit_code() == 2
    assert "too large" in titles(rep)


def test_file_size_on_the_command_line(tmp_path):
    p = tmp_path / "big.step"
    p.write_text("let x: real\n" * (parser.MAX_FILE_BYTES // 12 + 10), encoding="utf-8")
    r = subprocess.run([sys.executable, "-m", "stepcheck", str(p), "--no-color"], capture_output=True, text=True,
                       env={**os.environ, "PYTHONPATH": os.path.join(ROOT, "src")}, timeout=60)
    assert r.returncode == 2
    assert "too large" in (r.stdout + r.stderr)


def test_file_size_through_check_text():
    rep = timed("# " + "a" * (parser.MAX_FILE_BYTES + 10) + "\n")
    assert rep.fatal and "too large" in titles(rep)


def test_number_of_steps():
    n = checker.MAX_STEPS + 1
    rep = timed("let x: real\n" + "".join(f"step s{k}: x = x\n" for k in range(n)))
    assert rep.fatal and f"too many steps ({n}; the limit is {checker.MAX_STEPS})" in titles(rep)


def test_memory_stays_bounded():
    """The worst inputs above do not blow up the process (peak RSS grows by less than 1 GB)."""
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    timed("step n: " + "(" * 10_000 + "1" + ")" * 10_000 + " = 1\n")
    timed("random X, Y, Z, W, U, V\nstep big: E[(X + Y + Z + W + U + V)^12] = E[(X + Y + Z + W + U + V)^11 (X + Y + Z + W + U + V)]\n")
    timed("step e: 10^10^10 = 1\n")
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    assert (after - before) * 1024 < 1 << 30  # ru_maxrss is in KB on Linux
