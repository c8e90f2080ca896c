"""The API's result objects: :class:`Assumption`, :class:`Link`, :class:`ClaimResult`, :class:`Report`."""
from __future__ import annotations

import html
import re
from dataclasses import dataclass, field

from ..errors import Diagnostic, Span
from ..results import FAILS, HOLDS, UNKNOWN
from .latex import _REL_LATEX, _side_latex, _tex_text

CLAIM_FILE = "<claim>"

# ------------------------------------------------------------------ assumption


class Assumption(str):
    """An assumption label (it compares, hashes and prints as the label) with its kind.

    Attributes: ``label``, ``kind`` (e.g. ``"independence"``, ``"zero mean"``,
    ``"step"`` for a cited step, ``"range"``), ``implicit`` (a side condition
    the user did not state), ``weakest`` (a weaker fact that would suffice),
    ``detail`` and ``facts`` (the facts as written, for a file's assumptions).
    Immutable.
    """

    kind: str
    implicit: bool
    weakest: str | None
    detail: str | None
    facts: tuple[str, ...]

    def __new__(cls, label: str, kind: str = "", *, implicit: bool = False, weakest: str | None = None,
                detail: str | None = None, facts=()):
        self = super().__new__(cls, label)
        d = self.__dict__
        d["kind"] = kind
        d["implicit"] = implicit
        d["weakest"] = weakest
        d["detail"] = detail
        d["facts"] = tuple(facts)
        return self

    @property
    def label(self) -> str:
        return str.__str__(self)

    def __setattr__(self, name, value):
        raise AttributeError("Assumption is immutable")

    def __delattr__(self, name):
        raise AttributeError("Assumption is immutable")

    def __reduce__(self):
        return (_make_assumption, (self.label, self.kind, self.implicit, self.weakest, self.detail, self.facts))

    def __repr__(self) -> str:
        extra = ", implicit=True" if self.implicit else ""
        return f"Assumption({self.label!r}, {self.kind!r}{extra})"

    def describe(self) -> str:
        """``indep (independence; weakest: uncorrelated(q_i, k_i))``"""
        inner = ["implicit"] if self.implicit else ([self.kind] if self.kind else [])
        if self.weakest:
            inner.append(f"weakest: {self.weakest}")
        return f"{self.label} ({'; '.join(inner)})" if inner else self.label


def _make_assumption(label, kind, implicit, weakest, detail, facts):
    return Assumption(label, kind, implicit=implicit, weakest=weakest, detail=detail, facts=facts)


def _assumption_of_use(u) -> Assumption:
    return Assumption(u.label, "range" if u.implicit and not u.kind else u.kind, implicit=u.implicit,
                      weakest=u.weakest, detail=u.detail)


# ------------------------------------------------------------------ rendering helpers

_MARK = {HOLDS: "✓", FAILS: "✗", UNKNOWN: "?"}
_COLOR = {HOLDS: "#1a7f37", FAILS: "#cf222e", UNKNOWN: "#9a6700"}
_BADGE_COLOR = {
    "independence": "#0969da",
    "uncorrelated": "#54aeff",
    "zero mean": "#8250df",
    "unit variance": "#bf3989",
    "variance": "#d1242f",
    "distribution": "#1a7f37",
    "range": "#6e7781",
    "sign": "#bc4c00",
    "equation": "#57606a",
    "inequality": "#953800",
    "definition": "#116329",
    "step": "#0550ae",
}


