"""`check A REL B in float32`: numbers as a computer computes them (IEEE 754 binary arithmetic).

The claim is evaluated **as written** (the parse tree, in the written order
of operations, never sympy's reordering), every operation rounded to the
format (see below), with overflow to ``inf`` and invalid
operations to ``nan`` as IEEE 754 says. Each float result is then compared
*exactly*, as the rational number it is (``inf`` as ``oo``), by the same
comparison as other checks: ``check exp(700) = oo in float32`` holds and
``... in float64`` fails (exp(700) ≈ 1.01e304 is finite in float64).

Only numbers, the operators, `pi`, `e`, `oo`, vector literals, `softmax` of a
vector and the functions `exp`, `log`, `sqrt`, `tanh`, `abs`, `max` and `min`
are evaluated; anything else is `unknown` with the reason.

Rounding is IEEE 754's round-to-nearest-even of the *exact* value, every time:
a decimal literal is rounded once from its exact rational value (not through
float64 first: ``1.00048828125000000000001`` is above the float16 midpoint
1 + 2^-11, so it rounds up), and ``exp``, ``log``, ``sqrt``, ``tanh``, powers
and the constants are **correctly rounded** (computed with mpmath to enough
precision to know the rounding, Ziv's strategy), which IEEE 754 recommends and
libraries only approach: numpy's float32 ``exp(1)`` is one unit in the last
place off on some CPUs. The operators ``+ - * /`` are numpy's, which IEEE 754
requires to be correctly rounded already.
"""
from __future__ import annotations

import math
from fractions import Fraction

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


#: (precision in bits with the implicit one, least normal exponent, greatest exponent)
_PARAMS = {"float16": (11, -14, 15), "float32": (24, -126, 127), "float64": (53, -1022, 1023)}


def round_exact(q: Fraction, fmt: str) -> float:
    """The exact rational ``q`` rounded to nearest (ties to even) in ``fmt``, as a Python float (every
    value of the three formats is a float64, so the conversion at the end is exact); beyond the largest
    finite value, ``±inf`` as IEEE 754 says."""
    p, emin, emax = _PARAMS[fmt]
    if q == 0:
        return 0.0
    a = abs(q)
    e = a.numerator.bit_length() - a.denominator.bit_length() - 1  # 2^e < a < 2^(e+2)
    if a >= Fraction(2) ** (e + 1):
        e += 1  # now 2^e <= a < 2^(e+1)
    scale = max(e, emin) - p + 1  # the spacing of the format's values around a (subnormals included)
    m = round(a / Fraction(2) ** scale)  # Fraction.__round__: to nearest, ties to even
    v = Fraction(m) * Fraction(2) ** scale
    out = math.inf if v >= Fraction(2) ** (emax + 1) else float(v)
    return -out if q < 0 else out


def _mpf_fraction(v) -> Fraction:
    sign, man, exp, _ = v._mpf_  # mpmath's raw value: (-1)^sign man 2^exp (man_exp drops the sign)
    q = Fraction(man * 2 ** exp) if exp >= 0 else Fraction(man, 2 ** -exp)
    return -q if sign else q


def _beyond(v, fmt: str):
    """±inf or ±0.0 when ``v`` lies far outside the format's range (no exact rational of 10^9 bits is
    built for exp(1e10)); else None."""
    p, emin, emax = _PARAMS[fmt]
    sign, man, exp, bc = v._mpf_
    if not man:
        return None
    top = exp + bc  # 2^(top-1) <= |v| < 2^top
    if top > emax + 2:
        return -math.inf if sign else math.inf
    if top < emin - p - 2:
        return -0.0 if sign else 0.0
    return None


def correctly_rounded(fn, args, fmt: str) -> float:
    """``fn`` (an mpmath function) of the exact float ``args``, rounded once to ``fmt``.

    Ziv's strategy: compute with mpmath at a working precision, and accept the rounding when the whole
    interval the error bound allows rounds to one value; otherwise double the precision (an exact
    midpoint never settles: past 4096 bits the result is refused, never guessed).
    """
    import mpmath

    p = _PARAMS[fmt][0]
    prec = 2 * p + 32
    while prec <= 4096:
        with mpmath.workprec(prec):
            v = fn(*[mpmath.mpf(float(x)) for x in args])
        if not isinstance(v, mpmath.mpf):
            raise NotFloat("the exact value is not real")
        if mpmath.isinf(v):
            return math.inf if v > 0 else -math.inf
        far = _beyond(v, fmt)
        if far is not None:
            return far
        q = _mpf_fraction(v)
        slack = abs(q) / Fraction(2) ** (prec - 8)
        lo, hi = round_exact(q - slack, fmt), round_exact(q + slack, fmt)
        if lo == hi:
            return lo
        prec *= 2
    raise NotFloat("the correctly rounded value could not be settled (an exact tie?)")


def _literal(node) -> Fraction:
    from .literals import number

    v = number(node.text, node.span)  # exact (E-number / E-limit as anywhere else)
    return Fraction(int(v.p), int(v.q))


