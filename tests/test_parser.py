"""Unit tests of the `.step` parser: AST shapes for good input, diagnostics for bad."""
from __future__ import annotations

import logging
import random as _random
import time

import pytest
from conftest import SHIPPED, TUTORIAL, rel, shipped_report

from stepcheck import syntax as S
from stepcheck.errors import Span, StepError
from stepcheck.parser import (
    MAX_FILE_BYTES,
    MAX_NESTING,
    MAX_STATEMENT_CHARS,
    parse,
    read_source,
)

SAMPLE = """\
# derivations/var_dot.step
derivation var_dot "点积的方差: Var(q·k) = d_k"
source "Vaswani et al. 2017, section 3.2.1"

let d_k: positive integer                 # the head dimension
let i, j: index 1..d_k
random q_i, k_i for i in 1..d_k           # components of one query and one key

assume indep: independent(q, k)           # all q_i, k_j mutually independent
assume mean0: E[q_i] = 0, E[k_i] = 0      # a free index means: for every i
assume var1:  Var(q_i) = 1, Var(k_i) = 1

step mean_term: E[q_i k_i]
    = E[q_i] E[k_i]                       by indep
    = 0                                   by mean0

step var_term: Var(q_i k_i)
    = E[(q_i k_i)^2] - E[q_i k_i]^2
    = E[q_i^2] E[k_i^2] - 0               by indep, mean_term
    = 1                                   by var1, mean0

step var_sum: Var(sum(i=1..d_k, q_i k_i))
    = sum(i=1..d_k, Var(q_i k_i))         by indep
    = d_k                                 by var_term
"""


# ------------------------------------------------------------ helpers


def show(e) -> str:
    """A compact s-expression of an expression AST (spans left out)."""
    if isinstance(e, S.Name):
        return e.name
    if isinstance(e, S.Num):
        return e.text
    if isinstance(e, S.BinOp):
        op = "." if e.implicit else e.op
        assert not e.implicit or e.op == "*"
        return f"({op} {show(e.left)} {show(e.right)})"
    if isinstance(e, S.Neg):
        return f"(neg {show(e.operand)})"
    if isinstance(e, S.Call):
        inner = ", ".join(show(a) for a in e.args)
        return f"{e.func}[{inner}]" if e.bracket else f"{e.func}({inner})"
    if isinstance(e, S.Subscript):
        return f"(sub {show(e.base)} {' '.join(show(i) for i in e.indices)})"
    if isinstance(e, S.BigOp):
        return f"({e.op} {show(e.var)} {show(e.lo)} {show(e.hi)} {show(e.body)})"
    if isinstance(e, S.Vector):
        return "[" + ", ".join(show(i) for i in e.items) + "]"
    if isinstance(e, S.Compare):
        return f"({e.op} {show(e.left)} {show(e.right)})"
    raise AssertionError(f"not an expression: {e!r}")


def expr(src: str):
    """Parse ``src`` as the first expression of a step."""
    prog = parse(f"step s: {src} = 0\n")
    (st,) = prog.statements
    return st.first


def ex(src: str) -> str:
    return show(expr(src))


def one(src: str):
    prog = parse(src)
    assert len(prog.statements) == 1, prog.statements
    return prog.statements[0]


def diag(src: str, file: str = "t.step"):
    with pytest.raises(StepError) as info:
        parse(src, file)
    return info.value.diagnostic


# ------------------------------------------------------------ the sample


def test_sample_parses():
    prog = parse(SAMPLE, "var_dot.step")
    kinds = [type(s).__name__ for s in prog.statements]
    assert kinds == [
        "Derivation", "Source", "Let", "Let", "Random",
        "Assume", "Assume", "Assume", "Step", "Step", "Step",
    ]
    d = prog.statements[0]
    assert d.name.name == "var_dot" and d.title == "点积的方差: Var(q·k) = d_k"
    assert prog.statements[1].text == "Vaswani et al. 2017, section 3.2.1"
    mean_term, var_term, var_sum = prog.statements[8:]
    assert [len(s.links) for s in (mean_term, var_term, var_sum)] == [2, 3, 2]
    assert show(mean_term.first) == "E[(. q_i k_i)]"
    assert show(mean_term.links[0].rhs) == "(. E[q_i] E[k_i])"
    assert [r.text for r in var_term.links[1].refs] == ["indep", "mean_term"]
    assert var_term.links[0].refs == [] and not var_term.links[0].has_by
    assert var_term.links[1].has_by
    assert show(var_term.links[0].rhs) == "(- E[(^ (. q_i k_i) 2)] (^ E[(. q_i k_i)] 2))"
    assert show(var_sum.first) == "Var((sum i 1 d_k (. q_i k_i)))"
    assert show(var_sum.links[0].rhs) == "(sum i 1 d_k Var((. q_i k_i)))"
    assert prog.file == "var_dot.step" and prog.text == SAMPLE


