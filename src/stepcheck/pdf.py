"""Annotated proof PDFs (``verify --pdf``): a typst document built from
:class:`~stepcheck.results.FileReport` objects, compiled with the ``typst``
Python package (the compiler ships in its wheel: no TeX, no network, no
packages fetched at compile time; everything the document needs is inline).

Contents, per file: title, source, declarations, the assumptions as coloured
badges by kind, every step in display maths with each link's status mark and
the rules and assumptions it used in the right-hand column (in the same
colours), notes under failed or unknown links, warnings for unneeded
citations, the step-by-assumption matrix and a one-line verdict.

Entry points: :func:`build_typst` (the source), :func:`compile_pdf` (bytes),
:func:`write_pdf` (atomic write, returns warnings in plain words).
"""
from __future__ import annotations

import glob
import os
import re
import tempfile
from functools import lru_cache

from .written import as_written
from .report import _matrix_columns, summary_line, verdict
from .results import FAILS, HOLDS, UNKNOWN, FileReport, LinkResult, StepResult, Use

CJK_WARNING = (
    "Chinese text needs a CJK font: install Debian's fonts-noto-cjk "
    "(apt-get install fonts-noto-cjk); the PDF was written without it"
)

# one colour per kind of assumption, the same everywhere in the document
PALETTE = {
    "independence": "#1f5fa8",
    "uncorrelated": "#7048b0",
    "zero mean": "#1b8a4c",
    "unit variance": "#d0700a",
    "variance": "#b0306a",
    "distribution": "#0f8080",
    "range": "#6f6f12",
    "sign": "#8a5a2b",
    "equation": "#4f5b6b",
    "inequality": "#356e92",
    "definition": "#4a7a2a",
    "step": "#3a3a3a",
    "implicit": "#7a7a7a",
    "domain": "#9a3d3d",
    "": "#4f5b6b",
}
STATUS_COLOR = {HOLDS: "#1b8a4c", FAILS: "#c0262d", UNKNOWN: "#c77800", "simulated": "#2f6db5"}
STATUS_MARK = {HOLDS: "✓", FAILS: "✗", UNKNOWN: "?", "simulated": "~"}
REL = {"=": "=", "<": "<", "<=": "<=", "≤": "<=", ">": ">", ">=": ">=", "≥": ">=", "≈": "approx", "~": "approx",
       "!=": "!=", "≠": "!="}

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


# ------------------------------------------------------------------ typst helpers


def s(text) -> str:
    """A typst string literal (safe for any text: nothing is read as markup)."""
    text = "" if text is None else str(text)
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\r", "") + '"'


def _m(math: str) -> str:
    """Typst maths as content (a code expression)."""
    return f"${math}$"


PREAMBLE = r"""
#let palette = (PALETTE)
#let status-color = (STATUS)
#let scolor(status) = rgb(status-color.at(status, default: "#c77800"))
#let kind-color(kind) = rgb(palette.at(kind, default: palette.at("")))
#let mono = ("DejaVu Sans Mono",)
#let badge(label, kind, implicit: false, note: none) = box(
  inset: (x: 3pt, y: 1.6pt), outset: (y: 0.6pt), radius: 2.5pt,
  fill: kind-color(kind).lighten(86%),
  stroke: if implicit { (paint: kind-color(kind), thickness: 0.6pt, dash: "dashed") } else { 0.6pt + kind-color(kind) },
  text(size: 7.8pt, fill: kind-color(kind).darken(25%), weight: "medium")[#label#if implicit [ #text(style: "italic", weight: "regular")[(implicit)]]],
) + if note != none { text(size: 7pt, fill: luma(100))[ #note] }
#let rule-badge(name) = box(
  inset: (x: 3pt, y: 1.6pt), outset: (y: 0.6pt), radius: 2.5pt, fill: luma(238), stroke: 0.4pt + luma(190),
  text(size: 7.6pt, fill: luma(60), font: mono)[#name],
)
#let mark(status) = text(font: mono, weight: "bold", size: 11pt, fill: scolor(status))[#if status == "holds" [✓] else if status == "fails" [✗] else if status == "simulated" [\~] else [?]]
#let status-pill(status) = box(inset: (x: 4pt, y: 1.5pt), radius: 6pt, fill: scolor(status).lighten(85%),
  text(size: 8pt, weight: "bold", fill: scolor(status).darken(10%))[#status])
#let head(t) = text(size: 7.5pt, fill: luma(110), tracking: 0.04em)[#upper(t)]
// maths that does not fit its column shrinks; if it would become too small it
// is set inline instead, where it may break at operators
#let fit(disp, inl) = layout(size => {
  let w = measure(disp).width
  if w <= size.width { disp } else {
    let r = size.width / w
    if r >= 0.55 { scale(x: r * 100%, y: r * 100%, reflow: true, disp) }
    else { block(width: size.width, inl) }
  }
})
#let note-box(color, body) = block(width: 100%, inset: (left: 7pt, y: 4pt, right: 4pt), stroke: (left: 1.6pt + rgb(color)),
  fill: rgb(color).lighten(93%), text(size: 8.6pt, body))
"""


