"""The maths of the annotated proof PDF (``pdf.py``): every expression as the
user wrote it (``typst_written.WrittenPrinter`` on the parse tree), the parts
of each result (a step's links, a check's two sides and its ``in float32``, a
table cell's ``at x = v``, a simulation's ``where``), text from the kernel
that holds maths (``weakest: uncorrelated(q_i, k_i)``, ``E[X^2] = 1``) and
comments set as prose.
"""
from __future__ import annotations

import re

from . import syntax as S
from .typst_template import REL, s

_REAL_KINDS = ("real", "positive real", "nonnegative real", "negative real")


class Typesetter:
    """Typst maths for one file: as written when the parse tree is at hand,
    else the checker's sympy expression."""

    def __init__(self, report):
        from .typst_printer import TypstPrinter
        from .typst_written import WrittenPrinter

        self.program = report.program  # None when the file did not parse: no steps to typeset
        names: dict[str, int] = {}
        self.variables: set[str] = set()  # names of real-valued variables and families
        self.families: set[str] = set()
        self.defines: dict[str, S.Define] = {}
        for st in self.statements():
            if isinstance(st, (S.Random, S.RealDecl, S.Let)):
                for n in st.names:
                    fam = isinstance(st, (S.Random, S.RealDecl)) and st.family is not None
                    base = n.name.split("_")[0] if fam else n.name
                    names.setdefault(base, len(names))
                    if isinstance(st, (S.Random, S.RealDecl)) or st.type.kind in _REAL_KINDS \
                            or st.type.kind == "matrix":
                        self.variables.add(base)
                    if fam:
                        self.families.add(base)
            elif isinstance(st, S.Define):
                base = _base(st.name, self.families)
                self.defines[base] = st
                self.variables.add(base)
        self.written = WrittenPrinter(partial=self.partial, source=report.text or "")
        self.elaborated = TypstPrinter({"names": names})

    # -- printing

    def node(self, node) -> str | None:
        if node is None:
            return None
        try:
            return self.written.doprint(node)
        except Exception:  # noqa: BLE001 - fall back to the elaborated form
            return None

    def expr(self, e) -> str | None:
        if e is None:
            return None
        try:
            return self.elaborated.doprint(e)
        except Exception:  # noqa: BLE001
            return None

    def statements(self):
        return [] if self.program is None else self.program.statements

    # -- ∂ or d

    def _depends(self, node, seen=()) -> set[str]:
        """The variables ``node`` depends on (through definitions too)."""
        out: set[str] = set()
        for n in S.walk(node):
            if isinstance(n, S.Name):
                base = _base(n, self.families)
                if base in self.defines and base not in seen:
                    out |= self._depends(self.defines[base].body, (*seen, base)) | {base}
                elif base in self.variables:
                    out.add(base)
        return out

    def partial(self, call: S.Call) -> bool:
        """∂ when the user wrote ∂, the variable is a family member or a vector, or the
        differentiated expression depends on a variable other than it; d otherwise."""
        if self.written.wrote_partial(call):
            return True
        f, xs = call, []
        while isinstance(f, S.Call) and f.func == "diff" and len(f.args) == 2:
            xs.append(f.args[1])
            f = f.args[0]
        if any(isinstance(x, S.Subscript) or _base(x, self.families) in self.families
               or (isinstance(x, S.Name) and x.name != _base(x, self.families)) for x in xs):
            return True
        names = {_base(x, self.families) for x in xs if isinstance(x, (S.Name, S.Subscript))}
        return len(names) > 1 or bool(self._depends(f) - names)


def _base(node, families) -> str:
    if isinstance(node, S.Subscript):
        node = node.base
    if not isinstance(node, S.Name):
        return ""
    head = node.name.split("_")[0]
    return head if head in families else node.name


# ------------------------------------------------------------ the parts of each result


