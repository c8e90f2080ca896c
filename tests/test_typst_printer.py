"""The sympy-to-typst printer: one exact string per construct, in the style of
``sympy/printing/tests/test_latex.py``."""
from __future__ import annotations

from sympy import (
    Abs, Derivative, Eq, Float, Function, Indexed, IndexedBase, Integer, KroneckerDelta, Le, Limit, Max, Min,
    Mul, Piecewise, Product, Rational, Sum, Symbol, Tuple, exp, log, oo, pi, root, sqrt, symbols, tanh,
)

from stepcheck.terms.objects import SD, Cov, DSum, E, Var
from stepcheck.terms.printer import LanguagePrinter
from stepcheck.terms.probability import Prob
from stepcheck.typst_printer import TypstPrinter, typst

x, y, n = symbols("x y n")
i, j = symbols("i j", integer=True)
d_k = Symbol("d_k", positive=True, integer=True)
q, k = IndexedBase("q"), IndexedBase("k")


def test_printmethod():
    assert TypstPrinter.printmethod == "_typst"


def test_the_language_objects_come_from_the_base_printer():
    """E, Var, Cov, SD, P, DSum and Indexed are printed by terms.printer.LanguagePrinter
    (this printer only supplies typst's tokens), like the str, models and LaTeX printers."""
    from stepcheck.api import _latex_printer
    from stepcheck.models.render import _Printer
    from stepcheck.terms.printer import KernelPrinter

    for cls in (TypstPrinter, KernelPrinter, _Printer, type(_latex_printer())):
        assert issubclass(cls, LanguagePrinter)
        for name in ("E", "Var", "Cov", "SD", "Prob", "DSum", "Indexed"):
            method = getattr(cls, f"_print_{name}")
            assert method is getattr(LanguagePrinter, f"_print_{name}"), (cls, name)


def test_integers():
    assert typst(Integer(3)) == "3"
    assert typst(Integer(-3)) == "-3"
    assert typst(3) == "3"


def test_rationals_are_fractions():
    assert typst(Rational(1, 2)) == "frac(1, 2)"
    assert typst(Rational(-3, 4)) == "-frac(3, 4)"


def test_floats_and_constants():
    assert typst(Float(2.5)) == "2.5"
    assert typst(Float(1e-9)) == "1 times 10^(-9)"
    assert typst(pi) == "pi"
    assert typst(oo) == "infinity"


def test_symbols_with_subscripts():
    assert typst(Symbol("d_k")) == "d_k"
    assert typst(Symbol("x1")) == "x_1"
    assert typst(Symbol("x_ij")) == "x_(i j)"


def test_greek_names():
    assert typst(Symbol("alpha")) == "alpha"
    assert typst(Symbol("sigma_1")) == "sigma_1"
    assert typst(Symbol("Gamma")) == "Gamma"
    assert typst(Symbol("lamda")) == "lambda"
    # two-letter Greek names are letters, not two-letter words (μ was printed as upright "mu")
    assert [typst(Symbol(n)) for n in ("mu", "nu", "xi")] == ["mu", "nu", "xi"]
    assert typst(Symbol("mu") * Symbol("beta")) in ("beta mu", "mu beta")
    assert typst(Symbol("ab")) == 'upright("ab")'


def test_multiletter_and_odd_names():
    assert typst(Symbol("foo")) == 'upright("foo")'  # a multi-letter name is a word, not a product
    assert typst(Symbol("_b1")) == "b_1"  # a kernel bound index
    assert typst(Symbol('a"b')) == '"a\\"b"'  # never read as markup
    assert typst(Symbol("max(s)")) == "max(s)"


def test_indexed():
    assert typst(q[i]) == "q_i"
    assert typst(Indexed(q, i, j)) == "q_(i j)"
    assert typst(Indexed(q, i + 1)) == "q_(i + 1)"


def test_add():
    assert typst(x + y) == "x + y"
    assert typst(x - y) == "x - y"
    assert typst(-x + y) == "y - x"


def test_mul_juxtaposition():
    assert typst(2 * d_k) == "2 d_k"
    assert typst(E(q[i]) * E(k[i])) == "EE[k_i] EE[q_i]"
    assert typst(x * (y + 1)) == "x (y + 1)"
    assert typst(Mul(2, 3, evaluate=False)) == "2 dot 3"
    assert typst(Mul(-1, 2, x, evaluate=False)) == "-2 x"


