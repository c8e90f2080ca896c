"""The language's named functions: one table, one row per function.

A row says what every stage needs to know about one elementary function:

* the elaborator (:mod:`stepcheck.elaborate`) checks the number of arguments
  against :attr:`NamedFunction.arity` and builds the sympy expression with
  :attr:`NamedFunction.build`;
* the finite-model evaluator (:mod:`stepcheck.models`) evaluates an
  application exactly as :attr:`NamedFunction.exact` says (by default: sympy's own
  exact evaluation of :attr:`NamedFunction.cls` at exact arguments, which leaves
  ``tanh(1)`` an exact number that the model's comparisons decide to 60
  digits);
* the typst and LaTeX printers write the function's head from
  :attr:`NamedFunction.typst` and :attr:`NamedFunction.latex`.

Adding an elementary function is one row here, plus the grammar
(``grammar/step.lark``: the ``func_name`` and ``ref_word`` keyword lists)
when the name is new syntax.  Not in the table: the language's operators
``E``, ``Var``, ``Cov``, ``SD``, ``P`` (objects of :mod:`.objects` and
:mod:`.probability`, printed by :class:`.printer.LanguagePrinter`), and the
forms with their own syntax or binders (``softmax(v)_i``, ``diff``,
``limit``, ``argmax``/``argmin``, ``max``/``min`` over an interval,
``sum``/``prod``).

This module imports only sympy.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Union

import sympy
from sympy import KroneckerDelta, oo

__all__ = ["NamedFunction", "FUNCTIONS", "function", "function_of", "by_sympy_name"]

#: ``k`` (exactly k arguments) or ``(lo, hi)`` (``hi`` None: no upper bound)
Arity = Union[int, tuple]


@dataclass(frozen=True)
class NamedFunction:
    """One named function of the language."""

    name: str  # as written in a .step file
    arity: Arity
    build: Callable  # elaborated sympy arguments -> the sympy expression
    cls: type | None = None  # the sympy class of an application (None: build gives no class of its own)
    exact: Union[bool, Callable] = True  # models: True = cls(*exact values); a callable; False = no exact value
    typst: str | None = None  # typst head, ``tanh`` -> ``tanh(x)``; None: the typst printer's own rule
    latex: str | None = None  # LaTeX head, ``\tanh``; None: sympy's LaTeX printer's own rule
    numpy: str | None = None  # the numpy ufunc of the same function (Monte Carlo simulation)
    increasing: bool = False  # strictly increasing on its domain
    image: tuple | None = None  # (lo, hi): the infimum and supremum of its values
    domain: str | None = None  # ">" / ">=": its first argument must be > 0 / >= 0 for a real value
    doc: str = ""

    def takes(self, n: int) -> bool:
        """Whether ``n`` arguments are right."""
        if isinstance(self.arity, int):
            return n == self.arity
        lo, hi = self.arity
        return n >= lo and (hi is None or n <= hi)

    @property
    def fixed_arity(self) -> int | None:
        """The number of arguments when it is fixed."""
        return self.arity if isinstance(self.arity, int) else None

    def arity_message(self, n: int) -> str:
        """The error message for ``n`` arguments (when :meth:`takes` is false)."""
        if isinstance(self.arity, int):
            k = self.arity
            return f"`{self.name}` takes {k} argument{'s' if k > 1 else ''}, not {n}"
        lo, hi = self.arity
        if hi is None:
            if lo == 2:
                return f"`{self.name}` of a single value: write at least two arguments"
            return f"`{self.name}` takes at least {lo} arguments"
        if hi == lo + 1:
            return f"`{self.name}` takes {lo} or {hi} arguments"
        return f"`{self.name}` takes {lo} to {hi} arguments"


def _table(*rows: NamedFunction) -> dict:
    out = {}
    for r in rows:
        if r.name in out:
            raise ValueError(f"function {r.name!r} listed twice")
        out[r.name] = r
    return out


#: name -> row, in the order the language reference lists them
FUNCTIONS: dict[str, NamedFunction] = _table(
    NamedFunction("sqrt", 1, sympy.sqrt, numpy="sqrt", domain=">=",
                  doc="square root (a power, x^(1/2), to every later stage)"),
    NamedFunction("exp", 1, sympy.exp, sympy.exp, numpy="exp", increasing=True, image=(0, oo),
                  doc="exponential (typst: e^x)"),
    NamedFunction("log", (1, 2), sympy.log, sympy.log, numpy="log", increasing=True, image=(-oo, oo), domain=">",
                  doc="natural logarithm (`ln` is the same); log(x, b) is log(x)/log(b)"),
    NamedFunction("tanh", 1, sympy.tanh, sympy.tanh, typst="tanh", latex=r"\tanh", numpy="tanh",
                  increasing=True, image=(-1, 1), doc="hyperbolic tangent"),
    NamedFunction("abs", 1, sympy.Abs, sympy.Abs, typst="abs", numpy="abs", doc="absolute value, also |x|"),
    NamedFunction("max", (2, None), sympy.Max, sympy.Max, typst="max", numpy="maximum",
                  doc="the largest of two or more values"),
    NamedFunction("min", (2, None), sympy.Min, sympy.Min, typst="min", numpy="minimum",
                  doc="the smallest of two or more values"),
    NamedFunction("delta", 2, KroneckerDelta, KroneckerDelta, doc="Kronecker delta of two indices"),
)


def function(name: str) -> NamedFunction | None:
    """The row of the function written ``name``, or None."""
    return FUNCTIONS.get(name)


def function_of(expr) -> NamedFunction | None:
    """The row whose sympy class ``expr`` is an application of, or None."""
    for row in FUNCTIONS.values():
        if row.cls is not None and isinstance(expr, row.cls):
            return row
    return None


def by_sympy_name(name: str) -> NamedFunction | None:
    """The row of the sympy function class called ``name`` (``"Abs"``, ``"tanh"``), or None."""
    for row in FUNCTIONS.values():
        if row.cls is not None and row.cls.__name__ == name:
            return row
    return None