def test_sample_spans():
    prog = parse(SAMPLE, "var_dot.step")
    mean_term = prog.statements[8]
    # `step mean_term: E[q_i k_i]` on line 13
    assert mean_term.name.span == Span("var_dot.step", 13, 6, 13, 15)
    assert mean_term.span.line == 13 and mean_term.span.col == 1
    assert mean_term.span.end_line == 13 and mean_term.span.end_col == 27
    link = mean_term.links[0]
    # `    = E[q_i] E[k_i]                       by indep`
    assert (link.span.line, link.span.col) == (14, 5)
    assert (link.span.end_line, link.span.end_col) == (14, 51)
    assert link.refs[0].span == Span("var_dot.step", 14, 46, 14, 51)
    e1 = link.rhs.left
    assert e1.func_span == Span("var_dot.step", 14, 7, 14, 8)
    assert e1.args[0].span == Span("var_dot.step", 14, 9, 14, 12)  # q_i exactly


# ------------------------------------------------------------ expressions


def test_juxtaposition_of_expectations():
    e = expr("E[q_i] E[k_i]")
    assert isinstance(e, S.BinOp) and e.op == "*" and e.implicit
    assert isinstance(e.left, S.Call) and e.left.func == "E" and e.left.bracket
    assert isinstance(e.right, S.Call) and e.right.func == "E"


def test_juxtaposition_number_name():
    e = expr("2 d_k")
    assert isinstance(e, S.BinOp) and e.implicit and show(e) == "(. 2 d_k)"
    assert e.right.span.col == 11 and e.right.span.end_col == 14


def test_names_are_single_tokens():
    assert ex("q_i") == "q_i"
    assert ex("δ_ij") == "δ_ij"
    assert ex("X_1 σ μ") == "(. (. X_1 σ) μ)"


def test_minus_after_space_is_subtraction():
    assert ex("a -b") == "(- a b)"
    assert ex("a - -b") == "(- a (neg b))"
    assert ex("a * -b") == "(* a (neg b))"


def test_precedence_and_associativity():
    assert ex("-x^2") == "(neg (^ x 2))"
    assert ex("2^-1") == "(^ 2 (neg 1))"
    assert ex("a^b^c") == "(^ a (^ b c))"
    assert ex("a ** 2") == "(^ a 2)"
    assert ex("a/b c") == "(. (/ a b) c)"
    assert ex("a + b c - d") == "(- (+ a (. b c)) d)"
    assert ex("6/16") == "(/ 6 16)"
    assert ex("a · b × c * d") == "(* (* (* a b) c) d)"
    assert ex("x^{n+1}") == "(^ x (+ n 1))"
    assert ex("a − b") == "(- a b)"  # Unicode minus


def test_function_keywords_only_are_calls():
    assert ex("p_i (1 - p_i)") == "(. p_i (- 1 p_i))"
    assert ex("f(x)") == "(. f x)"
    assert ex("exp(s_i) / sum(m=1..n, exp(s_m))") == "(/ exp(s_i) (sum m 1 n exp(s_m)))"
    assert ex("delta(i, j)") == "delta(i, j)"
    assert ex("ln(x)") == "log(x)"
    assert ex("max(a, b) min(a, b) tanh(x) abs(x)") == "(. (. (. max(a, b) min(a, b)) tanh(x)) abs(x))"
    assert ex("Cov(X, Y) + SD(X)") == "(+ Cov(X, Y) SD(X))"


def test_E_brackets_and_parens():
    a, b = expr("E[X]"), expr("E(X)")
    assert a.bracket is True and b.bracket is False
    assert show(a) == "E[X]" and show(b) == "E(X)"


def test_sqrt_spellings():
    assert ex("√x") == ex("√(x)") == ex("sqrt(x)") == "sqrt(x)"
    assert ex("1/√d_k") == "(/ 1 sqrt(d_k))"
    assert ex("2 √d_k") == "(. 2 sqrt(d_k))"
    e = expr("√d_k")
    assert e.func_span.col == 9 and e.func_span.end_col == 10


def test_numbers():
    assert ex("2.5") == "2.5"
    assert ex("1e-9") == "1e-9"
    assert ex("2.6 × 10^10") == "(* 2.6 (^ 10 10))"


def test_subscripts():
    assert ex("q_{i}") == ex("q[i]") == "(sub q i)"
    assert ex("q_{i,j}") == ex("q[i, j]") == "(sub q i j)"
    assert ex("q_{i+1}^2") == "(^ (sub q (+ i 1)) 2)"
    e = expr("q[i]")
    assert isinstance(e, S.Subscript) and isinstance(e.base, S.Name)


def test_big_operators():
    text_sum = ex("sum(i=1..n, q_i k_i)")
    assert text_sum == "(sum i 1 n (. q_i k_i))"
    assert ex("Σ_{i=1}^{n} q_i k_i") == text_sum
    assert ex("Σ_{i=1}^n q_i k_i") == text_sum
    assert ex("∑_{i=1}^{n} q_i k_i") == text_sum
    assert ex("sum_{i=1}^{n} q_i k_i") == text_sum
    assert ex("Σ_{i=1}^{n} q_i k_i + 1") == "(+ (sum i 1 n (. q_i k_i)) 1)"
    assert ex("2 Σ_{i=1}^{d_k} x_i") == "(. 2 (sum i 1 d_k x_i))"
    assert ex("-Σ_{i=1}^{n} x_i") == "(neg (sum i 1 n x_i))"
    assert ex("prod(i=1..n, x_i)") == ex("∏_{i=1}^{n} x_i") == "(prod i 1 n x_i)"
    assert ex("sum(v)") == "sum(v)"


