"""Annotated proof PDFs (``verify --pdf``): a typst document built from
:class:`~stepcheck.results.FileReport` objects, compiled with the ``typst``
Python package (the compiler ships in its wheel: no TeX, no network, no
packages fetched at compile time; everything the document needs is inline).

Contents, per file: title, source, declarations, the assumptions as coloured
badges by kind, every step in display maths with each link's status mark and
the rules and assumptions it used in the right-hand column (in the same
colours), notes under failed or unknown links, warnings for unneeded
citations, the step-by-assumption matrix and a one-line verdict.

The maths is the user's own (``pdf_maths`` and ``typst_written`` print the
parse tree); the template, colours and string helpers are in
``typst_template``.

Entry points: :func:`build_typst` (the source), :func:`compile_pdf` (bytes),
:func:`write_pdf` (atomic write with the umask's mode, returns warnings in
plain words).
"""
from __future__ import annotations

import glob
import os
import re
from functools import lru_cache

from .atomic import atomic_write  # noqa: F401 - also pdf.atomic_write, the documents' writer
from .pdf_maths import Typesetter, fact_maths, prose, result_nodes, suffix, text_fact
from .report import _matrix_columns, summary_line, verdict
from .results import FAILS, HOLDS, UNKNOWN, FileReport, LinkResult, StepResult, Use
from .typst_template import PALETTE, REL, STATUS_COLOR, STATUS_MARK, _m, _preamble, s  # noqa: F401

CJK_WARNING = (
    "Chinese text needs a CJK font: install Debian's fonts-noto-cjk "
    "(apt-get install fonts-noto-cjk); the PDF was written without it"
)

_CJK = re.compile(
    "[\u1100-\u11ff\u2e80-\u2fdf\u3000-\u30ff\u3100-\u31ff\u3400-\u4dbf\u4e00-\u9fff"
    "\uac00-\ud7af\uf900-\ufaff\uff00-\uffef\U00020000-\U0003134f]"
)

_FONT_DIRS = (
    "/usr/share/fonts",
    "/usr/local/share/fonts",
    os.path.expanduser("~/.local/share/fonts"),
    os.path.expanduser("~/.fonts"),
    "/Library/Fonts",
    "/System/Library/Fonts",
)


# ------------------------------------------------------------------ fonts


@lru_cache(maxsize=1)
def find_cjk_fonts() -> tuple[str, ...]:
    """Noto CJK font files in the system font paths (Debian's fonts-noto-cjk)."""
    found: list[str] = []
    for d in _FONT_DIRS:
        if not os.path.isdir(d):
            continue
        for pat in ("NotoSerifCJK*", "NotoSansCJK*"):
            found.extend(glob.glob(os.path.join(d, "**", pat), recursive=True))
    return tuple(sorted(f for f in set(found) if f.lower().endswith((".ttc", ".otf", ".ttf"))))


def _cjk_families(files) -> list[str]:
    fams = []
    names = " ".join(os.path.basename(f) for f in files)
    if "NotoSerifCJK" in names:
        fams.append("Noto Serif CJK SC")
    if "NotoSansCJK" in names:
        fams.append("Noto Sans CJK SC")
    return fams


def has_cjk(text: str) -> bool:
    return bool(_CJK.search(text or ""))


# ------------------------------------------------------------------ maths from the source as written


_Typesetter = Typesetter


def _raw(text: str) -> str:
    return f"raw({s(text)})"


def _maths_or_raw(ts: _Typesetter, node, expr, text: str, extra: str = "") -> str:
    """A content expression for one side of a link (``extra``: content set after the maths, on its line)."""
    m = ts.node(node)
    if m is None and re.fullmatch(r"-?\d+(\.\d+)?([eE][-+]?\d+)?", (text or "").strip()):
        import sympy

        from .typst_printer import typst

        m = typst(sympy.Float(text.strip()) if not text.strip().lstrip("-").isdigit() else sympy.Integer(text.strip()))
        if "e" in text.lower() or "." in text:  # keep the digits as written: 2.830, 1e-9
            m = text.strip().replace("e", " times 10^(").replace("E", " times 10^(") + (")" if "e" in text.lower() else "")
    if m is None:
        m = ts.expr(expr)
    if m is None:
        return f"[#{_raw(text)}{extra}]" if extra else _raw(text)
    return f"fit($display({m}){extra}$, ${m}{extra}$)"


