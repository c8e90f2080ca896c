"""The function table (stepcheck.terms.functions): one row per elementary function,
read by the elaborator, the finite-model evaluator and the typst and LaTeX printers."""
from __future__ import annotations

import re
from fractions import Fraction as F
from pathlib import Path

import pytest
import sympy
from sympy import Symbol

from stepcheck import check
from stepcheck import syntax as S
from stepcheck.api import to_latex
from stepcheck.elaborate import Elaborator, Scope
from stepcheck.errors import StepError
from stepcheck.models import Model, ModelError, evaluate, holds_rel
from stepcheck.parser import parse
from stepcheck.terms.facts import Decls
from stepcheck.terms.functions import FUNCTIONS, NamedFunction, by_sympy_name, function_of
from stepcheck.typst_printer import typst

ROOT = Path(__file__).resolve().parents[1]
x = Symbol("x", real=True)
TANH_DEF = "tanh(x) = (exp(x) - exp(-x))/(exp(x) + exp(-x))"


def elaborate(src: str, func: str | None = None):
    """``src`` parsed as the left side of a step and elaborated with ``x`` a real;
    ``func`` renames the outermost call first (a function the grammar does not know)."""
    (st,) = parse(f"let x: real\nstep s: {src} = 0\n").statements[1:]
    node = st.first
    if func is not None:
        node = S.Call(func, node.args, node.span, node.func_span)
    scope = Scope(symbols={"x": x}, kinds={"x": "real"})
    return Elaborator(scope).expr(node)


def value(expr, at):
    """The exact value of ``expr`` at ``x = at`` on a finite model (models.py's own evaluator)."""
    return evaluate(expr, Model(params={x: at}), Decls())


# ---------------------------------------------------------------- the table


def test_every_function_is_written_by_the_grammar():
    grammar = (ROOT / "grammar" / "step.lark").read_text(encoding="utf-8")
    func_names = re.search(r"!func_name:(.*?)\n!", grammar, re.S).group(1)
    for name in FUNCTIONS:
        if name != "delta" or '"delta"' in func_names:
            assert f'"{name}"' in func_names, name


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_rows_are_consistent(name):
    row = FUNCTIONS[name]
    assert row.name == name and callable(row.build)
    n = row.fixed_arity or row.arity[0]
    built = row.build(*[Symbol(f"a{k}", real=True) for k in range(n)])
    if row.cls is not None:
        assert isinstance(built, row.cls) and function_of(built) is row and by_sympy_name(row.cls.__name__) is row
    assert row.takes(n) and not row.takes(n - 1)


def test_arity_messages_are_the_elaborators():
    assert FUNCTIONS["exp"].arity_message(2) == "`exp` takes 1 argument, not 2"
    assert FUNCTIONS["delta"].arity_message(3) == "`delta` takes 2 arguments, not 3"
    assert FUNCTIONS["log"].arity_message(3) == "`log` takes 1 or 2 arguments"
    assert FUNCTIONS["max"].arity_message(1) == "`max` of a single value: write at least two arguments"
    with pytest.raises(StepError, match="`log` takes 1 or 2 arguments"):
        elaborate("log(x, 2, 3)")
    with pytest.raises(StepError, match="`tanh` takes 1 argument, not 2"):
        elaborate("tanh(x, x)")


def test_the_elaborator_builds_from_the_table():
    assert elaborate("tanh(x)") == sympy.tanh(x)
    assert elaborate("log(x, 2)") == sympy.log(x, 2)
    assert elaborate("max(x, 1, 2)") == sympy.Max(x, 2)
    assert elaborate("abs(x)") == sympy.Abs(x)
    assert elaborate("sqrt(x^2)") == sympy.Abs(x)


# ---------------------------------------------------------------- tanh, the proof


def test_tanh_parses_prints_and_evaluates():
    (_, st) = parse(f"let x: real\nstep t: {TANH_DEF}\n").statements
    lhs = elaborate("tanh(x)")
    rhs = elaborate("(exp(x) - exp(-x))/(exp(x) + exp(-x))")
    assert lhs == sympy.tanh(x) and st.links[0].rel == "="
    assert typst(lhs) == "tanh(x)"
    assert typst(lhs**2) == "tanh(x)^2"
    assert to_latex(lhs) == r"\tanh{\left(x \right)}"
    assert to_latex(lhs**2) == r"\tanh^{2}{\left(x \right)}"
    assert value(lhs, F(0)) == 0 and value(rhs, F(0)) == 0  # exact
    for at in (F(1), F(-1, 2), F(3)):  # exact numbers: equal to 60 digits, so never a counterexample
        a, b = value(lhs, at), value(rhs, at)
        assert holds_rel(a, "=", b, need_true=False) is not False
        assert abs(float(a) - float(b)) < 1e-15
    assert holds_rel(value(lhs, F(1)), "<", 1) is True


def test_tanh_definition_is_never_refuted():
    r = check(TANH_DEF, given="let x: real")
    assert r.status in ("holds", "unknown"), r.links[0].message
    assert r.links[0].counterexample is None


def test_tanh_is_not_constant():
    r = check("tanh(x) = 1", given="let x: real")
    assert r.status == "fails"
    assert r.links[0].counterexample


def test_tanh_is_bounded_by_the_kernel():
    assert check("tanh(x) < 1", given="let x: real").holds


# ---------------------------------------------------------------- a new row is all it takes


@pytest.fixture
def sinh_row(monkeypatch):
    row = NamedFunction("sinh", 1, sympy.sinh, sympy.sinh, typst='op("sh")', latex=r"\operatorname{sh}",
                        numpy="sinh", increasing=True)
    monkeypatch.setitem(FUNCTIONS, "sinh", row)
    return row


def test_a_new_row_reaches_every_stage(sinh_row):
    e = elaborate("tanh(x)", func="sinh")  # the grammar would need the keyword; the rest is the row
    assert e == sympy.sinh(x) and function_of(e) is sinh_row
    assert typst(e) == 'op("sh")(x)'
    assert to_latex(e) == r"\operatorname{sh}{\left(x \right)}"
    assert value(e, F(0)) == 0
    assert holds_rel(value(e, F(1)), "=", sympy.sinh(1)) is True
    with pytest.raises(StepError, match="`sinh` takes 1 argument, not 2"):
        elaborate("max(x, x)", func="sinh")


def test_a_row_without_an_exact_value_is_refused_by_models(monkeypatch, sinh_row):
    monkeypatch.setitem(FUNCTIONS, "sinh", NamedFunction("sinh", 1, sympy.sinh, sympy.sinh, exact=False))
    with pytest.raises(ModelError, match="no exact value"):
        value(sympy.sinh(x), F(1))
    monkeypatch.setitem(FUNCTIONS, "sinh", NamedFunction("sinh", 1, sympy.sinh, sympy.sinh,
                                                         exact=lambda a: sympy.Integer(7)))
    assert value(sympy.sinh(x) + 1, F(1)) == 8



def test_latex_of_a_power_of_a_moment():
    """sympy's LaTeX printer passes ``exp=`` for a function raised to a power: E[X]^2, Var(X)^2."""
    import sympy as sp

    from stepcheck.api import to_latex
    from stepcheck.terms.objects import E, Var

    X = sp.Symbol("X")
    assert to_latex(E(X) ** 2) == r"\mathbb{E}\left[X\right]^{2}"
    assert to_latex(Var(X) ** 2 + 1) == r"1 + \operatorname{Var}\left(X\right)^{2}"
    assert to_latex(E(X)) == r"\mathbb{E}\left[X\right]"
