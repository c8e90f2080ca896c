"""Parse ``.step`` text into the AST of :mod:`stepcheck.syntax`.

``parse(text, file)`` returns a :class:`~stepcheck.syntax.Program` or raises
:class:`~stepcheck.errors.StepError` carrying one rustc-style diagnostic; no
input, however malformed, produces a Python traceback.  ``read_source(path)``
reads a file with the same guarantee.

How it works:

1. a pre-scan (plain Python, linear time) rejects lines longer than
   :data:`MAX_STATEMENT_CHARS` and brackets nested deeper than
   :data:`MAX_NESTING` *before* lark runs, and finds unclosed or mismatched
   brackets and unterminated strings (reported when lark fails at or after
   them, so a mistake earlier in the file is reported first);
2. lark's LALR parser (grammar in ``grammar/step.lark``, basic lexer) with a
   post-lexer, :class:`_Continuation`, that drops the end of line before a
   line beginning with a relation: that line continues the chain above;
3. a non-recursive transformer, :class:`_Builder`, builds the AST; then an
   iterative check rejects expressions deeper than :data:`MAX_EXPR_DEPTH`
   (a long chain of operators such as ``x^x^x^...``), so later recursive
   stages stay within Python's recursion limit.

Encodings the AST uses beyond the obvious:

* Chained relations inside ``P(...)`` nest to the left: ``P(a <= Z <= b)``
  is ``Call("P", [Compare("<=", Compare("<=", a, Z), b)])``.
* ``limit(f, x -> a)`` gives the argument ``Compare("->", x, a)`` and
  ``max(f, x in [a, b])`` gives ``Compare("in", x, Vector([a, b]))``.
* ``softmax(v)_i``, ``softmax(v)_{i}`` and ``softmax(v)[i]`` are
  ``Subscript(base=Call("softmax", [v]), indices=[i])``: the only
  Subscript whose base is not a Name.
* ``|x|`` is ``Call("abs", [x])``; ``√x`` is ``Call("sqrt", [x])``;
  ``ln`` is ``Call("log", ...)``; plain ``sum(v)`` is ``Call("sum", [v])``.
* Parentheses leave no node: ``(a + b)`` is the BinOp itself.
* ``d/dx f`` (written without spaces; ``d / dx`` is a division) and
  ``∂f/∂x`` are ``Call("diff", [f, x])`` with ``func_span`` on ``d/dx`` or
  on the first ``∂``.  ``d/dx`` applies to the following factor (a power):
  ``d/dx x^2 y`` is ``diff(x^2, x) * y``; write ``d/dx (x^2 y)``.
* ``check`` without a name gives ``Check(name=None, ...)``; ``~`` after an
  expression in ``check``/``table``/``simulate`` is the order-of-magnitude
  relation (rel ``"~"``), ``~`` after ``random NAMES`` the distribution.
* Table rows: see :class:`_Continuation` (indented lines after ``table``).
"""
from __future__ import annotations

import gc
import re
import threading
import unicodedata
from pathlib import Path

from . import syntax as S
from .errors import Span, StepError, error

MAX_FILE_BYTES = 1_000_000
MAX_NESTING = 200  # brackets/parentheses open at once
MAX_STATEMENT_CHARS = 20_000  # characters of code on one line
MAX_EXPR_DEPTH = 300  # depth of an expression tree (operators nested)

__all__ = [
    "parse",
    "read_source",
    "MAX_FILE_BYTES",
    "MAX_NESTING",
    "MAX_STATEMENT_CHARS",
    "MAX_EXPR_DEPTH",
]

# canonical relation spellings
_REL = {
    "=": "=",
    "<": "<",
    "<=": "<=",
    "≤": "<=",
    ">": ">",
    ">=": ">=",
    "≥": ">=",
    "!=": "!=",
    "≠": "!=",
    "≈": "≈",
    "~=": "≈",
}
_REL_VALUES = frozenset(_REL)

_FUNC_CANON = {"ln": "log", "√": "sqrt"}

# ============================================================ reading files


def _offset_position(data: bytes, offset: int) -> tuple[int, int]:
    """1-based line and column (counted in bytes) of byte ``offset``."""
    line = data.count(b"\n", 0, offset) + 1
    start = data.rfind(b"\n", 0, offset) + 1
    return line, offset - start + 1