def result_nodes(program) -> dict[str, tuple[list, list[list]]]:
    """For each result name: (the expression nodes of its chain, a suffix per node).

    A suffix is a list of parts: ``("text", words)``, ``("node", expression)`` or
    ``("raw", code)``: ``within 0.01 relative``, ``in float32``, ``at d_k = 8``, ``where d_k = 1024``."""
    out: dict[str, tuple[list, list[list]]] = {}
    if program is None:
        return out
    for st in program.statements:
        if isinstance(st, S.Step):
            out[st.name.name] = ([st.first] + [lk.rhs for lk in st.links], [[] for _ in range(len(st.links) + 1)])
        elif isinstance(st, S.Check):
            parts: list = []
            if st.tol is not None:
                parts += [("text", "within "), ("node", st.tol.value)] + ([("text", " relative")] if st.tol.relative
                                                                          else [])
            if st.fmt is not None:
                parts += [("text", " in " if parts else "in "), ("raw", st.fmt.name)]
            out[S.check_name(st)] = ([st.lhs, st.rhs], [[], parts])
        elif isinstance(st, S.Simulate):
            parts = []
            if st.tol is not None:
                parts += [("text", "within "), ("node", st.tol.value)] + ([("text", " relative")] if st.tol.relative
                                                                          else []) + [("text", " ")]
            for k, b in enumerate(st.where):
                parts += [("text", ", " if k else "where "), ("node", b.name), ("text", " = "), ("node", b.value)]
            out[st.name.name] = ([st.lhs, st.rhs], [[], parts])
        elif isinstance(st, S.Table):
            for r, row in enumerate(st.rows, 1):
                for c, cell in enumerate(row.cells, 1):
                    at = st.values[c - 1] if c - 1 < len(st.values) else None
                    parts = [("text", "at "), ("node", st.var), ("text", " = "), ("node", at)] if at is not None else []
                    out[S.table_cell_name(st, r, c)] = ([row.expr, cell], [parts, []])
    return out


def suffix(ts: Typesetter, parts: list) -> str:
    """The typst content of a suffix (small grey words after one side of a link)."""
    if not parts:
        return ""
    out = []
    for kind, value in parts:
        if kind == "node":
            m = ts.node(value)
            out.append(f"${m}$" if m else "")
        elif kind == "raw":
            out.append(f"#raw({s(value)})")
        else:
            out.append(f"#{s(value)}")
    return " #h(0.6em) #text(size: 8.5pt, fill: luma(70))[" + "".join(out) + "]"


# ------------------------------------------------------------ text from the kernel that holds maths


def fact_maths(ts: Typesetter, fact) -> str | None:
    """A fact (``syntax.EqFact`` / ``IndepFact``) as typst maths."""
    if isinstance(fact, S.EqFact):
        left, right = ts.node(fact.left), ts.node(fact.right)
        if left is None or right is None:
            return None
        out = f"{left} {REL.get(fact.rel, '=')} {right}"
    elif isinstance(fact, S.IndepFact):
        args = [ts.node(a) for a in fact.args]
        if any(a is None for a in args):
            return None
        out = f'upright("{fact.kind}")({", ".join(args)})'
    else:
        return None
    if getattr(fact, "cond", None) is not None:
        out += f' quad "for" {ts.node(fact.cond.left)} != {ts.node(fact.cond.right)}'
    return out


def text_fact(ts: Typesetter, text: str, variable: str | None = None) -> str | None:
    """Typst maths for a fact the kernel wrote as text (``uncorrelated(q_i, k_i)``,
    ``E[X^2] = 1``; ``E = 0`` and ``Var = 1`` of a distribution's ``variable``); None when
    the text is not a fact of the language.  The text is parsed, never evaluated."""
    from .errors import StepError
    from .parser import parse

    text = (text or "").strip()
    if variable:  # the kernel writes a law's moments for a generic X: E = 0, Var = 1, E[X^2] = 1
        text = re.sub(r"^(E|Var|SD)\s*(?==)", lambda m: f"{m.group(1)}[{variable}]" if m.group(1) == "E"
                      else f"{m.group(1)}({variable})", text)
        text = re.sub(r"^E\[X\^(\d+)\]", lambda m: f"E[{variable}^{m.group(1)}]", text)
    if not text or "\n" in text or len(text) > 400:
        return None
    try:
        prog = parse(f"assume w: {text}\n", "<kernel>")
    except (StepError, RecursionError, ValueError):
        return None
    st = prog.statements[0] if prog.statements else None
    if not isinstance(st, S.Assume) or not st.facts:
        return None
    facts = [fact_maths(ts, f) for f in st.facts]
    return None if any(f is None for f in facts) else ", quad ".join(facts)


# ------------------------------------------------------------ comments as prose

_TYPO = [("<=>", "⇔"), ("=>", "⇒"), ("->", "→"), ("<-", "←"), ("<=", "≤"), (">=", "≥"), ("!=", "≠"), ("~=", "≈"),
         ("---", "—"), ("--", "–"), ("...", "…")]


def prose(text: str) -> str:
    """A comment as typst content: plain text (every typst special character escaped: it is
    written as string literals), typographic arrows and relations, `code` as raw text."""
    out = []
    for k, part in enumerate(re.split(r"`([^`\n]*)`", text or "")):
        if k % 2:
            out.append(f"#raw({s(part)})")
            continue
        for a, b in _TYPO:
            part = part.replace(a, b)
        if part:
            out.append(f"#{s(part)}")
    return "".join(out)
