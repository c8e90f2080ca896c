"""The maths as written: a parse-tree expression as an unevaluated sympy expression, for typesetting.

Used by the PDF (pdf.py) to print what the user wrote, with the order of
terms and factors kept; the checker never reads it.
"""
from __future__ import annotations

import sympy

from . import syntax as S
from .terms.functions import function
from .terms.objects import SD, Cov, E, Var


def as_written(node):
    """A parse-tree expression as an *unevaluated* sympy expression, to typeset
    what the user wrote (order of terms and factors kept; the PDF prints it).

    No scope is consulted: names stay plain symbols.  Functions come from the
    language's function table; forms that need the scope (limits, extrema,
    ``softmax``) raise ValueError, and the caller typesets the elaborated
    expression instead.
    """
    t = as_written
    if isinstance(node, S.Num):
        txt = node.text
        try:
            return sympy.Integer(int(txt)) if txt.isdigit() else sympy.Float(txt)
        except (ValueError, TypeError):
            return sympy.Symbol(txt)
    if isinstance(node, S.Name):
        if node.name in ("pi", "π"):
            return sympy.pi
        if node.name in ("oo", "∞"):
            return sympy.oo
        return sympy.Symbol(node.name)
    if isinstance(node, S.Subscript):
        if isinstance(node.base, S.Name) and node.base.name in ("delta", "δ") and len(node.indices) == 2:
            return sympy.KroneckerDelta(*[t(i) for i in node.indices], evaluate=False)
        base = t(node.base)
        if isinstance(base, sympy.Symbol):
            return sympy.Indexed(sympy.IndexedBase(base.name), *[t(i) for i in node.indices])
        return sympy.Indexed(sympy.IndexedBase(sympy.Symbol("(" + str(base) + ")")), *[t(i) for i in node.indices])
    if isinstance(node, S.Neg):
        return sympy.Mul(sympy.S.NegativeOne, t(node.operand), evaluate=False)
    if isinstance(node, S.BinOp):
        a, b = t(node.left), t(node.right)

        def terms(x):  # a + b + c is one sum, not ((a + b) + c)
            return list(x.args) if isinstance(x, sympy.Add) else [x]

        def factors(x):  # likewise for products, but (a / b) (c / d) keeps its fractions
            if isinstance(x, sympy.Mul) and not any(isinstance(f, sympy.Pow) and f.exp.is_negative for f in x.args) \
                    and x.args[0] is not sympy.S.NegativeOne:
                return list(x.args)
            return [x]

        if node.op == "+":
            return sympy.Add(*terms(a), *terms(b), evaluate=False)
        if node.op == "-":
            return sympy.Add(*terms(a), sympy.Mul(sympy.S.NegativeOne, b, evaluate=False), evaluate=False)
        if node.op == "*":
            return sympy.Mul(*factors(a), *factors(b), evaluate=False)
        if node.op == "/":
            return sympy.Mul(a, sympy.Pow(b, -1, evaluate=False), evaluate=False)
        if node.op == "^":
            if isinstance(b, sympy.Mul) and len(b.args) == 2 and b.args[0].is_Integer and isinstance(b.args[1], sympy.Pow) \
                    and b.args[1].exp == -1 and b.args[1].base.is_Integer:
                b = sympy.Rational(b.args[0], b.args[1].base)  # d_k^(1/4)
            return sympy.Pow(a, b, evaluate=False)
        raise ValueError(node.op)
    if isinstance(node, S.Call):
        args = [t(a) for a in node.args]
        f = node.func
        ops = {"E": E, "Var": Var, "Cov": Cov, "SD": SD}
        if f in ops:
            return ops[f](*args, evaluate=False)
        row = function(f)
        if row is not None and row.takes(len(args)) and not any(isinstance(a, S.Compare) for a in node.args):
            if f == "sqrt":
                return sympy.Pow(args[0], sympy.S.Half, evaluate=False)
            if row.cls is not None:
                return row.cls(*args, evaluate=False)
        if f in ("diag", "ones") and len(args) == 1:
            return sympy.Function(f)(*args)
        if f == "diff" and len(args) == 2:
            return sympy.Derivative(args[0], args[1], evaluate=False)
        raise ValueError(f)  # limits, extrema, softmax: use the elaborated form
    if isinstance(node, S.BigOp):
        lim = (t(node.var), t(node.lo), t(node.hi))
        body = t(node.body)
        return (sympy.Sum if node.op == "sum" else sympy.Product)(body, lim)
    if isinstance(node, S.Vector):
        return sympy.Tuple(*[t(i) for i in node.items])
    if isinstance(node, S.Compare):
        from sympy.core.relational import Relational

        return Relational(t(node.left), t(node.right), {"==": "=="}.get(node.op, node.op))
    raise ValueError(type(node).__name__)
