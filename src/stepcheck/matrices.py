"""Matrices and vectors of symbolic shape, known by their entries.

The kernel knows no matrices.  A matrix expression is elaborated into a
:class:`Mat`: its shape (two sympy integers, ``n × d_k``) and a function
giving its (i, j) entry as a scalar sympy expression.  Products become sums
over the inner dimension, transposes swap the indices, ``diag(p)`` is
``p_i δ_ij`` and a Jacobian ``diff(p, s)`` is ``∂p_i/∂s_j``.  A link between
two matrices is checked entrywise, for a fresh row index and a fresh column
index over the shape (see :func:`entrywise`): a scalar claim, with sums over
symbolic ranges, that the kernel proves like any other.

Shapes are checked as the expression is read: a product whose inner
dimensions differ, or a sum of matrices of different shapes, is an
``E-shape`` error at the operator, naming both shapes.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import sympy
from sympy import Dummy, Integer, KroneckerDelta

from .errors import Span, error


@dataclass(frozen=True)
class MatrixDecl:
    """``let Q: matrix n × d_k``: the entries are ``Q_{i, j}`` (deterministic reals)."""

    base: sympy.IndexedBase
    rows: sympy.Expr
    cols: sympy.Expr
    span: Span


@dataclass(frozen=True, eq=False)
class Mat:
    """A matrix of shape rows × cols; ``entry(i, j)`` is its (i, j) entry (indices from 1)."""

    rows: sympy.Expr
    cols: sympy.Expr
    entry: Callable

    @property
    def shape_text(self) -> str:
        return f"{_dim(self.rows)} × {_dim(self.cols)}"

    def at(self, i, j):
        return self.entry(i, j)

    def transpose(self) -> "Mat":
        return Mat(self.cols, self.rows, lambda i, j: self.entry(j, i))

    def scaled(self, c) -> "Mat":
        return Mat(self.rows, self.cols, lambda i, j: c * self.entry(i, j))

    def is_column(self) -> bool:
        return self.cols == 1


def _dim(x) -> str:
    s = str(x)
    return s if x.is_Atom else f"({s})"


def same(a, b) -> bool:
    """Two dimensions provably equal (``n`` and ``n``, ``2 m`` and ``m + m``)."""
    return sympy.expand(a - b) == 0


def column(n, entry: Callable) -> Mat:
    """A column vector of length n from ``entry(i)``."""
    return Mat(n, Integer(1), lambda i, j: entry(i))


def matrix_symbol(decl: MatrixDecl) -> Mat:
    return Mat(decl.rows, decl.cols, lambda i, j: decl.base[i, j])


def family_vector(base, lo, hi) -> Mat:
    """A family ``s_i for i in lo..hi`` read as a column vector of length hi - lo + 1."""
    return column(hi - lo + 1, lambda i: base[i + lo - 1])


def add(a: Mat, b: Mat, sign: int, span: Span) -> Mat:
    if not (same(a.rows, b.rows) and same(a.cols, b.cols)):
        raise error(f"cannot {'add' if sign > 0 else 'subtract'} matrices of different shapes", span,
                    f"{a.shape_text} {'+' if sign > 0 else '-'} {b.shape_text}", code="E-shape")
    return Mat(a.rows, a.cols, lambda i, j: a.entry(i, j) + sign * b.entry(i, j))


def product(a: Mat, b: Mat, span: Span):
    """``a b``: the matrix product; two columns of one length give their dot product ``aᵀ b`` (a number),
    and a 1 × 1 result is a number."""
    if a.is_column() and b.is_column() and not same(a.rows, 1) and same(a.rows, b.rows):
        t = Dummy("t", integer=True)
        return sympy.Sum(a.entry(t, 1) * b.entry(t, 1), (t, 1, a.rows))
    if not same(a.cols, b.rows):
        help_ = None
        if same(a.cols, b.cols):
            help_ = "the inner dimensions differ; did you mean the transpose of the right factor (`^T`)?"
        raise error("the shapes of this product do not match", span,
                    f"{a.shape_text} times {b.shape_text}",
                    notes=[f"a product A B needs as many columns in A ({_dim(a.cols)}) as rows in B ({_dim(b.rows)})"],
                    help=help_, code="E-shape")
    if same(a.cols, 1):
        out = Mat(a.rows, b.cols, lambda i, j: a.entry(i, 1) * b.entry(1, j))
    else:
        inner = a.cols

        def entry(i, j):
            t = Dummy("t", integer=True)
            return sympy.Sum(a.entry(i, t) * b.entry(t, j), (t, 1, inner))

        out = Mat(a.rows, b.cols, entry)
    if same(out.rows, 1) and same(out.cols, 1):
        return out.entry(Integer(1), Integer(1))
    return out


def diag(v: Mat, span: Span) -> Mat:
    if not v.is_column():
        raise error("`diag` takes a vector", span, f"this is {v.shape_text}", code="E-shape")
    return Mat(v.rows, v.rows, lambda i, j: v.entry(i, 1) * KroneckerDelta(i, j))


def jacobian(f, x: Mat, span: Span):
    """``diff(f, x)`` for a vector x: the gradient (a column) of a number f, the Jacobian ∂f_i/∂x_j of a vector f."""
    if not x.is_column():
        raise error("differentiate with respect to a vector or a variable", span, f"this is {x.shape_text}",
                    code="E-shape")
    if isinstance(f, Mat):
        if not f.is_column():
            raise error("the Jacobian of a matrix is not supported", span, f"this is {f.shape_text}",
                        code="E-unsupported")
        return Mat(f.rows, x.rows, lambda i, j: sympy.Derivative(f.entry(i, 1), x.entry(j, 1)))
    return column(x.rows, lambda i: sympy.Derivative(f, x.entry(i, 1)))


def entry(m: Mat, idx: list, span: Span, idx_spans: list):
    """``M_{i, j}`` (or ``v_i`` for a column vector)."""
    if len(idx) == 1 and m.is_column():
        idx = [idx[0], Integer(1)]
        idx_spans = [idx_spans[0], idx_spans[0]]
    if len(idx) != 2:
        raise error(f"an entry of a {m.shape_text} matrix takes two indices", span, f"{len(idx)} given",
                    code="E-arity")
    for v, dim, sp in zip(idx, (m.rows, m.cols), idx_spans):
        if v.is_Integer and (v < 1 or (dim.is_Integer and v > dim)):
            raise error(f"index {v} is outside 1..{dim}", sp, "out of range", code="E-range")
    return m.entry(*idx)


def entrywise(lhs, rhs, fresh: Callable, span: Span):
    """The scalar claim entry_ij(lhs) = entry_ij(rhs) for a link between matrices, or None for two numbers.

    ``fresh(name, hi)`` gives an index symbol over 1..hi.  ``0`` on either side is the zero matrix of
    the other side's shape.  Returns (lhs_ij, rhs_ij).
    """
    lm, rm = isinstance(lhs, Mat), isinstance(rhs, Mat)
    if not (lm or rm):
        return None
    if not (lm and rm):
        other = rhs if lm else lhs
        m = lhs if lm else rhs
        if other != 0:
            raise error("a matrix compared with a number", span, f"a matrix ({m.shape_text}) and a number",
                        help="compare an entry (`(...)_{i, j}`), or write 0 for the zero matrix", code="E-shape")
        zero = Mat(m.rows, m.cols, lambda i, j: Integer(0))
        lhs, rhs = (m, zero) if lm else (zero, m)
    if not (same(lhs.rows, rhs.rows) and same(lhs.cols, rhs.cols)):
        raise error("the two sides have different shapes", span, f"{lhs.shape_text} and {rhs.shape_text}",
                    code="E-shape")
    i = Integer(1) if same(lhs.rows, 1) else fresh("i", lhs.rows)
    j = Integer(1) if same(lhs.cols, 1) else fresh("j", lhs.cols)
    return lhs.entry(i, j), rhs.entry(i, j)


def binop(op: str, a, b, node, right_span: Span):
    """``a OP b`` where a or b is a matrix (a, b already read; ``^`` only as ``^T``, read by the caller)."""
    am, bm = isinstance(a, Mat), isinstance(b, Mat)
    if op in ("+", "-"):
        if not (am and bm):
            raise error(f"cannot {'add' if op == '+' else 'subtract'} a matrix and a number", node.span,
                        f"{(a if am else b).shape_text} and a number", code="E-shape")
        return add(a, b, 1 if op == "+" else -1, node.span)
    if op == "*":
        if am and bm:
            return product(a, b, node.span)
        return b.scaled(a) if bm else a.scaled(b)
    if op == "/":
        if bm:
            raise error("cannot divide by a matrix", right_span, f"this is {b.shape_text}", code="E-shape")
        return a.scaled(1 / b)
    raise error("a matrix power other than the transpose `^T` is not supported", node.span, code="E-unsupported")


def not_a_number(node, value: Mat, families) -> Exception:
    """The error for a matrix or vector where the language wants a number."""
    name = getattr(node, "name", None)
    if name is not None and name in families:
        var = families[name].var
        return error(f"`{name}` is a family and needs an index", node.span, "index missing",
                     help=f"write `{name}_{var}` or `{name}[{var}]`", code="E-unknown-name")
    return error("a matrix or vector where a number is expected", node.span, f"this is {value.shape_text}",
                 help="take an entry (`(...)_{i, j}`, `p_i`) or a product that is a number (`u^T v`)",
                 code="E-shape")
