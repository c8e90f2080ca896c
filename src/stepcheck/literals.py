"""Decimal literals read as exact rationals, from their text (never sympify)."""
from __future__ import annotations

import re

import sympy
from sympy import Integer, Rational

from .errors import Span, error

MAX_DECIMAL_EXPONENT = 400
MAX_LITERAL_DIGITS = 4000  # Python reads at most 4,300 digits into an int
_NUM = re.compile(r"^(\d+)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$")


def number(text: str, span: Span) -> sympy.Expr:
    """An exact rational from a decimal literal (no sympify)."""
    m = _NUM.match(text)
    if not m:
        raise error(f"cannot read the number `{text}`", span, code="E-number")
    whole, frac, exp = m.group(1), m.group(2) or "", m.group(3)
    if len(whole) + len(frac) > MAX_LITERAL_DIGITS:
        raise error("number too long", span, f"more than {MAX_LITERAL_DIGITS:,} digits",
                    notes=["write a large number as a power, e.g. 10^5000"], code="E-limit")
    value = Integer(int(whole + frac)) if frac else Integer(int(whole))
    if frac:
        value = Rational(int(whole + frac), 10 ** len(frac))
    if exp:
        e = int(exp)
        if abs(e) > MAX_DECIMAL_EXPONENT:
            raise error(f"the exponent of `{text}` is too large", span, "limit",
                        notes=[f"decimal exponents are limited to ±{MAX_DECIMAL_EXPONENT}"], code="E-limit")
        value = value * Rational(10) ** e
    return value