# ------------------------------------------------------------------ sections


def _comment_above(text: str, line: int) -> str:
    """The comment lines directly above ``line`` (1-based), without ``#``."""
    lines = text.splitlines()
    out = []
    k = line - 2
    while 0 <= k < len(lines) and lines[k].lstrip().startswith("#"):
        out.append(_undecorate(lines[k].lstrip()[1:].strip()))
        k -= 1
    return " ".join(o for o in reversed(out) if o)


def _undecorate(line: str) -> str:
    """A comment line without its rule decoration (``---- 10.2 title ----``)."""
    return re.sub(r"^[-=#*~_]{3,}\s*|\s*[-=#*~_]{3,}$", "", line)


def _header_comment(text: str) -> str:
    out = []
    for ln in (text or "").splitlines():
        st = ln.strip()
        if st.startswith("#"):
            out.append(st[1:].strip())
        elif st:
            break
    return " ".join(out)


def _declarations(ts: _Typesetter) -> list[str]:
    from . import syntax as S

    items = []

    def nm(names) -> str:
        return ", ".join(ts.node(n) or s(n.name) for n in names)

    def ex(node) -> str:  # the source text, as code, in the (never expected) case the printer fails
        return ts.node(node) or f"#raw({s(_source_of(ts, node))})"

    for st in ts.statements():
        if isinstance(st, S.Let):
            if st.type.kind == "index" and st.type.lo is not None:
                items.append(f"[{_m(nm(st.names) + ' in {' + ex(st.type.lo) + ', ..., ' + ex(st.type.hi) + '}')}"
                             f" #text(fill: luma(90))[index{'es' if len(st.names) > 1 else ''}]]")
            elif st.type.kind == "matrix":
                items.append(f"[{_m(nm(st.names))} #text(fill: luma(90))[{'matrices' if len(st.names) > 1 else 'matrix'}"
                             f"] {_m(ex(st.type.lo) + ' times ' + ex(st.type.hi))}]")
            else:
                items.append(f"[{_m(nm(st.names))} #text(fill: luma(90))[#{s(st.type.kind)}]]")
        elif isinstance(st, (S.Random, S.RealDecl)):
            word = "random variable" if isinstance(st, S.Random) else "real constant"
            plural = len(st.names) > 1 or st.family is not None
            desc = word + ("s" if plural else "")
            fam = ""
            if st.family is not None:
                fam = f", {_m(ex(st.family.var) + ' = ' + ex(st.family.lo) + ', ..., ' + ex(st.family.hi))}"
            dist = ""
            if isinstance(st, S.Random) and st.distribution is not None:
                d = ts.node(st.distribution)
                dist = f" ~ {_m(d)}" if d else ""
            items.append(f"[{_m(nm(st.names))}{fam} #text(fill: luma(90))[#{s(desc)}]{dist}]")
        elif isinstance(st, S.Define):
            items.append(f"[{_m((ts.node(st.name) or s(st.name.name)) + ' := ' + ex(st.body))} "
                         f"#text(fill: luma(90))[definition]]")
        elif isinstance(st, S.Use):
            items.append(f"[uses #raw({s(st.path)})]")
    return items


def _fact_maths(ts: _Typesetter, fact) -> str | None:
    try:
        return fact_maths(ts, fact)
    except Exception:  # noqa: BLE001
        return None


def _source_of(ts: _Typesetter, node) -> str:
    """The source text of ``node`` (one line)."""
    sp = getattr(node, "span", None)
    text = ts.program.text if ts.program is not None else ""
    lines = text.splitlines()
    if sp is None or not (0 < sp.line <= len(lines)):
        return ""
    if sp.end_line != sp.line:
        return lines[sp.line - 1][sp.col - 1:]
    return lines[sp.line - 1][sp.col - 1:sp.end_col - 1]