def test_mul_factor_order_hint():
    assert typst(E(q[i]) * E(k[i]), names={"q": 0, "k": 1}) == "EE[q_i] EE[k_i]"
    assert typst(q[i] * k[i], names={"q": 0, "k": 1}) == "q_i k_i"


def test_negative_powers_are_fractions():
    assert typst(x / y) == "frac(x, y)"
    assert typst(1 / x) == "frac(1, x)"
    assert typst(x**-2) == "frac(1, x^2)"
    assert typst(Var(x) / d_k) == 'frac(op("Var")(x), d_k)'


def test_roots():
    assert typst(sqrt(x)) == "sqrt(x)"
    assert typst(root(x, 4)) == "root(4, x)"
    assert typst(1 / sqrt(d_k)) == "frac(1, sqrt(d_k))"
    assert typst(sqrt(2) * x / 2) == "frac(sqrt(2) x, 2)"


def test_powers():
    assert typst(x**2) == "x^2"
    assert typst(x ** Rational(3, 2)) == "x^(3\\/2)"
    assert typst((x + y) ** 2) == "(x + y)^2"
    assert typst(q[i] ** 2) == "q_i^2"


def test_sum_and_product():
    assert typst(Sum(q[i] * k[i], (i, 1, n))) == "sum_(i = 1)^(n) k_i q_i"
    assert typst(Sum(q[i] + k[i], (i, 1, n))) == "sum_(i = 1)^(n) (k_i + q_i)"
    assert typst(Product(q[i], (i, 1, n))) == "product_(i = 1)^(n) q_i"
    assert typst(Sum(x, (i, 1, n)) / sqrt(d_k)) == "frac(sum_(i = 1)^(n) x, sqrt(d_k))"
    assert typst(Mul(Sum(x, (i, 1, n)), y, evaluate=False), order="none") == "(sum_(i = 1)^(n) x) y"


def test_kronecker_delta():
    assert typst(KroneckerDelta(i, j)) == "delta_(i j)"
    assert typst(KroneckerDelta(i, j + 1)) == "delta_(i, j + 1)"


def test_expectation():
    assert typst(E(x)) == "EE[x]"
    assert typst(E(x), expectation="E") == "E[x]"
    assert typst(E(x) ** 2) == "EE[x]^2"


def test_var_cov_sd_are_upright_operators():
    assert typst(Var(x)) == 'op("Var")(x)'
    assert typst(Cov(x, y)) == 'op("Cov")(x, y)'
    assert typst(SD(x)) == 'op("SD")(x)'
    assert typst(Var(x) ** 2) == 'op("Var")(x)^2'


def test_probability():
    assert typst(Prob(Le(x, 1))) == "PP(x <= 1)"
    assert typst(Prob(Le(x, 1)), expectation="E") == "P(x <= 1)"
    from stepcheck.api import to_latex
    from stepcheck.terms.printer import show

    assert show(Prob(Le(x, 1))) == "P(x <= 1)"
    assert to_latex(Prob(Le(x, 1))) == r"\mathbb{P}\left(x \leq 1\right)"


def test_dsum():
    b1, b2 = Symbol("_b1"), Symbol("_b2")
    assert typst(DSum(q[i], Tuple(Tuple(b1, 1, n)), Tuple())) == "sum_(b_1 = 1)^(n) q_i"
    assert (
        typst(DSum(q[b1] * q[b2], Tuple(Tuple(b1, 1, n), Tuple(b2, 1, n)), Tuple()))
        == "sum_(b_1 != b_2 \\ b_1, b_2 in {1, ..., n}) q_(b_1) q_(b_2)"
    )


def test_elementary_functions():
    assert typst(exp(x)) == "e^x"
    assert typst(exp(x + 1)) == "e^(x + 1)"
    assert typst(log(x)) == "log(x)"
    assert typst(tanh(x)) == "tanh(x)"
    assert typst(Abs(x)) == "abs(x)"
    assert typst(Max(x, y)) == "max(x, y)"
    assert typst(Min(x, y)) == "min(x, y)"


