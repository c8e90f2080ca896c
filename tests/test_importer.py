"""`stepcheck import`: display maths of Markdown / LaTeX articles -> a .step skeleton."""
from __future__ import annotations

import pytest

from stepcheck.importer import import_text, main, render
from stepcheck.importer_extract import latex_formulas, markdown_formulas, read_macro_file
from stepcheck.importer_latex import LatexError, parse_formula, to_step


def one(tex: str, macros=None) -> str:
    """The single chain of ``tex`` as .step text."""
    (first, links), = parse_formula(tex, macros)
    return (to_step(first) if first is not None else "") + "".join(f" {r} {to_step(e)}" for r, e, _ in links)


@pytest.mark.parametrize("tex, step", [
    (r"\mathbb{E}[X] = 0", "E[X] = 0"),
    (r"E[q_i k_i] = E[q_i] E[k_i]", "E[q_i k_i] = E[q_i] E[k_i]"),
    (r"E(X_i) = 0", "E[X_i] = 0"),
    (r"\operatorname{Var}(X) = 1", "Var(X) = 1"),
    (r"\mathrm{Cov}(X, Y) = 0", "Cov(X, Y) = 0"),
    (r"\text{Var}(X) = Var(X)", "Var(X) = Var(X)"),
    (r"\text{Std}(X) = \mathrm{SD}(X)", "SD(X) = SD(X)"),
    (r"\sqrt{d_k} = \sqrt4", "sqrt(d_k) = sqrt(4)"),
    (r"\sum_{i=1}^{d_k} q_i k_i = d_k", "sum(i=1..d_k, q_i k_i) = d_k"),
    (r"\sum_{i=1}^{n} x_i + 1 = y", "sum(i=1..n, x_i) + 1 = y"),
    (r"\prod_{i=1}^{n} 2 = y", "prod(i=1..n, 2) = y"),
    (r"\frac{a}{b} = \frac8{64}", "a / b = 8 / 64"),
    (r"\frac{1}{d_k}\mathrm{Var}(x) = y", "1 / d_k Var(x) = y"),
    (r"\frac{a + b}{c d} = x", "(a + b) / (c d) = x"),
    (r"\delta_{ij} = \delta_{jk}", "delta(i, j) = delta(j, k)"),
    (r"\frac{\partial a_j}{\partial s_k} = a_j(\delta_{jk}-a_k)", "diff(a_j, s_k) = a_j * (delta(j, k) - a_k)"),
    (r"\frac{\partial}{\partial x} x^2 = 2x", "diff(x^2, x) = 2 x"),
    (r"\exp(x) = e^{x}", "exp(x) = exp(x)"),
    (r"\log x = \ln(x)", "log(x) = log(x)"),
    (r"q \cdot k = a \times b", "q * k = a * b"),
    (r"QK^T = Q K^\top", "Q K^T = Q K^T"),
    (r"Q K^{\mathsf{T}} = Q K^{T}", "Q K^T = Q K^T"),
    (r"\left(\frac{a}{b}\right)^2 = x", "(a / b)^2 = x"),
    (r"\mathrm{softmax}(z)_i = s_i", "softmax(z)_i = s_i"),
    (r"\text{softmax}([20, 1, -3, 0]) \approx [1, 0, 0, 0]", "softmax([20, 1, -3, 0]) ≈ [1, 0, 0, 0]"),
    (r"x \le y \leq z < w", "x <= y <= z < w"),
    (r"x \ge y \geq z > w", "x >= y >= z > w"),
    (r"a \neq b", "a != b"),
    (r"\sigma^2 + \mu = \pi", "σ^2 + μ = pi"),
    (r"\boxed{\operatorname{SD}(S)=\sqrt4=2}", "SD(S) = sqrt(4) = 2"),
    (r"d_{\text{model}} = 512", "d_model = 512"),
    (r"\text{norm\_factor} = \sqrt{d_k}", "norm_factor = sqrt(d_k)"),
    (r"a' = \frac{a}{\sqrt{d_k}}", "a_prime = a / sqrt(d_k)"),
    (r"x^23 = x_{12}", "x^2 * 3 = x_{12}"),
    (r"-x^2 = -(x^2)", "-x^2 = -x^2"),
    (r"a - (b - c) = a - b + c", "a - (b - c) = a - b + c"),
    (r"|x| = \lvert x \rvert", "abs(x) = abs(x)"),
    (r"(1)(1) - 0 = 1", "1 * 1 - 0 = 1"),
    (r"0.5(1)^2 = 0.5", "0.5 * 1^2 = 0.5"),
    (r"x^{-1} = \frac{1}{x}", "x^(-1) = 1 / x"),
    (r"\sqrt0.5 = y", "sqrt(0) * 0.5 = y"),
])
def test_latex_constructs(tex, step):
    assert one(tex) == step


