"""Numeric comparisons decided exactly: numbers as written, tolerances, signs.

``decide(x, c, rel, ...)`` compares two exact sympy numbers (or vectors of
them) by the rules of docs/numbers.md and returns a :class:`Comparison`;
the judge turns it into the verdict of a ``check`` / ``table`` claim,
decided by ``exact numeric``.  Signs come from :func:`stepcheck.judge.exact.sign`.
"""
from __future__ import annotations

import math
import re

import sympy
from sympy import Rational

from . import syntax as S
from .judge.exact import PRECISIONS, sign
from .judge.exact import as_sympy as _as_sympy
from .results import FAILS, HOLDS, UNKNOWN
from .terms.magnitude import LIMIT, too_large


# ------------------------------------------------------------------ numbers as written

_NUM = re.compile(r"^(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$")


def _num_tol(text: str) -> Rational:
    """Half a unit in the last written digit of a literal: 2.83 -> 0.005, 8 -> 0.5, 1e-9 -> 5e-10."""
    m = _NUM.match(text)
    frac, exp = m.group(2) or "", int(m.group(3) or 0)
    return Rational(1, 2) * Rational(10) ** (exp - len(frac))


def _int_of(node):
    if isinstance(node, S.Num) and node.text.isdigit():
        return int(node.text)
    if isinstance(node, S.Neg) and isinstance(node.operand, S.Num) and node.operand.text.isdigit():
        return -int(node.operand.text)
    return None


def written_tolerance(node):
    """The tolerance a decimal written as ``node`` stands for, or None when it is not a decimal.

    Decimals: ``2.83``, ``-0.5``, ``1e-9``, ``10^29`` (one significant digit) and
    ``2.6 × 10^10`` / ``2.6 * 10^-3`` (the mantissa's digits, scaled)."""
    if isinstance(node, S.Num):
        return _num_tol(node.text)
    if isinstance(node, S.Neg):
        return written_tolerance(node.operand)
    if isinstance(node, S.BinOp) and node.op == "^" and isinstance(node.left, S.Num) and node.left.text == "10":
        k = _int_of(node.right)
        return None if k is None else Rational(1, 2) * Rational(10) ** k
    if isinstance(node, S.BinOp) and node.op == "*" and isinstance(node.left, S.Num):
        r = node.right
        if isinstance(r, S.BinOp) and r.op == "^" and isinstance(r.left, S.Num) and r.left.text == "10":
            k = _int_of(r.right)
            if k is not None:
                return _num_tol(node.left.text) * Rational(10) ** k
    return None


# ------------------------------------------------------------------ deciding signs


MAX_SHOWN_BITS = 3_000  # an exact number with larger integers is shown only as a decimal (about 900 digits)


def huge(x) -> bool:
    """Whether an exact value holds an integer too large to be printed in full (numerator or denominator
    past MAX_SHOWN_BITS bits; Python refuses to print integers of more than 4,300 digits at all)."""
    try:
        for a in sympy.preorder_traversal(x):
            if isinstance(a, sympy.Rational) and max(int(a.p).bit_length(), int(a.q).bit_length()) > MAX_SHOWN_BITS:
                return True
    except Exception:
        return True
    return False


def _text_len(x) -> int:
    """len(str(x)) of a Rational, without printing it when it is long."""
    return 10**6 if huge(x) else len(str(x))


def safe_str(x) -> str:
    """``str(x)``, or a decimal when ``x`` holds integers too large to print."""
    if huge(x):
        try:
            return _nstr(sympy.N(x, 10), 10)
        except Exception:
            return "(a number too large to print)"
    try:
        return str(x)
    except ValueError:
        return "(a number too large to print)"