def _assumptions(report: FileReport, ts: _Typesetter) -> str:
    from . import syntax as S

    parsed = {st.label.name: st for st in ts.statements() if isinstance(st, S.Assume)}
    rows = []
    for a in report.assumptions:
        st = parsed.get(a.label)
        facts = []
        for k, text in enumerate(a.facts):
            m = _fact_maths(ts, st.facts[k]) if st is not None and k < len(st.facts) else None
            if m is None:  # a fact the kernel wrote (E = 0 of a distribution): parsed, typeset
                m = text_fact(ts, text, a.label.split(" ~ ")[0] if " ~ " in a.label else None)
            # a box: a fact starts on a new line rather than break after its `=` (a fact wider than the
            # column still wraps, inside its box)
            facts.append(f"box({_m(m) if m else _raw(text)})")
        kinds = ", ".join(dict.fromkeys(a.kinds or [a.kind]))
        rows.append(f"badge({s(a.label)}, {s(a.kind)})")
        rows.append(f"text(size: 8pt, fill: kind-color({s(a.kind)}).darken(20%))[#{s(kinds)}]")
        # leading: stacked inline fractions of two lines of facts must not touch
        rows.append("[#set par(leading: 1.1em)\n" + "#h(1.5em)".join("#" + f for f in facts) + "]")
    if not rows:
        return "[#text(fill: luma(90))[No assumptions: every step must hold on its own.]]"
    return ("grid(columns: (auto, auto, 1fr), column-gutter: 1em, row-gutter: 0.75em, align: horizon,\n  "
            + ",\n  ".join(rows) + ")")


def _use_badge(u: Use, ts: _Typesetter | None = None) -> str:
    kind = u.kind if u.kind in PALETTE else ""
    args = f"{s(u.label)}, {s(kind if not u.implicit else 'implicit')}"
    if u.implicit:
        args += ", implicit: true"
    if u.weakest:  # the kernel's text of a fact: typeset as maths when it is one
        m = text_fact(ts, u.weakest) if ts is not None else None
        args += f", note: [#emph[weakest:] {_m(m) if m else '#' + s(u.weakest)}]"
    return f"badge({args})"


def _margin(link: LinkResult, ts: _Typesetter | None = None) -> str:
    parts = []

    def row(title: str, items: list[str]) -> str:  # badges spaced apart, wrapping with room between lines
        return f"[#head({s(title)}) #badges({', '.join(items)})]"

    if link.rules:
        parts.append(row("rules", [f"rule-badge({s(r)})" for r in link.rules]))
    uses = [u for u in link.uses if u.kind != "domain"]
    where = [u for u in link.uses if u.kind == "domain"]
    if uses:
        parts.append(row("uses", [_use_badge(u, ts) for u in uses]))
    elif link.status == HOLDS:
        parts.append("[#head(\"uses\") #text(size: 8pt, fill: luma(110))[nothing]]")
    if where:  # holds only where both sides are defined
        parts.append(row("where", [_use_badge(u, ts) for u in where]))
    if link.missing:
        parts.append(row("missing", [f"badge({s(m)}, \"\", implicit: false)" for m in link.missing]))
    if not parts:
        return "[]"
    return "block(breakable: false, stack(spacing: 5pt, " + ", ".join(parts) + "))"  # never split over pages


def _notes(link: LinkResult, *, why: bool) -> str | None:
    """The notes under a link: diagnostics, residual, counterexample, warnings."""
    items = []
    color = STATUS_COLOR.get(link.status, STATUS_COLOR[UNKNOWN])
    if link.status not in (HOLDS, "simulated"):
        for d in link.diagnostics:
            line = f"#strong({s(d.title)})"
            if d.label:
                line += f" — #{s(d.label)}"
            items.append(line)
            items.extend(f"#{s(n)}" for n in d.notes)
            if d.help:
                items.append(f"#emph[help:] #{s(d.help)}")
        if link.message and not link.diagnostics:
            items.append(f"#{s(link.message)}")
        if link.residual and not any(link.residual in " ".join(d.notes) for d in link.diagnostics):
            items.append(f"#emph[residual:] #raw({s(link.residual)})")
    elif link.message and (why or getattr(link, "show_message", False) or link.status == "simulated"):
        items.append(f"#{s(link.message)}")
    if link.counterexample and not any(link.counterexample in " ".join(d.notes) for d in link.diagnostics):
        items.append(f"#emph[counterexample:] #raw({s(link.counterexample)})")
    if link.status in (HOLDS, "simulated"):
        for d in link.diagnostics:
            items.append(f"#emph[{d.severity}:] #{s(d.title)}" + "".join(f" \\ #{s(n)}" for n in d.notes))
    out = [f"note-box({s(color)}, [" + " \\ ".join(items) + "])"] if items else []
    strict_covered = any("unneeded" in (d.code or "") for d in link.diagnostics)
    if link.unneeded and not strict_covered:
        warn = " \\ ".join(
            f"#strong[warning:] #badge({s(lab)}, \"\") is cited but not needed for this link" for lab in link.unneeded)
        out.append(f"note-box({s(STATUS_COLOR[UNKNOWN])}, [{warn}])")
    if not out:
        return None
    return "stack(spacing: 3pt, " + ", ".join(out) + ")"