def test_align_rows_are_one_chain():
    tex = r"\begin{aligned} \operatorname{Var}(X) &=E[X^2]\\ &=1 \end{aligned}"
    assert one(tex) == "Var(X) = E[X^2] = 1"


def test_parts_split_at_quad():
    parts = parse_formula(r"\mathbb{E}[q_i]=0,\qquad \mathrm{Var}(q_i)=1.")
    assert [to_step(p[0]) for p in parts] == ["E[q_i]", "Var(q_i)"]


def test_a_formula_may_begin_with_a_relation():
    (first, links), = parse_formula(r"=E[X^2]+2E[XY]")
    assert first is None and to_step(links[0][1]) == "E[X^2] + 2 E[X Y]"


@pytest.mark.parametrize("tex, piece, words", [
    (r"\text{Attention}(Q, K) = Q", r"\text{Attention}", "not a function"),
    (r"q = [q_1, q_2, \ldots, q_n]", r"\ldots", "elided"),
    (r"q_i \sim \mathcal{N}(0, 1)", r"\sim", "\\sim"),
    (r"X = \begin{cases} 1 & a \end{cases}", r"\begin{cases}", "cases"),
    (r"\text{均值} = 0", r"\text{均值}", "prose"),
    (r"x \in \mathbb R", r"\in", "membership"),
    (r"\sum E[q_i] = 0", r"\sum", "bounds"),
    (r"E = mc^2", "E", "without an argument"),
    (r"(a, b) = c", "(a,", "tuple"),
    (r"x = (a", "", "expected `)`"),
    (r"\text{Var} = 1", r"\text{Var}", "without an argument"),
    (r"P = 1", "P", "without an argument"),
    (r"\text{step} = 1", r"\text{step}", "without an argument"),
])
def test_refused_with_span(tex, piece, words):
    with pytest.raises(LatexError) as info:
        parse_formula(tex)
    e = info.value
    assert words in e.message
    if piece:
        assert tex[e.start:e.end].startswith(piece[:len(tex[e.start:e.end])]) and tex.find(piece) == e.start


def test_macros_from_table_document_and_recursion():
    assert one(r"\EE[X] = \Var(X)", {"EE": (0, r"\mathbb{E}"), "Var": (0, r"\operatorname{Var}")}) == "E[X] = Var(X)"
    assert one(r"\norm{x} = 1", {"norm": (1, r"\left|#1\right|")}) == "abs(x) = 1"
    with pytest.raises(LatexError, match="without end"):
        parse_formula(r"\loop = 1", {"loop": (0, r"\loop")})
    # an unknown command is refused, not dropped
    with pytest.raises(LatexError):
        parse_formula(r"\EE[X] = 0")


def test_macro_file():
    m = read_macro_file("% comment\n\\EE = \\mathbb{E}\n\\norm[1] = |#1|\n\\newcommand{\\Var}{\\operatorname{Var}}\n")
    assert m == {"EE": (0, r"\mathbb{E}"), "norm": (1, "|#1|"), "Var": (0, r"\operatorname{Var}")}
    with pytest.raises(ValueError):
        read_macro_file("EE = E\n")