def test_probability_events():
    assert ex("P(S = 0)") == "P((= S 0))"
    assert ex("P(-1 <= Z <= 1)") == "P((<= (<= (neg 1) Z) 1))"
    assert ex("P(X ≥ 2)") == "P((>= X 2))"
    assert ex("P[X > 0]") == "P[(> X 0)]"


def test_softmax_indexing():
    for src in ("softmax(v)_i", "softmax(v)[i]", "softmax(v)_{i}"):
        e = expr(src)
        assert isinstance(e, S.Subscript), src
        assert isinstance(e.base, S.Call) and e.base.func == "softmax"
        assert show(e) == "(sub softmax(v) i)"
    e = expr("softmax(v)_i")
    assert e.indices[0].span.col == 20 and e.indices[0].span.end_col == 21


def test_abs_bars_vectors_and_special_args():
    assert ex("|x - 1|") == "abs((- x 1))"
    assert ex("2 * |x|") == "(* 2 abs(x))"
    assert ex("|x|^2") == "(^ abs(x) 2)"
    assert ex("softmax([1, 2, 3])") == "softmax([1, 2, 3])"
    assert ex("limit(f, x -> 0)") == ex("limit(f, x → 0)") == "limit(f, (-> x 0))"
    assert ex("max(f, x in [0, 1])") == "max(f, (in x [0, 1]))"


def test_relations_canonical():
    src = "step s: a = b\n  < c\n  <= d\n  ≤ e\n  > f\n  >= g\n  ≥ h\n  ≈ k\n  ~= l\n  != m\n  ≠ n\n"
    st = one(src)
    assert [l.rel for l in st.links] == ["=", "<", "<=", "<=", ">", ">=", ">=", "≈", "≈", "!=", "!="]


# ------------------------------------------------------------ lines, comments, separators


def test_chain_continuation_across_blank_and_comment_lines():
    src = "step s: a\n\n  # a comment\n  = b   by r  # trailing\n\n# more\n  = c\nlet x: real\n"
    prog = parse(src)
    st, let = prog.statements
    assert isinstance(st, S.Step) and [show(l.rhs) for l in st.links] == ["b", "c"]
    assert st.links[1].span.line == 7
    assert isinstance(let, S.Let)


def test_one_line_step_and_mixed_links():
    st = one("step s: A = B by r\n  = C by r2, def Var\n")
    assert [l.rel for l in st.links] == ["=", "="]
    assert [r.text for r in st.links[1].refs] == ["r2", "def Var"]
    st = one("step s: A = B = C")  # no final newline
    assert len(st.links) == 2


def test_semicolon_separator():
    prog = parse("random X; let d: positive real")
    r, l = prog.statements
    assert isinstance(r, S.Random) and [n.name for n in r.names] == ["X"]
    assert isinstance(l, S.Let) and l.type.kind == "positive real"


def test_empty_and_comment_only():
    assert parse("").statements == []
    assert parse("\n\n  # nothing\n").statements == []
    assert parse("\ufeff# bom\nlet x: real\n").statements[0].names[0].span.col == 5


def test_crlf_line_endings():
    prog = parse("let x: real\r\nstep s: x\r\n  = x\r\n")
    assert len(prog.statements) == 2 and len(prog.statements[1].links) == 1


# ------------------------------------------------------------ strings


def test_strings_unicode_and_escapes():
    d = one('derivation d "中文标题 \\"quoted\\" back\\\\slash # not a comment"')
    assert d.title == '中文标题 "quoted" back\\slash # not a comment'
    assert one("derivation d").title is None
    assert one('use "other.step"').path == "other.step"
    assert one('source "a; b"').text == "a; b"


# ------------------------------------------------------------ declarations


@pytest.mark.parametrize(
    "spelling,kind",
    [
        ("positive integer", "positive integer"),
        ("integer", "integer"),
        ("real", "real"),
        ("positive real", "positive real"),
        ("nonnegative real", "nonnegative real"),
    ],
)
def test_let_types(spelling, kind):
    st = one(f"let a, b: {spelling}")
    assert [n.name for n in st.names] == ["a", "b"]
    assert st.type.kind == kind and st.type.lo is None


def test_let_index():
    st = one("let i, j: index 1..d_k")
    assert st.type.kind == "index" and show(st.type.lo) == "1" and show(st.type.hi) == "d_k"


def test_random_forms():
    r = one("random X, Y")
    assert [n.name for n in r.names] == ["X", "Y"] and r.family is None and r.distribution is None
    r = one("random q_i, k_i for i in 1..d_k")
    assert r.family.var.name == "i" and show(r.family.lo) == "1" and show(r.family.hi) == "d_k"
    r = one("random X ~ Normal(0, 1)")
    assert isinstance(r.distribution, S.Call) and r.distribution.func == "Normal"
    assert [show(a) for a in r.distribution.args] == ["0", "1"]
    r = one("random X_i ~ Rademacher for i in 1..4")
    assert isinstance(r.distribution, S.Name) and r.distribution.name == "Rademacher"
    assert show(r.family.hi) == "4" and r.names[0].name == "X_i"