def _step(step: StepResult, ts: _Typesetter, syn, text: str, *, why: bool) -> str:
    """One result: a step (or refute, check, table cell, simulation) with its links.
    ``syn`` is (nodes, suffixes) from :func:`pdf_maths.result_nodes`, or None."""
    word = {"refute": "Refute", "check": "Check", "simulate": "Simulation"}.get(step.kind, "Step")
    out = [f"#block(above: 1.6em, below: 1em, sticky: true)[#text(weight: \"bold\")[{word}] "
           f"#text(font: mono, size: 9.5pt, weight: \"bold\")[#{s(step.name)}]"
           f"#h(0.6em)#status-pill({s(step.status)})]"]
    comment = _comment_above(text, step.span.line) if step.span else ""
    if comment:
        out.append(f"#block(above: 0.2em, below: 1em, sticky: true)"
                   f"[#text(size: 8.8pt, style: \"italic\", fill: luma(70))[{prose(comment)}]]")
    if not step.links:
        out.append("#text(fill: luma(90))[(no links)]")
        return "\n".join(out)
    n = len(step.links) + 1
    nodes, suffixes = syn if syn is not None and len(syn[0]) == n else ([None] * n, [[] for _ in range(n)])

    def side(k: int, expr, written: str) -> str:
        return _maths_or_raw(ts, nodes[k], expr, written, suffix(ts, suffixes[k]))

    first = step.links[0]
    lhs = side(0, first.lhs_expr, first.lhs)
    inline = len(first.lhs) <= 24 and not suffixes[0]
    cells = []
    if not inline:
        cells.append(f"grid.cell(colspan: 3, align: left + horizon, {lhs})")
        cells.append("[]")
        cells.append("[]")
    for k, link in enumerate(step.links):
        rhs = side(k + 1, link.rhs_expr, link.rhs)
        rel = f"$display({REL.get(link.rel, 'approx' if link.rel == '≈' else '=')})$"
        cells.append(lhs if (inline and k == 0) else "[]")
        cells += [rel, rhs, f"mark({s(link.status)})", _margin(link, ts)]
        notes = _notes(link, why=why)
        if notes:
            cells += ["[]", f"grid.cell(colspan: 4, align: left, {notes})"]
    lead = "auto" if inline else "0.9em"
    out.append(f"#grid(columns: ({lead}, auto, 1fr, 1.3em, 33%), column-gutter: (0.35em, 0.5em, 0.4em, 0.6em), "
               "row-gutter: 1.15em, align: (right + horizon, center + horizon, left + horizon, center + horizon, "
               "left + horizon),\n  " + ",\n  ".join(cells) + ")")
    return "\n".join(out)


def _diagnostic(d, text: str) -> str:
    color = STATUS_COLOR[FAILS] if d.severity == "error" else STATUS_COLOR[UNKNOWN]
    where = f" (line {d.span.line}, column {d.span.col})" if d.span is not None else ""
    items = [f"#strong[{d.severity}:] #{s(d.title)}#{s(where)}"]
    if d.span is not None and text:
        lines = text.splitlines()
        if 0 < d.span.line <= len(lines):
            items.append(f"#raw({s(lines[d.span.line - 1].rstrip())})")
    if d.label:
        items.append(f"#{s(d.label)}")
    items.extend(f"#{s(n)}" for n in d.notes)
    if d.help:
        items.append(f"#emph[help:] #{s(d.help)}")
    return f"#note-box({s(color)}, [" + " \\ ".join(items) + "])"