MD = r"""# Article

$$\mathbb{E}[q_i] = 0$$

Inline $x = 1$ in a sentence is not display maths.

$\operatorname{Var}(X) = E[X^2]$

$$\text{Attention}(Q) = Q$$

A paragraph with $$E[X] = E[X]$$ inside.

\[ Var(X) \ge 0 \]

\begin{align}
a &= b \\
  &= c
\end{align}

```
$$ x = 2 $$
```

$=E[X^2] - 0$
"""


def test_markdown_formulas_and_lines():
    fs = markdown_formulas(MD)
    assert [(f.line, f.tex) for f in fs] == [
        (3, r"\mathbb{E}[q_i] = 0"),
        (7, r"\operatorname{Var}(X) = E[X^2]"),
        (9, r"\text{Attention}(Q) = Q"),
        (11, "E[X] = E[X]"),
        (13, "Var(X) \\ge 0"),
        (15, "\\begin{align}\na &= b \\\\\n  &= c\n\\end{align}"),
        (24, "=E[X^2] - 0"),
    ]
    for f in fs:  # positions are verbatim
        assert MD[f.start:f.start + len(f.tex)] == f.tex


def test_import_markdown_skeleton():
    res = import_text(MD, "a.md")
    assert (res.found, res.imported, len(res.refused)) == (7, 6, 1)
    text = render(res, MD)
    assert "# from a.md:3\nstep eq3: E[q_i]\n    = 0    # by ?" in text
    # the formula beginning with `=` continues the chain of the formula before it (the align)
    assert "step eq15: a\n    = b    # by ?  (a.md:16)\n    = c    # by ?  (a.md:17)\n    = E[X^2] - 0" in text
    assert "step eq13: Var(X)\n    >= 0" in text
    # refused: listed in the comments with its span, and no part of it imported
    assert "#    --> a.md:9:3" in text and "Attention" not in text.split("refused formulas")[1].split("\n\n")[1]
    assert "#   names: X, a, b, c\n" in text and "(a family member, or a name such as d_k): q_i\n" in text


def test_continuation_after_a_refused_formula_is_refused():
    res = import_text("$$\\text{Foo}(x) = 1$$\n\n$$= 2$$\n", "b.md")
    assert res.imported == 0 and len(res.refused) == 2
    assert "begins with a relation" in res.refused[1].title


def test_skeleton_round_trip_parses_and_verifies():
    from stepcheck.checker import check_text
    from stepcheck.parser import parse

    md = ("$$\\mathrm{Var}(X + Y) = \\mathrm{Var}(X) + \\mathrm{Var}(Y) + 2\\mathrm{Cov}(X, Y)$$\n\n"
          "$$\\mathbb{E}[2X] = 2\\mathbb{E}[X] \\le 2\\mathbb{E}[X] + 1$$\n\n$$\\sqrt{8} \\approx 2.83$$\n")
    skeleton = render(import_text(md, "c.md"), md)
    parse(skeleton, "c.step")  # the `# by ?` holes are comments: the skeleton parses as it is
    rep = check_text("random X, Y\n" + skeleton, "c.step")
    assert not rep.fatal
    assert [s.status for s in rep.steps] == ["holds", "holds", "holds"]
    assert "check eq5: sqrt(8) ≈ 2.83" in skeleton


def test_by_question_mark_is_not_the_language():
    from stepcheck.errors import StepError
    from stepcheck.parser import parse

    with pytest.raises(StepError):
        parse("let x: real\nstep s: x = x by ?\n", "t.step")