def test_real_define_use():
    r = one("real s_i for i in 1..n")
    assert isinstance(r, S.RealDecl) and r.names[0].name == "s_i" and r.family.var.name == "i"
    r = one("real a, b")
    assert r.family is None and len(r.names) == 2
    d = one("define p_i = exp(s_i) / sum(m=1..n, exp(s_m))")
    assert isinstance(d, S.Define) and d.name.name == "p_i"
    assert show(d.body) == "(/ exp(s_i) (sum m 1 n exp(s_m)))"
    u = one('use "var_dot.step"')
    assert isinstance(u, S.Use) and u.path == "var_dot.step"


# ------------------------------------------------------------ facts


def test_assume_facts():
    a = one("assume f: E[q_i] = 0, Var(X) <= 1, Cov(X, Y) != 0, c > 0")
    assert a.label.name == "f"
    assert [f.rel for f in a.facts] == ["=", "<=", "!=", ">"]
    assert [show(f.left) for f in a.facts] == ["E[q_i]", "Var(X)", "Cov(X, Y)", "c"]


def test_independence_facts():
    a = one("assume ind: independent(q, k), uncorrelated(X, Y), X ⟂ Y")
    k = [(f.kind, [show(x) for x in f.args]) for f in a.facts]
    assert k == [("independent", ["q", "k"]), ("uncorrelated", ["X", "Y"]), ("independent", ["X", "Y"])]
    assert all(isinstance(f, S.IndepFact) for f in a.facts)


def test_for_conditions():
    a = one("assume pw: q_i ⟂ q_j for i != j, E[q_i q_j] = 0 for i ≠ j, independent(q_i, k_j) for i != j")
    for f in a.facts:
        assert isinstance(f.cond, S.ForCond)
        assert (f.cond.left.name, f.cond.right.name) == ("i", "j")
    assert a.facts[1].rel == "="


def test_commas_inside_brackets_belong_to_expression():
    a = one("assume m: Cov(X, Y) = max(a, b), E[X] = 0")
    assert len(a.facts) == 2 and show(a.facts[0].right) == "max(a, b)"


# ------------------------------------------------------------ refs and refute


def test_refs():
    st = one("step s: a = b by indep, def p, def Var, var_dot.var_sum, linearity")
    refs = st.links[0].refs
    assert [r.text for r in refs] == ["indep", "def p", "def Var", "var_dot.var_sum", "linearity"]
    assert refs[1].span.col == 25 and refs[1].span.end_col == 30


def test_refute():
    st = one("refute r: Var(X) = 2 under mean0, var1")
    assert st.kind == "refute" and len(st.links) == 1
    assert st.links[0].rel == "=" and show(st.links[0].rhs) == "2"
    assert [r.text for r in st.under] == ["mean0", "var1"]
    assert one("refute r: a < b").under == []


def test_step_kind_default():
    st = one("step s: a = b")
    assert st.kind == "step" and st.under == []


# ------------------------------------------------------------ grammar quality


def test_grammar_has_no_conflicts(caplog):
    from lark import Lark, logger

    from stepcheck.parser import _grammar_text

    logger.setLevel(logging.DEBUG)
    try:
        with caplog.at_level(logging.DEBUG, logger="lark"):
            Lark(_grammar_text(), parser="lalr", lexer="basic", debug=True)
    finally:
        logger.setLevel(logging.WARNING)
    assert not [r for r in caplog.records if "conflict" in r.getMessage().lower()]


# ------------------------------------------------------------ errors


def test_unknown_character():
    d = diag("let x: real\nstep s: x @ 1 = 2\n")
    assert d.title == "unexpected character '@'"
    assert (d.span.line, d.span.col) == (2, 11)
    assert d.code == "E-syntax" and d.help


def test_step_without_colon():
    d = diag("step s E[X] = 1\n")
    assert d.title == "unexpected token 'E'"
    assert (d.span.line, d.span.col) == (1, 8)
    assert "`:`" in d.help and "step NAME:" in d.help


def test_unclosed_bracket_points_at_opening():
    d = diag("let x: real\nstep s: E[X = 1\n")
    assert d.title == "unclosed `[`"
    assert (d.span.line, d.span.col) == (2, 10)
    assert d.label == "this `[` is never closed"
    assert "`]`" in d.help


def test_unclosed_bracket_at_end_of_input():
    d = diag("step s: E[X")
    assert d.title == "unclosed `[`" and (d.span.line, d.span.col) == (1, 10)


def test_mismatched_and_stray_brackets():
    d = diag("step s: (a] = 1")
    assert d.title == "mismatched `]`" and d.span.col == 11
    d = diag("step s: a) = 1")
    assert d.title == "unexpected `)`" and d.span.col == 10


def test_earlier_syntax_error_reported_before_later_bracket():
    d = diag("step s x = 1\nstep t: E[X = 1\n")
    assert d.span.line == 1 and d.title == "unexpected token 'x'"


