"""One semantics for index ranges, sums and products: the language's, never sympy's.

The language (docs/language.md, "Sums and products") reads ``lo..hi`` as
the integers ``lo, lo + 1, ..., hi``, EMPTY when ``hi < lo`` (a range is
never reversed); an empty sum is 0 and an empty product is 1.  Sympy's
``Sum.doit``/``summation`` and ``Product.doit`` follow Karr's convention
instead, where a reversed range counts negatively: ``Sum(1, (i, 1, -2))``
is -2 and ``Product(2, (i, 3, 1))`` is 1/2.  Both agree when ``hi >= lo - 1``.

Everything outside the kernel that gives a sum or a product over concrete
bounds a value goes through this module: ``check`` and ``table``
(:mod:`stepcheck.numeric`), ``simulate``, the finite models (counterexamples
and the soundness cross-check, :mod:`.evaluate`) and the mutation oracle
(``benchmarks/mutate.py``).

* :func:`index_range` / :func:`count`: the integers of ``lo..hi`` and how many;
* :func:`unit`: the value of an empty sum (0) or product (1);
* :func:`evaluate`: every Sum/Product with whole-number bounds in an
  expression replaced by its value (nested ones too, inner bounds that
  depend on an outer index included), within a budget of terms.

(:mod:`stepcheck.distributions` sits below the models and cannot import
this module: its DiscreteUniform moments use the Bernoulli-polynomial
closed form of an ordinary sum over the non-empty support, not sympy's
``summation``.)

This module imports only sympy (the models must not share the kernel's code).
"""
from __future__ import annotations

from fractions import Fraction

import sympy
from sympy import Integer, Product, Sum

MAX_TERMS = 10_000  # terms one evaluation may expand (across nested sums)


class RangeLimit(Exception):
    """The evaluation would expand more terms than its budget (or a bound is not a whole number)."""


def index_range(lo: int, hi: int) -> range:
    """The integers of ``lo..hi``: empty when ``hi < lo`` (never reversed)."""
    return range(int(lo), int(hi) + 1)


def count(lo: int, hi: int) -> int:
    """How many integers ``lo..hi`` holds (0 when ``hi < lo``)."""
    return max(int(hi) - int(lo) + 1, 0)


def unit(x) -> Integer:
    """The value of an empty sum (0) or an empty product (1)."""
    return Integer(1) if isinstance(x, Product) or x is Product else Integer(0)


def _is_bigop(x) -> bool:
    return isinstance(x, (Sum, Product))


def evaluate(expr, max_terms: int = MAX_TERMS, *, deadline=None, max_bits: int | None = None,
             max_irrational: int | None = None):
    """``expr`` with every sum and product over whole-number bounds replaced by its value.

    A reversed range is empty.  Sums and products whose bounds are still
    symbolic are left as they are.  Raises :class:`RangeLimit` when more than
    ``max_terms`` terms would be expanded, when a numeric bound is not a whole
    number, when a product's exact value grows past ``max_bits`` bits, or when a
    sum collects more than ``max_irrational`` irrational terms; ``deadline`` (a
    callable, which raises to stop) is called between terms.
    """
    budget = [int(max_terms)]

    def walk(x):
        if not isinstance(x, sympy.Basic) or not x.has(Sum, Product):
            return x
        if _is_bigop(x):
            return bigop(x)
        args = [walk(a) for a in x.args]
        return x.func(*args) if any(a is not b for a, b in zip(args, x.args)) else x

    def bigop(x):
        cls = type(x)
        limits = list(x.limits)
        var, lo, hi = limits[-1]  # the outermost range; sympy lists the innermost first
        inner = cls(x.function, *limits[:-1]) if len(limits) > 1 else x.function
        lo, hi = walk(lo), walk(hi)
        if not (lo.is_Integer and hi.is_Integer):
            if lo.is_number and hi.is_number:
                raise RangeLimit(f"the range {lo}..{hi} has a bound that is not a whole number")
            return x  # symbolic: no value yet
        n = count(lo, hi)
        if n == 0:
            return unit(x)
        what = "sum" if cls is Sum else "product"
        if n > budget[0]:
            raise RangeLimit(f"a {what} with {n:,} terms is too long to expand (the limit is {max_terms:,} terms)")
        budget[0] -= n
        body = walk(inner)
        if cls is Sum and _cheap_closed_form(body, var):
            return Sum(body, (var, lo, hi)).doit()  # a non-empty range: sympy's sum is the ordinary one
        if cls is Sum and (fast := _rational_sum(body, var, lo, hi, deadline)) is not None:
            return fast
        # term by term (an inner range may depend on this index): each instance evaluated on its own
        acc, rest = unit(x), []  # the rational part, folded as it comes, and the other terms
        for k in index_range(lo, hi):
            if deadline is not None:
                deadline()
            term = walk(body.xreplace({var: Integer(k)}))
            if cls is Sum:
                if term.is_Rational:
                    acc += term
                else:
                    rest.append(term)
                    if max_irrational is not None and len(rest) > max_irrational:
                        raise RangeLimit(f"the sum has more than {max_irrational:,} irrational terms: too costly "
                                         "to decide exactly")
                continue
            acc = acc * term
            if max_bits is not None and _bits(acc) > max_bits:
                raise RangeLimit(f"the {what}'s exact value grows past {max_bits:,} bits")
        return sympy.Add(acc, *rest) if cls is Sum else acc

    return walk(expr)


def _bits(x) -> int:
    if isinstance(x, sympy.Rational):
        return max(int(x.p).bit_length(), int(x.q).bit_length())
    c, _ = x.as_coeff_Mul()
    return _bits(c) if isinstance(c, sympy.Rational) and c is not x else 0


def _rational_sum(body, var, lo, hi, deadline):
    """Σ_{var=lo..hi} body exactly, with Python's integers, when the body is a rational function of ``var``
    alone over the rationals (``1/i``: building each sympy term costs far more than the arithmetic); None
    otherwise, or when a denominator vanishes at a term (the term-by-term evaluation then says so)."""
    if body.free_symbols != {var} or body.has(sympy.Float):
        return None
    num, den = sympy.fraction(body)  # never `together`: it cancels i in i^3/(i^2 + i), defined at 0 only then
    try:
        cn, cd = (sympy.Poly(x, var, domain=sympy.QQ).all_coeffs() for x in (num, den))
    except (sympy.PolynomialError, sympy.CoercionFailed, ValueError, TypeError):
        return None
    cn, cd = ([Fraction(int(c.p), int(c.q)) for c in cs] for cs in (cn, cd))

    def at(cs, k):
        v = Fraction(0)
        for c in cs:
            v = v * k + c
        return v

    total = Fraction(0)
    for k in index_range(lo, hi):
        if deadline is not None:
            deadline()
        d = at(cd, k)
        if d == 0:
            return None
        total += at(cn, k) / d
    return sympy.Rational(total.numerator, total.denominator)


def _cheap_closed_form(body, var) -> bool:
    """Whether sympy sums ``body`` over a concrete range quickly and exactly: a term that does not
    depend on the index, a polynomial of small degree in it, or a geometric term ``c·b^(p·i + q)``."""
    if var not in body.free_symbols:
        return True
    if body.has(Sum, Product):
        return False
    try:
        if body.is_polynomial(var):
            return sympy.degree(body, var) <= 8
    except Exception:
        return False
    c, rest = body.as_independent(var, as_Add=False)
    return (isinstance(rest, sympy.Pow) and var not in rest.base.free_symbols
            and rest.exp.is_polynomial(var) and sympy.degree(rest.exp, var) == 1)
