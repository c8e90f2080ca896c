"""Typst maths for the maths *as written*: the parse tree (``syntax.py``) printed
directly, for the annotated proof PDF.

The PDF shows each link the way the user wrote it (``softmax(s - c)_i`` stays
a softmax, ``diff(p, s)_{i, j}`` an entry of a Jacobian), so this printer
reads the syntax tree, not the elaborated sympy expression.  Like sympy's
printers it has one ``_print_<Node>`` method per kind of node and a
precedence table; every node the language accepts has a method, so nothing
is ever printed as a placeholder.

>>> from stepcheck.parser import parse
>>> st = parse("let n: positive integer\\nstep s: softmax(z)_i = 1\\n").statements[1]
>>> WrittenPrinter().doprint(st.first)
'upright("softmax")(z)_i'
"""
from __future__ import annotations

import re
import unicodedata

from . import syntax as S
from .typst_printer import _string, symbol_name

__all__ = ["WrittenPrinter", "PREC", "greek_ascii"]

#: binding strength of each kind of node as printed (higher binds tighter)
PREC = {"rel": 5, "add": 10, "mul": 20, "neg": 25, "frac": 27, "bigop": 15, "pow": 30, "atom": 100}

_OPS = {"Var": "Var", "Cov": "Cov", "SD": "SD"}
_TYPST_FUNCS = {"sqrt", "exp", "log", "tanh", "abs", "max", "min"}
_REL = {"=": "=", "==": "=", "!=": "!=", "≠": "!=", "<": "<", "<=": "<=", "≤": "<=", ">": ">", ">=": ">=",
        "≥": ">=", "≈": "approx", "~=": "approx", "~": "tilde.op", "->": "->", "->+": "->", "->-": "->", "in": "in"}
_GREEK_FIX = {"lamda": "lambda", "Lamda": "Lambda"}


def greek_ascii(name: str) -> str:
    """``σ_k`` -> ``sigma_k``: Greek letters spelled out (typst's symbol names), other text kept."""
    out = []
    for ch in name:
        if "\u0370" <= ch <= "\u03ff":
            uname = unicodedata.name(ch, "")
            m = re.fullmatch(r"GREEK (SMALL|CAPITAL) LETTER (\w+)", uname)
            if m:
                word = m.group(2).lower()
                word = _GREEK_FIX.get(word, word)
                out.append(word if m.group(1) == "SMALL" else word.capitalize())
                continue
            if ch in "ϑϕϵ":
                out.append({"ϑ": "vartheta", "ϕ": "varphi", "ϵ": "varepsilon"}[ch])
                continue
        out.append(ch)
    return "".join(out)


def name_maths(name: str) -> str:
    """A name as written (``q_i``, ``d_k``, ``σ``, ``cap``) as typst maths."""
    if name in ("pi", "π"):
        return "pi"
    if name in ("oo", "∞"):
        return "infinity"
    return symbol_name(greek_ascii(name))


