"""A sympy-to-typst printer for the annotated proof PDF.

Built like sympy's own printers (``sympy/printing/latex.py``, ``str.py`` and
``precedence.py``): a :class:`~sympy.printing.printer.Printer` subclass with
one ``_print_<Class>`` method per kind of expression, a precedence table and
:meth:`TypstPrinter.parenthesize`.  The output is typst *maths* markup, meant
to go between ``$ ... $``:

>>> from sympy import Symbol, sqrt
>>> typst(sqrt(Symbol("d_k")))
'sqrt(d_k)'

Every expression the stepcheck language can produce is covered: numbers,
symbols with subscripts and Greek names, ``Indexed`` components, sums,
products, powers and roots, Kronecker deltas, the probability operators
``E``, ``Var``, ``Cov``, ``SD`` and the kernel's ``DSum``, the elementary
functions, and (for the calculus feature) ``Derivative``, ``Limit`` and
``Piecewise``.  Anything else falls back to a generic function call or to a
quoted string, so the generated typst always compiles.
"""
from __future__ import annotations

import re

import sympy
from sympy import Integer, S
from sympy.core.alphabets import greeks
from sympy.printing.conventions import split_super_sub
from sympy.printing.printer import Printer

from .terms.functions import function_of
from .terms.printer import LanguagePrinter

__all__ = ["TypstPrinter", "typst", "typst_string", "PRECEDENCE", "precedence"]

# ------------------------------------------------------------ precedence

#: binding strength of each kind of expression (higher binds tighter); the
#: values follow ``sympy.printing.precedence.PRECEDENCE``.
PRECEDENCE = {
    "Lambda": 1,
    "Xor": 10,
    "Or": 20,
    "And": 30,
    "Relational": 35,
    "Add": 40,
    "Mul": 50,
    "Neg": 50,  # a leading minus sign binds like a product
    "Frac": 55,  # frac(a, b) is a closed box, but keep ``-`` outside
    "BigOp": 45,  # sum/product/limit/derivative: their body extends right
    "Pow": 60,
    "Func": 70,
    "Not": 100,
    "Atom": 1000,
}

_BIGOPS = (sympy.Sum, sympy.Product, sympy.Limit, sympy.Integral)


def precedence(expr) -> int:
    """The precedence of ``expr`` as the typst printer writes it."""
    if isinstance(expr, sympy.Rational) and not isinstance(expr, sympy.Integer):
        return PRECEDENCE["Neg"] if expr < 0 else PRECEDENCE["Frac"]
    if isinstance(expr, (sympy.Integer, sympy.Float)):
        return PRECEDENCE["Neg"] if expr < 0 else PRECEDENCE["Atom"]
    if isinstance(expr, sympy.Add):
        return PRECEDENCE["Add"]
    if isinstance(expr, sympy.Mul):
        if expr.could_extract_minus_sign():
            return PRECEDENCE["Neg"]
        return PRECEDENCE["Mul"]
    if isinstance(expr, sympy.Pow):
        if expr.exp is S.Half or (expr.exp.is_Rational and expr.exp.p == 1 and expr.exp.q > 1):
            return PRECEDENCE["Atom"]  # sqrt(x), root(n, x)
        if expr.exp.is_Rational and expr.exp.is_negative:
            return PRECEDENCE["Frac"]  # printed as a fraction
        return PRECEDENCE["Pow"]
    if isinstance(expr, (*_BIGOPS, sympy.Derivative)) or type(expr).__name__ == "DSum":
        return PRECEDENCE["BigOp"]
    if isinstance(expr, sympy.core.relational.Relational):
        return PRECEDENCE["Relational"]
    if isinstance(expr, sympy.And):
        return PRECEDENCE["And"]
    if isinstance(expr, sympy.Or):
        return PRECEDENCE["Or"]
    if isinstance(expr, sympy.Not):
        return PRECEDENCE["Not"]
    if isinstance(expr, sympy.Piecewise):
        return PRECEDENCE["Atom"]
    if isinstance(expr, (sympy.Function, sympy.Indexed)):
        return PRECEDENCE["Func"]
    return PRECEDENCE["Atom"]


# ------------------------------------------------------------ names

_GREEK = {g: g for g in greeks}
_GREEK["lamda"] = "lambda"
_GREEK.update({g.capitalize(): g.capitalize() for g in greeks})
_GREEK["Lamda"] = "Lambda"
_GREEK["varepsilon"] = "epsilon.alt"
_GREEK["varphi"] = "phi.alt"
_GREEK["vartheta"] = "theta.alt"

