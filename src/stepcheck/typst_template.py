"""The typst template of the annotated proof PDF (``pdf.py``): the colours,
the inline preamble (badges, marks, the fitting of wide maths, note boxes),
the page set-up, and the string helpers.

Everything the document needs is defined here, inline: no typst package is
imported at compile time.
"""
from __future__ import annotations

from .results import FAILS, HOLDS, UNKNOWN

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
    "step": "#a21caf",  # a cited step: fuchsia, never the grey of an equation
    "implicit": "#7a7a7a",
    "domain": "#9a3d3d",
    "": "#5f5f5f",
}
STATUS_COLOR = {HOLDS: "#1b8a4c", FAILS: "#c0262d", UNKNOWN: "#c77800", "simulated": "#2f6db5"}
STATUS_MARK = {HOLDS: "✓", FAILS: "✗", UNKNOWN: "?", "simulated": "~"}
REL = {"=": "=", "<": "<", "<=": "<=", "≤": "<=", ">": ">", ">=": ">=", "≥": ">=", "≈": "approx", "~": "approx",
       "!=": "!=", "≠": "!="}

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
  inset: (x: 3pt, y: 1.6pt), outset: (y: 0.6pt), radius: 2.5pt, baseline: 1.6pt,
  fill: kind-color(kind).lighten(86%),
  stroke: if implicit { (paint: kind-color(kind), thickness: 0.6pt, dash: "dashed") } else { 0.6pt + kind-color(kind) },
  text(size: 7.8pt, fill: kind-color(kind).darken(25%), weight: "medium")[#label#if implicit [ #text(style: "italic", weight: "regular")[(implicit)]]],
) + if note != none { text(size: 7pt, fill: luma(100))[ #note] }
#let rule-badge(name) = box(
  inset: (x: 3pt, y: 1.6pt), outset: (y: 0.6pt), radius: 2.5pt, baseline: 1.6pt, fill: luma(238), stroke: 0.4pt + luma(190),
  text(size: 7.6pt, fill: luma(60), font: mono)[#name],
)
#let mark(status) = text(font: mono, weight: "bold", size: 11pt, fill: scolor(status))[#if status == "holds" [✓] else if status == "fails" [✗] else if status == "simulated" [\~] else [?]]
#let status-pill(status) = box(inset: (x: 4pt, y: 1.5pt), radius: 6pt, fill: scolor(status).lighten(85%),
  text(size: 8pt, weight: "bold", fill: scolor(status).darken(10%))[#status])
#let badges(..items) = block(above: 3.5pt, below: 0pt, par(leading: 0.95em, items.pos().join(h(4pt, weak: true) + sym.zws)))
#let head(t) = text(size: 7.5pt, fill: luma(110), tracking: 0.04em)[#upper(t)]
// maths that does not fit its column shrinks; if it would become too small it
// is set inline instead, where it may break at operators
// (the line box takes the maths' real height, so a tall fraction never touches the row above or below)
#let fit(disp, inl) = layout(size => {
  let disp = text(top-edge: "bounds", bottom-edge: "bounds", disp)
  let inl = text(top-edge: "bounds", bottom-edge: "bounds", inl)
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
#set par(justify: false, leading: 0.72em)
#show raw: set text(font: mono, size: 8.6pt)
#show heading.where(level: 1): set text(size: 17pt)
#show heading.where(level: 2): set text(size: 11.5pt)
#show heading: set block(above: 1.3em, below: 0.7em)
"""
    return out + setup