def fmt(x, digits: int = 10) -> str:
    """A short decimal of an exact value: 2.828427125, 2.648912213e+10, 0.0625, 1/3 ≈ 0.3333333333."""
    try:
        x = _as_sympy(x)
        if not x.is_Rational and too_large(x):  # exp(exp(exp(10))): its decimal digits are never computed
            from .terms.printer import show

            return show(x)
        if x.is_Rational:
            if huge(x):
                return _nstr(sympy.N(x, digits), digits)
            q = int(x.q)
            while q % 2 == 0:
                q //= 2
            while q % 5 == 0:
                q //= 5
            if x.is_Integer and abs(x) < 10**10:
                return str(x)
            if q == 1 and len(str(x)) <= 14:  # a terminating decimal: show it exactly
                from decimal import Decimal, localcontext

                with localcontext() as ctx:
                    ctx.prec = 40
                    d = (Decimal(int(x.p)) / Decimal(int(x.q))).normalize()
                return f"{d:f}" if -7 < d.adjusted() < 10 else f"{d:e}"
            if q != 1 and len(str(x)) <= 14:
                return f"{x} ≈ {_nstr(sympy.N(x, digits), digits)}"
        return _nstr(sympy.N(x, digits), digits)
    except Exception:
        return safe_str(x)


def _nstr(v, digits):
    import mpmath

    try:
        return mpmath.nstr(mpmath.mpf(v), digits, min_fixed=-4, max_fixed=9)
    except Exception:
        return safe_str(v)


# ------------------------------------------------------------------ one comparison


class Comparison:
    """A numeric comparison's outcome (the judge turns it into the link's verdict, decided by EXACT)."""

    def __init__(self, status, message, notes=(), bad_entry=None):
        self.outcome = status
        self.message = message
        self.notes = list(notes)
        self.bad_entry = bad_entry  # index of a failing vector entry


def _interval(c, tol):
    return f"[{fmt(c - tol)}, {fmt(c + tol)}]"


def compare_approx(x, c, tol, how: str) -> Comparison:
    """``x ≈ c`` with |x - c| <= tol (boundary included)."""
    lo, hi = sign(x - (c - tol)), sign((c + tol) - x)
    rng = _interval(c, tol)
    shown = f"value {_exact(x)}; allowed {rng} ({how})"
    if lo is not None and hi is not None and lo >= 0 and hi >= 0:
        edge = " — exactly on the boundary, which is included" if 0 in (lo, hi) else ""
        return Comparison(HOLDS, shown + edge)
    if (lo is not None and lo < 0) or (hi is not None and hi < 0):
        side = "below" if lo is not None and lo < 0 else "above"
        return Comparison(FAILS, f"value {_exact(x)} is {side} the allowed interval {rng} ({how})")
    return Comparison(UNKNOWN, f"value {fmt(x, 30)} is within rounding of the boundary of {rng} ({how}): "
                            f"{PRECISIONS[-1]} digits cannot decide")


def _undummy(e):
    """``e`` with every Dummy replaced by a Symbol of the same name and assumptions."""
    return e.xreplace({d: sympy.Symbol(d.name, **d.assumptions0) for d in e.atoms(sympy.Dummy)})


def _exact(x) -> str:
    """``erf(sqrt(2)/2) = 0.6826894921`` (the exact form when it is short and not a plain number)."""
    shown = fmt(x)
    if not x.is_Rational and not huge(x) and sympy.count_ops(x) <= 40:
        from .terms.printer import show

        t = show(x)
        if len(t) <= 40:
            return f"{t} = {shown}"
    return shown


def _exact_r(x) -> str:
    if x.is_Rational and not x.is_Integer:
        d = fmt(x)
        return d if ("≈" in d or _text_len(x) > 14) else f"{x} = {d}"
    return _exact(x)


def compare_exact(x, c, op, lt="left", rt="right") -> Comparison:
    s = sign(x - c)
    shown = f"{lt} = {_exact_r(x)}; {rt} = {_exact_r(c)}"
    if s is None and too_large(x - c):
        return Comparison(UNKNOWN, f"{shown}: too large to evaluate (more than 10^{int(LIMIT)} in size)")
    if s is None:
        return Comparison(UNKNOWN, f"{shown}: the difference is too small to decide with {PRECISIONS[-1]} digits")
    ok = {"=": s == 0, "!=": s != 0, "<": s < 0, "<=": s <= 0, ">": s > 0, ">=": s >= 0}[op]
    if op == "=" and ok:
        return Comparison(HOLDS, f"both sides are exactly {_exact(x) if not x.is_Rational or x.is_Integer or huge(x) else f'{x} = {fmt(x)}'}")
    return Comparison(HOLDS if ok else FAILS, shown)


