"""Rendering check results: the terminal report, the JSON report, progress.

Only the standard library and the light result/diagnostic modules are
imported here (no sympy, no lark), so the CLI can import this cheaply.

The JSON schema is documented in ``docs/json.md``; bump ``JSON_VERSION``
when a field changes meaning or disappears (adding fields is compatible).
"""
from __future__ import annotations

import sys

from .errors import WRAP, Diagnostic, _display_width, clip, wrap_lines
from .results import FAILS, HOLDS, SIMULATED, UNKNOWN, FileReport, LinkResult, StepResult, Use, _sim_ok

JSON_SCHEMA = "stepcheck-report"
JSON_VERSION = 1

WIDTH = 100  # the report stays readable in 80-100 columns

# ------------------------------------------------------------------ symbols

_UNICODE = {
    HOLDS: "✓",
    FAILS: "✗",
    UNKNOWN: "?",
    SIMULATED: "~",
    "on": "●",
    "off": "·",
    "dash": "—",
}
_ASCII = {
    HOLDS: "[ok]",
    FAILS: "[FAIL]",
    UNKNOWN: "[??]",
    SIMULATED: "[sim]",
    "on": "x",
    "off": ".",
    "dash": "-",
}

_RESET = "\x1b[0m"
_STYLE = {
    HOLDS: "\x1b[1;32m",
    FAILS: "\x1b[1;31m",
    UNKNOWN: "\x1b[1;33m",
    SIMULATED: "\x1b[1;34m",
    "bold": "\x1b[1m",
    "dim": "\x1b[2m",
    "head": "\x1b[1;36m",
    "warn": "\x1b[1;33m",
    "on": "\x1b[1;35m",
}


def supports_unicode(stream=None) -> bool:
    """True when ``stream`` (default: stdout) can encode the report's marks."""
    stream = sys.stdout if stream is None else stream
    enc = getattr(stream, "encoding", None)
    if not enc:
        return False
    try:
        "✓✗●·—".encode(enc)
    except (UnicodeEncodeError, LookupError):
        return False
    return True


class _Painter:
    def __init__(self, color: bool, ascii_only: bool):
        self.color = color
        self.sym = _ASCII if ascii_only else _UNICODE

    def __call__(self, style: str, text: str) -> str:
        if not self.color or not text:
            return text
        return f"{_STYLE.get(style, '')}{text}{_RESET}"

    def mark(self, status: str) -> str:
        return self(status, self.sym.get(status, "?"))


def _pad(s: str, width: int, align: str = "<") -> str:
    """Pad ``s`` to ``width`` terminal cells (wide CJK characters count as 2)."""
    gap = max(width - _display_width(s), 0)
    if align == ">":
        return " " * gap + s
    if align == "^":
        left = gap // 2
        return " " * left + s + " " * (gap - left)
    return s + " " * gap


# --------------------------------------------------------------- formatting


def format_use(u: Use, *, why: bool = False) -> str:
    """``indep (independence; weakest: uncorrelated(q_i, k_i))``,
    ``range of i (implicit)``."""
    if u.implicit:
        inner = ["implicit"]
    else:
        inner = [u.kind] if u.kind else []
    if u.weakest:
        inner.append(f"weakest: {u.weakest}")
    if why and u.detail:
        inner.append(u.detail)
    return f"{u.label} ({'; '.join(inner)})" if inner else u.label


def _link_tail(link: LinkResult, why: bool) -> list[tuple[str, list[str]]]:
    """The ``rules: ...`` and ``uses: ...`` parts of a link line, as (head, items)."""
    parts = []
    if link.rules:
        parts.append(("rules:", list(link.rules)))
    uses = [u for u in link.uses if u.kind != "domain"]
    where = [u for u in link.uses if u.kind == "domain"]
    if uses:
        parts.append(("uses:", [format_use(u, why=why) for u in uses]))
    elif link.status == HOLDS:
        parts.append(("uses:", ["nothing"]))
    if where:
        parts.append(("where:", [u.label for u in where]))
    if link.missing:
        parts.append(("missing:", list(link.missing)))
    return parts


def _wrap_items(head: str, items: list[str], indent: int, width: int = WIDTH) -> list[str]:
    """``head a, b, c`` wrapped to ``width`` cells; continuation lines align under ``a``."""
    lines = []
    cur = head
    cont = " " * (_display_width(head) + 1)
    for j, item in enumerate(items):
        piece = item + ("," if j < len(items) - 1 else "")
        if cur.strip() and cur not in (head,) and indent + _display_width(cur) + 1 + _display_width(piece) > width:
            lines.append(cur)
            cur = cont + piece
        else:
            cur = cur + " " + piece if cur.strip() else cur + piece
    lines.append(cur)
    return lines


