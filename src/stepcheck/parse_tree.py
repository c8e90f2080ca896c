"""lark's parse tree of ``grammar/step.lark`` → the AST of :mod:`stepcheck.syntax`.

:class:`AstBuilder` has one method per rule (or alias) of the grammar that
makes a tree node, called as ``method(meta, children)`` like lark's
``v_args(meta=True)``: ``meta`` has the positions that
``propagate_positions=True`` gives each node.  :func:`check_depth` then
rejects expressions nested deeper than the parser's limit, so that the later,
recursive stages stay within Python's recursion limit.

This module imports lark; :mod:`stepcheck.parser` imports it only when it
parses something.
"""
from __future__ import annotations

from lark import Transformer, Tree

from . import syntax as S
from .errors import Span, error
from .parse_lexer import RELATIONS

_FUNC_CANON = {"ln": "log", "√": "sqrt"}


_SUPERSCRIPT_DIGITS = {c: i for i, c in enumerate("⁰¹²³⁴⁵⁶⁷⁸⁹")}


def superscript_value(tok) -> int:
    """The integer a SUPERSCRIPT token writes: ``²`` is 2, ``⁻¹`` is -1."""
    text = str(tok)
    value = int("".join(str(_SUPERSCRIPT_DIGITS[c]) for c in text.lstrip("⁻")))
    return -value if text.startswith("⁻") else value


def _binop(op: str, implicit: bool = False):
    def method(self, meta, ch):
        return S.BinOp(op, ch[0], ch[1], self.span(meta), implicit)

    return method


def _plain_call(fn: str):
    def method(self, meta, ch):
        return S.Call(fn, ch[0], self.span(meta), Span.point(self.file, meta.line, meta.column, len(fn)))

    return method