def test_dangling_relation_at_end_of_line():
    d = diag("step s: x =\n")
    assert d.title == "unexpected end of line"
    assert (d.span.line, d.span.col) == (1, 12)
    assert "`=` needs an expression" in d.help


def test_dangling_relation_line_without_step():
    d = diag("let x: real\n= 3\n")
    assert d.title == "unexpected token '='"
    assert (d.span.line, d.span.col) == (2, 1)
    assert "continues the `step` above" in d.help and "`let`" in d.help


def test_link_line_without_relation():
    d = diag("step s: A\n    B by r\n")
    assert d.title == "expected a relation at the start of this line"
    assert (d.span.line, d.span.col) == (2, 5)
    assert "begins with a relation" in d.help
    d = diag("step s: A\n    = B by r\n    C by t\n")
    assert d.title == "unexpected token 'C'"
    assert (d.span.line, d.span.col) == (3, 5)
    assert "must begin with a relation" in d.help


def test_step_without_link():
    d = diag("step s: A\n")
    assert d.title == "unexpected end of line" and d.label == "this step has no link"


def test_by_on_its_own_line():
    d = diag("step s: a = b\n  by c\n")
    assert d.title == "unexpected token 'by'" and (d.span.line, d.span.col) == (2, 3)
    assert "same line" in d.help


def test_python_injection_is_a_syntax_error():
    d = diag("step s: __import__('os').system('x') = 0\n")
    assert d.title == "unexpected character '_'" and d.span.col == 9
    d = diag("step s: x = 'os'\n")
    assert d.title == "unexpected character ''" + "'" and "double quotes" in d.help


def test_keyword_as_name():
    d = diag("random E\n")
    assert d.title == "unexpected token 'E'" and "keyword" in d.help


def test_unterminated_string_and_bad_escape():
    d = diag('derivation d "abc\n')
    assert d.title == "unterminated string" and d.span.col == 14
    d = diag('derivation d "a\\qb"\n')
    assert d.title == "unknown escape `\\q` in a string" and (d.span.col, d.span.end_col) == (16, 18)


def test_other_token_errors_have_help():
    cases = {
        "let x: complex": ("unexpected token 'complex'", "`integer`"),
        "step s: x = 1 by\n": ("unexpected end of line", "a name"),
        "step s: x = 1 by": ("unexpected end of input", "a name"),
        "use other.step": ("unexpected token 'other'", "a string in double quotes"),
        "step s: f(x) = sqrt x": ("unexpected token 'x'", "sqrt(x)"),
        "step s: a = 2 |x|": ("unexpected token '|'", "2 * |x|"),
        "step s: Σ_i x_i = 1": ("unexpected token '_i'", "Σ_{i=1}^{n}"),
        "refute r: x = 1 by a": ("unexpected token 'by'", "`under`"),
        "step 1s: x = 1": ("unexpected token '1'", "a name"),
    }
    for src, (title, hint) in cases.items():
        d = diag(src)
        assert d.title == title, src
        assert hint in (d.help or ""), (src, d.help)


def test_stray_underscore_subscript():
    d = diag("step s: q _i = 1")
    assert d.title == "unexpected token '_i'" and d.span.col == 11 and "`q_i`" in d.help


def test_non_ascii_letter_outside_string():
    d = diag("let x 中 real")
    assert d.title == "unexpected character '中'" and d.span.col == 7
    assert "string" in d.help


def test_deep_nesting_is_fast():
    src = "step s: " + "(" * 10_000 + "x" + ")" * 10_000 + " = 1\n"
    t = time.perf_counter()
    d = diag(src)
    assert time.perf_counter() - t < 1.0
    assert d.title == f"expression nested too deeply (more than {MAX_NESTING} levels)"
    assert (d.span.line, d.span.col) == (1, 9 + MAX_NESTING)
    assert d.code == "E-nesting"


def test_nesting_at_limit_is_fine():
    src = "step s: " + "(" * MAX_NESTING + "x" + ")" * MAX_NESTING + " = x\n"
    assert show(parse(src).statements[0].first) == "x"


def test_huge_line():
    d = diag("step s: x = " + "x + " * 6000 + "1\n")
    assert d.title.startswith("statement too long")
    assert (d.span.line, d.span.col) == (1, MAX_STATEMENT_CHARS + 1)
    # a long comment is not a long statement
    assert parse("let x: real   # " + "c" * 30_000 + "\n").statements


def test_deep_operator_chain_is_rejected_not_crashing():
    for src in ("step s: x = " + "-" * 15_000 + "x\n", "step s: x = " + "x^" * 5_000 + "x\n"):
        t = time.perf_counter()
        d = diag(src)
        assert time.perf_counter() - t < 3.0
        assert d.code == "E-nesting"


def test_nul_in_text():
    d = diag("step s: x = y\x00\n")
    assert d.title == "unexpected character U+0000" and d.span.col == 14


