"""Readable text for kernel expressions (residuals in diagnostics)."""
from __future__ import annotations

from sympy.printing.str import StrPrinter


class KernelPrinter(StrPrinter):
    """Prints E[...] with brackets, canonical sums as Σ, and indexed names as q_i."""

    printmethod = "_stepcheck_str"  # ignore objects' own _sympystr (Indexed has one)

    def _print_E(self, e):
        return f"E[{self._print(e.args[0])}]"

    def _print_Var(self, e):
        return f"Var({self._print(e.args[0])})"

    def _print_SD(self, e):
        return f"SD({self._print(e.args[0])})"

    def _print_Cov(self, e):
        return f"Cov({self._print(e.args[0])}, {self._print(e.args[1])})"

    def _print_Indexed(self, e):
        idx = ",".join(self._print(i) for i in e.indices)
        if len(e.indices) == 1 and (len(idx) == 1 or idx.isdigit() or idx.isalnum()):
            return f"{self._print(e.base.label)}_{idx}"
        return f"{self._print(e.base.label)}_{{{idx}}}"

    def _print_Symbol(self, s):
        n = s.name
        if n.startswith("_b"):
            return n[1:]
        return n

    _print_Dummy = _print_Symbol

    def _print_Exp1(self, e):
        return "e"

    def _print_KroneckerDelta(self, e):
        return f"δ({self._print(e.args[0])}, {self._print(e.args[1])})"

    def _print_DSum(self, e):
        summand, bounds, excl = e.args
        names = [self._print(b[0]) for b in bounds]
        rng = "; ".join(f"{self._print(b[0])}={self._print(b[1])}..{self._print(b[2])}" for b in bounds)
        conds = []
        if len(names) > 1:
            conds.append("distinct")
        ex = [self._print(x) for x in excl]
        if ex:
            conds.append("≠ " + ", ".join(ex))
        c = f" ({'; '.join(conds)})" if conds else ""
        return f"Σ[{rng}{c}] {self.parenthesize(summand, 50)}"

    def _print_Sum(self, e):
        f = e.function
        lims = "; ".join(f"{self._print(i)}={self._print(a)}..{self._print(b)}" for i, a, b in e.limits)
        return f"Σ[{lims}] {self.parenthesize(f, 50)}"


_P = KernelPrinter({"order": "none"})


def show(expr) -> str:
    return _P.doprint(expr)