class AstBuilder(Transformer):
    """Build the statements of one file from its parse tree.

    :meth:`transform` does what lark's ``Transformer_NonRecursive`` does with
    ``v_args(meta=True)`` (bottom-up, without recursion, so deep trees cannot
    overflow the stack), about 1.5 times faster because it calls the methods
    directly instead of through lark's per-call wrappers; and a
    :class:`~stepcheck.errors.StepError` raised by a method (a bad string
    escape) reaches the caller as it is, not wrapped in lark's ``VisitError``.
    """

    def __init__(self, file: str):
        super().__init__()
        self.file = file

    def transform(self, tree):
        done: dict[int, object] = {}
        for t in tree.iter_subtrees():  # children before parents
            children = [done.pop(id(c)) if isinstance(c, Tree) else c for c in t.children]
            done[id(t)] = getattr(self, t.data)(t.meta, children)
        return done[id(tree)]

    # -------------------------------------------------- helpers
    def span(self, meta) -> Span:
        return Span(self.file, meta.line, meta.column, meta.end_line, meta.end_column)

    def token_span(self, tok) -> Span:
        return Span(self.file, tok.line, tok.column, tok.end_line, tok.end_column)

    def string(self, tok) -> str:
        """The text of a STRING token; ``\\"`` and ``\\\\`` are its only escapes."""
        raw = str(tok)[1:-1]
        out = []
        i = 0
        while i < len(raw):
            ch = raw[i]
            if ch == "\\":
                nxt = raw[i + 1] if i + 1 < len(raw) else ""
                if nxt in ('"', "\\"):
                    out.append(nxt)
                    i += 2
                    continue
                col = tok.column + 1 + i
                raise error(
                    f"unknown escape `\\{nxt}` in a string",
                    Span(self.file, tok.line, col, tok.line, col + 2),
                    code="E-syntax",
                    help='the only escapes are `\\"` (a quote) and `\\\\` (a backslash)',
                )
            out.append(ch)
            i += 1
        return "".join(out)

    # -------------------------------------------------- program
    def start(self, meta, ch):
        return list(ch)

    # -------------------------------------------------- declarations
    def derivation(self, meta, ch):
        title = self.string(ch[1]) if len(ch) > 1 else None
        return S.Derivation(ch[0], title, self.span(meta))

    def source(self, meta, ch):
        return S.Source(self.string(ch[0]), self.span(meta))

    def use(self, meta, ch):
        return S.Use(self.string(ch[0]), self.span(meta))

    def names(self, meta, ch):
        return list(ch)

    def let(self, meta, ch):
        return S.Let(ch[0], ch[1], self.span(meta))

    def ts_positive_integer(self, meta, ch):
        return S.TypeSpec("positive integer", self.span(meta))

    def ts_integer(self, meta, ch):
        return S.TypeSpec("integer", self.span(meta))

    def ts_real(self, meta, ch):
        return S.TypeSpec("real", self.span(meta))

    def ts_positive_real(self, meta, ch):
        return S.TypeSpec("positive real", self.span(meta))

    def ts_nonnegative_real(self, meta, ch):
        return S.TypeSpec("nonnegative real", self.span(meta))

    def ts_index(self, meta, ch):
        return S.TypeSpec("index", self.span(meta), ch[0], ch[1])

    def ts_matrix(self, meta, ch):
        return S.TypeSpec("matrix", self.span(meta), ch[0], ch[1])

    def random(self, meta, ch):
        names, rest = ch[0], ch[1:]
        dist = fam = None
        for c in rest:
            if isinstance(c, S.FamilyRange):
                fam = c
            else:
                dist = c
        return S.Random(names, fam, dist, self.span(meta))

    def dist_call(self, meta, ch):
        name, args = ch
        return S.Call(name.name, args, self.span(meta), name.span)

    def family(self, meta, ch):
        return S.FamilyRange(ch[0], ch[1], ch[2], self.span(meta))

    def real_decl(self, meta, ch):
        return S.RealDecl(ch[0], ch[1] if len(ch) > 1 else None, self.span(meta))

    def define(self, meta, ch):
        return S.Define(ch[0], ch[1], self.span(meta))

    # -------------------------------------------------- facts
    def assume(self, meta, ch):
        return S.Assume(ch[0], list(ch[1:]), self.span(meta))

    def eq_fact(self, meta, ch):
        cond = ch[3] if len(ch) > 3 else None
        return S.EqFact(ch[1], ch[0], ch[2], self.span(meta), cond)

    def indep_fact(self, meta, ch):
        return S.IndepFact("independent", ch[0], self.span(meta), ch[1] if len(ch) > 1 else None)

    def uncorr_fact(self, meta, ch):
        return S.IndepFact("uncorrelated", ch[0], self.span(meta), ch[1] if len(ch) > 1 else None)

    def perp_fact(self, meta, ch):
        cond = ch[2] if len(ch) > 2 else None
        return S.IndepFact("independent", [ch[0], ch[1]], self.span(meta), cond, blocks=True)

    def for_cond(self, meta, ch):
        return S.ForCond(ch[0], ch[1], self.span(meta))

    # -------------------------------------------------- steps
    def step_head(self, meta, ch):
        return (ch[0], ch[1], self.span(meta))

    refute_head = step_head

    def step(self, meta, ch):
        (name, first, span), links = ch[0], list(ch[1:])
        cond = links.pop() if links and isinstance(links[-1], S.ForCond) else None
        return S.Step(name, first, links, span, cond=cond)

    def link(self, meta, ch):
        refs = list(ch[2:])
        return S.Link(ch[0], ch[1], refs, self.span(meta), has_by=bool(refs))

    def rel_link(self, meta, ch):
        return S.Link(ch[0], ch[1], [], self.span(meta))

    def refute(self, meta, ch):
        (name, first, span), link = ch[0], ch[1]
        return S.Step(name, first, [link], span, kind="refute", under=list(ch[2:]))

    def ref_word(self, meta, ch):
        return str(ch[0])

    def ref_plain(self, meta, ch):
        return S.Ref(ch[0], self.span(meta))

    def ref_dotted(self, meta, ch):
        return S.Ref(f"{ch[0]}.{ch[1]}", self.span(meta))

    def ref_def(self, meta, ch):
        return S.Ref(f"def {ch[0]}", self.span(meta))

    def rel(self, meta, ch):
        return RELATIONS[str(ch[0])]

    # -------------------------------------------------- numeric claims
    def rel_tilde(self, meta, ch):
        return "~"

    def check(self, meta, ch):
        name = None
        if isinstance(ch[0], S.Name) and len(ch) >= 4 and isinstance(ch[2], str):
            name, ch = ch[0], ch[1:]
        lhs, rel, rhs = ch[0], ch[1], ch[2]
        rest = list(ch[3:])
        fmt = rest.pop() if rest and isinstance(rest[-1], tuple) else None
        tol = rest[0] if rest else None
        return S.Check(name, lhs, rel, rhs, tol, self.span(meta), fmt[1] if fmt else None)

    def float_mode(self, meta, ch):
        return ("float", ch[0])

    def tol_abs(self, meta, ch):
        return S.Tolerance(ch[0], False, self.span(meta))

    def tol_rel(self, meta, ch):
        return S.Tolerance(ch[0], True, self.span(meta))

    def table(self, meta, ch):
        title, var, vec, rows = self.string(ch[0]), ch[1], ch[2], list(ch[3:])
        return S.Table(title, var, vec.items, rows, self.span(meta))

    def table_row(self, meta, ch):
        expr, rel, vec = ch[0], ch[1], ch[2]
        tol = ch[3] if len(ch) > 3 else None
        return S.TableRow(expr, rel, vec.items, self.span(meta), tol)

    def simulate(self, meta, ch):
        name, lhs, rel, rhs = ch[0], ch[1], ch[2], ch[3]
        st = S.Simulate(name, lhs, rel, rhs, self.span(meta))
        for item in ch[4:]:
            if isinstance(item, S.Tolerance):
                st.tol = item
                continue
            kind, val = item
            if kind == "where":
                st.where = val
            elif kind == "with":
                st.options = val
            else:
                st.proof = val
        return st

    def sim_where(self, meta, ch):
        return ("where", list(ch))

    def sim_with(self, meta, ch):
        return ("with", list(ch))

    def sim_by(self, meta, ch):
        return ("by", ch[0])

    def binding(self, meta, ch):
        return S.Binding(ch[0], ch[1], self.span(meta))

    # -------------------------------------------------- calculus
    def ddx(self, meta, ch):
        tok, f = ch
        var = str(tok)[3:]
        vspan = Span(self.file, tok.line, tok.column + 3, tok.end_line, tok.end_column)
        return S.Call("diff", [f, S.Name(var, vspan)], self.span(meta), self.token_span(tok))

    def partial(self, meta, ch):
        f, x = ch
        return S.Call("diff", [f, x], self.span(meta), Span.point(self.file, meta.line, meta.column))

    def partial_op(self, meta, ch):
        x, f = ch
        return S.Call("diff", [f, x], self.span(meta), Span.point(self.file, meta.line, meta.column))

    def dvars(self, meta, ch):
        """``∂x∂y``, ``∂x²``: (variable, order) pairs, in the written order."""
        out: list[list] = []
        for c in ch:
            if getattr(c, "type", None) == "SUPERSCRIPT":
                out[-1][1] = superscript_value(c)
                if out[-1][1] < 1:
                    raise error("the order of a derivative is a positive whole number", self.token_span(c),
                                code="E-calculus")
            else:
                out.append([c, 1])
        return out

    dvars_op = dvars

    def partial_n(self, meta, ch):
        """``∂²f/∂x∂y`` = ∂/∂x (∂f/∂y): nested ``diff`` calls, innermost for the last variable."""
        order, f, xs = ch
        return self._partial_n(meta, order, f, xs)

    def partial_n_op(self, meta, ch):
        order, xs, f = ch
        return self._partial_n(meta, order, f, xs)

    def _partial_n(self, meta, order, f, xs):
        n = superscript_value(order)
        total = sum(k for _x, k in xs)
        if n != total:
            raise error(f"the order ∂{order} does not match the variables below the bar", self.span(meta),
                        f"order {n}, but {total} differentiation{'s' if total != 1 else ''}",
                        help="the orders below the bar add up to the order on top: `∂²f/∂x∂y`, `∂²f/∂x²`",
                        code="E-calculus")
        point = Span.point(self.file, meta.line, meta.column)
        for x, k in reversed(xs):
            for _ in range(k):
                f = S.Call("diff", [f, x], self.span(meta), point)
        return f

    # -------------------------------------------------- expressions
    def name(self, meta, ch):
        return S.Name(str(ch[0]), self.token_span(ch[0]))

    def number(self, meta, ch):
        return S.Num(str(ch[0]), self.token_span(ch[0]))

    def exprs(self, meta, ch):
        return list(ch)

    args = exprs

    def vector(self, meta, ch):
        return S.Vector(ch[0], self.span(meta))

    def subscript(self, meta, ch):
        return S.Subscript(ch[0], ch[1], self.span(meta))

    softmax_index = subscript

    add = _binop("+")
    sub = _binop("-")
    mul = _binop("*")
    div = _binop("/")
    pow = _binop("^")
    juxt = _binop("*", implicit=True)

    def pow_sup(self, meta, ch):  # σ² is σ^2
        base, tok = ch
        k = superscript_value(tok)
        num = S.Num(str(abs(k)), self.token_span(tok))
        return S.BinOp("^", base, S.Neg(num, num.span) if k < 0 else num, self.span(meta))

    def transpose(self, meta, ch):  # Kᵀ is K^T
        return S.BinOp("^", ch[0], S.Name("T", self.span(meta)), self.span(meta))

    def neg(self, meta, ch):
        return S.Neg(ch[0], self.span(meta))

    def abs_bars(self, meta, ch):
        return S.Call("abs", [ch[0]], self.span(meta), Span.point(self.file, meta.line, meta.column))

    def sqrt_sym(self, meta, ch):
        return S.Call("sqrt", [ch[0]], self.span(meta), Span.point(self.file, meta.line, meta.column))

    def func_name(self, meta, ch):
        tok = ch[0]
        return (_FUNC_CANON.get(str(tok), str(tok)), self.token_span(tok))

    p_name = func_name
    softmax_name = func_name

    def call_paren(self, meta, ch):
        (fn, fspan), args = ch
        if not isinstance(args, list):  # P(event)
            args = [args]
        return S.Call(fn, args, self.span(meta), fspan, bracket=False)

    softmax_call = call_paren

    def call_bracket(self, meta, ch):
        (fn, fspan), args = ch
        if not isinstance(args, list):
            args = [args]
        return S.Call(fn, args, self.span(meta), fspan, bracket=True)

    sum_plain = _plain_call("sum")
    prod_plain = _plain_call("prod")

    def sum_call(self, meta, ch):
        return S.BigOp("sum", ch[0], ch[1], ch[2], ch[3], self.span(meta))

    def prod_call(self, meta, ch):
        return S.BigOp("prod", ch[0], ch[1], ch[2], ch[3], self.span(meta))

    def softmax_index_short(self, meta, ch):
        call, tok = ch
        sp = Span(self.file, tok.line, tok.column + 1, tok.end_line, tok.end_column)
        return S.Subscript(call, [S.Name(str(tok)[1:], sp)], self.span(meta))

    def arrow_arg(self, meta, ch):
        return S.Compare("->", ch[0], ch[1], self.span(meta))

    def arrow_side_arg(self, meta, ch):
        side = "+" if str(ch[2]).endswith("+") else "-"
        return S.Compare("->" + side, ch[0], ch[1], self.span(meta))

    def in_arg(self, meta, ch):
        return S.Compare("in", ch[0], ch[1], self.span(meta))

    def compare(self, meta, ch):
        return S.Compare(ch[1], ch[0], ch[2], self.span(meta))

    def big_sym(self, meta, ch):
        return "prod" if str(ch[0]) in ("∏", "prod") else "sum"

    def big_head(self, meta, ch):
        return tuple(ch)  # (op, var, lo, hi)

    def bigsum(self, meta, ch):
        (op, var, lo, hi), body = ch
        return S.BigOp(op, var, lo, hi, body, self.span(meta))


