"""Parse ``.step`` text into the AST of :mod:`stepcheck.syntax`.

``parse(text, file)`` returns a :class:`~stepcheck.syntax.Program` or raises
:class:`~stepcheck.errors.StepError` carrying one rustc-style diagnostic; no
input, however malformed, produces a Python traceback.  ``read_source(path)``
reads a file with the same guarantee.

How it works (one module per stage):

1. a pre-scan (:func:`stepcheck.parse_errors.prescan`, plain Python, linear
   time) rejects lines longer than :data:`MAX_STATEMENT_CHARS` and brackets
   nested deeper than :data:`MAX_NESTING` *before* lark runs, and finds
   unclosed or mismatched brackets and unterminated strings (reported when
   lark fails at or after them, so a mistake earlier in the file is reported
   first);
2. lark's LALR parser (grammar in ``grammar/step.lark``, basic lexer,
   ``propagate_positions=True``) with a post-lexer,
   :class:`stepcheck.parse_lexer.Continuation`, that drops the end of line
   before a line beginning with a relation: that line continues the chain
   above;
3. :class:`stepcheck.parse_tree.AstBuilder`, a lark ``Transformer`` with one
   method per rule alias, builds the AST without recursion; then an
   iterative check rejects expressions deeper than :data:`MAX_EXPR_DEPTH` (a
   long chain of operators such as ``x^x^x^...``), so later recursive stages
   stay within Python's recursion limit;
4. lark's errors become diagnostics in :mod:`stepcheck.parse_errors`
   (mistakes with a name are recognised by example, with lark's
   ``UnexpectedInput.match_examples``).

lark and the modules of steps 1, 3 and 4 are imported on the first parse, so
``import stepcheck.parser`` stays cheap (``parse_lexer`` imports no lark).

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
* Table rows: see :class:`~stepcheck.parse_lexer.Continuation` (indented
  lines after ``table``).
"""
from __future__ import annotations

import gc
import threading
from pathlib import Path

from . import syntax as S
from .errors import Span, StepError, error
from .parse_lexer import Continuation

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
                    postlex=Continuation(),
                    maybe_placeholders=False,
                    cache=_cache_file(grammar),
                )
    return _PARSER


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
        from lark.exceptions import UnexpectedInput

        from .parse_errors import from_lark, prescan
        from .parse_tree import AstBuilder, check_depth

        deferred = prescan(text, file, MAX_NESTING, MAX_STATEMENT_CHARS)
        parser = _get_parser()
        try:
            tree = parser.parse(text)
        except UnexpectedInput as exc:
            raise from_lark(exc, text, file, parser, deferred) from None
        if deferred[0] is not None:
            raise deferred[0]
        statements = AstBuilder(file).transform(tree)
        check_depth(statements, file, MAX_EXPR_DEPTH)
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
