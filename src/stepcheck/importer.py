"""``stepcheck import ARTICLE.md|ARTICLE.tex [-o OUT.step] [--macros FILE]``.

Turns the display formulas of an article into a ``.step`` skeleton: one
``step`` (or ``check`` for ``≈`` / ``≠``) per chain, each link on its own line
with a ``# by ?`` hole, a ``# from FILE:LINE`` comment, and a comment block
at the top listing the free names to declare and the formulas refused.  A
formula is imported completely or refused with its span; see docs/import.md.
"""
from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass, field

BUILTIN_MACROS = {
    "EE": (0, "\\mathbb{E}"), "Var": (0, "\\operatorname{Var}"), "Cov": (0, "\\operatorname{Cov}"),
    "Std": (0, "\\operatorname{SD}"), "SD": (0, "\\operatorname{SD}"), "E": (0, "\\mathbb{E}"),
    "softmax": (0, "\\operatorname{softmax}"), "dfrac": (2, "\\frac{#1}{#2}"), "tfrac": (2, "\\frac{#1}{#2}"),
}


@dataclass
class Statement:
    name: str
    line: int
    first: str
    links: list = field(default_factory=list)  # (rel, text, line)


@dataclass
class Result:
    """What an import found: the formulas, the statements made, the refusals (diagnostics)."""
    path: str
    found: int = 0
    imported: int = 0
    statements: list = field(default_factory=list)
    refused: list = field(default_factory=list)  # Diagnostic
    names: dict = field(default_factory=dict)

    @property
    def links(self) -> int:
        return sum(len(s.links) for s in self.statements)


def import_text(text: str, path: str, macros: dict | None = None) -> Result:
    """Import the display formulas of ``text`` (Markdown unless ``path`` ends in ``.tex``)."""
    from .errors import Diagnostic, Span
    from .importer_extract import Lines, find_macros, latex_formulas, markdown_formulas
    from .importer_latex import LatexError, free_names, parse_formula, to_step

    table = dict(BUILTIN_MACROS)
    table.update(find_macros(text))
    table.update(macros or {})
    for name in ("newcommand", "renewcommand", "DeclareMathOperator"):
        table.pop(name, None)
    formulas = latex_formulas(text) if path.lower().endswith(".tex") else markdown_formulas(text)
    lines = Lines(text)
    res = Result(path)
    used: set = set()
    prev_ok = False
    for f in formulas:
        if _only_definitions(f.tex):
            continue  # a math block that only holds \newcommand lines
        res.found += 1
        try:
            parts = parse_formula(f.tex, table)
            chains = []
            for first, links in parts:
                if first is None and not (prev_ok and res.statements and not chains):
                    raise LatexError("the formula begins with a relation, but the formula before it was "
                                     "not imported", 0, 1)
                chains.append((first, links))
        except LatexError as e:
            prev_ok = False
            res.refused.append(_refusal(Diagnostic, Span, lines, f, path, e))
            continue
        except RecursionError:
            prev_ok = False
            res.refused.append(_refusal(Diagnostic, Span, lines, f, path,
                                        LatexError("the formula is nested too deeply", 0, len(f.tex))))
            continue
        res.imported += 1
        prev_ok = True
        for n, (first, links) in enumerate(chains):
            for node in [first] + [e for _, e, _ in links]:
                if node is not None:
                    for k, v in free_names(node).items():
                        res.names.setdefault(k, v)
            link_rows = [(rel, to_step(e), _line_of(lines, f, at)) for rel, e, at in links]
            if first is None:
                res.statements[-1].links.extend(link_rows)
                continue
            name = _fresh(f"eq{f.line}" + ("" if n == 0 else chr(ord("a") + n)), used)
            res.statements.append(Statement(name, f.line, to_step(first), link_rows))
    return res


def _only_definitions(tex: str) -> bool:
    from .importer_extract import find_macros

    stripped = tex.strip()
    return stripped.startswith(("\\newcommand", "\\renewcommand", "\\DeclareMathOperator")) and \
        bool(find_macros(stripped))


def _fresh(name: str, used: set) -> str:
    base, k = name, 1
    while name in used:
        k += 1
        name = f"{base}_{k}"
    used.add(name)
    return name


def _line_of(lines, f, at: int) -> int:
    return lines.pos(f.start + at)[0] if f.start >= 0 else f.line