def _mentioned(text: str, diags: list[Diagnostic]) -> bool:
    """Whether ``text`` already appears in one of the diagnostics."""
    for d in diags:
        hay = " ".join([d.title, d.label, d.help or "", *d.notes])
        if text and text in hay:
            return True
    return False


def _indent(block: str, n: int) -> list[str]:
    pre = " " * n
    return [pre + line if line else line for line in block.splitlines()]


def _mark_width(p: _Painter) -> int:
    return max(len(p.sym[HOLDS]), len(p.sym[FAILS]), len(p.sym[UNKNOWN]))


def _one_line_width(link: LinkResult, p: _Painter, why: bool, link_col: int) -> int:
    tail = [f"{h} {', '.join(items)}" for h, items in _link_tail(link, why)]
    head = f"{link.rel} {link.rhs}"
    return 2 + _mark_width(p) + 1 + max(_display_width(head), link_col) + sum(_display_width(t) + 2 for t in tail)


def _render_link(
    link: LinkResult, p: _Painter, sources: dict, *, why: bool, link_col: int, compact: bool
) -> list[str]:
    mark = p.mark(link.status)
    mark_w = _mark_width(p)
    mark = mark + " " * (mark_w - len(p.sym.get(link.status, "?")))
    head = f"{link.rel} {link.rhs}"
    tail = [f"{h} {', '.join(items)}" for h, items in _link_tail(link, why)]
    lead = "  "
    out = []
    if tail and compact:
        out.append((f"{lead}{mark} {_pad(head, link_col)}  " + "  ".join(p("dim", t) for t in tail)).rstrip())
    else:
        out.append(f"{lead}{mark} {head}")
        n = len(lead) + mark_w + 3
        for h, items in _link_tail(link, why):
            out.extend(" " * n + p("dim", t) for t in _wrap_items(h, items, n))
    sub = " " * (len(lead) + mark_w + 1)
    if link.message and (link.status == HOLDS or link.status == SIMULATED) and (why or link.show_message):
        out.extend(sub + p("dim", line) for line in link.message.splitlines())
    if link.status != HOLDS:
        for d in link.diagnostics:
            out.extend(_indent(d.render(sources, color=p.color), len(sub)))
        if link.message and not link.diagnostics and link.status != SIMULATED \
                and not _mentioned(link.message, link.diagnostics):
            out.extend(sub + t for t in wrap_lines([link.message], WRAP - len(sub)))
        if link.residual and not _mentioned(clip(link.residual), link.diagnostics):
            out.extend(sub + t for t in wrap_lines(["residual: " + clip(link.residual)], WRAP - len(sub)))
    if link.counterexample and not _mentioned(link.counterexample, link.diagnostics):
        first, *rest = link.counterexample.splitlines() or [""]
        out.append(sub + "counterexample: " + first)
        out.extend(sub + (r if r[:1].isspace() else "  " + r) for r in rest)
    if link.status == HOLDS:
        for d in link.diagnostics:  # e.g. notes attached to a holding link
            out.extend(_indent(d.render(sources, color=p.color), len(sub)))
    strict_covered = any("unneeded" in (d.code or "") for d in link.diagnostics)
    if link.unneeded and not strict_covered:
        for label in link.unneeded:
            out.append(sub + p("warn", "warning:") + f" `{label}` is cited but not needed for this link")
    return out


