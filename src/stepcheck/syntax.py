"""The abstract syntax of ``.step`` files.

Every node carries the :class:`~stepcheck.errors.Span` of the source text it
came from, so any later stage can point the user at the right place.  The
parser (``parser.py``) builds these nodes; the elaborator (``elaborate.py``)
turns expressions into sympy objects.  Names are kept as written here:
``q_i`` is ``Name("q_i")``; whether it means the family ``q`` at index ``i``
is decided by the elaborator, which knows the declarations.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Union

from .errors import Span

# ---------------------------------------------------------------- expressions


@dataclass(slots=True)
class Num:
    text: str  # as written: "2.5", "1e-9", "6"
    span: Span


@dataclass(slots=True)
class Name:
    name: str  # "X", "q_i", "d_k", "δ_ij", "σ"
    span: Span


@dataclass(slots=True)
class Subscript:
    """``q_{i}`` or ``q[i]`` (explicit subscripts, one or more indices); ``(Q K^T)_{i, j}``, ``softmax(s)_i``."""

    base: "Expr"
    indices: list["Expr"]
    span: Span


@dataclass(slots=True)
class BinOp:
    op: str  # "+", "-", "*", "/", "^"
    left: "Expr"
    right: "Expr"
    span: Span
    implicit: bool = False  # "*" written as juxtaposition


@dataclass(slots=True)
class Neg:
    operand: "Expr"
    span: Span


@dataclass(slots=True)
class Call:
    """``f(a, b)``, ``E[X]`` (bracket=True) or ``|x|`` (func="abs")."""

    func: str  # canonical spelling: "sqrt" for "√", "E", "Var", ...
    args: list["Expr"]
    span: Span
    func_span: Span
    bracket: bool = False


@dataclass(slots=True)
class BigOp:
    """``sum(i=1..n, f)``, ``Σ_{i=1}^{n} f``, ``prod(i=1..n, f)``."""

    op: str  # "sum" | "prod"
    var: Name
    lo: "Expr"
    hi: "Expr"
    body: "Expr"
    span: Span


@dataclass(slots=True)
class Vector:
    items: list["Expr"]
    span: Span


@dataclass(slots=True)
class Compare:
    """A relation used as a value, e.g. inside ``P(S = 0)``."""

    op: str
    left: "Expr"
    right: "Expr"
    span: Span


Expr = Union[Num, Name, Subscript, BinOp, Neg, Call, BigOp, Vector, Compare]

# ---------------------------------------------------------------- declarations


@dataclass(slots=True)
class TypeSpec:
    """``positive integer``, ``real``, ``index 1..n`` ..."""

    kind: str  # "integer", "positive integer", "real", "positive real", "nonnegative real", "index", "matrix"
    span: Span
    lo: Expr | None = None  # for "index"; the number of rows for "matrix"
    hi: Expr | None = None  # for "index"; the number of columns for "matrix"


@dataclass(slots=True)
class Derivation:
    name: Name
    title: str | None
    span: Span


@dataclass(slots=True)
class Source:
    text: str
    span: Span


@dataclass(slots=True)
class Let:
    names: list[Name]
    type: TypeSpec
    span: Span


@dataclass(slots=True)
class FamilyRange:
    """``for i in 1..n`` after ``random`` or ``real``."""

    var: Name
    lo: Expr
    hi: Expr
    span: Span


@dataclass(slots=True)
class Random:
    names: list[Name]  # as written: "q_i", "X"
    family: FamilyRange | None
    distribution: Call | Name | None  # "Normal(0, 1)", "Rademacher"
    span: Span


@dataclass(slots=True)
class RealDecl:
    names: list[Name]
    family: FamilyRange | None
    span: Span


@dataclass(slots=True)
class Define:
    name: Name  # "p_i" (the defined name as written, maybe with an index)
    body: Expr
    span: Span


@dataclass(slots=True)
class Use:
    path: str
    span: Span


# ---------------------------------------------------------------- facts


@dataclass(slots=True)
class ForCond:
    """``for i != j`` restricting a fact's free indices."""

    left: Name
    right: Name
    span: Span


@dataclass(slots=True)
class EqFact:
    """An equation or inequality: ``E[q_i] = 0``, ``Cov(X, Y) = 0``, ``c > 0``."""

    rel: str  # "=", "<", "<=", ">", ">=", "!="
    left: Expr
    right: Expr
    span: Span
    cond: ForCond | None = None


@dataclass(slots=True)
class IndepFact:
    """``independent(q, k)``, ``X ⟂ Y`` (kind="independent") or ``uncorrelated(X, Y)``."""

    kind: str  # "independent" | "uncorrelated"
    args: list[Expr]  # family names, variables (`vector q` for a family read as one block)
    span: Span
    cond: ForCond | None = None
    blocks: bool = False  # `q ⟂ k`: a family on either side is one block (its members need not be independent)


Fact = Union[EqFact, IndepFact]


@dataclass(slots=True)
class Assume:
    label: Name
    facts: list[Fact]
    span: Span


# ---------------------------------------------------------------- steps


@dataclass(slots=True)
class Ref:
    """One citation after ``by``: a label, a step, ``def p``, or a rule name."""

    text: str  # "indep", "def p", "linearity", "var_dot.var_sum"
    span: Span


@dataclass(slots=True)
class Link:
    rel: str  # "=", "<", "<=", ">", ">=", "≈"
    rhs: Expr
    refs: list[Ref]
    span: Span  # the whole link line (relation to end of refs)
    has_by: bool = False

    def claim_span(self) -> Span:
        """From the relation to the end of the right-hand side (not the `by` list)."""
        return self.span.to(self.rhs.span)

    def refs_span(self) -> Span:
        """The `by` list (the whole link without one)."""
        return self.refs[0].span.to(self.refs[-1].span) if self.refs else self.span


