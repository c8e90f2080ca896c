"""Fuzzing (issue 8, part 2): malformed input ends in a diagnostic or a result, never a traceback or a hang.

Random token soups, grammar-shaped programs, random Unicode, and truncated or
spliced versions of the shipped derivations go through
``stepcheck.parser.parse`` (which may only raise ``StepError``) and
``check_text`` (which never raises and always returns a FileReport).  Every
example runs under a time guard.  ``benchmarks/fuzz_long.py`` runs thousands
more.
"""
from __future__ import annotations

import signal
import time
from contextlib import contextmanager

import pytest
from conftest import SHIPPED as SHIPPED_PATHS
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from stepcheck.checker import check_text
from stepcheck.errors import StepError
from stepcheck.parser import parse
from stepcheck.results import FileReport

SHIPPED = {p.name: p.read_text(encoding="utf-8") for p in SHIPPED_PATHS
           if "numbers" not in p.name}  # numbers.step runs simulations: too slow for a fuzz example
PER_EXAMPLE = 10  # seconds
CHECK_TIMEOUT = 0.5  # seconds per link inside check_text

KEYWORDS = ["derivation", "source", "let", "random", "real", "define", "use", "assume", "step", "refute", "check",
            "table", "simulate", "by", "under", "for", "in", "within", "relative", "where", "with", "independent",
            "uncorrelated", "index", "positive", "integer", "nonnegative", "def"]
FUNCS = ["E", "Var", "Cov", "SD", "P", "sqrt", "exp", "log", "ln", "tanh", "abs", "max", "min", "softmax", "diff",
         "limit", "argmax", "argmin", "sum", "prod", "delta", "Normal", "Rademacher", "Bernoulli", "Uniform"]
PUNCT = ["=", "≈", "~=", "~", "<", ">", "<=", ">=", "≤", "≥", "!=", "≠", "⟂", "→", "->", "+", "-", "*", "/", "^",
         "**", "·", "×", "√", "Σ", "∂", "(", ")", "[", "]", "{", "}", ",", ":", "..", "|", "_", "#", '"', "'", "\\",
         "oo", "∞"]
NAMES = ["x", "X", "Y", "q_i", "k_i", "q_{i}", "q[i]", "d_k", "i", "j", "n", "σ", "μ", "δ_ij", "s_j", "p_i", "t",
         "indep", "mean0", "var1", "a", "b", "c"]
NUMS = ["0", "1", "2", "3", "2.5", "1e-9", "1/2", "6/16", "10^10", "2.6 × 10^10", "1e999", "99999999999"]
WS = [" ", " ", " ", "\n", "\n    ", "\t", "\r\n"]
TOKENS = KEYWORDS + FUNCS + PUNCT + NAMES + NUMS + WS

FUZZ_SETTINGS = settings(max_examples=100, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)


def FUZZ(test):
    """The fuzz tests' hypothesis settings; they are `slow` (``pytest -m "not slow"`` leaves them out)."""
    return pytest.mark.slow(FUZZ_SETTINGS(test))


class Hang(Exception):
    pass


@contextmanager
def time_guard(seconds: int = PER_EXAMPLE):
    def on_alarm(signum, frame):
        raise Hang(f"no answer within {seconds} s")

    old = signal.signal(signal.SIGALRM, on_alarm)
    signal.alarm(seconds)
    t0 = time.perf_counter()
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
    assert time.perf_counter() - t0 < seconds


def run_both(text: str):
    with time_guard():
        try:
            parse(text, "<fuzz>")
        except StepError as e:
            assert e.diagnostic.title  # a diagnostic with words in it
        rep = check_text(text, "<fuzz>", timeout=CHECK_TIMEOUT, cross_check=False)
    assert isinstance(rep, FileReport)
    assert rep.exit_code() in (0, 1, 2)
    if rep.fatal:
        assert rep.diagnostics, "a fatal report must carry a diagnostic"
    for d in rep.diagnostics:
        assert d.severity in ("error", "warning", "note") and d.title
    for s in rep.steps:
        for lk in s.links:
            assert lk.status in ("holds", "fails", "unknown", "simulated")
    return rep


@FUZZ
@given(st.lists(st.sampled_from(TOKENS), max_size=60).map(" ".join))
def test_token_soup(text):
    run_both(text)


@FUZZ
@given(st.lists(st.sampled_from(TOKENS), max_size=80).map("".join))
def test_token_soup_glued(text):
    run_both(text)


@FUZZ
@given(st.text(max_size=300))
def test_random_unicode(text):
    run_both(text)


# ---------------------------------------------------------------- grammar-shaped programs

DECLS = ["let n: positive integer", "let d_k: positive integer", "let i, j: index 1..n", "let c: real",
         "let a: positive real", "random X, Y", "random q_i, k_i for i in 1..n", "real s_i for i in 1..n",
         "random Z ~ Normal(0, 1)", "random R_i ~ Rademacher for i in 1..3", "define p_i = exp(s_i) / sum(m=1..n, exp(s_m))"]
ATOMS = ["X", "Y", "q_i", "k_i", "q_j", "n", "c", "a", "1", "0", "2", "1/2", "d_k", "s_i", "p_i", "Z", "R_1", "i"]