def test_fuzz_never_tracebacks():
    rng = _random.Random(1234)
    alphabet = list("abcxyz_019 .,:;()[]{}|=<>!~^*/+-#\"'\\\n\t√Σ∏≈≤≥≠⟂·×→中@$") + [
        "step ", "let ", "assume ", "random ", "by ", "E[", "Var(", "sum(", "Σ_{", "}^{", "..", " for i in ",
        "refute ", "define ", "use ", "derivation ", "source ", "\n  = ", " def ", "index ", "real ",
    ]
    for _ in range(600):
        src = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40)))
        try:
            parse(src, "f.step")
        except StepError as e:
            assert e.diagnostic.title and e.diagnostic.code != "E-internal-parser", (src, e.diagnostic)
            e.diagnostic.render({"f.step": src})


# ------------------------------------------------------------ read_source


def test_read_source_ok_and_empty(tmp_path):
    p = tmp_path / "a.step"
    p.write_text(SAMPLE, encoding="utf-8")
    assert read_source(str(p)) == SAMPLE
    e = tmp_path / "empty.step"
    e.write_bytes(b"")
    assert read_source(str(e)) == ""
    b = tmp_path / "bom.step"
    b.write_bytes(b"\xef\xbb\xbflet x: real\n")
    assert read_source(str(b)) == "let x: real\n"


def _read_err(path):
    with pytest.raises(StepError) as info:
        read_source(str(path))
    return info.value.diagnostic


def test_read_source_missing_and_directory(tmp_path):
    d = _read_err(tmp_path / "nope.step")
    assert d.code == "E-input-not-found" and "nope.step" in d.title
    d = _read_err(tmp_path)
    assert d.code == "E-input-directory"


def test_read_source_binary_nul(tmp_path):
    p = tmp_path / "bin.step"
    p.write_bytes(b"let x: real\nab\x00cd")
    d = _read_err(p)
    assert d.code == "E-input-binary" and "byte offset 14" in d.title
    assert (d.span.line, d.span.col) == (2, 3)


def test_read_source_invalid_utf8(tmp_path):
    p = tmp_path / "latin1.step"
    p.write_bytes('derivation d "caf'.encode() + b"\xe9" + b'"\n')
    d = _read_err(p)
    assert d.code == "E-input-binary"
    assert "byte offset 17" in d.title and "0xe9" in d.title


def test_read_source_too_large(tmp_path):
    p = tmp_path / "big.step"
    p.write_bytes(b"#" * (MAX_FILE_BYTES + 1))
    d = _read_err(p)
    assert d.code == "E-input-too-large"
    ok = tmp_path / "ok.step"
    ok.write_bytes(b"#" * MAX_FILE_BYTES)
    assert len(read_source(str(ok))) == MAX_FILE_BYTES


# ------------------------------------------------------------ numeric claims and calculus


def test_check_named_and_auto():
    prog = parse("check s8: sqrt(8) ≈ 2.83\ncheck e^24 ~= 2.6 × 10^10\n")
    a, b = prog.statements
    assert isinstance(a, S.Check) and a.name.name == "s8" and a.rel == "≈" and show(a.rhs) == "2.83"
    assert a.tol is None
    assert b.name is None and b.rel == "≈" and show(b.rhs) == "(* 2.6 (^ 10 10))"


def test_check_within_and_tilde():
    a = one("check x: softmax([24, 0]) ≈ [1, 0] within 1e-9")
    assert a.tol.relative is False and show(a.tol.value) == "1e-9"
    b = one("check a ≈ b within 0.01 relative")
    assert b.tol.relative is True
    c = one("check e^68 ~ 10^29")
    assert c.rel == "~" and show(c.lhs) == "(^ e 68)"
    # `~` after `random NAMES` is still the distribution
    r = one("random X ~ Normal(0, 1)")
    assert isinstance(r, S.Random) and r.distribution.func == "Normal"


def test_check_events():
    c = one("check P(-1 <= Z <= 1) ≈ 0.68")
    assert show(c.lhs) == "P((<= (<= (neg 1) Z) 1))"
    c = one("check P(|Z| <= 3) ≈ 0.997")
    assert show(c.lhs) == "P((<= abs(Z) 3))"


def test_table_rows_are_indented_lines():
    prog = parse(
        'table "σ" for d_k in [8, 32]:\n'
        "    sqrt(d_k)   ≈ [2.83, 5.66]\n"
        "    # a comment between rows\n"
        "\n"
        "    3 sqrt(d_k)\n"
        "        ≈ [8.5, 17]   within 0.1\n"
        "check x: 1 = 1\n"
    )
    t, c = prog.statements
    assert isinstance(t, S.Table) and t.title == "σ" and t.var.name == "d_k"
    assert [show(v) for v in t.values] == ["8", "32"]
    assert len(t.rows) == 2
    e, rel, cells = t.rows[1]
    assert show(e) == "(. 3 sqrt(d_k))" and rel == "≈" and [show(x) for x in cells] == ["8.5", "17"]
    assert t.rows[1].tol is not None and t.rows[0].tol is None
    assert isinstance(c, S.Check)


def test_table_needs_indented_rows():
    d = diag('table "t" for x in [1]:\nx ≈ [1]\n')
    assert d.code == "E-syntax"


