"""Readable text for models and for expressions evaluated on them.

:func:`show` writes expressions the way a user writes them (``Var(q_1 k_1)``,
``sum(i=1..n, q_i)``); :func:`render_model` describes a whole model
(dimensions, parameter values, the laws of the random variables and how they
are coupled).
"""
from __future__ import annotations

from fractions import Fraction

import sympy
from sympy import Indexed, Symbol
from sympy.printing.precedence import PRECEDENCE

from ..terms.facts import Decls
from ..terms.printer import KernelPrinter
from .numbers import _marg


MAX_SHOWN_DIGITS = 100  # a model value with longer integers is shown as a decimal


def show_value(v) -> str:
    """A model value as text: exact, or ``≈ 2.656139889e+195`` when its integers are long (Python refuses
    to print integers of more than 4,300 digits at all)."""
    if isinstance(v, Fraction):
        bits = max(v.numerator.bit_length(), v.denominator.bit_length())
        if bits * 0.30103 > MAX_SHOWN_DIGITS:
            return _decimal(sympy.Rational(v.numerator, v.denominator))
        return str(v.numerator) if v.denominator == 1 else f"{v.numerator}/{v.denominator}"
    if isinstance(v, sympy.Basic) and any(isinstance(a, sympy.Rational) and
                                          max(int(a.p).bit_length(), int(a.q).bit_length()) * 0.30103 > MAX_SHOWN_DIGITS
                                          for a in sympy.preorder_traversal(v)):
        return _decimal(v)
    return show(v)


def _decimal(v) -> str:
    import mpmath

    try:
        return "≈ " + mpmath.nstr(mpmath.mpf(sympy.N(v, 12)), 10)
    except Exception:
        return "(a number too large to print)"


class _Printer(KernelPrinter):
    """Expressions the way a user writes them: ``Var(q_1 k_1)``, ``E[X^2]``.

    The language's objects (E[...], Var, Cov, SD, P, indexed names) come from
    :class:`~stepcheck.terms.printer.LanguagePrinter` through the kernel's
    printer; this one writes sums, powers and products in the language's own
    syntax.
    """

    def __init__(self, decls: Decls | None = None):
        super().__init__({"order": "none"})
        self.printmethod = "_stepcheck_models_str"
        self.decls = decls

    def _print_Symbol(self, s):
        return s.name

    _print_Dummy = _print_Symbol

    def _print_KroneckerDelta(self, e):
        return f"delta({self._print(e.args[0])}, {self._print(e.args[1])})"

    def _print_Abs(self, e):
        return f"|{self._print(e.args[0])}|"

    def _print_Sum(self, e):
        out = self._print(e.function)
        for i, a, b in reversed(e.limits):
            out = f"sum({self._print(i)}={self._print(a)}..{self._print(b)}, {out})"
        return out

    def _print_Pow(self, e, rational=False):
        b, x = e.args
        if x == sympy.Rational(1, 2):
            return f"sqrt({self._print(b)})"
        if x == -1:
            return f"1/{self.parenthesize(b, PRECEDENCE['Mul'])}"
        return f"{self.parenthesize(b, PRECEDENCE['Pow'])}^{self.parenthesize(x, PRECEDENCE['Pow'])}"

    def _print_Add(self, e, order=None):
        terms = sorted(e.args, key=lambda t: (t.is_number, self._key(t)))
        out = ""
        for t in terms:
            if t.could_extract_minus_sign():
                out += (" - " if out else "-") + self.parenthesize(-t, PRECEDENCE["Add"])
            else:
                out += (" + " if out else "") + self.parenthesize(t, PRECEDENCE["Add"])
        return out

    def _key(self, f):
        base = f.args[0] if isinstance(f, sympy.Pow) else f
        if isinstance(base, Indexed):
            name = base.base.label.name
        elif isinstance(base, Symbol):
            name = base.name
        else:
            return (1, 10**6, sympy.default_sort_key(f))
        order = self.decls.order.get(name, 10**6) if self.decls else 10**6
        return (0, order, sympy.default_sort_key(f))

    def _print_Mul(self, e):
        c, factors = e.as_coeff_mul()
        if any(isinstance(f, sympy.Pow) and f.args[1].is_negative for f in factors):
            return super()._print_Mul(e).replace("**", "^").replace("*", " ")
        factors = sorted(factors, key=self._key)
        parts = [self.parenthesize(f, PRECEDENCE["Mul"]) for f in factors]
        body = " ".join(parts)
        if c == 1:
            return body
        if c == -1:
            return "-" + body
        return f"{self._print(c)} {body}"