def _matrix(report: FileReport) -> str:
    if not report.steps:
        return ""
    cols = _matrix_columns(report)
    out = ["== Step-by-assumption matrix"]
    if not cols:
        out.append("#block(sticky: true)[#text(fill: luma(90))[No assumptions: every step rests on nothing.]]")
        return "\n".join(out)
    heads = ["[#text(size: 8.5pt, weight: \"bold\")[step]]"]
    for lab, kind in cols:
        k = kind if kind in PALETTE else ""
        heads.append(f"badge({s(lab)}, {s(k)}, implicit: {'true' if kind == 'implicit' else 'false'})")
    cells = []
    for st in report.steps:
        rests = set(st.rests_on)
        cells.append(f"text(font: mono, size: 8.5pt)[#{s(st.name)}]")
        for lab, kind in cols:
            k = kind if kind in PALETTE else ""
            if lab in rests:
                cells.append(f"text(fill: kind-color({s(k)}), size: 11pt)[●]")
            else:
                cells.append("text(fill: luma(170))[·]")
    n = len(cols)
    table = (f"#block(sticky: true, fit(table(columns: (auto,) + ({n} * (auto,)), align: (left + horizon,) + ({n} * (center + horizon,)), "
             "stroke: (x, y) => if y == 0 { (bottom: 0.6pt + luma(120)) } else { (bottom: 0.3pt + luma(220)) }, "
             "inset: (x: 6pt, y: 4pt),\n  " + ", ".join(heads) + ",\n  " + ", ".join(cells) + "), []))")
    out.append(table)
    out.append("#block(above: 0.5em, sticky: true)[#text(size: 8pt, fill: luma(90))[● = the step rests on the "
               "assumption (directly or through the steps it cites); colours show the kind of assumption.]]")
    return "\n".join(out)


def _legend(report: FileReport) -> str:
    used = ["implicit" if u.implicit else u.kind for s_ in report.steps for lk in s_.links for u in lk.uses
            if u.kind != "domain" and (u.implicit or u.kind in PALETTE)]
    kinds = [k for k in dict.fromkeys([a.kind for a in report.assumptions] + used) if k]  # a cited step too
    if not kinds:
        return ""
    items = " ".join(f"#box(width: 0.7em, height: 0.7em, radius: 1.5pt, fill: kind-color({s(k)}))#h(0.25em)"
                     f"#text(size: 8pt)[#{s(k)}]#h(0.9em)" for k in kinds)
    return f"#block(above: 0.6em)[{items}]"


def _verdict(report: FileReport) -> str:
    style, sentence = verdict(report)
    summary = "" if report.fatal and not report.steps else summary_line(report) + " — "
    # never alone on a page: the blocks before it are sticky, and it does not break
    return (f"#block(above: 1.2em, breakable: false, width: 100%, inset: 7pt, radius: 3pt, fill: rgb({s(STATUS_COLOR.get(style, STATUS_COLOR[UNKNOWN]))}).lighten(88%), "
            f"stroke: 0.8pt + rgb({s(STATUS_COLOR.get(style, STATUS_COLOR[UNKNOWN]))}))[#mark({s(style)}) #h(0.3em) "
            f"#text(size: 9pt)[#{s(summary)}]#strong(text(fill: rgb({s(STATUS_COLOR.get(style, STATUS_COLOR[UNKNOWN]))}).darken(15%))[#{s(sentence)}])]")


def title_of(report: FileReport) -> str:
    """The derivation's title; for a file that did not parse, read from its
    ``derivation NAME "TITLE"`` line when there is one."""
    if report.title or report.name:
        return report.title or report.name
    m = re.search(r'^\s*derivation\s+\w+\s+"([^"\n]*)"', report.text or "", re.M)
    return m.group(1) if m else os.path.basename(report.path)


def file_section(report: FileReport, *, why: bool = False) -> str:
    """The typst markup for one file (title to verdict)."""
    ts = _Typesetter(report)
    syn_steps = result_nodes(ts.program)
    title = title_of(report)
    out = [f"= #{s(title)}"]
    meta = []
    if report.name and report.title:
        meta.append(f"#raw({s(report.name)})")
    meta.append(f"#raw({s(report.path)})")
    out.append(f"#text(size: 9pt, fill: luma(80))[{' · '.join(meta)}]")
    if report.source:
        out.append(f"\n#text(size: 9.5pt)[#emph[Source:] #{s(report.source)}]")
    intro = _header_comment(report.text)
    if intro:
        out.append(f"\n#text(size: 9pt, style: \"italic\", fill: luma(70))[{prose(intro)}]")
    if report.diagnostics:
        out.append("== Problems")
        out.extend(_diagnostic(d, report.text) for d in report.diagnostics)
    decls = _declarations(ts)
    if decls:
        out.append("== Declarations")
        out.append("#list(tight: true, " + ", ".join(decls) + ")")
    if report.assumptions or report.steps:
        out.append("== Assumptions")
        out.append("#" + _assumptions(report, ts))
        out.append(_legend(report))
    if report.steps:
        out.append("== Steps")
        for st in report.steps:
            out.append(_step(st, ts, syn_steps.get(st.name), report.text, why=why))
    m = _matrix(report)
    if m:
        out.append(m)
    out.append(_verdict(report))
    return "\n".join(out) + "\n"