class WrittenPrinter:
    """Print ``syntax.py`` expression nodes as typst maths markup.

    ``partial(call)`` decides whether a ``diff`` is written with ∂ (the
    caller knows the declarations); by default ∂ is used when the user wrote
    ∂ or when the expression has a name other than the variable.
    """

    def __init__(self, partial=None, source: str = ""):
        self._partial = partial
        self._lines = source.splitlines() if source else []

    # -- entry points

    def doprint(self, node) -> str:
        return self._print(node)

    def _print(self, node) -> str:
        method = getattr(self, "_print_" + type(node).__name__, None)
        if method is None:
            raise TypeError(f"not an expression node: {type(node).__name__}")
        return method(node)

    def paren(self, node, level: int, strict: bool = False) -> str:
        p = prec(node)
        out = self._print(node)
        if p < level or (strict and p <= level):
            return f"({out})"
        return out

    # -- atoms

    def _print_Num(self, node: S.Num) -> str:
        m = re.fullmatch(r"([0-9.]+)[eE]([-+]?)0*([0-9]+)", node.text)
        if m:
            mant, sign, ex = m.groups()
            ex = ("-" if sign == "-" else "") + ex
            return f"10^({ex})" if mant == "1" else f"{mant} times 10^({ex})"
        return node.text

    def _print_Name(self, node: S.Name) -> str:
        return name_maths(node.name)

    def _print_Vector(self, node: S.Vector) -> str:
        return "[" + ", ".join(self._print(i) for i in node.items) + "]"

    def _print_Compare(self, node: S.Compare) -> str:
        left = self.paren(node.left, PREC["rel"], strict=True)
        right = self.paren(node.right, PREC["rel"], strict=True)
        if node.op in ("->+", "->-"):
            right = f"{right}^{node.op[-1]}"
        return f"{left} {_REL.get(node.op, node.op)} {right}"

    # -- subscripts: q_i, q_{i, j}, (Q K^T)_{i, j}, softmax(s)_i, diff(p, s)_{i, j}

    def _print_Subscript(self, node: S.Subscript) -> str:
        idx = [self._print(i) for i in node.indices]
        simple = all(isinstance(i, (S.Name, S.Num)) for i in node.indices)
        if len(idx) == 1 and re.fullmatch(r"[A-Za-z0-9]|[0-9]+", idx[0]):
            sub = idx[0]
        else:
            sub = "(" + (" " if simple and all(len(i) == 1 for i in idx) else ", ").join(idx) + ")"
        if isinstance(node.base, S.Name):
            base = name_maths(node.base.name)
            if node.base.name in ("delta", "δ"):
                base = "delta"
            if "_" in base or "^" in base:
                base = f"({base})"
            return f"{base}_{sub}"
        if isinstance(node.base, S.Call) and node.base.func == "diff":
            return f"({self._print(node.base)})_{sub}"
        if isinstance(node.base, S.Call):
            return f"{_tight(self._print(node.base))}_{sub}"
        return f"({self._print(node.base)})_{sub}"

    # -- arithmetic

    def _print_Neg(self, node: S.Neg) -> str:
        return "-" + self.paren(node.operand, PREC["neg"], strict=isinstance(node.operand, S.Neg))

    def _print_BinOp(self, node: S.BinOp) -> str:
        op = node.op
        if op in ("+", "-"):
            left = self.paren(node.left, PREC["add"])
            right = self.paren(node.right, PREC["add"], strict=(op == "-"))
            if op == "+" and right.startswith("-"):
                right = f"({right})"
            return f"{left} {op} {right}"
        if op == "*":
            left = self.paren(node.left, PREC["mul"])
            if isinstance(node.left, S.BigOp):
                left = f"({left})"
            right = self.paren(node.right, PREC["mul"], strict=True)
            if right.startswith("-"):
                right = f"({right})"
            if _numeric(node.left) and _numeric(node.right):
                return f"{left} {'times' if _power_of_ten(node.right) else 'dot'} {right}"
            if right[:1].isdigit() or (left[-1:].isdigit() and right[:1].isdigit()):
                return f"{left} dot {right}"
            return f"{left} {right}"
        if op == "/":
            return f"frac({self._print(node.left)}, {self._print(node.right)})"
        if op == "^":
            if isinstance(node.right, S.Name) and node.right.name == "T":
                return f"{self._pow_base(node.left)}^top"
            return f"{self._pow_base(node.left)}^{self._sup(node.right)}"
        raise ValueError(op)

    def _pow_base(self, node) -> str:
        if isinstance(node, S.Call) and node.func not in ("diff", "limit", "sqrt"):
            return _tight(self._print(node))  # Var(X)^2: the exponent sits on the bracket
        out = self.paren(node, PREC["pow"], strict=True)
        if isinstance(node, S.Subscript) and not isinstance(node.base, S.Name):
            out = f"({out})" if not out.startswith("(") else out
        return out

    def _sup(self, node) -> str:
        if isinstance(node, S.BinOp) and node.op == "/" and _numeric(node.left) and _numeric(node.right):
            return f"({self._print(node.left)}\\/{self._print(node.right)})"  # d_k^(1/4): a slashed fraction
        if isinstance(node, S.Neg) and isinstance(node.operand, S.Num):
            return f"(-{self._print(node.operand)})"
        out = self._print(node)
        if re.fullmatch(r"[0-9]+|[A-Za-z]", out):
            return out
        return f"({out})"

    # -- big operators

    def _print_BigOp(self, node: S.BigOp) -> str:
        head = "sum" if node.op == "sum" else "product"
        body = self.paren(node.body, PREC["mul"])
        return f"{head}_({self._print(node.var)} = {self._print(node.lo)})^({self._print(node.hi)}) {body}"

    # -- calls

    def _print_Call(self, node: S.Call) -> str:
        f, args = node.func, node.args
        pa = [self._print(a) for a in args]
        if f == "E":
            return f"EE[{', '.join(pa)}]"
        if f in _OPS:
            return f"op({_string(f)})({', '.join(pa)})" if not node.bracket else f"op({_string(f)})[{', '.join(pa)}]"
        if f == "P":
            return f"PP({', '.join(pa)})"
        if f == "sqrt" and len(pa) == 1:
            return f"sqrt({pa[0]})"
        if f == "exp" and len(pa) == 1:
            return f"exp({pa[0]})"
        if f == "abs" and len(pa) == 1:
            return f"abs({pa[0]})"
        if f == "delta" and len(pa) == 2:
            simple = all(isinstance(a, (S.Name, S.Num)) for a in args)
            return f"delta_({pa[0]} {pa[1]})" if simple else f"delta_({pa[0]}, {pa[1]})"
        if f == "diff" and len(args) == 2:
            return self._diff(node)
        if f == "limit" and len(args) == 2 and isinstance(args[1], S.Compare):
            return f"lim_({pa[1]}) {self.paren(args[0], PREC['mul'])}"
        if f in ("max", "min", "argmax", "argmin") and len(args) == 2 and isinstance(args[1], S.Compare) \
                and args[1].op == "in":
            head = f if f in ("max", "min") else f'op("{f}", limits: #true)'
            return f"{head}_({pa[1]}) {self.paren(args[0], PREC['mul'])}"
        if f in ("sum", "prod") and len(args) == 1:
            return f"{'sum' if f == 'sum' else 'product'} {self.paren(args[0], PREC['mul'])}"
        if f in ("max", "min", "log", "tanh"):
            return f"{f}({', '.join(pa)})"
        if f == "Normal":
            return f"cal(N)({', '.join(pa)})"
        return f"op({_string(f)})({', '.join(pa)})"

    def _diff(self, node: S.Call) -> str:
        """``diff(f, x)`` (also written ∂f/∂x, d/dx f); nested diffs are one higher derivative."""
        vars_: list = []
        f = node
        while isinstance(f, S.Call) and f.func == "diff" and len(f.args) == 2:
            vars_.append(f.args[1])  # the outer variable first, as in ∂²f/∂x∂y
            f = f.args[0]
        partial = self._partial(node) if self._partial is not None else self._written_partial(node, f, vars_)
        d = "partial" if partial else "upright(d)"
        groups: list[list] = []
        for v in vars_:  # ∂x ∂x -> ∂x^2
            pv = self._print(v)
            if groups and groups[-1][0] == pv:
                groups[-1][1] += 1
            else:
                groups.append([pv, 1])
        den = " ".join(f"{d} {v}" if k == 1 else f"{d} {_sup_text(v)}^{k}" for v, k in groups)
        order = "" if len(vars_) == 1 else f"^{len(vars_)}"
        if isinstance(f, (S.Name, S.Subscript)) or (isinstance(f, S.Call) and f.func != "diff"
                                                     and not isinstance(f, S.BinOp)):
            return f"frac({d}{order} {self._print(f)}, {den})"
        return f"frac({d}{order}, {den}) ({self._print(f)})"

    def _written_partial(self, node: S.Call, f, vars_) -> bool:
        if self.wrote_partial(node):
            return True
        names = {n.name for n in S.walk(f) if isinstance(n, S.Name)}
        return len(vars_) > 1 and len({self._print(v) for v in vars_}) > 1 or bool(names - {
            v.name for v in vars_ if isinstance(v, S.Name)})

    def wrote_partial(self, node: S.Call) -> bool:
        """Whether the user wrote this derivative with ∂."""
        sp = node.func_span
        if sp is None or not self._lines or not (0 < sp.line <= len(self._lines)):
            return False
        return self._lines[sp.line - 1][sp.col - 1:sp.col] == "∂"


