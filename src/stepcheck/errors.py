"""Source spans and rustc-style diagnostics.

A :class:`Span` locates a piece of a ``.step`` file (1-based line and column,
end exclusive).  A :class:`Diagnostic` is what the user sees when something is
wrong: a title, the place, the source line with carets, notes and a help line.
Every error raised while reading a file is a :class:`StepError` carrying one
diagnostic, so the driver never shows a Python traceback.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .codes import CODES


@dataclass(frozen=True, slots=True)
class Span:
    file: str
    line: int
    col: int
    end_line: int
    end_col: int

    @staticmethod
    def point(file: str, line: int, col: int, width: int = 1) -> "Span":
        return Span(file, line, col, line, col + max(width, 1))

    def to(self, other: "Span") -> "Span":
        """The span from the start of ``self`` to the end of ``other``."""
        return Span(self.file, self.line, self.col, other.end_line, other.end_col)

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


@dataclass
class Diagnostic:
    severity: str  # "error" | "warning" | "note"
    title: str
    span: Span | None = None
    label: str = ""  # text printed after the carets
    notes: list[str] = field(default_factory=list)
    help: str | None = None
    code: str | None = None  # stable machine-readable name, e.g. "E-unknown-name"; see stepcheck.codes

    def __post_init__(self):
        check_code(self.code)

    def render(self, sources: dict[str, str] | None = None, color: bool = False) -> str:
        return render_diagnostic(self, sources or {}, color=color)

    def to_json(self) -> dict:
        d = {
            "severity": self.severity,
            "code": self.code,
            "title": self.title,
            "label": self.label,
            "notes": list(self.notes),
            "help": self.help,
        }
        if self.span is not None:
            d["file"] = self.span.file
            d["line"] = self.span.line
            d["col"] = self.span.col
            d["end_line"] = self.span.end_line
            d["end_col"] = self.span.end_col
        return d


class StepError(Exception):
    """An error in the user's input, carrying its diagnostic."""

    def __init__(self, diagnostic: Diagnostic):
        super().__init__(diagnostic.title)
        self.diagnostic = diagnostic


def check_code(code: str | None) -> str | None:
    """``code`` itself, when it is None or documented in :data:`stepcheck.codes.CODES`; else ValueError.

    A new diagnostic code cannot be emitted before it has an entry (and an
    explanation) in ``stepcheck/codes.py``.
    """
    if code is not None and code not in CODES:
        raise ValueError(f"undocumented diagnostic code {code!r}: add it to stepcheck/codes.py")
    return code


def error(title: str, span: Span | None, label: str = "", *, notes=None, help=None, code=None) -> StepError:
    return StepError(Diagnostic("error", title, span, label, list(notes or []), help, check_code(code)))


def redeclared(name: str, span: Span, first: Span | None, indexed: bool) -> StepError:
    """A name declared again, pointing at its first declaration (``indexed``: made by a family or an indexed
    `define y_i`, which declare `y`)."""
    notes = ([f"first declared at {first}"] if first else []) + (
        [f"`{name}_...` there declares `{name}`, the name of all its members"] if indexed else [])
    return error(f"`{name}` is declared twice", span, "declared again here", notes=notes,
                 help="give the new one another name", code="E-redeclared")


_COLORS = {"error": "\x1b[1;31m", "warning": "\x1b[1;33m", "note": "\x1b[1;36m"}
_BLUE = "\x1b[1;34m"
_RESET = "\x1b[0m"


def _source_line(sources: dict[str, str], span: Span) -> str | None:
    text = sources.get(span.file)
    if text is None:
        return None
    lines = text.splitlines()
    if 1 <= span.line <= len(lines):
        return lines[span.line - 1]
    return None


def _display_width(s: str) -> int:
    """Terminal width of ``s``: East Asian wide characters take two cells."""
    import unicodedata

    w = 0
    for ch in s:
        if unicodedata.combining(ch):
            continue
        w += 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1
    return w


def render_diagnostic(d: Diagnostic, sources: dict[str, str], color: bool = False) -> str:
    c = (lambda code, s: f"{code}{s}{_RESET}") if color else (lambda code, s: s)
    # a note's long title wraps; an error's stays one line (it names files; people search for it)
    first, *more = wrap_lines([d.title], WRAP - len(d.severity) - 2) if d.severity == "note" else [d.title]
    out = [c(_COLORS.get(d.severity, ""), d.severity) + c("\x1b[1m", f": {first}")]
    out += [" " * (len(d.severity) + 2) + c("\x1b[1m", m.strip()) for m in more]
    if d.span is not None:
        line_no = str(d.span.line)
        pad = " " * len(line_no)
        out.append(f"{pad}{c(_BLUE, '-->')} {d.span}")
        src = _source_line(sources, d.span)
        if src is not None:
            src = src.replace("\t", " ")
            start = max(d.span.col - 1, 0)
            if d.span.end_line == d.span.line:
                end = max(d.span.end_col - 1, start + 1)
            else:
                end = len(src.rstrip()) or start + 1
            end = min(max(end, start + 1), max(len(src), start + 1))
            lead = _display_width(src[:start])
            width = max(_display_width(src[start:end]), 1)
            out.append(f"{pad} {c(_BLUE, '|')}")
            out.append(f"{c(_BLUE, line_no + ' |')} {src}")
            carets = " " * lead + "^" * width
            label = f" {d.label}" if d.label else ""
            out.append(f"{pad} {c(_BLUE, '|')} {c(_COLORS.get(d.severity, ''), carets + label)}")
        pre = f"{pad} "
    else:
        pre = "  "
    for n in d.notes:
        first, *rest = wrap_lines(n.splitlines() or [""], WRAP - len(pre) - 8)
        out.append(f"{pre}{c(_BLUE, '=')} note: {first}")
        out.extend(f"{pre}        {r}" for r in rest)
    if d.help:
        first, *rest = wrap_lines(d.help.splitlines() or [""], WRAP - len(pre) - 8)
        out.append(f"{pre}{c(_BLUE, '=')} help: {first}")
        out.extend(f"{pre}        {r}" for r in rest)
    return "\n".join(out)


MAX_SHOWN = 300  # characters of an expression shown in a diagnostic note


def clip(text: str, limit: int = MAX_SHOWN) -> str:
    """``text``, or its first ``limit`` characters with a pointer to the whole (``--json`` keeps it all)."""
    if len(text) <= limit:
        return text
    return f"{text[:limit].rstrip()} … ({len(text):,} characters; `verify --json` shows all of it)"


WRAP = 100  # columns: notes and help lines longer than this are wrapped at spaces


def wrap_lines(lines: list[str], width: int) -> list[str]:
    """Each line wrapped at spaces to ``width`` columns (a longer word stays whole); indentation kept."""
    import textwrap

    out = []
    for line in lines:
        if len(line) <= width:
            out.append(line)
            continue
        indent = line[: len(line) - len(line.lstrip())]
        out.extend(textwrap.wrap(line, max(width, 20), subsequent_indent=indent + "  ", break_long_words=False,
                                 break_on_hyphens=False) or [line])
    return out


def closest(name: str, candidates) -> str | None:
    """The candidate closest to ``name`` (for 'did you mean' hints), or None."""
    import difflib

    cands = sorted(set(candidates))
    m = difflib.get_close_matches(name, cands, n=1, cutoff=0.6)
    if m:
        return m[0]
    low = {c.lower(): c for c in cands}
    return low.get(name.lower())