def test_simulate_forms():
    st = one("simulate v: Var(sum(i=1..d_k, q_i k_i)) ≈ d_k where d_k = 1024 "
             "with samples = 200, seed = 1 by var_sum")
    assert isinstance(st, S.Simulate) and st.name.name == "v" and st.rel == "≈"
    assert [b.name.name for b in st.where] == ["d_k"]
    assert [(b.name.name, show(b.value)) for b in st.options] == [("samples", "200"), ("seed", "1")]
    assert st.proof.text == "var_sum"
    st = one("simulate w: E[X] ≈ 0")
    assert st.where == [] and st.options == [] and st.proof is None


def test_derivative_notation():
    e = expr("d/dx x^2")
    assert isinstance(e, S.Call) and e.func == "diff" and show(e) == "diff((^ x 2), x)"
    assert e.func_span.col == 9 and e.func_span.end_col == 13
    assert ex("∂p_i/∂s_j") == "diff(p_i, s_j)"
    assert ex("∂softmax(s)_i/∂s_{j}") == "diff((sub softmax(s) i), (sub s j))"
    assert ex("d/dd_k f") == "diff(f, d_k)"
    # with spaces, or `d/d_k`, it is a division
    assert ex("d / dx") == "(/ d dx)"
    assert ex("d/d_k") == "(/ d d_k)"
    e = expr("∂f/∂x")
    assert e.func_span.col == 9


def test_a_derivative_is_a_factor_after_a_space():
    """`y d/dx (x^2)` is `y` times `d/dx (x^2)`, as for any other factor; the derivative takes one operand.  A `∂`
    form after a factor needs `*` (after `∂²f/∂x∂y` a next `∂` would continue the variables): a named error."""
    assert ex("y d/dx (x^2)") == "(. y diff((^ x 2), x))"
    assert ex("3 d/dx x^2 y") == "(. (. 3 diff((^ x 2), x)) y)"  # d/dx takes x^2, then the product goes on
    assert ex("y d/dx d/dx x^3") == "(. y diff(diff((^ x 3), x), x))"
    assert ex("a - d/dx x") == "(- a diff(x, x))"  # still a difference, not a product
    assert ex("y * ∂/∂x (x^2)") == "(* y diff((^ x 2), x))"
    assert ex("g_i * ∂w_i/∂a_j") == "(* g_i diff(w_i, a_j))"
    for text in ("step s: y ∂/∂x (x^2) = 2 x y\n", "step s: g_i ∂w_i/∂a_j = 0\n"):
        d = diag("let x, y: real\n" + text)
        assert d.span.line == 2 and "`*`" in d.help, d.help


def test_superscript_powers():
    assert ex("σ²") == "(^ σ 2)"
    assert ex("x⁻¹") == "(^ x (neg 1))"
    assert ex("10¹²") == "(^ 10 12)"
    assert ex("(a + b)²") == "(^ (+ a b) 2)"
    assert ex("x² y") == "(. (^ x 2) y)"  # a superscript binds tighter than juxtaposition
    assert ex("2 σ²") == "(. 2 (^ σ 2))"
    assert ex("E[X²]") == "E[(^ X 2)]"
    assert ex("σ^2") == "(^ σ 2)"  # not a superscript: nothing changes
    # a superscript after nothing is an error with carets, not a traceback
    d = diag("step s: ² = 4\n")
    assert d.span.line == 1 and d.span.col == 9


def test_higher_partial_derivatives():
    # ∂²f/∂x∂y = ∂/∂x (∂f/∂y): the last variable below the bar is applied first
    assert ex("∂²f/∂x∂y") == "diff(diff(f, y), x)"
    assert ex("∂²f/∂x²") == "diff(diff(f, x), x)"
    assert ex("∂³f/∂x²∂y") == "diff(diff(diff(f, y), x), x)"
    assert ex("∂²/∂x∂y f") == "diff(diff(f, y), x)"
    assert ex("∂²/∂x² (x y)") == "diff(diff((. x y), x), x)"
    assert ex("∂f/∂x") == "diff(f, x)"  # first order as before
    d = diag("step s: ∂³f/∂x∂y = 0\n")  # the orders must add up
    assert d.code == "E-calculus" and "order 3" in d.label and d.span.col == 9
    d = diag("step s: ∂²f/∂x⁰∂y = 0\n")
    assert d.code == "E-calculus"


PLANNED_PATHS = SHIPPED + TUTORIAL  # derivations/*.step, derivations/bad/*.step, docs/tutorial/*.step


@pytest.mark.parametrize("path", PLANNED_PATHS, ids=rel)
def test_planned_results_are_the_checkers_results(path):
    """The pytest plugin's items come from the syntax; the checker must produce the same names."""
    from stepcheck.syntax import planned_results

    text = path.read_text(encoding="utf-8")
    try:
        planned = [n for n, _, _ in planned_results(parse(text, str(path)))]
    except StepError:
        return  # an unparsable file: the plugin checks it at collection instead
    rep = shipped_report(path)  # the shared report (cross-checks change verdicts, never the names)
    got = [s.name for s in rep.steps]
    if not rep.fatal:
        assert got == planned
    else:  # a step with an error may produce no result; never a result that was not planned
        it = iter(planned)
        assert all(n in it for n in got)


# ------------------------------------------------------------ mistakes named by example (match_examples)