def _slug(kind: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", (kind or "other").lower()).strip("-") or "other"


def _badge_html(a: Assumption) -> str:
    kind = "implicit" if a.implicit else (a.kind or "other")
    color = _BADGE_COLOR.get(a.kind, "#6e7781")
    title = a.describe() + (f" — {a.detail}" if a.detail else "")
    return (f'<span class="stepcheck-badge stepcheck-kind-{_slug(kind)}" title="{html.escape(title)}" '
            f'style="display:inline-block;padding:0 .45em;margin:0 .15em;border-radius:.8em;'
            f'font-size:85%;color:#fff;background:{color}">{html.escape(a.label)}'
            f'<span style="opacity:.75"> · {html.escape(kind)}</span></span>')


def _sources_for(rep) -> dict:
    sources = {rep.path: rep.text or ""}
    sources.update(getattr(rep, "api_sources", None) or {})  # check(): the caller's file, claim and given
    for d in _all_diagnostics(rep):
        if d.span is not None and rep.text is not None:
            sources.setdefault(d.span.file, rep.text)
    return sources


def _all_diagnostics(rep):
    out = list(rep.diagnostics)
    for s in rep.steps:
        for lk in s.links:
            out.extend(lk.diagnostics)
    return out


def _in_step(span: Span | None, step) -> bool:
    if span is None or step.span is None or span.file != step.span.file:
        return False
    last = max([step.span.end_line] + [lk.span.end_line for lk in step.links if lk.span is not None])
    return step.span.line <= span.line <= last


def step_diagnostics(rep, step) -> list[Diagnostic]:
    """The file-level diagnostics located inside ``step`` (e.g. an unknown name in it)."""
    return [d for d in rep.diagnostics if _in_step(d.span, step)]


def step_errors(rep, step) -> list[Diagnostic]:
    """Every error diagnostic that belongs to ``step`` (its links' and the file-level ones inside it)."""
    errs = [d for d in step_diagnostics(rep, step) if d.severity == "error"]
    for lk in step.links:
        errs.extend(d for d in lk.diagnostics if d.severity == "error")
    return errs


def render_step(rep, step, *, why: bool = False, color: bool = False, ascii_only: bool = False) -> str:
    """The terminal text of one step (the same block as ``verify`` prints),
    preceded by the file-level diagnostics that point inside the step."""
    from ..report import _Painter, _render_step

    p = _Painter(color, ascii_only=ascii_only)
    sources = _sources_for(rep)
    lines = []
    for d in step_diagnostics(rep, step):
        lines.extend(d.render(sources, color=color).splitlines())
        lines.append("")
    lines.extend(_render_step(step, p, sources, why=why, quiet=False))
    return "\n".join(lines)


def render_diagnostics(diags, sources: dict, *, color: bool = False) -> str:
    return "\n\n".join(d.render(sources, color=color) for d in diags)


# ------------------------------------------------------------------ short reprs

_last_false: list = [None]  # the last result whose ok / holds / bool() was False (for the pytest plugin)


def _false(obj, value: bool) -> bool:
    if not value:
        _last_false[0] = obj
    return value


def _short(text: str, n: int) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= n else text[: n - 1] + "…"


def _why_failed(lk) -> str:
    """``the two sides differ; counterexample: n = 2, …``: why one link does not hold, in one line."""
    err = next((d for d in lk.diagnostics if d.severity == "error"), None)
    parts = [err.label or err.title] if err is not None else ([lk.message] if lk.message else [])
    if lk.counterexample:
        parts.append("counterexample: " + lk.counterexample.splitlines()[0])
    elif lk.residual:
        parts.append("residual: " + lk.residual)
    return _short("; ".join(parts) or lk.status, 90)


def _claim_repr(res) -> str:
    where = f" at {res.file}:{res.line}" if res.line is not None and not res.file.endswith(")") else (
        f" at {res.file}" if res.file.endswith(")") else "")
    head = f"{res.kind if res.kind in ('refute', 'check', 'simulate') else 'step'} {res.name}: {_short(res.statement, 60)}"
    if res.ok:
        return f"{head} — {res.status}"
    bad = [lk for lk in res.links if not lk.holds]
    if bad:
        tail = "; ".join(f"✗ link {lk.index} `{_short(lk.rel + ' ' + lk.rhs, 30)}`: {_why_failed(lk)}" for lk in bad[:2])
    else:
        err = next(iter(res.errors), None)
        tail = _short(err.title, 90) if err is not None else res.status
    return f"{head} — {res.status if not res.holds else 'holds, with an error'}{where}: {tail}"


# ------------------------------------------------------------------ results


@dataclass(frozen=True)
class Link:
    """One link ``lhs REL rhs`` of a chain."""

    index: int
    rel: str
    lhs: str
    rhs: str
    status: str
    rules: tuple[str, ...]
    uses: frozenset
    uses_detail: tuple[Assumption, ...]
    cited: tuple[str, ...]
    missing: tuple[str, ...]
    unneeded: tuple[str, ...]
    residual: str | None
    counterexample: str | None
    message: str | None
    diagnostics: tuple[Diagnostic, ...]
    line: int | None
    col: int | None
    raw: object = field(repr=False, compare=False)

    written: tuple = field(default=(None, None), repr=False, compare=False)  # the sides' parse trees

    @property
    def holds(self) -> bool:
        return self.status == HOLDS

    def __repr__(self) -> str:
        tail = "" if self.holds else ": " + _why_failed(self)
        return f"Link({self.index} `{_short(self.lhs, 40)} {self.rel} {_short(self.rhs, 40)}` {self.status}{tail})"

    @property
    def latex(self) -> str:
        """``lhs REL rhs`` in LaTeX, as written (factor order kept); the elaborated form, or the
        source text, when a side cannot be typeset as written."""
        return (f"{_side_latex(self.raw.lhs_expr, self.lhs, self.written[0])} {_REL_LATEX.get(self.rel, self.rel)} "
                f"{_side_latex(self.raw.rhs_expr, self.rhs, self.written[1])}")

    @classmethod
    def _from(cls, lr, written=(None, None)) -> "Link":
        detail = tuple(dict.fromkeys(_assumption_of_use(u) for u in lr.uses))
        return cls(
            index=lr.index, rel=lr.rel, lhs=lr.lhs, rhs=lr.rhs, status=lr.status,
            rules=tuple(lr.rules), uses=frozenset(detail), uses_detail=detail,
            cited=tuple(lr.cited), missing=tuple(lr.missing), unneeded=tuple(lr.unneeded),
            residual=lr.residual, counterexample=lr.counterexample, message=lr.message,
            diagnostics=tuple(lr.diagnostics), line=lr.span.line if lr.span else None,
            col=lr.span.col if lr.span else None, raw=lr, written=written,
        )


@dataclass(frozen=True)
class ClaimResult:
    """The result of one step (a claim given to :func:`check`, or a step of a file).

    Fields: ``name``, ``kind`` (``"step"`` or ``"refute"``), ``statement``
    (``first REL last`` as text), ``status`` (``"holds"``, ``"fails"`` or
    ``"unknown"``), ``links`` (tuple of :class:`Link`), ``diagnostics``
    (every diagnostic about this step), ``rests_on`` (assumption labels the
    step rests on, transitively through cited steps), ``line``, ``file``.
    Properties: ``holds``, ``ok``, ``uses``, ``uses_detail``, ``rules``,
    ``counterexample``, ``residual``, ``message``, ``text`` (the terminal text).
    """

    name: str
    kind: str
    statement: str
    status: str
    links: tuple[Link, ...]
    diagnostics: tuple[Diagnostic, ...]
    rests_on: tuple[str, ...]
    line: int | None
    file: str
    raw: object = field(repr=False, compare=False)
    report: object = field(repr=False, compare=False)  # the FileReport it comes from
    why: bool = field(default=False, repr=False, compare=False)  # checked as `verify --why`: `text` explains

    @classmethod
    def _from(cls, rep, step, why: bool = False) -> "ClaimResult":
        from .latex import written_sides

        sides = written_sides(rep, step)
        links = tuple(Link._from(lr, sides.get(lr.index, (None, None))) for lr in step.links)
        diags = tuple(step_diagnostics(rep, step)) + tuple(d for lk in links for d in lk.diagnostics)
        return cls(
            name=step.name, kind=step.kind, statement=step.statement, status=step.status, links=links,
            diagnostics=diags, rests_on=tuple(step.rests_on), line=step.span.line if step.span else None,
            file=step.span.file if step.span else rep.path, raw=step, report=rep, why=why,
        )

    def __repr__(self) -> str:
        """Short, and naming the failing links: pytest shows it for a failing ``assert r.ok``."""
        return f"ClaimResult({_claim_repr(self)})"

    # ---- verdicts
    @property
    def holds(self) -> bool:
        """The mathematical verdict: every link holds."""
        return _false(self, self.status == HOLDS)

    @property
    def ok(self) -> bool:
        """Passes the check: holds and carries no error (strict mode makes unneeded citations errors)."""
        return _false(self, self.status == HOLDS and not self.errors)

    @property
    def errors(self) -> tuple[Diagnostic, ...]:
        return tuple(d for d in self.diagnostics if d.severity == "error")

    def __bool__(self) -> bool:
        return self.ok

    # ---- what it used
    @property
    def uses_detail(self) -> tuple[Assumption, ...]:
        """Every assumption (or cited step, or implicit condition) used, in order of first use."""
        return tuple(dict.fromkeys(a for lk in self.links for a in lk.uses_detail))

    @property
    def uses(self) -> frozenset:
        """The set of assumptions used; each compares equal to its label string."""
        return frozenset(self.uses_detail)

    @property
    def rules(self) -> tuple[str, ...]:
        """The kernel rules used by the links, in order of first use."""
        return tuple(dict.fromkeys(r for lk in self.links for r in lk.rules))

    @property
    def counterexample(self) -> str | None:
        return next((lk.counterexample for lk in self.links if lk.counterexample), None)

    @property
    def residual(self) -> str | None:
        return next((lk.residual for lk in self.links if lk.residual), None)

    @property
    def message(self) -> str | None:
        return next((lk.message for lk in self.links if lk.message and lk.status != HOLDS), None)

    # ---- text
    def explain(self, *, why: bool = False) -> str:
        """The terminal text of this step: its links, rules, uses and diagnostics."""
        return render_step(self.report, self.raw, why=why)

    @property
    def text(self) -> str:
        """The terminal text (with the ``--why`` explanation when checked with ``why=True``)."""
        return self.explain(why=self.why)

    @property
    def latex(self) -> str:
        """The statement ``first REL last`` in LaTeX, as written."""
        if not self.links:
            return _tex_text(self.statement)
        first, last = self.links[0], self.links[-1]
        rel = self.raw.rel
        return (f"{_side_latex(first.raw.lhs_expr, first.lhs, first.written[0])} {_REL_LATEX.get(rel, rel)} "
                f"{_side_latex(last.raw.rhs_expr, last.rhs, last.written[1])}")

    # ---- notebook display
    def _uses_md(self, lk: Link) -> str:
        if lk.uses_detail:
            return ", ".join(f"`{a.label}` ({'implicit' if a.implicit else a.kind})" for a in lk.uses_detail)
        return "nothing" if lk.holds else ""

    def _repr_markdown_(self) -> str:
        mark = _MARK.get(self.status, "?")
        word = "refute" if self.kind == "refute" else "step"
        out = [f"{mark} **{word} {self.name}** {self.status}: ${self.latex}$", ""]
        for lk in self.links:
            tail = []
            if lk.rules:
                tail.append("rules: " + ", ".join(lk.rules))
            u = self._uses_md(lk)
            if u:
                tail.append("uses: " + u)
            if len(self.links) == 1:  # the statement is the link: only its rules and uses
                out.append("- " + "; ".join(tail) if tail else "")
            else:
                out.append(f"- {_MARK.get(lk.status, '?')} ${lk.latex}$" + (" — " + "; ".join(tail) if tail else ""))
        cx = self.counterexample
        if cx and "\n" in cx:
            out += ["", "**counterexample:**", "```text", cx, "```"]
        elif cx:
            out += ["", f"**counterexample:** `{cx}`"]
        if not self.ok or self.why:
            out += ["", "```text", self.text, "```"]
        return "\n".join(out) + "\n"

    def _repr_html_(self) -> str:
        st = self.status
        mark = _MARK.get(st, "?")
        word = "refute" if self.kind == "refute" else "step"
        out = [f'<div class="stepcheck stepcheck-step stepcheck-{st}">',
               f'<div><span class="stepcheck-mark" style="color:{_COLOR.get(st, "#000")};font-weight:bold">{mark}</span> '
               f'<b>{word} {html.escape(self.name)}</b> <span class="stepcheck-status">{st}</span>: '
               f'\\({html.escape(self.latex)}\\)</div>',
               '<ul class="stepcheck-links" style="list-style:none;margin:.2em 0 .2em 1em;padding:0">']
        for lk in self.links:
            parts = [f'<span class="stepcheck-mark" style="color:{_COLOR.get(lk.status, "#000")}">'
                     f'{_MARK.get(lk.status, "?")}</span> \\({html.escape(lk.latex)}\\)']
            if lk.rules:
                parts.append(f'<span class="stepcheck-rules" style="opacity:.7">rules: {html.escape(", ".join(lk.rules))}</span>')
            if lk.uses_detail:
                parts.append('<span class="stepcheck-uses">uses: ' + "".join(_badge_html(a) for a in lk.uses_detail) + "</span>")
            elif lk.holds:
                parts.append('<span class="stepcheck-uses" style="opacity:.7">uses: nothing</span>')
            out.append("<li>" + " &nbsp; ".join(parts) + "</li>")
        out.append("</ul>")
        if self.counterexample:
            out.append(f'<div class="stepcheck-counterexample">counterexample: '
                       f'<code style="white-space:pre-wrap">{html.escape(self.counterexample)}</code></div>')
        if not self.ok or self.why:
            cls = "stepcheck-diagnostic" if not self.ok else "stepcheck-why"
            out.append(f'<pre class="{cls}">{html.escape(self.text)}</pre>')
        out.append("</div>")
        return "\n".join(out)


@dataclass(frozen=True)
class Report:
    """The result of a whole ``.step`` file.

    Fields: ``path``, ``name``, ``title``, ``source``, ``assumptions`` (tuple
    of :class:`Assumption` with ``facts``), ``steps`` (tuple of
    :class:`ClaimResult`), ``diagnostics`` (file-level errors and warnings),
    ``fatal`` (the file could not be read or parsed), ``seconds``.
    Properties: ``ok``, ``status``, ``counts``, ``failures``, ``text``.
    ``report["var_sum"]`` gives a step by name; iterating gives the steps.
    """

    path: str
    name: str | None
    title: str | None
    source: str | None
    assumptions: tuple[Assumption, ...]
    steps: tuple[ClaimResult, ...]
    diagnostics: tuple[Diagnostic, ...]
    fatal: bool
    seconds: float
    raw: object = field(repr=False, compare=False)
    why: bool = field(default=False, repr=False, compare=False)  # checked as `verify --why`: `text` explains

    @classmethod
    def _from(cls, rep, why: bool = False) -> "Report":
        return cls(
            path=rep.path, name=rep.name, title=rep.title, source=rep.source,
            assumptions=tuple(Assumption(a.label, a.kind, facts=a.facts) for a in rep.assumptions),
            steps=tuple(ClaimResult._from(rep, s, why=why) for s in rep.steps),
            diagnostics=tuple(rep.diagnostics), fatal=rep.fatal, seconds=rep.seconds, raw=rep, why=why,
        )

    def __repr__(self) -> str:
        """Short, and naming the failing steps: pytest shows it for a failing ``assert report.ok``."""
        head = f"{self.path}: {self._verdict()[1]}"
        bad = list(self.failures)
        if self.fatal or not bad:
            err = next((d for d in self.diagnostics if d.severity == "error"), None)
            if err is not None:
                head += f"; {_short(err.title, 60)}" + (f" at {err.span}" if err.span else "")
        parts = [_claim_repr(s) for s in bad[:2]] + ([f"{len(bad) - 2} more"] if len(bad) > 2 else [])
        return f"Report({'; '.join([head] + parts)})"

    @property
    def ok(self) -> bool:
        """Every step passes and the file has no error."""
        return _false(self, not self.fatal and not any(d.severity == "error" for d in self.diagnostics) and all(
            s.status == HOLDS and not s.errors for s in self.steps))

    def __bool__(self) -> bool:
        return self.ok

    @property
    def status(self) -> str:
        """``"holds"``, ``"fails"``, ``"unknown"`` or ``"error"`` (not read or parsed)."""
        from ..report import file_status

        st = file_status(self.raw)
        if st == HOLDS and not self.ok:
            return FAILS
        return st

    @property
    def counts(self) -> dict[str, int]:
        """Number of links that hold, fail, are unknown."""
        return dict(self.raw.counts())

    @property
    def failures(self) -> tuple[ClaimResult, ...]:
        return tuple(s for s in self.steps if not (s.status == HOLDS and not s.errors))  # (no _false)

    def __getitem__(self, name: str) -> ClaimResult:
        for s in self.steps:
            if s.name == name:
                return s
        raise KeyError(name)

    def __iter__(self):
        return iter(self.steps)

    def __len__(self) -> int:
        return len(self.steps)

    def render(self, *, why: bool = False, quiet: bool = False) -> str:
        """The terminal report (as ``verify`` prints it, without colour)."""
        from ..report import render_text

        return render_text([self.raw], color=False, why=why, quiet=quiet, ascii_only=False)

    @property
    def text(self) -> str:
        """The terminal report (with the ``--why`` explanation when checked with ``why=True``)."""
        return self.render(why=self.why)

    def failure_text(self) -> str:
        """The file-level errors and the text of every step that does not pass."""
        sources = _sources_for(self.raw)
        blocks = [d.render(sources) for d in self.diagnostics
                  if d.severity == "error" and not any(_in_step(d.span, s.raw) for s in self.steps)]
        blocks += [s.text for s in self.failures]
        return "\n\n".join(blocks)

    def _verdict(self) -> tuple[str, str]:
        from ..report import verdict

        style, sentence = verdict(self.raw)
        if style == HOLDS and not self.ok:
            return FAILS, "NOT verified: a step carries an error"
        return style, sentence

    def _repr_markdown_(self) -> str:
        head = self.path if not self.name else f"derivation {self.name}"
        out = [f"**{head}**" + (f" — {self.title}" if self.title else ""), ""]
        if self.source:
            out += [f"*source:* {self.source}", ""]
        if self.assumptions:
            out.append("assumptions: " + ", ".join(f"`{a.label}` ({a.kind})" for a in self.assumptions))
            out.append("")
        sources = _sources_for(self.raw)
        for d in self.diagnostics:
            out += ["```text", d.render(sources), "```", ""]
        for s in self.steps:
            out.append(s._repr_markdown_())
        style, sentence = self._verdict()
        out.append(f"{_MARK.get(style, '?')} **{sentence}**")
        if self._why_matrix():
            out += ["", "```text", self._why_matrix(), "```"]
        return "\n".join(out) + "\n"

    def _why_matrix(self) -> str:
        """With ``why``: the step-by-assumption matrix of ``verify --why`` (``●!`` = needed)."""
        if not self.why or self.fatal:
            return ""
        from ..report import _Painter, render_matrix

        return "\n".join(render_matrix(self.raw, _Painter(False, ascii_only=False)))

    def _repr_html_(self) -> str:
        style, sentence = self._verdict()
        head = html.escape(self.path if not self.name else f"derivation {self.name}")
        out = [f'<div class="stepcheck stepcheck-report stepcheck-{self.status}">',
               f"<div><b>{head}</b>" + (f" — {html.escape(self.title)}" if self.title else "") + "</div>"]
        if self.source:
            out.append(f'<div class="stepcheck-source"><i>source:</i> {html.escape(self.source)}</div>')
        if self.assumptions:
            out.append('<div class="stepcheck-assumptions">assumptions: '
                       + "".join(_badge_html(a) for a in self.assumptions) + "</div>")
        sources = _sources_for(self.raw)
        for d in self.diagnostics:
            out.append(f'<pre class="stepcheck-diagnostic">{html.escape(d.render(sources))}</pre>')
        for s in self.steps:
            out.append(s._repr_html_())
        out.append(f'<div class="stepcheck-verdict" style="color:{_COLOR.get(style, "#000")};font-weight:bold">'
                   f'{_MARK.get(style, "?")} {html.escape(sentence)}</div>')
        if self._why_matrix():
            out.append(f'<pre class="stepcheck-why">{html.escape(self._why_matrix())}</pre>')
        out.append("</div>")
        return "\n".join(out)