def _refusal(Diagnostic, Span, lines, f, path, e):
    if f.start >= 0:
        l1, c1 = lines.pos(f.start + e.start)
        l2, c2 = lines.pos(f.start + max(e.end, e.start + 1) - 1)
        span = Span(path, l1, c1, l2, c2 + 1)
    else:
        span = Span(path, f.line, 1, f.line, 2)
    return Diagnostic("error", f"cannot import this formula: {e.message}", span,
                      help="the formula is left out of the skeleton: write its steps by hand, or extend the "
                           "macro table (--macros)")


def render(res: Result, text: str) -> str:
    """The ``.step`` skeleton."""
    out = [f"# imported by `stepcheck import` from {res.path}: {res.found} display formulas, "
           f"{res.imported} imported, {len(res.refused)} refused",
           "# `by ?` is not part of the .step language, so every link carries its hole as a comment",
           "# (`# by ?`): replace it with `by LABEL, ...` or delete it (the checker then infers what is needed).",
           "#",
           "# free names found: declare each one above the steps, e.g. `let d_k: positive integer`,",
           "# `random q_i, k_i for i in 1..d_k`, `random X`, `real c`, `let Q, K: matrix n × d_k`."]
    names = sorted(k for k, v in res.names.items() if v == "name")
    fams = sorted(k for k, v in res.names.items() if v == "indexed")
    out.append("#   names: " + (", ".join(names) or "(none)"))
    out.append("#   with a subscript (a family member, or a name such as d_k): " + (", ".join(fams) or "(none)"))
    if res.refused:
        out += ["#", "# refused formulas (not imported, not even in part):"]
        for d in res.refused:
            out += ["#   " + row if row else "#" for row in d.render({res.path: text}).splitlines()]
    for s in res.statements:
        out.append("")
        out.append(f"# from {res.path}:{s.line}")
        if not s.links:
            out.append(f"# {s.name}: {s.first}    (no relation: nothing to check)")
            continue
        numeric = any(rel in ("≈", "!=") for rel, _, _ in s.links)
        if numeric:  # `≈` and `≠` cannot be links of a step: one `check` per link
            left = s.first
            for k, (rel, right, line) in enumerate(s.links):
                tag = s.name if len(s.links) == 1 else f"{s.name}_{k + 1}"
                where = "" if line == s.line else f"  (line {line})"
                out.append(f"check {tag}: {left} {rel} {right}{where and '    #' + where}")
                left = right
            continue
        out.append(f"step {s.name}: {s.first}")
        for rel, right, line in s.links:
            where = "" if line == s.line else f"  ({res.path}:{line})"
            out.append(f"    {rel} {right}    # by ?{where}")
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="stepcheck import",
        description="Turn the display formulas of a Markdown (.md) or LaTeX (.tex) article into a .step "
                    "skeleton: one step per chain, `# by ?` holes, the free names to declare, and the "
                    "formulas that could not be imported completely (also on stderr).")
    ap.add_argument("article", metavar="ARTICLE.md|ARTICLE.tex")
    ap.add_argument("-o", "--output", metavar="OUT.step", help="write the skeleton here (default: stdout)")
    ap.add_argument("--macros", metavar="FILE",
                    help="extra macros, one `\\EE = \\mathbb{E}` (or `\\newcommand{...}{...}`) per line")
    args = ap.parse_args(argv)
    from .errors import StepError
    from .importer_extract import read_macro_file
    from .parser import read_source

    try:
        text = read_source(args.article)
        macros = {}
        if args.macros:
            mtext = read_source(args.macros)
            try:
                macros = read_macro_file(mtext)
            except ValueError as e:
                sys.stderr.write(f"{args.macros}:{e.args[0]}: error: {e.args[1]}\n")
                return 2
    except StepError as e:
        sys.stderr.write(e.diagnostic.render({}) + "\n")
        return 2
    res = import_text(text, args.article, macros)
    skeleton = render(res, text)
    for d in res.refused:
        sys.stderr.write(d.render({args.article: text}) + "\n\n")
    sys.stderr.write(f"{args.article}: {res.found} display formulas, {res.imported} imported, "
                     f"{len(res.refused)} refused, {res.links} links\n")
    if args.output:
        try:
            with open(args.output, "w", encoding="utf-8") as fh:
                fh.write(skeleton)
        except OSError as e:
            sys.stderr.write(f"error: cannot write {args.output}: {e.strerror}\n")
            return 2
    else:
        sys.stdout.write(skeleton)
    return 0