def _exponent(x):
    """floor(log10|x|) decided exactly, or None."""
    ax = sympy.Abs(x)
    if sign(ax) in (0, None):
        return None
    try:
        guess = int(math.floor(float(sympy.log(ax, 10).evalf(30))))
    except Exception:
        return None
    for k in (guess - 1, guess, guess + 1):
        a, b = sign(ax - Rational(10) ** k), sign(Rational(10) ** (k + 1) - ax)
        if a is None or b is None:
            return None
        if a >= 0 and b > 0:
            return k
    return None


def compare_magnitude(x, c, lt: str, rt: str) -> Comparison:
    a, b = _exponent(x), _exponent(c)
    shown = f"{lt} = {_sci(x)}; {rt} = {_sci(c)}"
    if a is None or b is None:
        return Comparison(UNKNOWN, f"{shown}: cannot decide floor(log10|·|) (zero, or too close to a power of 10)")
    if a == b:
        return Comparison(HOLDS, f"{shown}: same order of magnitude (floor(log10) = {a} for both)")
    return Comparison(FAILS, f"{shown}: different orders of magnitude (floor(log10) = {a} vs {b}; "
                          "the convention is the same exponent in scientific notation)")


def _sci(x):
    try:
        import mpmath

        return mpmath.nstr(mpmath.mpf(sympy.N(x, 20)), 3, min_fixed=1, max_fixed=0).replace("e+", "e")
    except Exception:
        return fmt(x)


def decide(x, c, rel, tol_node_or_value, c_node, *, relative=False, lt="left", rt="right") -> Comparison:
    """Decide ``x REL c`` for numbers or vectors (elementwise)."""
    xs = list(x) if isinstance(x, sympy.MatrixBase) else None
    cs = list(c) if isinstance(c, sympy.MatrixBase) else None
    if (xs is None) != (cs is None):
        return Comparison(FAILS, "one side is a vector and the other a number")
    if xs is not None:
        if len(xs) != len(cs):
            return Comparison(FAILS, f"the vectors have different lengths ({len(xs)} and {len(cs)})")
        items = c_node.items if isinstance(c_node, S.Vector) else [None] * len(cs)
        verdicts = []
        for k, (xi, ci, ni) in enumerate(zip(xs, cs, items)):
            v = decide(xi, ci, rel, tol_node_or_value, ni, relative=relative, lt=f"entry {k + 1}", rt=f"entry {k + 1}")
            verdicts.append(v)
        bad = [k for k, v in enumerate(verdicts) if v.outcome == FAILS]
        unk = [k for k, v in enumerate(verdicts) if v.outcome == UNKNOWN]
        lines = [f"entry {k + 1}: {v.message}" for k, v in enumerate(verdicts)]
        if bad:
            return Comparison(FAILS, f"entry {bad[0] + 1}: {verdicts[bad[0]].message}", lines, bad[0])
        if unk:
            return Comparison(UNKNOWN, f"entry {unk[0] + 1}: {verdicts[unk[0]].message}", lines, unk[0])
        return Comparison(HOLDS, f"all {len(xs)} entries hold", lines)
    for v in (x, c):
        if v.free_symbols:
            return Comparison(UNKNOWN, f"the value {safe_str(v)} depends on {', '.join(sorted(map(str, v.free_symbols)))}: "
                                    "give it a value (`table ... for x in [...]`) or prove it with a `step`")
        if sign(sympy.im(v)) not in (0,):
            return Comparison(UNKNOWN, f"the value {fmt(v)} is not (known to be) real")
    if rel == "≈":
        if tol_node_or_value is not None:
            tol = tol_node_or_value
            how = f"within {fmt(tol)}"
            if relative:
                how = f"within {fmt(tol)} relative"
                tol = tol * sympy.Abs(c)
            return compare_approx(x, c, tol, how)
        wt = written_tolerance(c_node) if c_node is not None else None
        if wt is None:
            return Comparison(UNKNOWN, "`≈` needs a decimal on the right (its written precision is the tolerance) "
                                    "or an explicit `within TOL`")
        return compare_approx(x, c, wt, f"as written: ±{fmt(wt)}")
    if rel == "~":
        return compare_magnitude(x, c, lt, rt)
    return compare_exact(x, c, rel, lt, rt)