TEX = r"""\documentclass{article}
\newcommand{\EE}{\mathbb{E}}
\DeclareMathOperator{\Cor}{Var}
\begin{document}
Text $x$ inline.
\[ \EE[X] = 0 \]
\begin{equation}
  \Cor(X) = 1
\end{equation}
\begin{align*}
  a &= b \\
    &\le c
\end{align*}
$$ \frac{1}{2} = 0.5 $$
\end{document}
"""


def test_tex_formulas_and_macros():
    fs = latex_formulas(TEX)
    assert [f.line for f in fs] == [6, 8, 11, 14]
    res = import_text(TEX, "art.tex")
    assert (res.found, res.imported) == (4, 4)
    text = render(res, TEX)
    assert "step eq6: E[X]\n    = 0" in text
    assert "step eq8: Var(X)\n    = 1" in text
    assert "step eq11: a\n    = b    # by ?\n    <= c    # by ?  (art.tex:12)" in text


def test_refusal_span_in_the_file():
    text = "intro\n\n$$a = b + \\text{Foo}(x)$$\n"
    res = import_text(text, "d.md")
    d = res.refused[0]
    assert (d.span.line, d.span.col) == (3, text.split("\n")[2].index("\\text") + 1)
    assert "^^^^" in d.render({"d.md": text})


def test_deep_nesting_is_refused_not_a_traceback():
    text = "$$x = " + "{" * 3000 + "1" + "}" * 3000 + "$$\n"
    res = import_text(text, "deep.md")
    assert res.imported == 0 and len(res.refused) == 1


def test_cli(tmp_path, capsys):
    art = tmp_path / "a.md"
    art.write_text(MD, encoding="utf-8")
    out = tmp_path / "a.step"
    assert main([str(art), "-o", str(out)]) == 0
    err = capsys.readouterr().err
    assert "Attention" in err and "7 display formulas, 6 imported, 1 refused" in err
    assert out.read_text(encoding="utf-8").startswith("# imported by `stepcheck import`")
    macros = tmp_path / "m.txt"
    macros.write_text("\\Ex = \\mathbb{E}\n", encoding="utf-8")
    (tmp_path / "b.md").write_text("$$\\Ex[X] = 0$$\n", encoding="utf-8")
    assert main([str(tmp_path / "b.md")]) == 0
    assert "1 display formulas, 0 imported, 1 refused" in capsys.readouterr().err
    assert main([str(tmp_path / "b.md"), "--macros", str(macros)]) == 0
    assert "step eq1: E[X]" in capsys.readouterr().out
    assert main([str(tmp_path / "missing.md")]) == 2
    assert "not found" in capsys.readouterr().err
    macros.write_text("nonsense\n", encoding="utf-8")
    assert main([str(art), "--macros", str(macros)]) == 2
    assert "m.txt:1" in capsys.readouterr().err


def test_every_imported_formula_parses_as_step():
    """Random token soups: each one is refused with a LatexError, or its skeleton parses."""
    import random

    from stepcheck.errors import StepError
    from stepcheck.parser import parse

    pieces = [r"\frac", "{", "}", "(", ")", "[", "]", "x", "_", "^", "i", "=", "&=", r"\\", r"\sum", r"\mathbb{E}",
              "E", r"\sqrt", "2", "0.5", r"\left(", r"\right)", r"\cdot", r"\text{Var}", "|", "-", "+", r"\le",
              ",", r"\quad", "'", r"\partial", r"\delta", r"\boxed", "T", r"\top", "e", ".", " ", "Var", "q_i",
              r"\approx", r"\prod", r"\exp", "P", r"\sigma", "3"]
    rng = random.Random(7)
    imported = 0
    for _ in range(3000):
        tex = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 12)))
        try:
            parse_formula(tex)
        except LatexError:
            continue
        imported += 1
        md = "$$" + tex + "$$\n"
        try:
            parse(render(import_text(md, "f.md"), md), "f.step")
        except StepError as e:  # pragma: no cover - the failure message
            pytest.fail(f"{tex!r}: the skeleton does not parse: {e.diagnostic.title}")
    assert imported > 50