def read_source(path: str) -> str:
    """Read a ``.step`` file as text, or raise :class:`StepError` (``E-input-*``).

    Errors: missing file, a directory, unreadable, larger than
    :data:`MAX_FILE_BYTES`, NUL bytes, invalid UTF-8 (the byte offset is
    named).  An empty file is not an error here.  A UTF-8 byte-order mark is
    removed.
    """
    p = Path(path)
    shown = str(path)
    try:
        if not p.exists():
            raise error(
                f"file not found: {shown}",
                None,
                code="E-input-not-found",
                help="check the path; `.step` files are usually given relative to the current directory",
            )
        if p.is_dir():
            raise error(
                f"{shown} is a directory, not a `.step` file",
                None,
                code="E-input-directory",
                help="give the path of a `.step` file inside it",
            )
        size = p.stat().st_size
        if size > MAX_FILE_BYTES:
            raise error(
                f"{shown} is too large ({size:,} bytes; the limit is {MAX_FILE_BYTES:,})",
                None,
                code="E-input-too-large",
                help="split the derivation into several smaller files",
            )
        with open(p, "rb") as fh:
            data = fh.read(MAX_FILE_BYTES + 1)
    except StepError:
        raise
    except OSError as exc:
        raise error(
            f"cannot read {shown}: {exc.strerror or exc}",
            None,
            code="E-input-unreadable",
        ) from None
    if len(data) > MAX_FILE_BYTES:  # grew while we looked
        raise error(
            f"{shown} is too large (more than {MAX_FILE_BYTES:,} bytes)",
            None,
            code="E-input-too-large",
            help="split the derivation into several smaller files",
        )
    nul = data.find(b"\x00")
    if nul >= 0:
        line, col = _offset_position(data, nul)
        raise error(
            f"{shown} looks like a binary file: NUL byte at byte offset {nul}",
            Span.point(shown, line, col),
            code="E-input-binary",
            help="a `.step` file is UTF-8 text",
        )
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
        bom = 3
    else:
        bom = 0
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        off = exc.start + bom
        line, col = _offset_position(data, exc.start)
        raise error(
            f"{shown} is not valid UTF-8: invalid byte 0x{data[exc.start]:02x} at byte offset {off}",
            Span.point(shown, line, col),
            code="E-input-binary",
            help="save the file as UTF-8 text",
        ) from None


# ============================================================ the lark parser

_lock = threading.Lock()
_PARSER = None  # the Lark object, built on first use


def _grammar_text() -> str:
    try:
        from importlib.resources import files

        res = files("stepcheck").joinpath("grammar/step.lark")
        if res.is_file():
            return res.read_text(encoding="utf-8")
    except Exception:  # not installed as a package, namespace package, ...
        pass
    return (Path(__file__).resolve().parents[2] / "grammar" / "step.lark").read_text(encoding="utf-8")


class _Continuation:
    """Post-lexer: a line that begins with a relation continues the line above.

    Runs of end-of-line tokens (blank and comment-only lines included) are
    collapsed to the first one, which is dropped when the next token is a
    relation.  An end of line is added at the end of the input.

    Tables: from a line whose first token is the keyword ``table``, the end
    of line before an *indented* line (first token not in column 1) becomes a
    ``_TROW`` token, which starts one row of the table; the first line that
    is not indented ends the table (its end of line stays ``_NL``).
    """

    always_accept = ()

    def process(self, stream):
        from lark import Token

        pending = None
        last = None
        in_table = False
        for tok in stream:
            if tok.type == "_NL":
                if pending is None:
                    pending = tok
                continue
            if pending is not None:
                if tok.value not in _REL_VALUES:
                    if in_table and (tok.column or 1) > 1 and tok.type != "TABLE":
                        yield Token.new_borrow_pos("_TROW", pending.value, pending)
                    else:
                        in_table = False
                        yield pending
                pending = None
            if tok.type == "TABLE":  # a keyword: only ever the start of a statement
                in_table = True
            yield tok
            last = tok
        if pending is not None:
            yield pending
        elif last is not None:
            yield Token(
                "_NL",
                "",
                start_pos=last.end_pos,
                line=last.end_line,
                column=last.end_column,
                end_line=last.end_line,
                end_column=last.end_column,
                end_pos=last.end_pos,
            )


def _cache_file(grammar: str):
    """Where lark keeps the analysed LALR tables between runs (``False``: no cache).

    Building the tables takes about 0.3 s, a third of ``verify FILE``'s own
    time; loading them takes a few milliseconds.  The file lives in the
    user's cache directory (``$STEPCHECK_CACHE_DIR``, else
    ``$XDG_CACHE_HOME/stepcheck`` or ``~/.cache/stepcheck``), never in a
    shared temporary directory, since lark reads it with pickle; its name
    carries the grammar's hash and the lark and Python versions, and lark
    checks the hash stored inside before using it, rebuilding the tables
    when anything changed.  ``STEPCHECK_CACHE_DIR=""`` turns the cache off;
    a directory that cannot be created does too.
    """
    import hashlib
    import os
    import sys

    base = os.environ.get("STEPCHECK_CACHE_DIR")
    if base is None:
        xdg = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        base = os.path.join(xdg, "stepcheck")
    if not base:
        return False
    try:
        import lark

        os.makedirs(base, mode=0o700, exist_ok=True)
        if not os.access(base, os.W_OK | os.X_OK):
            return False
        digest = hashlib.sha256(grammar.encode("utf-8")).hexdigest()[:16]
        return os.path.join(base, f"grammar-{digest}-lark{lark.__version__}-py{sys.version_info[0]}{sys.version_info[1]}.lark")
    except Exception:  # no home directory, read-only file system, ...
        return False


def _get_parser():
    global _PARSER
    if _PARSER is None:
        with _lock:
            if _PARSER is None:
                from lark import Lark

                grammar = _grammar_text()
                _PARSER = Lark(
                    grammar,
                    parser="lalr",
                    lexer="basic",
                    propagate_positions=True,
                    postlex=_Continuation(),
                    maybe_placeholders=False,
                    cache=_cache_file(grammar),
                )
    return _PARSER