# typst's upright operators (``log(x)`` is ``log`` then ``(x)``)
_TYPST_OPS = {
    "arccos", "arcsin", "arctan", "arg", "cos", "cosh", "cot", "coth", "csc", "csch", "deg",
    "det", "dim", "exp", "gcd", "lcm", "ker", "lg", "ln", "log", "sec", "sech",
    "sin", "sinh", "tan", "tanh",
}

_IDENT = re.compile(r"^[A-Za-z][A-Za-z0-9]*$")


def _string(text: str) -> str:
    """A typst string literal (in maths: upright text)."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _name_part(part: str) -> str:
    """One piece of a symbol's name (base, subscript or superscript) as typst maths."""
    if part in _GREEK:
        return _GREEK[part]
    if re.fullmatch(r"[A-Za-z]", part) or re.fullmatch(r"[0-9]+", part):
        return part
    if re.fullmatch(r"[A-Za-z][0-9]+", part):  # x1 in a subscript: x 1
        return f"{part[0]} {part[1:]}"
    if re.fullmatch(r"[A-Za-z]{2}", part):  # two indices: ij -> i j
        return f"{part[0]} {part[1]}"
    if _IDENT.match(part):  # a multi-letter name: upright, so it does not read as a product
        return f"upright({_string(part)})"
    return _string(part)


def _attach(items: list[str]) -> str:
    """The argument of ``_`` or ``^``: bare when a single token, else in parentheses."""
    text = ", ".join(items)
    if re.fullmatch(r"[A-Za-z0-9]|[0-9]+|[A-Za-z]+(\.[a-z]+)?", text) and (
        len(text) == 1 or text.isdigit() or text in _GREEK.values()
    ):
        return text
    return f"({text})"


def symbol_name(name: str) -> str:
    """``d_k`` -> ``d_k``, ``alpha1`` -> ``alpha_1``, ``x_ij`` -> ``x_(i j)``,
    ``_b1`` (a kernel bound index) -> ``b_1``, ``foo`` -> ``upright("foo")``."""
    m = re.fullmatch(r"(max|min)\((\w+)\)", name)  # the largest entry of a family
    if m:
        return f"{m.group(1)}({symbol_name(m.group(2))})"
    clean = name.lstrip("_") or name
    if not re.fullmatch(r"[A-Za-z0-9_]+", clean):
        return _string(name)
    base, sups, subs = split_super_sub(clean)
    if not base:
        return _string(name)
    # two letters are a multi-letter name (upright), but for Greek ones: mu, nu, xi, pi
    out = _name_part(base) if base in _GREEK or not re.fullmatch(r"[A-Za-z]{2}", base) else f"upright({_string(base)})"
    if subs:
        out += "_" + _attach([_name_part(s) for s in subs])
    if sups:
        out += "^" + _attach([_name_part(s) for s in sups])
    return out


# ------------------------------------------------------------ the printer