def _preamble(fonts: list[str]) -> str:
    pal = ", ".join(f"{s(k)}: {s(v)}" for k, v in PALETTE.items())
    st = ", ".join(f"{s(k)}: {s(v)}" for k, v in STATUS_COLOR.items())
    text_fonts = ", ".join(s(f) for f in ["Libertinus Serif", *fonts, "DejaVu Sans Mono"])
    mono_fonts = ", ".join(s(f) for f in ["DejaVu Sans Mono", *fonts])
    out = PREAMBLE.replace("(PALETTE)", f"({pal},)").replace("(STATUS)", f"({st},)")
    out = out.replace('#let mono = ("DejaVu Sans Mono",)', f"#let mono = ({mono_fonts},)")
    setup = f"""
#set page(paper: "a4", margin: (x: 1.7cm, top: 1.8cm, bottom: 1.9cm),
  numbering: "1 / 1", number-align: center)
#set text(font: ({text_fonts},), size: 10pt, lang: "en")
#set par(justify: false)
#show raw: set text(font: mono, size: 8.6pt)
#show heading.where(level: 1): set text(size: 17pt)
#show heading.where(level: 2): set text(size: 11.5pt)
#show heading: set block(above: 1.3em, below: 0.7em)
"""
    return out + setup


# ------------------------------------------------------------------ maths from the source as written


class _Typesetter:
    """Typst maths for expressions: as written when the parse tree is at hand,
    else the checker's sympy expression."""

    def __init__(self, report: FileReport):
        from .typst_printer import TypstPrinter

        self.program = report.program  # None when the file did not parse: no steps to typeset
        names: dict[str, int] = {}
        if self.program is not None:
            from . import syntax as S

            for st in self.program.statements:
                if isinstance(st, (S.Random, S.RealDecl, S.Let)):
                    for n in st.names:
                        base = n.name.split("_")[0] if isinstance(st, (S.Random, S.RealDecl)) and st.family else n.name
                        names.setdefault(base, len(names))
        self.written = TypstPrinter({"order": "none"})
        self.elaborated = TypstPrinter({"names": names})

    def node(self, node) -> str | None:
        if node is None:
            return None
        try:
            return self.written.doprint(as_written(node))
        except Exception:  # noqa: BLE001 - fall back to the elaborated form
            return None

    def expr(self, e) -> str | None:
        if e is None:
            return None
        try:
            return self.elaborated.doprint(e)
        except Exception:  # noqa: BLE001
            return None

    def steps(self) -> dict:
        from . import syntax as S

        if self.program is None:
            return {}
        return {st.name.name: st for st in self.program.statements if isinstance(st, S.Step)}

    def statements(self):
        return [] if self.program is None else self.program.statements


def _raw(text: str) -> str:
    return f"raw({s(text)})"


def _maths_or_raw(ts: _Typesetter, node, expr, text: str) -> str:
    """A content expression for one side of a link."""
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
        return _raw(text)
    return f"fit($display({m})$, ${m}$)"