def _render_step(step: StepResult, p: _Painter, sources: dict, *, why: bool, quiet: bool) -> list[str]:
    word = step.kind if step.kind in ("refute", "check", "simulate") else "step"
    head = f"{p('bold', word + ' ' + step.name)}: {step.statement}"
    if step.status == SIMULATED:
        head += "  " + p(SIMULATED, "(simulated: evidence, not a proof)" if _sim_ok(step) else "(simulated: INCONSISTENT)")
    elif step.status != HOLDS:
        head += "  " + p(step.status, f"({step.status})")
    links = [l for l in step.links if not quiet or l.status != HOLDS]
    heads = [_display_width(f"{l.rel} {l.rhs}") for l in links]
    link_col = min(max(heads, default=0), 44)
    # one line per link when every link of the step fits; otherwise rules and
    # uses go on their own lines for every link (a consistent layout per step)
    compact = all(_one_line_width(l, p, why, link_col) <= WIDTH for l in links)
    out = [head]
    for link in links:
        out.extend(_render_link(link, p, sources, why=why, link_col=link_col, compact=compact))
    for label, text in step.why.items():  # verify --why
        out.extend(wrap_lines([f"  without {label}: {text}"], WIDTH))
    return out


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def summary_line(report: FileReport) -> str:
    c = report.counts()
    nlinks = sum(len(s.links) for s in report.steps)
    checked, eligible = report.cross_checks()
    return (
        f"{_plural(len(report.steps), 'step')}, {_plural(nlinks, 'link')}: "
        f"{c.get(HOLDS, 0)} holds, {c.get(FAILS, 0)} fails, {c.get(UNKNOWN, 0)} unknown"
        + (f", {c[SIMULATED]} simulated" if c.get(SIMULATED) else "")
        + (f" ({checked} of {_plural(eligible, 'proof')} cross-checked on finite models)" if eligible else "")
    )


def verdict(report: FileReport) -> tuple[str, str]:
    """(style, sentence) for one file."""
    if report.fatal and not report.steps:
        return FAILS, "NOT checked: the file could not be read or parsed"
    if report.fatal:
        return FAILS, f"NOT verified: {_plural(len(report.errors), 'input error')} (see above); the rest was checked"
    c = report.counts()
    nerr = len(report.errors) + len([d for d in report.link_errors
                                     if d.code and "unneeded" in d.code])
    bad = []
    if c.get(FAILS, 0):
        bad.append(f"{c[FAILS]} fails")
    if c.get(UNKNOWN, 0):
        bad.append(f"{c[UNKNOWN]} unknown")
    steps_bad = [s for s in report.steps if s.status != HOLDS and not _sim_ok(s)]
    if not bad and steps_bad:
        bad.append(f"{_plural(len(steps_bad), 'step')} not holding")
    if nerr:
        bad.append(_plural(nerr, "error"))
    if bad:
        tail = " (unknown is not verified)" if c.get(UNKNOWN, 0) else ""
        return FAILS if (c.get(FAILS, 0) or nerr) else UNKNOWN, "NOT verified: " + ", ".join(bad) + tail
    if not report.steps:
        return HOLDS, "verified: nothing to check (no steps)"
    if c.get(SIMULATED, 0):
        return HOLDS, f"verified: every step holds ({_plural(c[SIMULATED], 'simulation')} consistent: evidence, not proof)"
    return HOLDS, "verified: every step holds"


def _matrix_columns(report: FileReport) -> list[tuple[str, str]]:
    """(label, kind) for each matrix column: the file's assumptions in order,
    then any other label a step rests on (implicit conditions, imports)."""
    cols = [(a.label, a.kind) for a in report.assumptions]
    seen = {a.label for a in report.assumptions}
    kinds: dict[str, str] = {}
    for s in report.steps:
        for l in s.links:
            for u in l.uses:
                kinds.setdefault(u.label, "implicit" if u.implicit else u.kind)
    for s in report.steps:
        for label in s.rests_on:
            if label not in seen:
                seen.add(label)
                cols.append((label, kinds.get(label, "")))
    return cols


def render_matrix(report: FileReport, p: _Painter) -> list[str]:
    """The step-by-assumption matrix, columns aligned in terminal cells."""
    if not report.steps:
        return []
    cols = _matrix_columns(report)
    on, off = p.sym["on"], p.sym["off"]
    if not cols:
        return ["assumptions: none; every step rests on nothing"]
    names = [s.name for s in report.steps]
    name_w = max(_display_width(n) for n in names + ["step"])
    gap = 2
    full = name_w + sum(gap + _display_width(lab) for lab, _ in cols)
    numbered = full > WIDTH
    headers = [str(i + 1) if numbered else lab for i, (lab, _) in enumerate(cols)]
    has_why = any(s.why for s in report.steps)
    widths = [max(_display_width(h), 2 if has_why else 1) for h in headers]
    out = [p("head", "step-by-assumption matrix") + f" ({on} = the step rests on it)"]
    row = _pad("step", name_w) + "".join(" " * gap + _pad(h, w, "^") for h, w in zip(headers, widths))
    out.append(p("bold", row.rstrip()))
    for s in report.steps:
        rests = set(s.rests_on)
        cells = []
        for (lab, _), w in zip(cols, widths):
            mark = on + _why_mark(s, lab) if lab in rests else off
            cells.append(" " * gap + (_pad(mark, w, "^").replace(on, p("on", on)) if lab in rests else _pad(off, w, "^")))
        out.append((_pad(s.name, name_w) + "".join(cells)).rstrip())
    legend = []
    for i, (lab, kind) in enumerate(cols):
        item = f"{i + 1} = {lab}" if numbered else lab
        legend.append(f"{item} ({kind})" if kind else item)
    # wrap the legend
    line = "legend: "
    for j, item in enumerate(legend):
        piece = item + (", " if j < len(legend) - 1 else "")
        if _display_width(line) + _display_width(piece) > WIDTH and line.strip() != "legend:":
            out.append(line.rstrip())
            line = "        "
        line += piece
    out.append(line.rstrip())
    if has_why:
        out.append(f"--why: {on}! = needed (a counterexample without it), {on}? = not shown to be needed")
    return out