class TypstPrinter(LanguagePrinter, Printer):
    """Print sympy expressions as typst maths markup.

    The language's objects (E, Var, Cov, SD, P, DSum, indexed names) are
    printed by :class:`~stepcheck.terms.printer.LanguagePrinter`; this class
    supplies typst's tokens for them (the ``_expectation`` ... hooks) and the
    heads of the elementary functions come from
    :mod:`stepcheck.terms.functions`.
    """

    printmethod = "_typst"  # objects' own ``_latex``/``_sympystr`` are not used

    _default_settings = {
        "order": None,  # None: sympy's canonical order of terms
        "expectation": "EE",  # how E[X] is written: "EE" (blackboard) or "E"
        "mul_symbol": "dot",  # between two numbers: 2 dot 3
        "names": None,  # {name: rank}: order of factors in a product (e.g. declaration order)
    }

    # -- helpers

    def parenthesize(self, item, level: int, strict: bool = False) -> str:
        """``item`` printed, in parentheses when it binds looser than ``level``
        (or as loose as ``level`` when ``strict``)."""
        prec = precedence(item)
        if prec < level or (strict and prec <= level):
            return f"({self._print(item)})"
        return self._print(item)

    def _args(self, args, sep: str = ", ") -> str:
        return sep.join(self._print(a) for a in args)

    def emptyPrinter(self, expr):  # noqa: N802 - sympy's name
        if isinstance(expr, str):
            return _string(expr)
        if isinstance(expr, sympy.Basic) and expr.args:
            return self._print_Function(expr)
        return _string(str(expr))

    # -- numbers

    def _print_Integer(self, expr) -> str:
        return str(expr.p)

    def _print_int(self, expr) -> str:
        return str(expr)

    def _print_Rational(self, expr) -> str:
        if expr.q == 1:
            return str(expr.p)
        sign = "-" if expr.p < 0 else ""
        return f"{sign}frac({abs(expr.p)}, {expr.q})"

    def _print_Float(self, expr) -> str:
        text = sympy.Float(expr, 15).__str__() if expr._prec > 53 else repr(float(expr))
        if "e" in text:
            mant, ex = text.split("e")
            return f"{mant} times 10^({int(ex)})"
        return text

    def _print_Infinity(self, expr) -> str:
        return "infinity"

    def _print_NegativeInfinity(self, expr) -> str:
        return "-infinity"

    def _print_ComplexInfinity(self, expr) -> str:
        return "tilde(infinity)"

    def _print_NaN(self, expr) -> str:
        return '"NaN"'

    def _print_Pi(self, expr) -> str:
        return "pi"

    def _print_Exp1(self, expr) -> str:
        return "e"

    def _print_ImaginaryUnit(self, expr) -> str:
        return "i"

    def _print_BooleanTrue(self, expr) -> str:
        return '"true"'

    def _print_BooleanFalse(self, expr) -> str:
        return '"false"'

    # -- names

    def _print_Symbol(self, expr) -> str:
        return symbol_name(expr.name)

    _print_Dummy = _print_Symbol

    def _print_IndexedBase(self, expr) -> str:
        return self._print(expr.label)

    def _print_Idx(self, expr) -> str:
        return self._print(expr.label)

    def _subscript(self, base: str, parts: list, idx: list) -> str:
        simple = all(isinstance(i, (sympy.Symbol, sympy.Integer)) and precedence(i) >= PRECEDENCE["Atom"] for i in idx)
        if "_" in base or "^" in base:
            base = f"({base})"
        if len(parts) == 1 and re.fullmatch(r"[A-Za-z0-9]|[0-9]+|[a-zA-Z]+(\.[a-z]+)?", parts[0]) and (
            len(parts[0]) == 1 or parts[0].isdigit() or parts[0] in _GREEK.values()
        ):
            return f"{base}_{parts[0]}"
        sep = " " if simple else ", "
        return f"{base}_({sep.join(parts)})"

    # -- arithmetic

    def _print_Add(self, expr, order=None) -> str:
        terms = list(expr.args) if not expr.is_commutative else self._as_ordered_terms(expr, order=order)
        if terms and terms[0].could_extract_minus_sign() and order != "none" and self._settings["order"] != "none":
            # b - a rather than -a + b
            pos = next((t for t in terms if not t.could_extract_minus_sign()), None)
            if pos is not None:
                terms.remove(pos)
                terms.insert(0, pos)
        out = ""
        for i, term in enumerate(terms):
            if i == 0:
                out = self._print_term(term)
            elif term.could_extract_minus_sign():
                out += " - " + self._print_term(-term, strict_neg=True)
            else:
                out += " + " + self._print_term(term)
        return out

    def _print_term(self, term, strict_neg: bool = False) -> str:
        s = self.parenthesize(term, PRECEDENCE["Add"], strict=True) if not isinstance(term, sympy.Add) else f"({self._print(term)})"
        if strict_neg and s.startswith("-"):
            s = f"({s})"
        return s

    def _print_Mul(self, expr) -> str:
        from sympy.simplify.radsimp import fraction

        if expr.could_extract_minus_sign():
            coeff, rest = expr.as_coeff_Mul()
            if coeff == -1:
                inner = rest
            else:
                inner = sympy.Mul(-coeff, rest, evaluate=False) if rest != 1 else -coeff
            body = self._print(inner) if not isinstance(inner, sympy.Add) else f"({self._print(inner)})"
            if isinstance(inner, sympy.Mul) and inner.could_extract_minus_sign():
                body = f"({body})"
            return "-" + body

        num, den = fraction(expr, exact=True)
        if den is S.One or den == 1:
            return self._print_factors(self._factors(expr))
        # a rational coefficient times a fraction: (1/2) x / y -> x / (2 y)
        snum = self._print_factors(self._factors(num)) if num != 1 else "1"
        sden = self._print_factors(self._factors(den))
        return f"frac({snum}, {sden})"

    def _factors(self, expr) -> list:
        """The factors of a product in print order: numbers, then constants like
        sqrt(2), then the rest (by the ``names`` hint when given, e.g. the order
        the variables were declared in: ``q_i k_i`` rather than ``k_i q_i``)."""
        if not isinstance(expr, sympy.Mul):
            return [expr]
        if self._settings["order"] in ("old", "none") or not expr.is_commutative:
            return list(expr.args)
        args = list(expr.as_ordered_factors())
        ranks = self._settings["names"] or {}

        def key(a):
            num = 0 if a.is_Number else (1 if a.is_number else 2)
            if not ranks or num < 2:
                return (num, 0)
            names = [_base_name(x) for x in a.atoms(sympy.Symbol, sympy.Indexed)]
            return (num, min((ranks.get(n, len(ranks)) for n in names), default=len(ranks)))

        return sorted(args, key=key)  # stable: ties keep sympy's order

    def _print_factors(self, factors: list) -> str:
        factors = [f for f in factors if f != 1] or [S.One]
        out = ""
        last = len(factors) - 1
        for i, f in enumerate(factors):
            if i == last and precedence(f) == PRECEDENCE["BigOp"]:
                s = self._print(f)  # a sum's body may extend to the end of the product
            else:
                s = self.parenthesize(f, PRECEDENCE["Mul"], strict=False)
            if precedence(f) == PRECEDENCE["Neg"] and i > 0:
                s = f"({s})"
            elif isinstance(f, sympy.Mul) and i > 0 and not s.startswith("(") and not _closed(s):
                s = f"({s})"
            if i == 0:
                out = s
            elif s[:1].isdigit() or (s[:1] == "-") or (
                out[-1:].isdigit() and (s[:1].isdigit() or s.startswith("frac"))
            ):
                out += f" {self._settings['mul_symbol']} {s}"
            else:
                out += " " + s
        return out

    def _print_Pow(self, expr) -> str:
        base, ex = expr.base, expr.exp
        if ex.is_Rational and ex.is_negative and base.is_commutative:
            return self._print_Mul(sympy.Mul(S.One, expr, evaluate=False))  # frac(1, base^(-ex))
        if ex is S.Half:
            return f"sqrt({self._print(base)})"
        if ex.is_Rational and ex.p == 1 and ex.q > 1:
            return f"root({ex.q}, {self._print(base)})"
        if base is S.Exp1:
            return f"e^{self._sup(ex)}"
        if isinstance(base, sympy.Function) and not isinstance(base, sympy.Piecewise) and _is_opfunc(base):
            sbase = self._print(base)  # Var(X)^2: the exponent sits on the closing bracket
        else:
            sbase = self.parenthesize(base, PRECEDENCE["Pow"], strict=True)
            if isinstance(base, (sympy.Pow, sympy.Rational)) and not sbase.startswith("("):
                sbase = f"({sbase})"
        return f"{sbase}^{self._sup(ex)}"

    def _sup(self, ex) -> str:
        """An exponent: ``2``, ``n``, ``(n + 1)``, ``(3\\/2)`` (a slashed fraction)."""
        if ex.is_Rational and not ex.is_Integer:
            sign = "-" if ex < 0 else ""
            return f"({sign}{abs(ex.p)}\\/{ex.q})"
        s = self._print(ex)
        if re.fullmatch(r"[0-9]+|[A-Za-z]", s):
            return s
        return f"({s})"

    # -- relations and logic

    _REL = {"==": "=", "!=": "!=", "<": "<", "<=": "<=", ">": ">", ">=": ">="}

    def _print_Relational(self, expr) -> str:
        op = self._REL.get(expr.rel_op, expr.rel_op)
        lhs = self.parenthesize(expr.lhs, PRECEDENCE["Relational"], strict=True)
        rhs = self.parenthesize(expr.rhs, PRECEDENCE["Relational"], strict=True)
        return f"{lhs} {op} {rhs}"

    def _print_And(self, expr) -> str:
        return " and ".join(self.parenthesize(a, PRECEDENCE["And"], strict=True) for a in expr.args)

    def _print_Or(self, expr) -> str:
        return " or ".join(self.parenthesize(a, PRECEDENCE["Or"], strict=True) for a in expr.args)

    def _print_Not(self, expr) -> str:
        return "not " + self.parenthesize(expr.args[0], PRECEDENCE["Not"])

    # -- containers

    def _print_Tuple(self, expr) -> str:
        return f"({self._args(expr.args)})"

    _print_tuple = _print_Tuple

    def _print_list(self, expr) -> str:
        return f"[{self._args(expr)}]"

    # -- big operators

    def _limits(self, var, lo, hi) -> str:
        return f"_({self._print(var)} = {self._print(lo)})^({self._print(hi)})"

    def _body(self, expr) -> str:
        # the body of a sum: parenthesised when it is a sum or difference
        return self.parenthesize(expr, PRECEDENCE["Mul"])

    def _print_Sum(self, expr) -> str:
        out = "".join(f"sum{self._limits(*lim)} " if len(lim) == 3 else f"sum_({self._print(lim[0])}) "
                      for lim in reversed(expr.limits))
        return out + self._body(expr.function)

    def _print_Product(self, expr) -> str:
        out = "".join(f"product{self._limits(*lim)} " if len(lim) == 3 else f"product_({self._print(lim[0])}) "
                      for lim in reversed(expr.limits))
        return out + self._body(expr.function)

    def _distinct_sum(self, summand, bounds: list, excluded: list) -> str:
        """The kernel's sum over pairwise distinct indices (``objects.DSum``)."""
        if len(bounds) == 1 and not excluded:
            b, lo, hi = bounds[0]
            return f"sum{self._limits(b, lo, hi)} {self._body(summand)}"
        names = [self._print(b[0]) for b in bounds]
        conds = []
        if len(names) > 1:
            conds.append(" != ".join(names))
        for b in bounds:
            for x in excluded:
                conds.append(f"{self._print(b[0])} != {self._print(x)}")
        ranges = {}
        for b, lo, hi in bounds:
            ranges.setdefault((self._print(lo), self._print(hi)), []).append(self._print(b))
        rng = ", ".join(f"{', '.join(v)} in {{{lo}, ..., {hi}}}" for (lo, hi), v in ranges.items())
        sub = " \\ ".join([", ".join(conds), rng] if conds else [rng])
        return f"sum_({sub}) {self._body(summand)}"

    def _print_KroneckerDelta(self, expr) -> str:
        i, j = expr.args
        si, sj = self._print(i), self._print(j)
        simple = all(precedence(a) >= PRECEDENCE["Atom"] for a in (i, j))
        return f"delta_({si} {sj})" if simple else f"delta_({si}, {sj})"

    # -- the language's objects (printed by LanguagePrinter): typst's tokens

    def _expectation(self, arg: str) -> str:
        return f"{self._settings['expectation']}[{arg}]"

    def _operator(self, name: str, args: list) -> str:
        return f"op({_string(name)})({', '.join(args)})"

    def _probability(self, event: str) -> str:
        return f"{'PP' if self._settings['expectation'] == 'EE' else 'P'}({event})"

    # -- functions

    def _print_exp(self, expr) -> str:
        return f"e^{self._sup(expr.args[0])}"

    def _print_log(self, expr) -> str:
        if len(expr.args) == 2:
            return f"log_{self._sup(expr.args[1])}({self._print(expr.args[0])})"
        return f"log({self._print(expr.args[0])})"

    def _print_floor(self, expr) -> str:
        return f"floor({self._print(expr.args[0])})"

    def _print_ceiling(self, expr) -> str:
        return f"ceil({self._print(expr.args[0])})"

    def _print_sign(self, expr) -> str:
        return f'op("sgn")({self._print(expr.args[0])})'

    def _print_factorial(self, expr) -> str:
        return f"{self.parenthesize(expr.args[0], PRECEDENCE['Func'])}!"

    def _print_binomial(self, expr) -> str:
        return f"binom({self._args(expr.args)})"

    def _print_Function(self, expr) -> str:
        """A function call: the head from the function table (``abs``, ``max``,
        ``tanh``), else typst's own operator, else an upright name."""
        func = expr.func
        name = getattr(func, "__name__", None) or str(func)
        args = self._args(expr.args)
        row = function_of(expr)
        if row is not None and row.typst:
            return f"{row.typst}({args})"
        if name in _TYPST_OPS:
            return f"{name}({args})"
        if re.fullmatch(r"[A-Za-z]", name) or name in _GREEK:
            return f"{_GREEK.get(name, name)}({args})"
        if _IDENT.match(name):
            return f"op({_string(name)})({args})"
        return f"{_string(name)}({args})"

    # -- calculus

    def _print_Derivative(self, expr) -> str:
        f = expr.expr
        counts = list(expr.variable_count)
        total = sum(int(c) if c.is_Integer else 0 for _, c in counts)
        all_int = all(c.is_Integer for _, c in counts)
        # ∂ for several variables, a function of several arguments, or a family member (∂p_i/∂s_j)
        partial = len(f.free_symbols) > 1 or len(counts) > 1 or any(isinstance(v, sympy.Indexed) for v, _ in counts)
        d = "partial" if partial else "upright(d)"
        den = []
        for v, c in counts:
            sv = self._print(v)
            if c == 1:
                den.append(f"{d} {sv}")
            else:
                den.append(f"{d} {sv}^{self._sup(c)}")
        order = "" if (all_int and total == 1) else "^" + (self._sup(Integer(total)) if all_int else
                                                             self._sup(sympy.Add(*[c for _, c in counts])))
        simple = isinstance(f, (sympy.Symbol, sympy.Indexed)) or (
            isinstance(f, sympy.Function) and not isinstance(f, sympy.Piecewise)
        )
        if simple:
            return f"frac({d}{order} {self._print(f)}, {' '.join(den)})"
        return f"frac({d}{order}, {' '.join(den)}) {self.parenthesize(f, PRECEDENCE['Mul'])}"

    def _print_Subs(self, expr) -> str:
        f, old, new = expr.args
        pairs = ", ".join(f"{self._print(o)} = {self._print(n)}" for o, n in zip(old, new))
        return f"lr({self._print(f)} |)_({pairs})"

    def _print_Limit(self, expr) -> str:
        e, z, z0, d = expr.args
        target = self._print(z0)
        if str(d) == "+-" or z0 in (S.Infinity, S.NegativeInfinity):
            arrow = target
        else:
            arrow = f"{target}^{str(d)}"
        return f"lim_({self._print(z)} -> {arrow}) {self.parenthesize(e, PRECEDENCE['Mul'])}"

    def _print_Integral(self, expr) -> str:
        out = ""
        ds = []
        for lim in reversed(expr.limits):
            if len(lim) == 3:
                out += f"integral_({self._print(lim[1])})^({self._print(lim[2])}) "
            else:
                out += "integral "
        for lim in expr.limits:
            ds.append(f"upright(d) {self._print(lim[0])}")
        return out + self.parenthesize(expr.function, PRECEDENCE["Mul"]) + " " + " ".join(ds)

    _print_MinMaxBase = _print_Function  # Max and Min are not sympy Functions

    def _print_Extremum(self, expr) -> str:
        """``terms.objects.Extremum(f, x, a, b, kind)``: max_(x in [a, b]) f, argmax ..."""
        f, x, a, b, kind = expr.args
        k = str(kind)
        head = k if k in ("max", "min") else f'op("{k}", limits: #true)'
        return f"{head}_({self._print(x)} in [{self._print(a)}, {self._print(b)}]) {self.parenthesize(f, PRECEDENCE['Mul'])}"

    def _print_MatrixBase(self, expr) -> str:
        if expr.cols == 1:
            return "vec(" + self._args(list(expr)) + ")"
        rows = ["; ".join(", ".join(self._print(expr[r, c]) for c in range(expr.cols)) for r in range(expr.rows))]
        return "mat(" + rows[0] + ")"

    _print_ImmutableMatrix = _print_MatrixBase
    _print_ImmutableDenseMatrix = _print_MatrixBase
    _print_MutableDenseMatrix = _print_MatrixBase

    def _print_Piecewise(self, expr) -> str:
        rows = []
        for i, (e, c) in enumerate(expr.args):
            if c is S.true and i == len(expr.args) - 1:
                rows.append(f'{self._print(e)} & "otherwise"')
            else:
                rows.append(f'{self._print(e)} & "if" {self._print(c)}')
        return "cases(" + ", ".join(rows) + ")"


def _closed(text: str) -> bool:
    """Whether ``text`` is one call such as ``frac(a, b)`` (no parentheses needed around it)."""
    m = re.match(r"^[a-z]+\(", text)
    if not m:
        return False
    depth = 0
    for k, ch in enumerate(text):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                return k == len(text) - 1
    return False


def _base_name(x) -> str:
    """``q`` for ``q_i`` (an Indexed), the name of a symbol otherwise."""
    if isinstance(x, sympy.Indexed):
        return str(x.base.label)
    return x.name


def _is_opfunc(expr) -> bool:
    """E, Var, Cov, SD: printed with their own brackets, safe to raise to a power."""
    return type(expr).__name__ in ("E", "Var", "Cov", "SD", "Abs", "Max", "Min", "floor", "ceiling")


def typst(expr, **settings) -> str:
    """``expr`` as typst maths markup (to go between ``$ ... $``)."""
    return TypstPrinter(settings).doprint(expr)


typst_string = _string