def _tight(call: str) -> str:
    """``op("softmax")(s)`` as ``upright("softmax")(s)`` before ``_i`` or ``^2``: typst spaces an
    operator from a bracket that carries an attachment, ``softmax (s)_i``."""
    return re.sub(r'^op\(("[A-Za-z]+")\)\(', r"upright(\1)(", call)


def _sup_text(v: str) -> str:
    return f"({v})" if "_" in v or "^" in v else v


def _numeric(node) -> bool:
    if isinstance(node, S.Num):
        return True
    if isinstance(node, S.BinOp) and node.op == "^":
        return _numeric(node.left) and _numeric(node.right)
    if isinstance(node, S.Neg):
        return _numeric(node.operand)
    return False


def _power_of_ten(node) -> bool:
    return isinstance(node, S.BinOp) and node.op == "^" and isinstance(node.left, S.Num) and node.left.text == "10"


def prec(node) -> int:
    """The precedence of a node as :class:`WrittenPrinter` prints it."""
    if isinstance(node, S.BinOp):
        if node.op in ("+", "-"):
            return PREC["add"]
        if node.op == "*":
            return PREC["bigop"] if isinstance(node.right, S.BigOp) else PREC["mul"]
        if node.op == "/":
            return PREC["frac"]
        return PREC["pow"]
    if isinstance(node, S.Neg):
        return PREC["neg"]
    if isinstance(node, S.BigOp):
        return PREC["bigop"]
    if isinstance(node, S.Compare):
        return PREC["rel"]
    if isinstance(node, S.Num):
        return PREC["atom"] if not node.text.lower().count("e") else PREC["mul"]
    if isinstance(node, S.Call):
        if node.func == "diff":
            return PREC["bigop"]
        if node.func in ("limit", "max", "min", "argmax", "argmin", "sum", "prod") and (
                len(node.args) == 1 and node.func in ("sum", "prod")
                or len(node.args) == 2 and isinstance(node.args[1], S.Compare)):
            return PREC["bigop"]
    return PREC["atom"]
