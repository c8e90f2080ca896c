"""Printing the language's objects: one place for every output format.

:class:`LanguagePrinter` is a mixin for sympy printers (``_print_<Class>``
dispatch, as in ``sympy/printing/str.py`` and ``latex.py``): it prints the
objects of the language -- ``E``, ``Var``, ``Cov``, ``SD`` (:mod:`.objects`),
``P`` (:mod:`.probability`), the kernel's canonical sum ``DSum`` and indexed
names ``q_i`` -- by taking them apart once and handing the pieces to a few
per-format hooks that supply only the format's tokens:

* ``_expectation(x)``: ``E[x]``; typst ``EE[x]``; LaTeX ``\\mathbb{E}\\left[x\\right]``;
* ``_operator(name, args)``: ``Var(x)``, ``Cov(x, y)``; typst ``op("Var")(x)``;
  LaTeX ``\\operatorname{Var}\\left(x\\right)``;
* ``_probability(event)``: ``P(event)``; typst ``PP(event)``; LaTeX ``\\mathbb{P}\\left(event\\right)``;
* ``_subscript(base, indices, exprs)``: ``q_i``, ``q_{i+1}``; typst ``q_i``, ``q_(i + 1)``; LaTeX ``q_{i}``;
* ``_distinct_sum(summand, bounds, excluded)``: ``Σ[b1=1..n; b2=1..n (distinct)] ...``
  (residuals: ``sum(b1=1..n, b1 ≠ i, body)``); typst ``sum_(...)``; LaTeX ``\\sum_{...}^{...}``.

The str printer (:class:`KernelPrinter`, residuals in diagnostics), the
model finder's printer (``stepcheck.models``), the typst printer
(``stepcheck.typst_printer``) and the LaTeX printer (``stepcheck.api``) all
extend it.  Elementary functions are described by the table in
:mod:`.functions`.
"""
from __future__ import annotations

import sympy

from sympy import Tuple
from sympy.printing.precedence import PRECEDENCE
from sympy.printing.str import StrPrinter


__all__ = ["LanguagePrinter", "KernelPrinter", "show", "readable"]


class LanguagePrinter:
    """Mixin: ``_print_E``, ``_print_Var``, ``_print_Cov``, ``_print_SD``,
    ``_print_Prob``, ``_print_Indexed`` and ``_print_DSum`` through per-format
    hooks.  Put it first among the bases so that its methods win over the
    format printer's own (``LatexPrinter._print_Indexed``)."""

    # -- the objects (shared)

    # ``exp``: sympy's LaTeX printer prints ``f(x)**2`` as ``self._print(f(x), exp="2")``
    def _print_E(self, e, exp=None):
        return self._raised(self._expectation(self._print(e.args[0])), exp)

    def _print_Var(self, e, exp=None):
        return self._raised(self._operator("Var", [self._print(a) for a in e.args]), exp)

    def _print_Cov(self, e, exp=None):
        return self._raised(self._operator("Cov", [self._print(a) for a in e.args]), exp)

    def _print_SD(self, e, exp=None):
        return self._raised(self._operator("SD", [self._print(a) for a in e.args]), exp)

    def _print_Prob(self, e, exp=None):
        return self._raised(self._probability(self._print(e.args[0])), exp)

    def _print_FamilyExtremum(self, e, exp=None):
        """``max(s)`` / ``min(s)`` of a family, as written."""
        return self._raised(self._family_extremum(e.kind, self._print(e.args[0].label)), exp)

    def _family_extremum(self, kind: str, family: str) -> str:
        return f"{kind}({family})"

    def _raised(self, text: str, exp) -> str:
        return text if exp is None else f"{text}^{{{exp}}}"

    def _print_Indexed(self, e):
        return self._subscript(self._print(e.base.label), [self._print(i) for i in e.indices], list(e.indices))

    def _print_DSum(self, e, exp=None):
        """``DSum(summand, bounds, excluded)``: bounds as ``(b, lo, hi)`` triples, excluded as a list."""
        summand, bounds, excluded = e.args
        excluded = list(excluded) if isinstance(excluded, (Tuple, tuple, list)) else [excluded]
        text = self._distinct_sum(summand, [tuple(b) for b in bounds], excluded)
        return text if exp is None else self._raised(f"\\left({text}\\right)", exp)

    # -- the format's tokens (overridden per format; these are the plain-text ones)

    def _expectation(self, arg: str) -> str:
        return f"E[{arg}]"

    def _operator(self, name: str, args: list) -> str:
        return f"{name}({', '.join(args)})"

    def _probability(self, event: str) -> str:
        return f"P({event})"

    def _subscript(self, base: str, indices: list, exprs: list) -> str:
        idx = ",".join(indices)
        if len(exprs) == 1 and (len(idx) == 1 or idx.isdigit() or idx.isalnum()):
            return f"{base}_{idx}"
        return f"{base}_{{{idx}}}"

    def _distinct_sum(self, summand, bounds: list, excluded: list) -> str:
        names = [self._print(b[0]) for b in bounds]
        rng = "; ".join(f"{self._print(b)}={self._print(lo)}..{self._print(hi)}" for b, lo, hi in bounds)
        conds = []
        if len(names) > 1:
            conds.append("distinct")
        ex = [self._print(x) for x in excluded]
        if ex:
            conds.append("≠ " + ", ".join(ex))
        c = f" ({'; '.join(conds)})" if conds else ""
        return f"Σ[{rng}{c}] {self.parenthesize(summand, PRECEDENCE['Mul'])}"