# ------------------------------------------------------------------ sections


def _comment_above(text: str, line: int) -> str:
    """The comment lines directly above ``line`` (1-based), without ``#``."""
    lines = text.splitlines()
    out = []
    k = line - 2
    while 0 <= k < len(lines) and lines[k].lstrip().startswith("#"):
        out.append(lines[k].lstrip()[1:].strip())
        k -= 1
    return " ".join(reversed(out))


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

    def ex(node) -> str:
        return ts.node(node) or s("?")

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
    from . import syntax as S

    try:
        if isinstance(fact, S.EqFact):
            left, right = ts.node(fact.left), ts.node(fact.right)
            if left is None or right is None:
                return None
            rel = REL.get(fact.rel, "=")
            out = f"{left} {rel} {right}"
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
    except Exception:  # noqa: BLE001
        return None


def _assumptions(report: FileReport, ts: _Typesetter) -> str:
    from . import syntax as S

    parsed = {st.label.name: st for st in ts.statements() if isinstance(st, S.Assume)}
    rows = []
    for a in report.assumptions:
        st = parsed.get(a.label)
        facts = []
        for k, text in enumerate(a.facts):
            m = _fact_maths(ts, st.facts[k]) if st is not None and k < len(st.facts) else None
            facts.append(_m(m) if m else _raw(text))
        kinds = ", ".join(dict.fromkeys(a.kinds or [a.kind]))
        rows.append(f"badge({s(a.label)}, {s(a.kind)})")
        rows.append(f"text(size: 8pt, fill: kind-color({s(a.kind)}).darken(20%))[#{s(kinds)}]")
        rows.append("[" + "#h(1.5em)".join("#" + f for f in facts) + "]")
    if not rows:
        return "[#text(fill: luma(90))[No assumptions: every step must hold on its own.]]"
    return ("grid(columns: (auto, auto, 1fr), column-gutter: 1em, row-gutter: 0.75em, align: horizon,\n  "
            + ",\n  ".join(rows) + ")")


def _use_badge(u: Use) -> str:
    kind = u.kind if u.kind in PALETTE else ""
    note = f"weakest: {u.weakest}" if u.weakest else None
    args = f"{s(u.label)}, {s(kind if not u.implicit else 'implicit')}"
    if u.implicit:
        args += ", implicit: true"
    if note:
        args += f", note: {s(note)}"
    return f"badge({args})"


