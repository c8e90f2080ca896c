"""Cross terms under squares (part of the rule ``inequality``).

A margin's numerator, expanded as a polynomial in its atoms, with a negative cross term ``-c w u v`` (c > 0,
w a monomial proved ``>= 0``) beside ``a w u^2`` and ``b w v^2`` with ``4 a b >= c^2``: for a number t > 0 with
``(c/2) t <= a`` and ``c/(2 t) <= b`` (t = 1 where it can), ``c u v = (c/2) (t u^2 + v^2/t) - (c/2) (√t u - v/√t)^2``,
so the margin is at least the same polynomial with ``-c w u v`` gone and ``a``, ``b`` lowered by ``(c/2) t`` and
``c/(2 t)``; its sign is proved by the interval evaluator (strict where that is).
So ``p_i p_j <= 1/4`` for two members of a softmax (the numerator ``(e_i - e_j)^2 + R^2 + 2 (e_i + e_j) R``
for the rest R of the sum) and ``∂p_i/∂s_j >= -1/4`` hold.  The denominator must be proved positive.
"""
from __future__ import annotations

import sympy

from .calculus import sign_proof

MAX_TERMS = 60  # terms of the numerator


def numerator_poly(g, domain):
    """(the numerator of ``g`` as a polynomial in its atoms, the signs used to prove the denominator positive), or
    None where it has too many terms, no symbol, or a denominator not proved positive."""
    try:
        num, den = sympy.fraction(sympy.together(g))
        num = sympy.expand(num)
        if len(sympy.Add.make_args(num)) > MAX_TERMS or not num.free_symbols:
            return None
        poly = sympy.Poly(num)
    except (sympy.PolynomialError, sympy.GeneratorsNeeded, NotImplementedError, ValueError, TypeError):
        return None
    if den == 1:
        return poly, set()
    ok, signs = sign_proof(den, True, domain)
    return (poly, set(signs)) if ok else None


def cross_squares_proof(g, strict: bool, domain) -> tuple[bool, set]:
    """``g > 0`` (``>= 0``) with its negative cross terms written under squares (see the module)."""
    got = numerator_poly(g, domain)
    if got is None:
        return False, set()
    poly, used = got
    terms = dict(poly.terms())
    if not any(c < 0 for c in terms.values()) or not all(c.is_Rational for c in terms.values()):
        return False, set()
    gens, squares = poly.gens, []
    for mono, c in sorted(terms.items()):
        if c >= 0:
            continue
        for a in range(len(gens)):
            for b in range(a + 1, len(gens)):
                if mono[a] < 1 or mono[b] < 1:
                    continue
                ua = tuple(e + (1 if k == a else -1 if k == b else 0) for k, e in enumerate(mono))  # w u^2
                vb = tuple(e + (1 if k == b else -1 if k == a else 0) for k, e in enumerate(mono))  # w v^2
                half = -c / 2
                # c u v <= (c/2) (t u^2 + v^2/t) for any t > 0: t between what each diagonal term can give
                lo_t, hi_t = (half / terms[vb] if terms.get(vb, 0) > 0 else None), (terms.get(ua, 0) / half)
                if lo_t is not None and lo_t <= hi_t:
                    t = 1 if lo_t <= 1 <= hi_t else (lo_t + hi_t) / 2
                    w = sympy.Mul(*[gens[k] ** (e - (1 if k in (a, b) else 0)) for k, e in enumerate(mono)])
                    ok, signs = sign_proof(w, False, domain)
                    if not ok:
                        continue
                    used |= set(signs)
                    terms[ua] -= half * t
                    terms[vb] -= half / t
                    terms[mono] = 0
                    squares.append((half, w, gens[a] - gens[b]))
                    break
            if terms[mono] == 0:
                break
    if not squares:
        return False, set()
    rest = sympy.Add(*[c * sympy.Mul(*[x ** e for x, e in zip(gens, mono)]) for mono, c in terms.items() if c != 0])
    ok, signs = sign_proof(rest, strict, domain)  # the squares are >= 0: the margin has the sign of what is left
    return (True, used | set(signs)) if ok else (False, set())