def build_typst(reports: list[FileReport], *, why: bool = False, cjk_fonts=None) -> str:
    """The typst source of one document holding ``reports`` (one section each)."""
    if cjk_fonts is None:
        cjk_fonts = find_cjk_fonts()
    fams = _cjk_families(cjk_fonts)
    first = next((r for r in reports if r.title or r.name), None)
    doc_title = (first.title or first.name) if first and len(reports) == 1 else "stepcheck: annotated proofs"
    out = [f"#set document(title: {s(doc_title)})", _preamble(fams)]
    for i, r in enumerate(reports):
        if i:
            out.append("#pagebreak()")
        out.append(file_section(r, why=why))
    if len(reports) > 1:
        from .report import totals

        t = totals(reports)
        ok = t["exit_code"] == 0
        st = HOLDS if ok else FAILS
        sentence = "verified: every step of every file holds" if ok else "NOT verified"
        out.append(f"#block(above: 1.5em, width: 100%, inset: 7pt, radius: 3pt, stroke: 0.8pt + rgb({s(STATUS_COLOR[st])}))"
                   f"[#strong[Total:] #{s(str(t['files']) + ' files, ' + str(t['steps']) + ' steps, ' + str(t['links']) + ' links: ' + str(t['holds']) + ' holds, ' + str(t['fails']) + ' fails, ' + str(t['unknown']) + ' unknown')} — "
                   f"#mark({s(st)}) #strong[#{s(sentence)}]]")
    return "\n".join(out)


# ------------------------------------------------------------------ compile and write


class TypstCompileError(RuntimeError):
    """The generated typst did not compile: a bug in stepcheck."""


def compile_pdf(source: str, *, cjk_fonts=None) -> bytes:
    """Compile typst ``source`` to PDF bytes (no system fonts scanned except the CJK ones)."""
    import typst

    if cjk_fonts is None:
        cjk_fonts = find_cjk_fonts()
    font_paths = sorted({os.path.dirname(f) for f in cjk_fonts})
    try:
        return typst.compile(source.encode("utf-8"), format="pdf", font_paths=font_paths, ignore_system_fonts=True)
    except Exception as e:  # typst.TypstError
        detail = getattr(e, "diagnostic", "") or ""
        raise TypstCompileError(f"the generated typst does not compile: {e} {detail}".strip()) from e


def render(reports: list[FileReport], *, why: bool = False) -> tuple[bytes, str, list[str]]:
    """(pdf bytes, typst source, warnings in plain words)."""
    fonts = find_cjk_fonts()
    src = build_typst(reports, why=why, cjk_fonts=fonts)
    warnings = []
    if not fonts and any(has_cjk(" ".join([r.title or "", r.source or "", r.text or ""])) for r in reports):
        warnings.append(CJK_WARNING)
    return compile_pdf(src, cjk_fonts=fonts), src, warnings


def write_pdf(reports: list[FileReport], path: str, *, why: bool = False, typst_path: str | None = None) -> list[str]:
    """Write one PDF holding ``reports`` to ``path`` (and the typst source to
    ``typst_path`` when given); returns warnings in plain words."""
    data, src, warnings = render(reports, why=why)
    if typst_path:
        atomic_write(typst_path, src)
    atomic_write(path, data)
    return warnings


def write_typst(reports: list[FileReport], path: str, *, why: bool = False) -> list[str]:
    """Write only the typst source (no compile, no typst package needed)."""
    fonts = find_cjk_fonts()
    atomic_write(path, build_typst(reports, why=why, cjk_fonts=fonts))
    return []