# ============================================================ depth check

_EXPR_TYPES = (S.Num, S.Name, S.Subscript, S.BinOp, S.Neg, S.Call, S.BigOp, S.Vector, S.Compare)


def _children(node):
    if isinstance(node, (S.BinOp, S.Compare)):
        return (node.left, node.right)
    if isinstance(node, S.Neg):
        return (node.operand,)
    if isinstance(node, S.Call):
        return tuple(node.args)
    if isinstance(node, S.Subscript):
        return (node.base, *node.indices)
    if isinstance(node, S.BigOp):
        return (node.var, node.lo, node.hi, node.body)
    if isinstance(node, S.Vector):
        return tuple(node.items)
    return ()


def _statement_exprs(st):
    for v in S.field_values(st):
        if isinstance(v, _EXPR_TYPES):
            yield v
        elif isinstance(v, list):
            for x in v:
                if isinstance(x, _EXPR_TYPES):
                    yield x
                elif not isinstance(x, (str, S.Name)) and hasattr(x, "__dataclass_fields__"):
                    yield from _statement_exprs(x)
        elif hasattr(v, "__dataclass_fields__") and not isinstance(v, Span):
            yield from _statement_exprs(v)


def check_depth(statements, file: str, max_depth: int) -> None:
    """Raise ``E-nesting`` for an expression more than ``max_depth`` operations deep (iteratively)."""
    for st in statements:
        for root in _statement_exprs(st):
            stack = [(root, 1)]
            while stack:
                node, d = stack.pop()
                if d > max_depth:
                    raise error(
                        f"expression too deep (more than {max_depth} nested operations)",
                        root.span if root.span.line == root.span.end_line else Span.point(file, root.span.line, root.span.col),
                        "in this expression",
                        code="E-nesting",
                        help="split it with `define` or into several steps (for long sums use `sum(i=1..n, ...)`)",
                    )
                for c in _children(node):
                    stack.append((c, d + 1))
