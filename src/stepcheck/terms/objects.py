"""The sympy objects the kernel reasons about.

``E``, ``Var``, ``Cov`` and ``SD`` are unevaluated sympy functions: the
elaborator builds them from the parse tree, and only the kernel's normaliser
gives them meaning.  ``DSum`` is the kernel's canonical sum atom: a sum over a
tuple of pairwise distinct bound indices, each also distinct from a set of
free indices (see ``normal.py``).
"""
from __future__ import annotations

from sympy import Function, Symbol


class E(Function):
    """Expectation E[X] (unevaluated)."""

    nargs = 1
    is_real = True


class Var(Function):
    """Variance Var(X) (unevaluated)."""

    nargs = 1
    is_real = True


class Cov(Function):
    """Covariance Cov(X, Y) (unevaluated)."""

    nargs = 2
    is_real = True


class SD(Function):
    """Standard deviation SD(X) (unevaluated)."""

    nargs = 1
    is_real = True


class DSum(Function):
    """DSum(summand, bounds, excluded): canonical sum atom.

    ``bounds`` is a Tuple of Tuple(b, lo, hi) with canonical bound symbols
    ``_b1, _b2, ...``; the sum runs over tuples of pairwise distinct values,
    each also different from every index symbol in ``excluded`` that shares
    its range.
    """

    nargs = 3
    is_real = True

    def _eval_is_positive(self):
        """Positive when every term is and the range has a member: one bound, no index left out (a sum over
        1..n leaving out i is empty at n = 1), and hi - lo + 1 positive (``log`` then splits over it)."""
        summand, bounds, excl = self.args
        if len(bounds) == 1 and not excl.args and summand.is_positive:
            _, lo, hi = bounds[0]
            if (hi - lo + 1).is_positive:
                return True
        return None

    def _eval_is_nonnegative(self):
        """Nonnegative when every term is (an empty sum is 0)."""
        return True if self.args[0].is_nonnegative else None


_CANON: dict[int, Symbol] = {}


def canon_bound(k: int) -> Symbol:
    """The k-th canonical bound index symbol (a name users cannot write)."""
    s = _CANON.get(k)
    if s is None:
        s = _CANON[k] = Symbol(f"_b{k}", integer=True)
    return s


def is_canon_bound(s) -> bool:
    return isinstance(s, Symbol) and s.name.startswith("_b")


class Extremum(Function):
    """Extremum(f, x, a, b, kind): max / min / argmax / argmin of f over x in [a, b] (unevaluated)."""

    nargs = 5

    @property
    def free_symbols(self):
        """x is bound, as a limit's variable is (``max(x exp(-x), x in [0, 3])`` names no x)."""
        body, var, a, b, kind = self.args
        return (body.free_symbols - {var}) | a.free_symbols | b.free_symbols | kind.free_symbols


class FamilyExtremum(Function):
    """FamilyExtremum(s, lo, hi, kind): the largest (``kind`` max) or smallest entry of the family
    ``s`` (an IndexedBase) over ``lo..hi`` -- ``max(s)`` and ``min(s)`` as written.

    A value that depends on every member: random when the family is random
    (``Decls.is_rv``), and never a free constant.  Its derivative with respect
    to a member is not 0 (the kernel refuses it; the re-check cannot evaluate
    it).
    """

    nargs = 4
    is_real = True

    @property
    def family(self) -> str:
        return self.args[0].label.name

    @property
    def kind(self) -> str:
        return self.args[3].name  # a sympy Str: not a symbol, so never taken for a free name

    def _eval_derivative(self, s):
        from sympy import Derivative

        return Derivative(self, s, evaluate=False)  # never 0: max(s) depends on every member


def as_expr(x):
    """A sympy expression: Python ints become Integers; anything else but a sympy object is a TypeError
    (expressions are built from the parse tree, never from text)."""
    if isinstance(x, int) and not isinstance(x, bool):
        from sympy import Integer

        return Integer(x)
    from sympy import Basic

    if not isinstance(x, Basic):
        raise TypeError(f"the kernel takes sympy expressions, not {type(x).__name__}")
    return x
