"""LaTeX for the API's results (``Link.latex``, ``ClaimResult.latex``, notebooks)."""
from __future__ import annotations

# ------------------------------------------------------------------ LaTeX

_REL_LATEX = {"=": "=", "<": "<", "<=": r"\le", ">": ">", ">=": r"\ge", "!=": r"\ne", "≈": r"\approx",
              "≤": r"\le", "≥": r"\ge", "≠": r"\ne"}
_REL_TEXT = {"<=": "≤", ">=": "≥", "!=": "≠"}

_printer = None


def _latex_printer():
    global _printer
    if _printer is None:
        from sympy.printing.latex import LatexPrinter
        from sympy.printing.precedence import PRECEDENCE

        from ..terms.functions import by_sympy_name
        from ..terms.printer import LanguagePrinter

        class StepLatexPrinter(LanguagePrinter, LatexPrinter):
            """LaTeX for kernel expressions: the language's objects (E, Var, Cov,
            SD, P, canonical sums, indexed names) through LanguagePrinter's
            hooks, function heads from the function table."""

            printmethod = "_stepcheck_latex"

            def _expectation(self, arg):
                return r"\mathbb{E}\left[%s\right]" % arg

            def _operator(self, name, args):
                return r"\operatorname{%s}\left(%s\right)" % (name, ", ".join(args))

            def _probability(self, event):
                return r"\mathbb{P}\left(%s\right)" % event

            def _subscript(self, base, indices, exprs):
                return "%s_{%s}" % (base, ",".join(indices))

            def _family_extremum(self, kind, family):
                return r"\%s\left(%s\right)" % (kind, family)

            def _distinct_sum(self, summand, bounds, excluded):
                names = [self._print(b[0]) for b in bounds]
                parts = []
                for k, b in enumerate(bounds):
                    conds = [f"{names[k]}={self._print(b[1])}"]
                    others = names[:k] + [self._print(x) for x in excluded]
                    if others:
                        conds.append(names[k] + r" \notin \{" + ", ".join(others) + r"\}" if len(others) > 1
                                     else f"{names[k]} \\ne {others[0]}")
                    sub = conds[0] if len(conds) == 1 else r"\substack{" + r" \\ ".join(conds) + "}"
                    parts.append(r"\sum_{%s}^{%s}" % (sub, self._print(b[2])))
                return " ".join(parts) + " " + self.parenthesize(summand, PRECEDENCE["Mul"])

            def _hprint_Function(self, func):
                row = by_sympy_name(func)
                if row is not None and row.latex:
                    return row.latex
                return super()._hprint_Function(func)

            def _print_Symbol(self, s, style="plain"):
                if s.name.startswith("_b") and s.name[2:].isdigit():
                    return "b_{%s}" % s.name[2:]
                return super()._print_Symbol(s, style=style)

        _printer = StepLatexPrinter({"order": "none"})
    return _printer


def to_latex(expr) -> str:
    """LaTeX for a kernel (sympy) expression, with E/Var/Cov/SD/DSum typeset."""
    return _latex_printer().doprint(expr)


def _tex_text(src: str) -> str:
    """Source text inside LaTeX (the fallback when an expression did not elaborate)."""
    esc = src.replace("\\", r"\backslash ").replace("{", r"\{").replace("}", r"\}")
    for ch in "_^&%$#":
        esc = esc.replace(ch, "\\" + ch)
    return r"\texttt{%s}" % esc


def _side_latex(expr, src: str, node=None) -> str:
    """One side of a link: as written (``node``, the parse tree; factor order kept), else the
    elaborated ``expr``, else (it did not elaborate: an error in it) the source text."""
    if node is not None and expr is not None:  # a side that did not elaborate stays source text
        try:
            from ..written import as_written

            return to_latex(as_written(node))
        except Exception:  # noqa: BLE001 - forms as_written does not cover: the elaborated form
            pass
    if expr is not None:
        try:
            return to_latex(expr)
        except Exception:  # typesetting must never break a result
            pass
    return _tex_text(src)


def written_sides(rep, step) -> dict:
    """``{link index: (lhs node, rhs node)}``: the parse trees of the sides of ``step``'s links,
    from the program the report was checked from (empty when there is none)."""
    prog = getattr(rep, "program", None)
    if prog is None or step.span is None:
        return {}
    from .. import syntax as S

    same = [st for st in prog.statements if isinstance(st, S.Step) and st.name.name == step.name]
    if not same:
        return {}
    # the statement of this result: the one with its name, on its line when the name is used twice
    st = next((x for x in same if x.span.line == step.span.line), same[0]) if len(same) > 1 else same[0]
    if len(st.links) != len(step.links):
        return {}
    out, left = {}, st.first
    for k, lk in enumerate(st.links, 1):
        out[k] = (left, lk.rhs)
        left = lk.rhs
    return out