def test_derivatives():
    f = Function("f")
    assert typst(Derivative(f(x), x)) == "frac(upright(d) f(x), upright(d) x)"
    assert typst(Derivative(f(x), x, 2)) == "frac(upright(d)^2 f(x), upright(d) x^2)"
    assert typst(Derivative(x**2 * y, x)) == "frac(partial, partial x) x^2 y"
    assert typst(Derivative(x**2 * y, x, y)) == "frac(partial^2, partial x partial y) x^2 y"


def test_limits():
    assert typst(Limit(1 / x, x, oo)) == "lim_(x -> infinity) frac(1, x)"
    assert typst(Limit(1 / x, x, 0, "+")) == "lim_(x -> 0^+) frac(1, x)"


def test_piecewise():
    assert typst(Piecewise((x, x > 0), (0, True))) == 'cases(x & "if" x > 0, 0 & "otherwise")'


def test_relations():
    assert typst(Eq(x, y)) == "x = y"
    assert typst(Le(x, y)) == "x <= y"


def test_every_output_compiles():
    """Everything above is valid typst maths (compiled in one document)."""
    import pytest

    typst_mod = pytest.importorskip("typst")
    f = Function("f")
    exprs = [
        Rational(-3, 4), Symbol("x_ij"), Symbol("foo"), Symbol('a"b'), Indexed(q, i, j), x ** Rational(3, 2),
        root(x, 4), Sum(q[i] + k[i], (i, 1, n)), KroneckerDelta(i, j), E(x) ** 2, Var(x) / d_k, Cov(x, y),
        SD(x), exp(x + 1), Derivative(f(x), x, 2), Derivative(x**2 * y, x, y), Limit(1 / x, x, 0, "+"),
        Piecewise((x, x > 0), (0, True)), Float(1e-9), Mul(2, 3, evaluate=False),
        DSum(q[i], Tuple(Tuple(Symbol("_b1"), 1, n), Tuple(Symbol("_b2"), 1, n)), Tuple(j)),
    ]
    src = "\n\n".join(f"$ {typst(e)} $" for e in exprs)
    assert typst_mod.compile(src.encode(), format="pdf", ignore_system_fonts=True)


# ------------------------------------------------------------ issue 16: names, ∂, the maths as written


def test_multiletter_names_are_upright_and_single_letters_are_not():
    assert typst(Symbol("cap")) == 'upright("cap")'
    assert typst(Symbol("kk")) == 'upright("kk")'  # not k k (a product)
    assert typst(Symbol("d_k")) == "d_k"  # d with subscript k: untouched
    assert typst(Symbol("x_ij")) == "x_(i j)"  # two indices stay two indices
    assert typst(Symbol("var_scaled")) == 'upright("var")_(upright("scaled"))'
    assert typst(Symbol("alpha")) == "alpha"  # a Greek name is one letter


def test_sympy_derivative_partial_for_a_family_member():
    s, p = IndexedBase("s"), IndexedBase("p")
    assert typst(Derivative(p[i], s[j])).startswith("frac(partial p_i, partial s_j)")
    assert typst(Derivative(x**2 * y, x)).startswith("frac(partial")
    assert typst(Derivative(x**3, x)).startswith("frac(upright(d)")


from stepcheck.parser import parse  # noqa: E402
from stepcheck.typst_written import WrittenPrinter  # noqa: E402


def _w(expr: str, decls: str = "") -> str:
    """``expr`` as written, printed (the first side of a one-link step)."""
    prog = parse(decls + f"step s: {expr} = 0\n")
    st = prog.statements[-1]
    return WrittenPrinter(source=prog.text).doprint(st.first)


def test_written_softmax_entry_and_matrix_entries():
    assert _w("softmax(z)_i") == 'upright("softmax")(z)_i'
    assert _w("softmax(s - c)_i") == 'upright("softmax")(s - c)_i'  # as written: no fraction
    assert _w("(Q K^T)_{i, j}") == "(Q K^top)_(i j)"
    assert _w("Kᵀ") == "K^top"
    assert _w("diag(p) - p p^T") == 'op("diag")(p) - p p^top'
    assert _w("ones(n)") == 'op("ones")(n)'
    assert _w("[1, 0]") == "[1, 0]"
    assert _w("softmax([1000, 0])") == 'op("softmax")([1000, 0])'  # no attachment: an operator
    assert _w("Var(X)^2") == 'upright("Var")(X)^2'  # typst would space "Var (X)^2"


