"""`check A REL B in float32`: numbers as a computer computes them (IEEE 754 binary arithmetic).

The claim is evaluated **as written** (the parse tree, in the written order
of operations, never sympy's reordering), every operation rounded to the
format by numpy's scalar types, with overflow to ``inf`` and invalid
operations to ``nan`` as IEEE 754 says. Each float result is then compared
*exactly*, as the rational number it is (``inf`` as ``oo``), by the same
comparison as other checks: ``check exp(700) = oo in float32`` holds and
``... in float64`` fails (exp(700) ≈ 1.01e304 is finite in float64).

Only numbers, the operators, `pi`, `e`, `oo`, vector literals, `softmax` of a
vector and the functions `exp`, `log`, `sqrt`, `tanh`, `abs`, `max` and `min`
are evaluated; anything else is `unknown` with the reason.
"""
from __future__ import annotations

import math

import sympy

from . import syntax as S

FORMATS = ("float16", "float32", "float64")


class NotFloat(Exception):
    """The expression has something float mode does not evaluate (the message says what)."""


def evaluate(node, fmt: str):
    """The value of ``node`` in the IEEE format ``fmt``: a numpy scalar, or a list of them for a vector."""
    import numpy as np

    t = getattr(np, fmt)
    with np.errstate(all="ignore"):
        return _ev(node, t, np)


def _ev(node, t, np):
    if isinstance(node, S.Num):
        return t(float(node.text))
    if isinstance(node, S.Name):
        const = {"pi": math.pi, "π": math.pi, "e": math.e, "oo": math.inf, "∞": math.inf}
        if node.name in const:
            return t(const[node.name])
        raise NotFloat(f"`{node.name}` has no value here: float mode evaluates numbers, not names")
    if isinstance(node, S.Neg):
        return _map(lambda a: -a, _ev(node.operand, t, np))
    if isinstance(node, S.Vector):
        items = [_ev(x, t, np) for x in node.items]
        if any(isinstance(x, list) for x in items):
            raise NotFloat("vectors cannot be nested")
        return items
    if isinstance(node, S.BinOp):
        a, b = _ev(node.left, t, np), _ev(node.right, t, np)
        op = {"+": np.add, "-": np.subtract, "*": np.multiply, "/": np.divide, "^": np.power}[node.op]
        if isinstance(a, list) or isinstance(b, list):
            if isinstance(a, list) and isinstance(b, list):
                if node.op not in "+-" or len(a) != len(b):
                    raise NotFloat("vectors of different lengths, or a product of two vectors")
                return [t(op(x, y)) for x, y in zip(a, b)]
            return [t(op(x, b)) for x in a] if isinstance(a, list) else [t(op(a, y)) for y in b]
        return t(op(a, b))
    if isinstance(node, S.Call):
        return _call(node, t, np)
    raise NotFloat(f"float mode does not evaluate this ({type(node).__name__})")


def _map(f, v):
    return [f(x) for x in v] if isinstance(v, list) else f(v)


def _call(node: S.Call, t, np):
    f = node.func
    args = [_ev(a, t, np) for a in node.args]
    unary = {"exp": np.exp, "log": np.log, "sqrt": np.sqrt, "tanh": np.tanh, "abs": np.abs}
    if f in unary and len(args) == 1:
        return _map(lambda x: t(unary[f](x)), args[0])
    if f in ("max", "min") and args:
        vals = args[0] if len(args) == 1 and isinstance(args[0], list) else args
        if any(isinstance(v, list) for v in vals):
            raise NotFloat(f"`{f}` of vectors")
        out = vals[0]
        for v in vals[1:]:
            out = t(np.maximum(out, v) if f == "max" else np.minimum(out, v))
        return out
    if f == "softmax" and len(args) == 1 and isinstance(args[0], list):
        ex = [t(np.exp(x)) for x in args[0]]  # the naive formula, as the articles write it
        total = ex[0]
        for x in ex[1:]:
            total = t(total + x)
        return [t(x / total) for x in ex]
    raise NotFloat(f"float mode does not evaluate `{f}` here")


def as_exact(v):
    """A float result as the exact number it is (``inf`` as ``oo``); None for ``nan``."""
    if isinstance(v, list):
        items = [as_exact(x) for x in v]
        return None if any(x is None for x in items) else sympy.ImmutableMatrix(items)
    x = float(v)
    if math.isnan(x):
        return None
    if math.isinf(x):
        return sympy.oo if x > 0 else -sympy.oo
    return sympy.Rational(x)


def show(v) -> str:
    if isinstance(v, list):
        return "[" + ", ".join(show(x) for x in v) + "]"
    return repr(float(v)).replace("nan", "NaN")