def _why_mark(step: StepResult, label: str) -> str:
    """``!`` needed, ``?`` not shown to be needed, nothing when --why did not look."""
    w = step.why.get(label)
    if w is None:
        return ""
    return "!" if w.startswith("needed") else "?"


def _display_order(steps: list[StepResult]) -> list[StepResult]:
    """File order, except that a `simulate ... by STEP` is shown right after STEP."""
    after: dict[str, list[StepResult]] = {}
    names = {s.name for s in steps if s.kind != "simulate"}
    for s in steps:
        if s.kind == "simulate" and s.steps_cited and s.steps_cited[0] in names:
            after.setdefault(s.steps_cited[0], []).append(s)
    moved = {id(x) for xs in after.values() for x in xs}
    out = []
    for s in steps:
        if id(s) in moved:
            continue
        out.append(s)
        out.extend(after.get(s.name, []))
    return out


def _render_file(report: FileReport, p: _Painter, *, why: bool, quiet: bool) -> list[str]:
    sources = {report.path: report.text} if report.text is not None else {}
    # diagnostics may name the file by another spelling; map them all to this text
    for d in report.diagnostics + [d for s in report.steps for l in s.links for d in l.diagnostics]:
        if d.span is not None and report.text is not None:
            sources.setdefault(d.span.file, report.text)
    out: list[str] = []
    dash = p.sym["dash"]
    out.append(p("head", report.path))
    if report.name or report.title:
        title = " ".join(x for x in (report.name, dash if report.name and report.title else None, report.title) if x)
        out.append(f"  derivation {title}")
    if report.source:
        out.append(f"  source: {report.source}")
    diags = report.diagnostics
    if quiet:
        diags = [d for d in diags if d.severity == "error"]
    for d in diags:
        out.append("")
        out.extend(d.render(sources, color=p.color).splitlines())
    for s in _display_order(report.steps):
        if quiet and (s.status == HOLDS or _sim_ok(s)):
            continue
        out.append("")
        out.extend(_render_step(s, p, sources, why=why, quiet=quiet))
    out.append("")
    if not report.fatal:
        out.append(summary_line(report))
    style, sentence = verdict(report)
    out.append(p(style, sentence))
    if not quiet and not report.fatal:
        m = render_matrix(report, p)
        if m:
            out.append("")
            out.extend(m)
    return out