def test_written_derivatives():
    assert _w("diff(x^3, x)") == "frac(upright(d) x^3, upright(d) x)" or _w("diff(x^3, x)") == \
        "frac(upright(d), upright(d) x) (x^3)"
    assert _w("diff(tanh(x), x)") == "frac(upright(d) tanh(x), upright(d) x)"
    assert _w("∂p_i/∂s_j") == "frac(partial p_i, partial s_j)"  # written with ∂: ∂
    assert _w("diff(x^2 y, x)").startswith("frac(partial")  # another variable in it: ∂
    assert _w("diff(p, s)_{i, j}") == "(frac(partial p, partial s))_(i j)"
    assert _w("∂²f/∂x∂y") == "frac(partial^2 f, partial x partial y)"
    assert _w("∂²f/∂x²") == "frac(partial^2 f, partial x^2)"


def test_written_limits_extrema_intervals():
    assert _w("limit(exp(t) / (exp(t) + R), t -> oo)") == "lim_(t -> infinity) frac(exp(t), exp(t) + R)"
    assert _w("limit(f, x -> 0+)") == "lim_(x -> 0^+) f"
    assert _w("max(p (1 - p), p in [0, 1])") == "max_(p in [0, 1]) p (1 - p)"
    assert _w("argmax(p, p in [0, 1])") == 'op("argmax", limits: #true)_(p in [0, 1]) p'
    assert _w("max(s)") == "max(s)"


def test_written_arithmetic_keeps_the_users_order_and_brackets():
    assert _w("k_i q_i") == "k_i q_i"  # not re-ordered
    assert _w("(a + b) c") == "(a + b) c"
    assert _w("a - (b - c)") == "a - (b - c)"
    assert _w("a - b + c") == "a - b + c"
    assert _w("-x^2") == "-x^2"
    assert _w("(-x)^2") == "(-x)^2"
    assert _w("d_k^(1/4)") == "d_k^(1\\/4)"
    assert _w("1.01 × 10^304") == "1.01 times 10^304"
    assert _w("2 * 3") == "2 dot 3"
    assert _w("1e-9") == "10^(-9)"
    assert _w("2.5e3") == "2.5 times 10^(3)"
    assert _w("Var(X) / d_k") == 'frac(op("Var")(X), d_k)'
    assert _w("E[q_i k_i]") == "EE[q_i k_i]"
    assert _w("sum(i=1..n, q_i k_i)") == "sum_(i = 1)^(n) q_i k_i"
    assert _w("Σ_{i=1}^{n} (q_i + k_i)") == "sum_(i = 1)^(n) (q_i + k_i)"
    assert _w("P(S = 0)") == "PP(S = 0)"
    assert _w("|x|") == "abs(x)"
    assert _w("√2") == "sqrt(2)"
    assert _w("δ_ij") == "delta_(i j)"
    assert _w("σ²") == "sigma^2"


def test_written_names():
    assert _w("cap") == 'upright("cap")'
    assert _w("kk x") == 'upright("kk") x'
    assert _w("d_k") == "d_k"
    assert _w("π") == "pi"
    assert _w("oo") == "infinity"


def test_every_shipped_expression_prints_without_a_placeholder():
    """Every expression node of every shipped file that parses prints (no exception, no ``?``)."""
    from conftest import SHIPPED

    from stepcheck import syntax as S
    from stepcheck.errors import StepError

    count = 0
    for f in SHIPPED:
        try:
            prog = parse(f.read_text(encoding="utf-8"), str(f))
        except StepError:
            continue  # bad/syntax.step
        printer = WrittenPrinter(source=prog.text)
        for st in prog.statements:
            for node in S.walk(st):
                if isinstance(node, (S.Num, S.Name, S.Subscript, S.BinOp, S.Neg, S.Call, S.BigOp, S.Vector)):
                    out = printer.doprint(node)
                    assert "?" not in out, (f.name, node)
                    count += 1
    assert count > 1000