_PLAIN = _Printer()


def show(expr, decls: Decls | None = None) -> str:
    return (_Printer(decls) if decls else _PLAIN).doprint(expr)


def key_name(k) -> str:
    return f"{k[0]}_{k[1]}" if isinstance(k, tuple) else str(k)


def render_model(model, decls: Decls) -> str:
    """A :class:`~.evaluate.Model` in words: dimensions, parameters, then the laws
    of the random variables (and how they are coupled)."""
    parts = [f"{d} = {v}" for d, v in sorted(model.dims.items(), key=lambda t: t[0].name)]
    for k, v in sorted(model.params.items(), key=lambda t: key_name(t[0])):
        parts.append(f"{key_name(k)} = {show_value(v)}")

    def order(k):
        nm = k[0] if isinstance(k, tuple) else str(k)
        return (decls.order.get(nm, 10**6), k[1] if isinstance(k, tuple) else 0, nm)

    groups = sorted(model.groups, key=lambda g: min(order(k) for k in g.vars) if g.vars else (0,))
    singles: dict = {}
    texts = []
    for g in groups:
        if len(g.vars) == 1:
            mg = tuple((vals[0], p) for vals, p in g.rows)
            singles.setdefault(_marg(mg), []).append(g.vars[0])
            continue
        g_vars = sorted(g.vars, key=order)
        perm = [g.vars.index(k) for k in g_vars]
        if g.desc:
            x = [k for k in g_vars if not g.desc.startswith(key_name(k) + " =")]
            xm = _marg([(vals[g.vars.index(x[0])], p) for vals, p in g.rows]) if len(x) == 1 else None
            if xm is not None:
                texts.append((order(g_vars[0]), f"{key_name(x[0])} = {_law(xm)}; {g.desc}"))
                continue
        rows: dict = {}
        for vals, p in g.rows:
            t = tuple(vals[j] for j in perm)
            rows[t] = rows.get(t, 0) + p
        names = "(" + ", ".join(key_name(k) for k in g_vars) + ")"
        vals = ["(" + ", ".join(show_value(v) for v in t) + ")" for t in rows]
        texts.append((order(g_vars[0]), f"{names} = {_alternatives(vals, list(rows.values()))}"))
    for mg, ks in singles.items():
        ks = sorted(ks, key=order)
        if len(ks) == 1:
            texts.append((order(ks[0]), f"{key_name(ks[0])} = {_law(mg)}"))
        else:
            texts.append((order(ks[0]), ", ".join(key_name(k) for k in ks) + f" independent, each {_law(mg, True)}"))
    texts.sort(key=lambda t: t[0])
    parts += [t for _, t in texts]
    if len(texts) > 1:
        parts.append("these independent of each other")
    return "; ".join(p for p in parts if p) or "nothing to choose (the claim has no variables)"


def _law(mg, each=False) -> str:
    if len(mg) == 1:
        return show_value(mg[0][0])
    return _alternatives([show_value(v) for v, _ in mg], [p for _, p in mg], each)


def _alternatives(vals, probs, each=False) -> str:
    if len(vals) == 1:
        return vals[0]
    alts = ", ".join(vals[:-1]) + " or " + vals[-1]
    if all(p == probs[0] for p in probs):
        if each:
            return f"{alts} with probability {show_value(probs[0])}"
        return f"{alts}, each with probability {show_value(probs[0])}"
    return f"{alts} with probabilities " + ", ".join(show_value(p) for p in probs)