def render_text(
    reports: list[FileReport],
    *,
    color: bool,
    why: bool = False,
    quiet: bool = False,
    ascii_only: bool | None = None,
    summary: bool = False,
) -> str:
    """The terminal report for ``reports``.

    ``quiet`` keeps only failing/unknown steps, errors and the summaries.
    ``summary`` (several files): the reports of the files that are not verified (as with ``quiet``), then
    one line per file, the files that could not be read or parsed last, then the totals.
    ``ascii_only`` (default: decided from ``sys.stdout``'s encoding) replaces
    the marks with ``[ok]/[FAIL]/[??]`` and the matrix cells with ``x``/``.``.
    """
    if ascii_only is None:
        ascii_only = not supports_unicode()
    p = _Painter(color, ascii_only)
    blocks = []
    summary = summary and len(reports) > 1
    for r in reports:
        if not summary or file_status(r) != HOLDS:
            blocks.append("\n".join(_render_file(r, p, why=why, quiet=quiet or summary)))
    if summary:
        blocks.append(_file_table(reports, p, quiet))
    if len(reports) > 1:
        t = totals(reports)
        lines = [
            p("head", "total")
            + f": {_plural(t['files'], 'file')}, {_plural(t['steps'], 'step')}, {_plural(t['links'], 'link')}: "
            f"{t['holds']} holds, {t['fails']} fails, {t['unknown']} unknown"
            + (f", {t[SIMULATED]} simulated" if t.get(SIMULATED) else "")
            + (f", {_plural(t['unreadable'], 'file')} with input errors" if t["unreadable"] else "")
            + (f" ({t['cross_checked']} of {_plural(t['cross_checked'] + t['not_cross_checked'], 'proof')} "
               "cross-checked on finite models)" if t["cross_checked"] + t["not_cross_checked"] else ""),
        ]
        if t["exit_code"] == 0:
            sims = f" ({t[SIMULATED]} simulations consistent: evidence, not proof)" if t.get(SIMULATED) else ""
            lines.append(p(HOLDS, "verified: every step of every file holds" + sims))
        else:
            lines.append(p(FAILS, "NOT verified"))
        blocks.append("\n".join(lines))
    rule = "\n\n"
    return rule.join(blocks) + "\n"


def _file_table(reports: list[FileReport], p: _Painter, quiet: bool) -> str:
    """One line per file (``quiet``: per file not verified): its mark, path and counts; the files not read
    or parsed last."""
    rows = sorted(reports, key=lambda r: r.fatal and not r.steps)  # stable: the given order otherwise
    rows = [r for r in rows if not (quiet and file_status(r) == HOLDS)] or rows[:0]
    if not rows:
        return p("head", "files") + ": every file verified"
    width = max(_display_width(r.path) for r in rows)
    lines = [p("head", "files") + " (verify -v FILE... shows every step)"]
    for r in rows:
        st, c = file_status(r), _counts(r)
        if r.fatal and not r.steps:
            what = "not read or parsed"
        else:
            what = (f"{_plural(c['steps'], 'step')} ({_plural(c['links'], 'link')}): {c[HOLDS]} holds, "
                    f"{c[FAILS]} fails, {c[UNKNOWN]} unknown"
                    + (f", {c[SIMULATED]} simulated" if c.get(SIMULATED) else "")
                    + (f", {_plural(c['errors'], 'error')}" if c["errors"] else "")
                    + (f", {_plural(c['warnings'], 'warning')}" if c["warnings"] else ""))
        lines.append(f"  {p.mark(HOLDS if st == HOLDS else FAILS if st in (FAILS, 'error') else UNKNOWN)} "
                     f"{_pad(r.path, width)}  {what}")
    return "\n".join(lines)


# --------------------------------------------------------------------- JSON


def totals(reports: list[FileReport]) -> dict:
    t = {"files": len(reports), "steps": 0, "links": 0, HOLDS: 0, FAILS: 0, UNKNOWN: 0,
         "errors": 0, "warnings": 0, "unreadable": 0, "cross_checked": 0, "not_cross_checked": 0}
    for r in reports:
        c = _counts(r)
        for k in ("steps", "links", HOLDS, FAILS, UNKNOWN, "errors", "warnings", "cross_checked",
                  "not_cross_checked"):
            t[k] += c[k]
        if c.get(SIMULATED):
            t[SIMULATED] = t.get(SIMULATED, 0) + c[SIMULATED]
        t["unreadable"] += 1 if r.fatal else 0
    t["exit_code"] = exit_code(reports)
    return t


def exit_code(reports: list[FileReport]) -> int:
    """0 everything holds, 1 a step fails or is unknown, 2 an input could not be read or parsed."""
    return max((r.exit_code() for r in reports), default=0)


def file_status(report: FileReport) -> str:
    if report.fatal:
        return "error"
    if any(s.status == FAILS for s in report.steps) or report.errors:
        return FAILS
    if all(s.status == HOLDS or _sim_ok(s) for s in report.steps):
        return HOLDS
    return UNKNOWN


def _counts(r: FileReport) -> dict:
    c = r.counts()
    checked, eligible = r.cross_checks()
    warnings = sum(1 for d in r.diagnostics if d.severity == "warning")
    warnings += sum(len(l.unneeded) for s in r.steps for l in s.links)
    return {
        "steps": len(r.steps),
        "links": sum(len(s.links) for s in r.steps),
        HOLDS: c.get(HOLDS, 0),
        FAILS: c.get(FAILS, 0),
        UNKNOWN: c.get(UNKNOWN, 0),
        **({SIMULATED: c[SIMULATED]} if c.get(SIMULATED) else {}),  # only when a file simulates
        "errors": len(r.errors) + sum(
            1 for s in r.steps for l in s.links for d in l.diagnostics if d.severity == "error"
        ),
        "warnings": warnings,
        "cross_checked": checked,  # kernel proofs evaluated on finite models of their facts
        "not_cross_checked": eligible - checked,  # kernel proofs no finite model could check
    }