@dataclass(slots=True)
class Step:
    name: Name
    first: Expr
    links: list[Link]
    span: Span
    kind: str = "step"  # "step" | "refute"
    under: list[Ref] = field(default_factory=list)  # for refute ... under REFS
    cond: "ForCond | None" = None  # step ... for i != j: every link holds under it


# ---------------------------------------------------------------- numeric claims


@dataclass(slots=True)
class Tolerance:
    """``within TOL`` (absolute) or ``within TOL relative``."""

    value: Expr
    relative: bool
    span: Span


@dataclass(slots=True)
class Check:
    """``check [NAME:] A REL B [within TOL [relative]] [in float32]``.

    ``rel`` is "≈" (``≈``/``~=``), "~" (order of magnitude) or an exact
    relation ("=", "<", "<=", ">", ">=", "!=").  ``name`` is None when the
    check was written without a name (the checker calls it ``check_<line>``).
    """

    name: Name | None
    lhs: Expr
    rel: str
    rhs: Expr
    tol: Tolerance | None
    span: Span
    fmt: Name | None = None  # `in float32`: evaluated in that IEEE format (floats.py)


@dataclass(slots=True)
class TableRow:
    """One row ``EXPR REL [c1, c2, ...] [within TOL]`` of a table."""

    expr: Expr
    rel: str
    cells: list[Expr]
    span: Span
    tol: Tolerance | None = None

    def __iter__(self):  # (expr, rel, cells), as in ``for e, r, cs in table.rows``
        return iter((self.expr, self.rel, self.cells))


@dataclass(slots=True)
class Table:
    """``table "title" for x in [v1, v2, ...]:`` and its indented rows."""

    title: str
    var: Name
    values: list[Expr]
    rows: list[TableRow]
    span: Span


@dataclass(slots=True)
class Binding:
    """``NAME = EXPR`` after ``where`` or ``with`` in a ``simulate``."""

    name: Name
    value: Expr
    span: Span


@dataclass(slots=True)
class Simulate:
    """``simulate NAME: A ≈ B [within TOL [relative]] [where x = v, ...] [with samples = N, seed = S,
    confidence = C] [by STEP]``."""

    name: Name
    lhs: Expr
    rel: str
    rhs: Expr
    span: Span
    where: list[Binding] = field(default_factory=list)
    options: list[Binding] = field(default_factory=list)
    proof: Ref | None = None  # the symbolic step that proves the claim
    tol: Tolerance | None = None  # `within`: the claim is that the true value lies within TOL of B


Statement = Union[Derivation, Source, Let, Random, RealDecl, Define, Use, Assume, Step, Check, Table, Simulate]


@dataclass(slots=True)
class Program:
    file: str
    statements: list[Statement]
    text: str


# ---------------------------------------------------------------- traversal


def field_values(node) -> list:
    """The values of a node's fields, in order (nodes have slots, not a ``__dict__``)."""
    return [getattr(node, f) for f in node.__dataclass_fields__]


def walk(node):
    """``node`` and every node below it, depth first (spans and plain values are not nodes)."""
    yield node
    for v in field_values(node):
        for x in (v if isinstance(v, list) else [v]):
            if hasattr(x, "span") and not isinstance(x, Span):
                yield from walk(x)


# ---------------------------------------------------------------- result names


def check_name(st: Check) -> str:
    """The name of a check's result: its own, or ``check_<line>`` when unnamed."""
    return st.name.name if st.name is not None else f"check_{st.span.line}"


def table_cell_name(st: Table, row: int, col: int) -> str:
    """The name of one table cell's result (rows and columns count from 1)."""
    return f"table_{st.span.line}[{row},{col}]"


def planned_results(prog: Program) -> list[tuple[str, Span, str]]:
    """The (name, span, kind) of every result checking ``prog`` produces, in order, read off the
    syntax alone (the pytest plugin collects items from this without checking the file)."""
    out = []
    for st in prog.statements:
        if isinstance(st, Step):
            out.append((st.name.name, st.span, st.kind))
        elif isinstance(st, Simulate):
            out.append((st.name.name, st.span, "simulate"))
        elif isinstance(st, Check):
            out.append((check_name(st), st.span, "check"))
        elif isinstance(st, Table):
            for r, row in enumerate(st.rows, 1):
                for c, cell in enumerate(row.cells, 1):
                    out.append((table_cell_name(st, r, c), cell.span, "check"))
    return out


def one_line_citations(st: Step) -> list:
    """The links of ``st`` without ``by`` that share their line with a later link that has one: in
    ``= A = B   by r`` the ``by`` cites for ``= B`` only, and ``= A`` is checked against everything."""
    return [a for a, b in zip(st.links, st.links[1:]) if not a.has_by and b.has_by and a.span.end_line == b.span.line]


def compose_relations(rels) -> str:
    """The relation a chain of links states between its first and last expression (`?` when mixed)."""
    if any(r == "≈" for r in rels):
        return "≈"
    if len(set(rels)) == 1 and rels[0] in ("!=", "≠"):  # not a chain relation (E-relation), shown as written
        return rels[0]
    strict = any(r in ("<", ">") for r in rels)
    if all(r == "=" for r in rels):
        return "="
    if all(r in ("=", "<", "<=") for r in rels):
        return "<" if strict else "<="
    if all(r in ("=", ">", ">=") for r in rels):
        return ">" if strict else ">="
    return "?"