# ============================================================ pre-scan

_SCAN = re.compile(r'"(?:[^"\\\n]|\\.)*(")?|#[^\n]*|[()\[\]{}]|\n')
_OPEN = {"(": ")", "[": "]", "{": "}"}
_CLOSE = {")": "(", "]": "[", "}": "{"}


def _code_length(line: str) -> int:
    """Length of ``line`` without its trailing comment (strings respected)."""
    for m in re.finditer(r'"(?:[^"\\]|\\.)*"?|#', line):
        if m.group() == "#":
            return m.start()
    return len(line)


def _unclosed(file: str, top: tuple, why: str):
    """The diagnostic for a bracket never closed, and its line."""
    b, bl, bc = top
    return error(
        f"unclosed `{b}`",
        Span.point(file, bl, bc),
        f"this `{b}` is never closed",
        code="E-syntax",
        help=f"add `{_OPEN[b]}` before the end of the line{why}",
    ), bl


def _prescan(text: str, file: str):
    """Check limits and bracket/string structure.

    Raises at once for a limit (nesting, line length); returns the first
    structural problem (a StepError, not raised) or None.
    """
    deferred = None
    deferred_line = None

    def hard(exc, line):
        if deferred is not None and deferred_line <= line:
            raise deferred
        raise exc

    # brackets and strings
    line = 1
    line_start = 0
    stack: list[tuple[str, int, int]] = []  # (bracket, line, col)
    for m in _SCAN.finditer(text):
        tok = m.group()
        col = m.start() - line_start + 1
        c = tok[0]
        if c == "\n":
            if stack and deferred is None:
                deferred, deferred_line = _unclosed(file, stack[-1],
                                                    " (an expression cannot continue on the next line)")
            stack.clear()
            line += 1
            line_start = m.end()
        elif c == '"':
            if m.group(1) is None and deferred is None:
                deferred = error(
                    "unterminated string",
                    Span.point(file, line, col),
                    "this string is never closed",
                    code="E-syntax",
                    help='close it with `"` on the same line (write `\\"` for a quote inside a string)',
                )
                deferred_line = line
        elif c == "#":
            continue
        elif c in _OPEN:
            stack.append((c, line, col))
            if len(stack) > MAX_NESTING:
                hard(
                    error(
                        f"expression nested too deeply (more than {MAX_NESTING} levels)",
                        Span.point(file, line, col),
                        f"bracket number {MAX_NESTING + 1} opened here",
                        code="E-nesting",
                        help="split the expression with `define` or into several steps",
                    ),
                    line,
                )
        else:  # closing bracket
            if deferred is not None:
                continue
            if not stack:
                deferred = error(
                    f"unexpected `{c}`",
                    Span.point(file, line, col),
                    f"no `{_CLOSE[c]}` is open here",
                    code="E-syntax",
                    help=f"remove this `{c}` or add the missing `{_CLOSE[c]}` before it",
                )
                deferred_line = line
            elif stack[-1][0] != _CLOSE[c]:
                b, bl, bc = stack[-1]
                deferred = error(
                    f"mismatched `{c}`",
                    Span.point(file, line, col),
                    f"expected `{_OPEN[b]}` to close the `{b}` at column {bc}",
                    code="E-syntax",
                    help=f"the `{b}` at line {bl}, column {bc} is closed by `{_OPEN[b]}`",
                )
                deferred_line = line
            else:
                stack.pop()
    # line lengths
    start = 0
    for lineno, line in enumerate(text.split("\n"), 1):
        if len(line) > MAX_STATEMENT_CHARS:
            n = _code_length(line)
            if n > MAX_STATEMENT_CHARS:
                hard(error(
                    f"statement too long (more than {MAX_STATEMENT_CHARS:,} characters)",
                    Span.point(file, lineno, MAX_STATEMENT_CHARS + 1),
                    "the limit is reached here",
                    code="E-too-long",
                    help="split the expression into several steps or definitions (`define`)",
                ), lineno)
        start += len(line) + 1

    if stack and deferred is None:
        deferred, deferred_line = _unclosed(file, stack[-1], "")
    return deferred, deferred_line


# ============================================================ AST builder