class KernelPrinter(LanguagePrinter, StrPrinter):
    """Readable text for kernel expressions (residuals in diagnostics): E[...]
    with brackets, canonical sums as Σ, indexed names as q_i."""

    printmethod = "_stepcheck_str"  # ignore objects' own _sympystr (Indexed has one)

    def _print_Symbol(self, s):
        n = s.name
        if n.startswith("_b"):
            return n[1:]
        return n

    _print_Dummy = _print_Symbol

    def _print_Integer(self, e):
        return _long_number(e) or str(e.p)

    def _print_Rational(self, e):
        return _long_number(e) or super()._print_Rational(e)

    def _print_Exp1(self, e):
        return "e"

    def _print_KroneckerDelta(self, e):
        return f"delta({self._print(e.args[0])}, {self._print(e.args[1])})"

    # the language's names: |x|, max(a, b), min(a, b) (sympy's own would print Abs, Max, Min)
    def _print_Abs(self, e, exp=None):
        return self._raised(f"|{self._print(e.args[0])}|", exp)

    def _print_Max(self, e, exp=None):
        return self._raised(f"max({', '.join(self._print(a) for a in e.args)})", exp)

    def _print_Min(self, e, exp=None):
        return self._raised(f"min({', '.join(self._print(a) for a in e.args)})", exp)

    # the language's own notation: x^2, juxtaposition, sum(i=1..n, ...)
    def _print_Pow(self, expr, rational=False):
        return super()._print_Pow(expr, rational).replace("**", "^")

    def _print_Mul(self, expr):
        return super()._print_Mul(expr).replace("*", " ")

    def _print_Sum(self, e):
        text = self._print(e.function)
        for i, a, b in e.limits:  # the first limit is the innermost
            text = f"sum({self._print(i)}={self._print(a)}..{self._print(b)}, {text})"
        return text

    def _distinct_sum(self, summand, bounds: list, excluded: list) -> str:
        """The kernel's sum over distinct indices: ``sum(b1=1..n, b1 ≠ i, j, body)``."""
        names = [self._print(b[0]) for b in bounds]
        parts = [f"{self._print(b)}={self._print(lo)}..{self._print(hi)}" for b, lo, hi in bounds]
        if len(names) > 1:
            parts.append(" ≠ ".join(names) + " distinct")
        ex = [self._print(x) for x in excluded]
        if ex:
            parts.append(" ≠ ".join([" ≠ ".join(names), ", ".join(ex)]) if len(names) == 1 else
                         "each ≠ " + ", ".join(ex))
        return f"sum({', '.join(parts)}, {self._print(summand)})"


MAX_PRINTED_BITS = 10_000  # about 3,000 digits: Python refuses to print more than 4,300 at all


def _long_number(e) -> str | None:
    """A decimal for an exact number too long to print in full (``≈ 1.00000e+4999``), else None."""
    if max(int(e.p).bit_length(), int(e.q).bit_length()) <= MAX_PRINTED_BITS:
        return None
    try:
        return "≈ " + format(e.evalf(6), "")
    except (ValueError, OverflowError):
        return "(a number too large to print)"


_P = KernelPrinter({"order": "none"})

# names for the kernel's canonical bound indices (b1, b2, ...) when the user's own are taken
SPARE_INDEX_NAMES = ("m", "t", "r", "u", "v", "w", "l", "a", "b", "c")
_RESERVED = {"e", "E", "P", "T", "pi", "oo", "sum", "prod", "delta"}


def readable(expr, prefer=(), avoid=()):
    """``expr`` with the kernel's canonical bound indices renamed to names a reader knows.

    The names come from ``prefer`` (the index names the user wrote in the
    link, in order), then :data:`SPARE_INDEX_NAMES`, then ``m1``, ``m2``, ...;
    never a name that occurs in ``expr`` otherwise (a free symbol, a family,
    a function), so the renaming cannot capture anything, nor one of ``avoid``
    (the file's declared names: a bound ``m`` beside a declared dimension m reads as m).
    """
    from sympy import Basic, Indexed, Symbol

    if not isinstance(expr, Basic):
        return expr
    canon = sorted((s for s in expr.atoms(Symbol) if s.name.startswith("_b")), key=lambda s: s.name)
    if not canon:
        return expr
    taken = {s.name for s in expr.atoms(Symbol) if not s.name.startswith("_b")} | _RESERVED | set(avoid)
    taken |= {str(ix.base.label) for ix in expr.atoms(Indexed)}
    taken |= {type(f).__name__ for f in expr.atoms(sympy.Function)}
    pool = [n for n in dict.fromkeys([*prefer, *SPARE_INDEX_NAMES]) if n not in taken]
    pool += [f"m{k}" for k in range(1, len(canon) + 1) if f"m{k}" not in taken]
    sub = {}
    for c in canon:
        name = pool.pop(0)
        sub[c] = sympy.Dummy(name, **{k: v for k, v in c.assumptions0.items() if v is not None})
    return expr.xreplace(sub)


def show(expr, prefer=(), avoid=()) -> str:
    """The language's own text for a kernel expression; canonical bound indices get readable names."""
    return _P.doprint(readable(expr, prefer, avoid))