def _lark_error(src: str):
    from lark.exceptions import UnexpectedToken

    from stepcheck.parser import _get_parser

    with pytest.raises(UnexpectedToken) as info:
        _get_parser().parse(src)
    return info.value


def test_named_examples_fail_and_name_one_state_each():
    """Every example fails with lark's UnexpectedToken; different names never share a parser state."""
    from stepcheck.parse_errors import _EXAMPLES, NAMED_EXAMPLES

    seen = {}
    for name, snippets in _EXAMPLES.items():
        assert len(snippets) == 2 * len(NAMED_EXAMPLES[name])  # as the first statement and after one
        for src in snippets:
            state = _lark_error(src).state
            key = (len(state.state_stack), state.position)
            assert seen.setdefault(key, name) == name, (src, name, seen[key])


@pytest.mark.parametrize("src,name", [
    ("step s E[X] = 1", "step-colon"),
    ("let a: real\nlet b: real\nstep s E[X] = 1", "step-colon"),  # deeper in the file
    ("let x: real; step s E", "step-colon"),
    ("refute r Var(X) = 2", "refute-colon"),
    ("random X\nrefute r x", "refute-colon"),
    ("assume a E[X] = 0", "assume-colon"),
    ("let x: real\nassume a", "assume-colon"),
    ("let x", "let-colon"),
    ("let x, y\n", "let-colon"),
    ("step s: E[X]\n", "step-head-only"),
    ("let x: real\nstep s: (x + 1)^2", "step-head-only"),
    # where no name applies
    ("let x real", None),  # may also continue with `,`: not the let-colon state
    ('table "t" for x in [1] x', None),  # expects only `:` too, but is not a step, refute, assume or let
    ("simulate w x", None),
    ("check c: E[X]\n", None),  # waits for a relation too, but is not a step
    ("step s: x = 1 by", None),
    ("step s: (a + sqrt x) = 1", None),
])
def test_match_examples_names_statement_mistakes(src, name):
    from stepcheck.parse_errors import named_error
    from stepcheck.parser import _get_parser

    assert named_error(_lark_error(src), _get_parser()) == name


@pytest.mark.parametrize("src,label,hint", [
    ("step s E[X] = 1", "expected `:`", "write `step NAME: EXPR = EXPR`"),
    ("refute r Var(X) = 2", "expected `:`", "write `refute NAME: EXPR = EXPR`"),
    ("assume a E[X] = 0", "expected `:`", "write `assume LABEL: FACT, FACT`"),
    ("let x\n", "expected `:`", "write `let NAME: TYPE`"),
    # the statement that failed names the form, not the first keyword of the line
    ("let x: real; step s E", "expected `:`", "write `step NAME: EXPR = EXPR`"),
    ("assume a: x = 1; let y", "expected `:`", "write `let NAME: TYPE`"),
    ("let x: real; step s: A", "this step has no link", "a step states a relation"),
    # not named: the help lists what lark expected
    ('table "t" for x in [1] x', "", "expected `:`"),
    ("simulate w x", "", "expected `:`"),
    ("let x 1", "", "`:`, `,`"),
    ("step s: A by r", "", "expected a relation such as `=` or `<=`"),
    ("step s: x = 1 by a; check c: x\n", "", "expected a relation such as `=` or `<=` or `~`"),
])
def test_named_mistakes_diagnostics(src, label, hint):
    d = diag(src)
    assert d.code == "E-syntax" and d.label == label, (src, d.label)
    assert hint in d.help, (src, d.help)


def test_mistakes_inside_expressions_are_named_at_any_depth():
    """match_examples compares the stack depth: inside expressions the expected terminals decide."""
    for src in ("step s: sqrt x = 1", "step s: (a + sqrt x) = 1", "step s: a = E[(b + 2 * sqrt x)^2]"):
        d = diag(src)
        assert d.title == "unexpected token 'x'" and "e.g. `sqrt(x)`" in d.help, (src, d.help)
    for src in ("step s: Σ_i x_i = 1", "step s: (1 + Σ_i x_i) = 1"):
        assert "Σ_{i=1}^{n}" in diag(src).help, src


def test_parse_tree_builder_is_a_lark_transformer():
    from lark import Transformer

    from stepcheck.parse_tree import AstBuilder

    assert issubclass(AstBuilder, Transformer)


def test_import_parser_does_not_load_lark():
    import subprocess
    import sys

    code = ("import sys, stepcheck.parser\n"
            "print(sorted(m for m in ('lark', 'stepcheck.parse_tree', 'stepcheck.parse_errors') if m in sys.modules))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.strip() == "[]", r.stdout + r.stderr


def test_the_builder_has_a_method_for_every_node_the_grammar_makes():
    """One method per rule or alias that makes a tree node (`_rule`s and one-child `?rule`s make none)."""
    from stepcheck.parse_tree import AstBuilder
    from stepcheck.parser import _get_parser

    made = {r.alias or r.origin.name for r in _get_parser().rules
            if not (r.alias or r.origin.name).startswith("_") and not (r.options.expand1 and not r.alias)}
    assert {"step", "link", "juxt", "ts_index", "dist_call", "rel_tilde"} <= made
    assert not sorted(n for n in made if not callable(getattr(AstBuilder, n, None)))