def _make_builder_class():
    from lark import Transformer, Tree

    class _Builder(Transformer):
        """One method per rule alias, called as ``method(meta, children)``.

        :meth:`transform` is the equivalent of lark's
        ``Transformer_NonRecursive`` with ``v_args(meta=True)``: bottom-up,
        without recursion (deep trees cannot overflow the stack), and about
        twice as fast because it skips lark's per-call wrappers.
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
        def sp(self, meta) -> Span:
            return Span(self.file, meta.line, meta.column, meta.end_line, meta.end_column)

        def tsp(self, tok) -> Span:
            return Span(self.file, tok.line, tok.column, tok.end_line, tok.end_column)

        def string(self, tok) -> str:
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
        def start(self, meta, children):
            return list(children)

        # -------------------------------------------------- declarations
        def derivation(self, meta, ch):
            title = self.string(ch[1]) if len(ch) > 1 else None
            return S.Derivation(ch[0], title, self.sp(meta))

        def source(self, meta, ch):
            return S.Source(self.string(ch[0]), self.sp(meta))

        def use(self, meta, ch):
            return S.Use(self.string(ch[0]), self.sp(meta))

        def names(self, meta, ch):
            return list(ch)

        def let(self, meta, ch):
            return S.Let(ch[0], ch[1], self.sp(meta))

        def ts_positive_integer(self, meta, ch):
            return S.TypeSpec("positive integer", self.sp(meta))

        def ts_integer(self, meta, ch):
            return S.TypeSpec("integer", self.sp(meta))

        def ts_real(self, meta, ch):
            return S.TypeSpec("real", self.sp(meta))

        def ts_positive_real(self, meta, ch):
            return S.TypeSpec("positive real", self.sp(meta))

        def ts_nonnegative_real(self, meta, ch):
            return S.TypeSpec("nonnegative real", self.sp(meta))

        def ts_index(self, meta, ch):
            return S.TypeSpec("index", self.sp(meta), ch[0], ch[1])

        def random(self, meta, ch):
            names, rest = ch[0], ch[1:]
            dist = fam = None
            for c in rest:
                if isinstance(c, S.FamilyRange):
                    fam = c
                else:
                    dist = c
            return S.Random(names, fam, dist, self.sp(meta))

        def dist_name(self, meta, ch):
            return ch[0]

        def dist_call(self, meta, ch):
            name, args = ch
            return S.Call(name.name, args, self.sp(meta), name.span)

        def family(self, meta, ch):
            return S.FamilyRange(ch[0], ch[1], ch[2], self.sp(meta))

        def real_decl(self, meta, ch):
            return S.RealDecl(ch[0], ch[1] if len(ch) > 1 else None, self.sp(meta))

        def define(self, meta, ch):
            return S.Define(ch[0], ch[1], self.sp(meta))

        # -------------------------------------------------- facts
        def assume(self, meta, ch):
            return S.Assume(ch[0], list(ch[1:]), self.sp(meta))

        def eq_fact(self, meta, ch):
            cond = ch[3] if len(ch) > 3 else None
            return S.EqFact(ch[1], ch[0], ch[2], self.sp(meta), cond)

        def indep_fact(self, meta, ch):
            return S.IndepFact("independent", ch[0], self.sp(meta), ch[1] if len(ch) > 1 else None)

        def uncorr_fact(self, meta, ch):
            return S.IndepFact("uncorrelated", ch[0], self.sp(meta), ch[1] if len(ch) > 1 else None)

        def perp_fact(self, meta, ch):
            cond = ch[2] if len(ch) > 2 else None
            return S.IndepFact("independent", [ch[0], ch[1]], self.sp(meta), cond)

        def for_cond(self, meta, ch):
            return S.ForCond(ch[0], ch[1], self.sp(meta))

        # -------------------------------------------------- steps
        def step_head(self, meta, ch):
            return (ch[0], ch[1], self.sp(meta))

        refute_head = step_head

        def step(self, meta, ch):
            (name, first, span), links = ch[0], list(ch[1:])
            return S.Step(name, first, links, span)

        def link(self, meta, ch):
            refs = list(ch[2:])
            return S.Link(ch[0], ch[1], refs, self.sp(meta), has_by=bool(refs))

        def rel_link(self, meta, ch):
            return S.Link(ch[0], ch[1], [], self.sp(meta))

        def refute(self, meta, ch):
            (name, first, span), link = ch[0], ch[1]
            return S.Step(name, first, [link], span, kind="refute", under=list(ch[2:]))

        def ref_word(self, meta, ch):
            return str(ch[0])

        def ref_plain(self, meta, ch):
            return S.Ref(ch[0], self.sp(meta))

        def ref_dotted(self, meta, ch):
            return S.Ref(f"{ch[0]}.{ch[1]}", self.sp(meta))

        def ref_def(self, meta, ch):
            return S.Ref(f"def {ch[0]}", self.sp(meta))

        def rel(self, meta, ch):
            return _REL[str(ch[0])]

        # -------------------------------------------------- numeric claims
        def crel(self, meta, ch):
            return ch[0]

        def rel_tilde(self, meta, ch):
            return "~"

        def check_name(self, meta, ch):
            return ch[0]

        def check(self, meta, ch):
            name = None
            if isinstance(ch[0], S.Name) and len(ch) >= 4 and isinstance(ch[2], str):
                name, ch = ch[0], ch[1:]
            lhs, rel, rhs = ch[0], ch[1], ch[2]
            tol = ch[3] if len(ch) > 3 else None
            return S.Check(name, lhs, rel, rhs, tol, self.sp(meta))

        def tol_abs(self, meta, ch):
            return S.Tolerance(ch[0], False, self.sp(meta))

        def tol_rel(self, meta, ch):
            return S.Tolerance(ch[0], True, self.sp(meta))

        def table(self, meta, ch):
            title, var, vec, rows = self.string(ch[0]), ch[1], ch[2], list(ch[3:])
            return S.Table(title, var, vec.items, rows, self.sp(meta))

        def table_row(self, meta, ch):
            expr, rel, vec = ch[0], ch[1], ch[2]
            tol = ch[3] if len(ch) > 3 else None
            return S.TableRow(expr, rel, vec.items, self.sp(meta), tol)

        def simulate(self, meta, ch):
            name, lhs, rel, rhs = ch[0], ch[1], ch[2], ch[3]
            st = S.Simulate(name, lhs, rel, rhs, self.sp(meta))
            for c in ch[4:]:
                kind, val = c
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
            return S.Binding(ch[0], ch[1], self.sp(meta))

        # -------------------------------------------------- calculus
        def ddx(self, meta, ch):
            tok, f = ch
            var = str(tok)[3:]
            vspan = Span(self.file, tok.line, tok.column + 3, tok.end_line, tok.end_column)
            return S.Call("diff", [f, S.Name(var, vspan)], self.sp(meta), self.tsp(tok))

        def partial(self, meta, ch):
            f, x = ch
            return S.Call("diff", [f, x], self.sp(meta), Span.point(self.file, meta.line, meta.column))

        def dvar(self, meta, ch):
            return ch[0]

        # -------------------------------------------------- expressions
        def name(self, meta, ch):
            tok = ch[0]
            return S.Name(str(tok), self.tsp(tok))

        def number(self, meta, ch):
            tok = ch[0]
            return S.Num(str(tok), self.tsp(tok))

        def exprs(self, meta, ch):
            return list(ch)

        args = exprs

        def vector(self, meta, ch):
            return S.Vector(ch[0], self.sp(meta))

        def subscript(self, meta, ch):
            return S.Subscript(ch[0], ch[1], self.sp(meta))

        def _bin(op, implicit=False):
            def f(self, meta, ch):
                return S.BinOp(op, ch[0], ch[1], self.sp(meta), implicit)

            return f

        add = _bin("+")
        sub = _bin("-")
        mul = _bin("*")
        div = _bin("/")
        pow = _bin("^")
        juxt = _bin("*", True)
        del _bin

        def neg(self, meta, ch):
            return S.Neg(ch[0], self.sp(meta))

        def abs_bars(self, meta, ch):
            return S.Call("abs", [ch[0]], self.sp(meta), Span.point(self.file, meta.line, meta.column))

        def sqrt_sym(self, meta, ch):
            return S.Call("sqrt", [ch[0]], self.sp(meta), Span.point(self.file, meta.line, meta.column))

        def func_name(self, meta, ch):
            tok = ch[0]
            return (_FUNC_CANON.get(str(tok), str(tok)), self.tsp(tok))

        p_name = func_name
        softmax_name = func_name

        def call_paren(self, meta, ch):
            (fn, fspan), args = ch
            if not isinstance(args, list):  # P(event)
                args = [args]
            return S.Call(fn, args, self.sp(meta), fspan, bracket=False)

        softmax_call = call_paren

        def call_bracket(self, meta, ch):
            (fn, fspan), args = ch
            if not isinstance(args, list):
                args = [args]
            return S.Call(fn, args, self.sp(meta), fspan, bracket=True)

        def _plain(fn):
            def f(self, meta, ch):
                return S.Call(fn, ch[0], self.sp(meta), Span.point(self.file, meta.line, meta.column, len(fn)))

            return f

        sum_plain = _plain("sum")
        prod_plain = _plain("prod")
        del _plain

        def sum_call(self, meta, ch):
            return S.BigOp("sum", ch[0], ch[1], ch[2], ch[3], self.sp(meta))

        def prod_call(self, meta, ch):
            return S.BigOp("prod", ch[0], ch[1], ch[2], ch[3], self.sp(meta))

        def softmax_index(self, meta, ch):
            return S.Subscript(ch[0], ch[1], self.sp(meta))

        def softmax_index_short(self, meta, ch):
            call, tok = ch
            sp = Span(self.file, tok.line, tok.column + 1, tok.end_line, tok.end_column)
            return S.Subscript(call, [S.Name(str(tok)[1:], sp)], self.sp(meta))

        def arrow_arg(self, meta, ch):
            return S.Compare("->", ch[0], ch[1], self.sp(meta))

        def in_arg(self, meta, ch):
            return S.Compare("in", ch[0], ch[1], self.sp(meta))

        def compare(self, meta, ch):
            return S.Compare(ch[1], ch[0], ch[2], self.sp(meta))

        def big_sym(self, meta, ch):
            return "prod" if str(ch[0]) in ("∏", "prod") else "sum"

        def big_head(self, meta, ch):
            return tuple(ch)  # (op, var, lo, hi)

        def bigsum(self, meta, ch):
            (op, var, lo, hi), body = ch
            return S.BigOp(op, var, lo, hi, body, self.sp(meta))

    return _Builder


_BUILDER = None


def _builder(file: str):
    global _BUILDER
    if _BUILDER is None:
        _BUILDER = _make_builder_class()
    return _BUILDER(file)


# ============================================================ depth check

_EXPR_TYPES = (S.Num, S.Name, S.Subscript, S.BinOp, S.Neg, S.Call, S.BigOp, S.Vector, S.Compare)


def _children(node):
    if isinstance(node, S.BinOp) or isinstance(node, S.Compare):
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


def _check_depth(statements, file: str):
    for st in statements:
        for root in _statement_exprs(st):
            stack = [(root, 1)]
            while stack:
                node, d = stack.pop()
                if d > MAX_EXPR_DEPTH:
                    raise error(
                        f"expression too deep (more than {MAX_EXPR_DEPTH} nested operations)",
                        root.span if root.span.line == root.span.end_line else Span.point(file, root.span.line, root.span.col),
                        "in this expression",
                        code="E-nesting",
                        help="split it with `define` or into several steps (for long sums use `sum(i=1..n, ...)`)",
                    )
                for c in _children(node):
                    stack.append((c, d + 1))


# ============================================================ errors

_STATEMENT_KEYWORDS = ["derivation", "source", "use", "let", "random", "real", "define", "assume", "step", "refute",
                       "check", "table", "simulate"]
_EXPR_START = {
    "NAME", "NUMBER", "(", "[", "|", "√", "-", "−", "Σ", "∑", "∏",
    "sqrt", "exp", "log", "ln", "tanh", "abs", "max", "min", "E", "Var", "Cov", "SD",
    "P", "softmax", "delta", "diff", "limit", "argmax", "sum", "prod", "∂", "DDX",
}
_OPERATORS = {"+", "*", "/", "^", "**", "·", "×", "⋅"}
_TOKEN_WORDS = {
    "NAME": "a name",
    "NUMBER": "a number",
    "STRING": "a string in double quotes",
    "_NL": "end of line",
    ";": "end of line",
    "$END": "end of input",
    "SUBNAME": None,  # only after softmax(...): not worth suggesting
}


def _terminal_values():
    p = _get_parser()
    out = {}
    for t in p.terminals:
        if t.pattern.type == "str":
            out[t.name] = t.pattern.value
        else:
            out[t.name] = t.name
    out["$END"] = "$END"
    return out


def _expected_words(expected) -> list[str]:
    vals = _terminal_values()
    ex = {vals.get(e, e) for e in expected}
    words: list[str] = []
    # specific punctuation and keywords first
    if ex & _REL_VALUES:
        rel_word = "a relation such as `=` or `<=`"
    else:
        rel_word = None
    exprish = "NAME" in ex and ("NUMBER" in ex or "(" in ex)
    stmt = len(ex & set(_STATEMENT_KEYWORDS)) >= 3
    rest = []
    for v in sorted(ex, key=str):
        if v in _REL_VALUES or v in _OPERATORS or v in ("!=", "≠", "-", "−"):
            continue
        if exprish and v in _EXPR_START:
            continue
        if v in _EXPR_START and v != "NAME" and "NAME" in ex:
            continue  # keywords that may stand for a name in refs
        if stmt and v in _STATEMENT_KEYWORDS:
            continue
        if v in _TOKEN_WORDS:
            w = _TOKEN_WORDS[v]
            if w:
                rest.append(w)
            continue
        if v in ("}", ")", "]", ":", ",", "=", "..", "~", ".", "_{", "^", "{"):
            rest.insert(0, f"`{v}`")
        else:
            rest.append(f"`{v}`")
    if stmt:
        words.append("a statement such as `let`, `assume` or `step`")
    if exprish:
        words.append("an expression")
    if rel_word:
        words.append(rel_word)
    words.extend(rest)
    if ex & _OPERATORS and len(words) < 4:
        words.append("an operator such as `+` or `*`")
    seen = []
    for w in words:
        if w not in seen:
            seen.append(w)
    return seen[:5]


def _join_or(words: list[str]) -> str:
    if not words:
        return ""
    if len(words) == 1:
        return words[0]
    return ", ".join(words[:-1]) + " or " + words[-1]


def _describe_char(ch: str) -> str:
    if ch.isprintable() and not ch.isspace():
        return f"'{ch}'"
    return f"U+{ord(ch):04X}"


def _char_help(ch: str, text: str, pos: int) -> str:
    nxt = text[pos + 1] if pos + 1 < len(text) else ""
    if ch == "'":
        return 'strings are written in double quotes, like "text"'
    if ch == "_":
        return "a name starts with a letter, and each `_` is followed by a letter or digit: write `q_i` or `q_{i}`"
    if ch == "\\":
        return "`\\` is only used inside strings, as `\\\"` or `\\\\`"
    if ch == "!":
        return "did you mean `!=` (not equal)?"
    if ch == ".":
        if nxt.isdigit():
            return "write numbers with a digit before the point, like `0.5`"
        return "`.` is used only in ranges `1..n` and in references to imported steps, `file.step`"
    if ch == "&":
        return "several facts in one `assume` are separated by `,`"
    if ch == "\t":
        return "tabs are fine as spacing"
    cat = unicodedata.category(ch)
    if cat.startswith("L"):
        return "names use ASCII and Greek letters only; other text belongs in a string in double quotes"
    if cat.startswith("C") or ch.isspace():
        return "remove this invisible character (the file may have been pasted from a word processor)"
    return "this character has no meaning in a `.step` file; operators are `+ - * / ^`, relations `= < <= > >= != ≈`"


def _line_text(text: str, line: int) -> str:
    lines = text.split("\n")
    return lines[line - 1] if 1 <= line <= len(lines) else ""


def _first_token_on_line(tok, text: str) -> bool:
    line = _line_text(text, tok.line)
    return line[: max(tok.column - 1, 0)].strip() == ""


def _prev_word(text: str, line: int, col: int) -> str:
    m = re.search(r"([A-Za-z]+)\s*$", _line_text(text, line)[: max(col - 1, 0)])
    return m.group(1) if m else "f"


def _statement_keyword(text: str, line: int) -> str | None:
    """The keyword of the statement that line ``line`` belongs to."""
    lines = text.split("\n")
    i = line - 1
    while 0 <= i < len(lines):
        code = lines[i].split("#", 1)[0].strip()
        if code:
            word = re.match(r"[A-Za-z]+", code)
            if code[0] in "=<>≈~≤≥≠!":
                i -= 1
                continue
            return word.group() if word else None
        i -= 1
    return None


def _token_error(exc, text: str, file: str) -> StepError:
    tok = exc.token
    expected = set(getattr(exc, "expected", ()) or ())
    vals = _terminal_values()
    ex_vals = {vals.get(e, e) for e in expected}
    words = _expected_words(expected)
    help_text = f"expected {_join_or(words)}" if words else None
    notes = []
    value = str(tok)
    is_end = tok.type in ("$END",) or (tok.type == "_NL" and value == "")
    is_nl = tok.type == "_NL" and value != ""
    line = getattr(tok, "line", None) or 1
    col = getattr(tok, "column", None) or 1
    if is_end:
        title = "unexpected end of input"
        span = Span.point(file, line, col)
    elif is_nl:
        title = "unexpected end of line"
        span = Span.point(file, line, col)
    else:
        title = f"unexpected token '{value}'"
        span = Span(file, line, col, tok.end_line or line, tok.end_column or col + max(len(value), 1))
    label = ""
    kw = _statement_keyword(text, line)

    # ---- specific mistakes
    if ex_vals == {":"} and kw in ("step", "refute", "assume", "let"):
        form = {
            "step": "step NAME: EXPR = EXPR",
            "refute": "refute NAME: EXPR = EXPR",
            "assume": "assume LABEL: FACT, FACT",
            "let": "let NAME: TYPE",
        }[kw]
        label = "expected `:`"
        help_text = f"write `{form}`, with a `:` after the name"
    elif (is_nl or is_end) and kw == "step" and ex_vals & _REL_VALUES and not ex_vals & {"NAME"}:
        # `step s: A` with no link; maybe the next line forgot its relation
        nxt_line = _line_text(text, line + 1)
        m = re.match(r"(\s+)(\S)", nxt_line)
        if m and not nxt_line.strip().startswith("#"):
            c2 = len(m.group(1)) + 1
            title = "expected a relation at the start of this line"
            span = Span.point(file, line + 1, c2)
            label = "a link begins with a relation"
            help_text = "each link of a chain begins with a relation such as `=`, `<=` or `≈`, e.g. `= E[X] E[Y]  by indep`"
        else:
            label = "this step has no link"
            help_text = "a step states a relation: write `step NAME: A = B`, or put links on the following lines, each beginning with a relation such as `=`"
    elif (is_nl or is_end) and "NAME" in ex_vals and "NUMBER" in ex_vals:
        prev = _line_text(text, line)[: max(col - 1, 0)].rstrip()
        label = "an expression is missing here"
        if prev and prev.split()[-1] in _REL_VALUES:
            help_text = f"the relation `{prev.split()[-1]}` needs an expression after it"
        elif prev.endswith(","):
            help_text = "remove the trailing `,` or add what follows it"
        else:
            help_text = "expected an expression"
    elif value in _REL_VALUES and _first_token_on_line(tok, text):
        label = "a line beginning with a relation continues a chain"
        if kw in ("step",):
            help_text = "this relation follows a `by` list or an expression that is not finished; check the line above"
        else:
            help_text = (
                "a line that begins with a relation continues the `step` above it, "
                f"but the statement above is {('a `' + kw + '`') if kw else 'not a step'}"
                + (" (a refutation has exactly one link)" if kw == "refute" else "")
            )
    elif value == "by" and _first_token_on_line(tok, text):
        label = "`by` cannot start a line"
        help_text = "write `by ...` on the same line as the link it justifies, e.g. `= B  by r`"
    elif _first_token_on_line(tok, text) and len(ex_vals & set(_STATEMENT_KEYWORDS)) >= 3:
        label = "a statement cannot start here"
        if _line_text(text, line)[:1].isspace() and _statement_keyword(text, line - 1) == "step":
            help_text = "a link line must begin with a relation such as `=` or `<=`; a new statement begins with a keyword such as `let`, `assume` or `step`"
        else:
            help_text = "a statement begins with a keyword: `derivation`, `source`, `use`, `let`, `random`, `real`, `define`, `assume`, `step`, `refute`, `check`, `table` or `simulate`"
    elif "NAME" in ex_vals and tok.type != "NAME" and re.fullmatch(r"[A-Za-z]+", value) and "NAME" not in ex_vals - {"NAME"}:
        label = "this is a keyword"
        if value in _EXPR_START:
            help_text = f"`{value}` is a function keyword: write it with arguments, `{value}(...)`" + (
                "; it cannot be used as a name" if "NUMBER" not in ex_vals else ""
            )
        else:
            help_text = f"`{value}` is a keyword of the language and cannot be used as a name; " + (help_text or "")
    elif value == "|":
        label = "`|x|` cannot follow another factor directly"
        help_text = "write `2 * |x|` or `2 abs(x)`"
    elif ex_vals == {"_{"} or (
        tok.type == "SUBNAME" and re.search(r"(Σ|∑|∏|\bsum|\bprod)\s*$", _line_text(text, line)[: col - 1])
    ):
        help_text = "write a sum's range in braces: `Σ_{i=1}^{n} ...`, or `sum(i=1..n, ...)`"
    elif tok.type == "SUBNAME":
        help_text = f"a name cannot start with `_`; write the subscript right after its name, without a space: `q{value}`"
    elif ex_vals == {"(", "["}:
        help_text = f"a function's arguments are written in brackets, e.g. `{_prev_word(text, line, col)}(x)`"
    elif value == "[":
        label = "a vector cannot follow another factor directly"
        help_text = "write `*` before the vector, or use `q[i]` right after a name for a subscript"
    elif value == "(" and not ({"NAME", "NUMBER"} & ex_vals):
        help_text = (help_text or "") + "; only the fixed functions (`sqrt`, `exp`, `E`, `Var`, ...) take arguments"
    elif value == "by" and kw == "refute":
        help_text = "a refutation names what it assumes with `under`, not `by`"
    return error(title, span, label, notes=notes, help=help_text, code="E-syntax")


def _char_error(exc, text: str, file: str) -> StepError:
    pos = exc.pos_in_stream
    ch = text[pos] if 0 <= pos < len(text) else ""
    title = f"unexpected character {_describe_char(ch)}" if ch else "unexpected character"
    span = Span.point(file, exc.line, exc.column)
    return error(title, span, "not part of the `.step` language", help=_char_help(ch, text, pos), code="E-syntax")


def _convert(exc, text: str, file: str) -> StepError:
    from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

    if isinstance(exc, UnexpectedCharacters):
        return _char_error(exc, text, file)
    if isinstance(exc, UnexpectedToken):
        return _token_error(exc, text, file)
    if isinstance(exc, UnexpectedEOF):
        lines = text.split("\n")
        return error(
            "unexpected end of input",
            Span.point(file, len(lines), len(lines[-1]) + 1),
            code="E-syntax",
            help=f"expected {_join_or(_expected_words(exc.expected))}" if exc.expected else None,
        )
    if isinstance(exc, UnexpectedInput):
        line = getattr(exc, "line", 1) or 1
        col = getattr(exc, "column", 1) or 1
        return error("syntax error", Span.point(file, line, col), code="E-syntax")
    return error("syntax error", None, code="E-syntax")


def _error_line(exc) -> int:
    tok = getattr(exc, "token", None)
    if tok is not None and getattr(tok, "line", None):
        return tok.line
    return getattr(exc, "line", None) or 10**9


# ============================================================ parse


def parse(text: str, file: str = "<string>") -> S.Program:
    """Parse ``.step`` source text into a :class:`~stepcheck.syntax.Program`.

    Raises :class:`StepError` with one diagnostic for any bad input.
    """
    if not isinstance(text, str):
        raise error("input is not text", None, code="E-input-binary")
    if text.startswith("\ufeff"):
        text = text[1:]
    if not text.strip():
        return S.Program(file, [], text)
    # Parsing allocates many small acyclic objects; the cyclic garbage
    # collector would otherwise run over them again and again (≈40% of the
    # time for a 1 MB file).
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        return _parse(text, file)
    finally:
        if gc_was_enabled:
            gc.enable()


def _parse(text: str, file: str) -> S.Program:
    try:
        deferred, deferred_line = _prescan(text, file)
        from lark.exceptions import UnexpectedInput

        parser = _get_parser()
        try:
            tree = parser.parse(text)
        except UnexpectedInput as exc:
            if deferred is not None and deferred_line <= _error_line(exc):
                raise deferred from None
            raise _convert(exc, text, file) from None
        if deferred is not None:
            raise deferred
        statements = _builder(file).transform(tree)
        _check_depth(statements, file)
        return S.Program(file, statements, text)
    except StepError:
        raise
    except RecursionError:
        raise error(
            "expression nested too deeply",
            None,
            code="E-nesting",
            help="split the expression with `define` or into several steps",
        ) from None
    except Exception as exc:  # a bug in the parser: still no traceback
        raise error(
            "internal error while parsing",
            None,
            notes=[f"{type(exc).__name__}: {exc}"],
            code="E-internal-parser",
            help="please report this with the input that caused it",
        ) from None