@st.composite
def expressions(draw, depth=0):
    if depth > 3 or draw(st.integers(0, 3)) == 0:
        return draw(st.sampled_from(ATOMS))
    kind = draw(st.integers(0, 9))
    a = draw(expressions(depth + 1))
    if kind == 0:
        return f"E[{a}]"
    if kind == 1:
        return f"Var({a})"
    if kind == 2:
        return f"Cov({a}, {draw(expressions(depth + 1))})"
    if kind == 3:
        return f"sum(i=1..n, {a})"
    if kind == 4:
        return f"sqrt({a})"
    if kind == 5:
        return f"({a})^{draw(st.integers(-3, 14))}"
    if kind == 6:
        return f"diff({a}, {draw(st.sampled_from(['c', 's_j', 'X']))})"
    if kind == 7:
        return f"limit({a}, t -> {draw(st.sampled_from(['oo', '0', '1']))})"
    op = draw(st.sampled_from(["+", "-", " ", "/", "*"]))
    return f"{a} {op} {draw(expressions(depth + 1))}"


@st.composite
def programs(draw):
    lines = ['derivation fuzz "fuzz"']
    lines += draw(st.lists(st.sampled_from(DECLS), max_size=5, unique=True))
    for k in range(draw(st.integers(0, 3))):
        lines.append(f"assume f{k}: {draw(expressions())} {draw(st.sampled_from(['=', '>', '<=']))} "
                     f"{draw(expressions())}")
    if draw(st.booleans()):
        lines.append("assume ind: independent(q, k)")
    for k in range(draw(st.integers(1, 3))):
        rel = draw(st.sampled_from(["=", "=", "<", ">=", "≈"]))
        by = draw(st.sampled_from(["", "   by f0", "   by ind, f1", "   by nothing", "   by linearity"]))
        lines.append(f"step s{k}: {draw(expressions())} {rel} {draw(expressions())}{by}")
        for _ in range(draw(st.integers(0, 2))):
            lines.append(f"    = {draw(expressions())}")
    if draw(st.booleans()):
        lines.append(f"check c1: {draw(expressions())} ≈ {draw(st.sampled_from(['2.83', '0', '1e-9']))}")
    if draw(st.booleans()):
        lines.append(f"refute r1: {draw(expressions())} = {draw(expressions())}")
    return "\n".join(lines) + "\n"


@FUZZ
@given(programs())
def test_grammar_shaped_programs(text):
    run_both(text)


# ---------------------------------------------------------------- truncated and spliced shipped files

NAMES_SHIPPED = sorted(SHIPPED)


@FUZZ
@given(st.sampled_from(NAMES_SHIPPED), st.floats(0, 1))
def test_truncated_shipped_files(name, frac):
    text = SHIPPED[name]
    run_both(text[: int(len(text) * frac)])


@FUZZ
@given(st.sampled_from(NAMES_SHIPPED), st.sampled_from(NAMES_SHIPPED), st.floats(0, 1), st.floats(0, 1),
       st.integers(0, 400))
def test_spliced_shipped_files(a, b, fa, fb, cut):
    x, y = SHIPPED[a], SHIPPED[b]
    i, j = int(len(x) * fa), int(len(y) * fb)
    run_both(x[:i] + y[j:j + cut + 200])


@FUZZ
@given(st.sampled_from(NAMES_SHIPPED), st.integers(0, 10_000), st.sampled_from(TOKENS + ["", "\x00", "\ufeff"]))
def test_one_token_inserted_or_deleted(name, pos, tok):
    text = SHIPPED[name]
    pos %= max(len(text), 1)
    run_both(text[:pos] + tok + text[pos + (1 if tok == "" else 0):])


# ---------------------------------------------------------------- regressions found by the mutation corpus

ZERO_DIVISION = """let d_k: positive integer
random q_i, k_i for i in 1..d_k
assume indep: independent(q, k)
assume mean0: E[q_i] = 0, E[k_i] = 0
assume var1:  Var(q_i) = 1, Var(k_i) = 1
step mean_dot: E[sum(i=1..d_k, q_i k_i)]
    = sum(i=1..d_k, E[q_i] E[k_i])                          by indep
    = 0                                                     by mean0
step var_is_second_moment: Var(sum(i=1..d_k, q_i k_i))
    = E[(sum(i=1..d_k, q_i k_i))^2]                         by mean_dot
step second_moment: E[(sum(i=1..d_k, q_i k_i))^2]
    = d_k
step sd_dot: SD(sum(i=1..d_k, q_i k_i)) = sqrt(d_k)                  by var_is_second_moment, second_moment
step over_dk: Var(sum(i=1..d_k, q_i k_i) / d_k) = 2 / d_k            by var_is_second_moment, second_moment
"""


def test_zero_division_in_reduce_modulo():
    with time_guard(60):
        rep = check_text(ZERO_DIVISION, "<regression>", timeout=5, cross_check=False)
    assert any(lk.status != "holds" for s in rep.steps if s.name == "over_dk" for lk in s.links)