def _ev(node, t, np):
    fmt = np.dtype(t).name
    if isinstance(node, S.Num):
        return t(round_exact(_literal(node), fmt))
    if isinstance(node, S.Name):
        import mpmath

        if node.name in ("pi", "π", "e"):
            return t(correctly_rounded(lambda: +(mpmath.pi if node.name != "e" else mpmath.e), (), fmt))
        if node.name in ("oo", "∞"):
            return t(math.inf)
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
        op = {"+": np.add, "-": np.subtract, "*": np.multiply, "/": np.divide,
              "^": lambda x, y: _power(x, y, t, np)}[node.op]
        if isinstance(a, list) or isinstance(b, list):
            if isinstance(a, list) and isinstance(b, list):
                if node.op not in "+-" or len(a) != len(b):
                    raise NotFloat("vectors of different lengths, or a product of two vectors")
                return [t(op(x, y)) for x, y in zip(a, b)]
            return [t(op(x, b)) for x in a] if isinstance(a, list) else [t(op(a, y)) for y in b]
        return t(op(a, b))
    if isinstance(node, S.Call):
        return _call(node, t, np)
    if isinstance(node, S.Subscript):  # one entry of a vector: softmax([20, 0])_1
        v, ix = _ev(node.base, t, np), node.indices
        text = ix[0].text if len(ix) == 1 and isinstance(ix[0], S.Num) else ix[0].name if len(ix) == 1 and \
            isinstance(ix[0], S.Name) else ""  # (`_1` is read as the name 1)
        if not isinstance(v, list) or not text.isdigit():
            raise NotFloat("float mode reads one entry of a vector at a number, as in `softmax([20, 0])_1`")
        k = Fraction(int(text))
        if not 1 <= k <= len(v):
            raise NotFloat(f"there is no entry {k} in a vector of {len(v)}: entries are numbered 1..{len(v)}")
        return v[int(k) - 1]
    raise NotFloat(f"float mode does not evaluate this ({type(node).__name__.lower()})")


def _map(f, v):
    return [f(x) for x in v] if isinstance(v, list) else f(v)


def _power(x, y, t, np):
    """x^y correctly rounded: exactly for a whole exponent (a negative base too), from its exact value when
    that is rational (225^1.5 = 3375), by :func:`correctly_rounded` otherwise.  A zero, infinite or NaN
    operand, and a negative base with a fractional exponent, give C99's pow (IEEE 754's), whose results
    there are exact: (-0)^0.5 = +0, (-inf)^0.5 = +inf, 0^-1 = +inf, (-1)^0.5 = NaN."""
    fmt = np.dtype(t).name
    fx, fy = float(x), float(y)
    if math.isfinite(fx) and math.isfinite(fy) and fx != 0:
        q = Fraction(fx)
        if fy.is_integer() and abs(fy) * max(q.numerator.bit_length(), q.denominator.bit_length()) <= 20000:
            return t(round_exact(q ** int(fy), fmt))  # exact (a bounded size: 0.1^4000 goes to mpmath)
        if fx < 0 and not fy.is_integer():
            return t(math.nan)
        import mpmath

        sign = -1.0 if fx < 0 and int(fy) % 2 else 1.0  # (a huge whole exponent of a negative base)
        exact = _rational_power(Fraction(abs(fx)), Fraction(fy))
        if exact is not None:  # a perfect power: its exact value, ties rounded to even
            return t(sign * round_exact(exact, fmt))
        return t(sign * correctly_rounded(mpmath.power, (abs(fx), fy), fmt))
    if fx == 0 and fy < 0:
        odd = fy.is_integer() and abs(fy) < 2 ** 53 and int(fy) % 2 == 1
        return t(math.copysign(math.inf, fx) if odd else math.inf)
    try:
        return t(math.pow(fx, fy))  # C99's special cases
    except (ValueError, OverflowError):
        return t(math.nan)


def _rational_power(a: Fraction, e: Fraction):
    """a^e when it is rational (numerator and denominator of a perfect q-th powers, e = p/q with a small
    q; a float exponent's q is a power of 2), else None."""
    from sympy import integer_nthroot

    if e.denominator == 1 or e.denominator > 64:
        return None
    rn, okn = integer_nthroot(a.numerator, e.denominator)
    rd, okd = integer_nthroot(a.denominator, e.denominator)
    if not (okn and okd) or abs(e.numerator) * max(rn.bit_length(), rd.bit_length()) > 20000:
        return None  # (a power too large to write out: mpmath's, correctly rounded)
    return Fraction(rn, rd) ** e.numerator


def _unary(name: str, x, t, np):
    """exp, log, sqrt, tanh correctly rounded; at infinities, NaN and outside the domain IEEE 754's special
    values (exact: inf, -inf, 0, ±1, NaN), as numpy gives them in float64."""
    import mpmath

    fx = float(x)
    special = {"log": fx <= 0, "sqrt": fx < 0}.get(name, False) or fx == 0  # ±0: exact, signed (tanh(-0) = -0)
    if not math.isfinite(fx) or special:
        return t(getattr(np, name)(np.float64(fx)))
    fn = {"exp": mpmath.exp, "log": mpmath.log, "sqrt": mpmath.sqrt, "tanh": mpmath.tanh}[name]
    return t(correctly_rounded(fn, (fx,), np.dtype(t).name))


def _call(node: S.Call, t, np):
    f = node.func
    args = [_ev(a, t, np) for a in node.args]
    if f in ("exp", "log", "sqrt", "tanh") and len(args) == 1:
        return _map(lambda x: _unary(f, x, t, np), args[0])
    if f == "abs" and len(args) == 1:
        return _map(lambda x: t(np.abs(x)), args[0])
    if f in ("max", "min") and args:
        vals = args[0] if len(args) == 1 and isinstance(args[0], list) else args
        if any(isinstance(v, list) for v in vals):
            raise NotFloat(f"`{f}` of vectors")
        out = vals[0]
        for v in vals[1:]:
            out = t(np.maximum(out, v) if f == "max" else np.minimum(out, v))
        return out
    if f == "softmax" and len(args) == 1 and isinstance(args[0], list):
        ex = [_unary("exp", x, t, np) for x in args[0]]  # the naive formula, as the articles write it
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