def _margin(link: LinkResult) -> str:
    parts = []
    if link.rules:
        parts.append("[#head(\"rules\") " + " ".join(f"#rule-badge({s(r)})" for r in link.rules) + "]")
    uses = [u for u in link.uses if u.kind != "domain"]
    where = [u for u in link.uses if u.kind == "domain"]
    if uses:
        parts.append("[#head(\"uses\") " + " ".join("#" + _use_badge(u) for u in uses) + "]")
    elif link.status == HOLDS:
        parts.append("[#head(\"uses\") #text(size: 8pt, fill: luma(110))[nothing]]")
    if where:  # holds only where both sides are defined
        parts.append("[#head(\"where\") " + " ".join("#" + _use_badge(u) for u in where) + "]")
    if link.missing:
        parts.append("[#head(\"missing\") " + " ".join(f"#badge({s(m)}, \"\", implicit: false)" for m in link.missing)
                     + "]")
    if not parts:
        return "[]"
    return "stack(spacing: 3pt, " + ", ".join(parts) + ")"


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
    word = "Refute" if step.kind == "refute" else "Step"
    out = [f"#block(above: 1.4em, below: 0.5em, sticky: true)[#text(weight: \"bold\")[{word}] "
           f"#text(font: mono, size: 9.5pt, weight: \"bold\")[#{s(step.name)}]"
           f"#h(0.6em)#status-pill({s(step.status)})]"]
    comment = _comment_above(text, step.span.line) if step.span else ""
    if comment:
        out.append(f"#block(above: 0.2em, below: 0.5em, sticky: true)"
                   f"[#text(size: 8.8pt, style: \"italic\", fill: luma(70))[#{s(comment)}]]")
    if not step.links:
        out.append("#text(fill: luma(90))[(no links)]")
        return "\n".join(out)
    nodes = [syn.first] + [lk.rhs for lk in syn.links] if syn is not None and len(syn.links) == len(step.links) \
        else [None] * (len(step.links) + 1)
    first = step.links[0]
    lhs = _maths_or_raw(ts, nodes[0], first.lhs_expr, first.lhs)
    inline = len(first.lhs) <= 24
    cells = []
    if not inline:
        cells.append(f"grid.cell(colspan: 3, align: left + horizon, {lhs})")
        cells.append("[]")
        cells.append("[]")
    for k, link in enumerate(step.links):
        rhs = _maths_or_raw(ts, nodes[k + 1], link.rhs_expr, link.rhs)
        rel = f"$display({REL.get(link.rel, 'approx' if link.rel == '≈' else '=')})$"
        cells.append(lhs if (inline and k == 0) else "[]")
        cells += [rel, rhs, f"mark({s(link.status)})", _margin(link)]
        notes = _notes(link, why=why)
        if notes:
            cells += ["[]", f"grid.cell(colspan: 4, align: left, {notes})"]
    lead = "auto" if inline else "0.9em"
    out.append(f"#grid(columns: ({lead}, auto, 1fr, 1.3em, 33%), column-gutter: (0.35em, 0.5em, 0.4em, 0.6em), "
               "row-gutter: 0.8em, align: (right + horizon, center + horizon, left + horizon, center + horizon, "
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
        out.append("#text(fill: luma(90))[No assumptions: every step rests on nothing.]")
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
    table = (f"#fit(table(columns: (auto,) + ({n} * (auto,)), align: (left + horizon,) + ({n} * (center + horizon,)), "
             "stroke: (x, y) => if y == 0 { (bottom: 0.6pt + luma(120)) } else { (bottom: 0.3pt + luma(220)) }, "
             "inset: (x: 6pt, y: 4pt),\n  " + ", ".join(heads) + ",\n  " + ", ".join(cells) + "), [])")
    out.append(table)
    out.append("#v(0.3em)#text(size: 8pt, fill: luma(90))[● = the step rests on the assumption (directly or through "
               "the steps it cites); colours show the kind of assumption.]")
    return "\n".join(out)


def _legend(report: FileReport) -> str:
    kinds = list(dict.fromkeys([a.kind for a in report.assumptions] +
                               ["implicit" for s_ in report.steps for l in s_.links for u in l.uses if u.implicit]))
    if not kinds:
        return ""
    items = " ".join(f"#box(width: 0.7em, height: 0.7em, radius: 1.5pt, fill: kind-color({s(k)}))#h(0.25em)"
                     f"#text(size: 8pt)[#{s(k)}]#h(0.9em)" for k in kinds)
    return f"#block(above: 0.6em)[{items}]"


def _verdict(report: FileReport) -> str:
    style, sentence = verdict(report)
    summary = "" if report.fatal and not report.steps else summary_line(report) + " — "
    return (f"#block(above: 1.2em, width: 100%, inset: 7pt, radius: 3pt, fill: rgb({s(STATUS_COLOR.get(style, STATUS_COLOR[UNKNOWN]))}).lighten(88%), "
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
    syn_steps = ts.steps()
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
        out.append(f"\n#text(size: 9pt, style: \"italic\", fill: luma(70))[#{s(intro)}]")
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


def atomic_write(path: str, data: bytes | str) -> None:
    """Write ``path`` through a temporary file in the same directory and ``os.replace``.
    Refuses to overwrite a ``.step`` file."""
    if path.endswith(".step"):
        raise ValueError(f"refusing to overwrite the input file {path}")
    if isinstance(data, str):
        data = data.encode("utf-8")
    d = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(d):
        raise OSError(f"no such directory: {d}")
    fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".", suffix=".tmp", dir=d)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


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