def _use_json(u: Use) -> dict:
    return {"label": u.label, "kind": u.kind, "implicit": u.implicit, "weakest": u.weakest, "detail": u.detail}


def _link_json(l: LinkResult) -> dict:
    return {
        "index": l.index,
        "rel": l.rel,
        "lhs": l.lhs,
        "rhs": l.rhs,
        "line": l.span.line if l.span else None,
        "col": l.span.col if l.span else None,
        "status": l.status,
        "decided_by": l.decided_by,
        "cross_checked": l.cross_checked,
        "rules": list(l.rules),
        "uses": [_use_json(u) for u in l.uses],
        "cited": list(l.cited),
        "missing": list(l.missing),
        "unneeded": list(l.unneeded),
        "residual": l.residual,
        "message": l.message,
        "counterexample": l.counterexample,
        "diagnostics": [d.to_json() for d in l.diagnostics],
        "seconds": round(l.seconds, 6),
    }


def _step_json(s: StepResult) -> dict:
    return {
        "name": s.name,
        "kind": s.kind,
        "line": s.span.line if s.span else None,
        "statement": s.statement,
        "rel": s.rel,
        "status": s.status,
        "rests_on": list(s.rests_on),
        "steps_cited": list(s.steps_cited),
        "why": dict(s.why),
        "links": [_link_json(l) for l in s.links],
        "simulation": s.simulation,
    }


def file_json(r: FileReport) -> dict:
    return {
        "path": r.path,
        "name": r.name,
        "title": r.title,
        "source": r.source,
        "status": file_status(r),
        "exit_code": r.exit_code(),
        "assumptions": [
            {
                "label": a.label,
                "kind": a.kind,
                "facts": list(a.facts),
                "kinds": list(a.kinds),
                "line": a.span.line if a.span else None,
            }
            for a in r.assumptions
        ],
        "steps": [_step_json(s) for s in r.steps],
        "diagnostics": [d.to_json() for d in r.diagnostics],
        "counts": _counts(r),
        "seconds": round(r.seconds, 6),
    }


def to_json(reports: list[FileReport], *, why: bool = False) -> dict:
    """The machine-readable report (schema in ``docs/json.md``)."""
    return {
        "schema": JSON_SCHEMA,
        "version": JSON_VERSION,
        "why": why,
        "files": [file_json(r) for r in reports],
        "summary": totals(reports),
    }


# ----------------------------------------------------------------- progress


class Progress:
    """A one-line ``\\r`` progress indicator on stderr, only on a terminal.

    Usage: ``with Progress(total) as prog: prog.update(i, path)``.
    """

    def __init__(self, total: int, stream=None, enabled: bool | None = None):
        self.total = total
        self.stream = sys.stderr if stream is None else stream
        if enabled is None:
            try:
                enabled = bool(self.stream.isatty())
            except (AttributeError, ValueError):
                enabled = False
        self.enabled = enabled
        self._last = 0

    def _width(self) -> int:
        import shutil

        return max(shutil.get_terminal_size((80, 24)).columns - 1, 20)

    def update(self, done: int, label: str = "") -> None:
        if not self.enabled:
            return
        text = f"[{done}/{self.total}] checking {label}" if label else f"[{done}/{self.total}]"
        w = self._width()
        if _display_width(text) > w:
            text = "…" + text[-(w - 1):] if supports_unicode(self.stream) else text[-w:]
        pad = " " * max(self._last - _display_width(text), 0)
        self._write("\r" + text + pad)
        self._last = _display_width(text)

    def clear(self) -> None:
        if self.enabled and self._last:
            self._write("\r" + " " * self._last + "\r")
            self._last = 0

    def _write(self, s: str) -> None:
        try:
            self.stream.write(s)
            self.stream.flush()
        except (OSError, ValueError, UnicodeEncodeError):
            self.enabled = False

    def __enter__(self) -> "Progress":
        return self

    def __exit__(self, *exc) -> None:
        self.clear()
