"""What the language server knows about one document, without pygls.

:class:`DocIndex` is built from the parsed program (labels, citations, links)
and, once the checker has run, from its :class:`~stepcheck.results.FileReport`
(statuses, uses, counterexamples).  Everything here is plain data and text:
positions are ``(line, col)`` pairs, 0-based lines and columns in UTF-16
code units as LSP counts them, so the server module only wraps them in
lsprotocol types.  Hover text, inlay-hint labels and code-action edits are
computed here; the CLI's wording comes from :mod:`stepcheck.report`.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from . import syntax as S
from .errors import Span
from .report import format_use
from .results import FAILS, HOLDS, SIMULATED, UNKNOWN, FileReport, LinkResult, StepResult

MARK = {HOLDS: "✓", FAILS: "✗", UNKNOWN: "?", SIMULATED: "~"}
_WORD = re.compile(r"[A-Za-z_\u00c0-\uffff][\w.']*")


def utf16_col(line_text: str, col0: int) -> int:
    """The UTF-16 offset of character ``col0`` (0-based) of ``line_text``."""
    head = line_text[:col0]
    return col0 + sum(1 for ch in head if ord(ch) > 0xFFFF)


def char_col(line_text: str, u16: int) -> int:
    """The character index (0-based) at UTF-16 offset ``u16`` of ``line_text``."""
    n = 0
    for i, ch in enumerate(line_text):
        if n >= u16:
            return i
        n += 2 if ord(ch) > 0xFFFF else 1
    return len(line_text)


@dataclass
class Label:
    """A name the document defines: an assumption, a step, a ``define`` or a ``use``."""

    name: str
    kind: str  # "assume" | "step" | "refute" | "define" | "use" | "derivation" | "check" | "simulate"
    span: Span  # the label itself
    whole: Span  # the whole statement
    detail: str = ""


@dataclass
class LinkSite:
    step: str
    index: int  # 1-based, as LinkResult.index
    node: S.Link
    result: LinkResult | None = None


@dataclass
class DocIndex:
    text: str
    program: S.Program | None = None
    report: FileReport | None = None
    labels: dict[str, Label] = field(default_factory=dict)
    refs: list[tuple[str, S.Ref]] = field(default_factory=list)  # (resolved label, ref)
    names: list[S.Name] = field(default_factory=list)  # names in expressions (for define references)
    links: list[LinkSite] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)

    # ------------------------------------------------------------ building

    @classmethod
    def build(cls, program: S.Program, report: FileReport | None = None) -> "DocIndex":
        ix = cls(text=program.text, program=program, lines=program.text.split("\n"))
        for st in program.statements:
            ix._add(st)
        if report is not None:
            ix.attach(report)
        return ix

    def _add(self, st) -> None:
        L = self.labels
        if isinstance(st, S.Assume):
            L.setdefault(st.label.name, Label(st.label.name, "assume", st.label.span, st.span))
        elif isinstance(st, S.Step):
            L.setdefault(st.name.name, Label(st.name.name, st.kind, st.name.span, st.span))
            for i, lk in enumerate(st.links, 1):
                self.links.append(LinkSite(st.name.name, i, lk))
                self.refs.extend((self.resolve(r.text), r) for r in lk.refs)
            self.refs.extend((self.resolve(r.text), r) for r in st.under)
        elif isinstance(st, S.Define):
            base = re.split(r"[_\[{]", st.name.name, maxsplit=1)[0] or st.name.name
            L.setdefault(base, Label(base, "define", st.name.span, st.span))
        elif isinstance(st, S.Use):
            L.setdefault(st.path, Label(st.path, "use", st.span, st.span))
        elif isinstance(st, S.Derivation):
            L.setdefault(st.name.name, Label(st.name.name, "derivation", st.name.span, st.span, st.title or ""))
        elif isinstance(st, S.Simulate):
            L.setdefault(st.name.name, Label(st.name.name, "simulate", st.name.span, st.span))
            if st.proof is not None:
                self.refs.append((self.resolve(st.proof.text), st.proof))
        elif isinstance(st, S.Check) and st.name is not None:
            L.setdefault(st.name.name, Label(st.name.name, "check", st.name.span, st.span))
        if not isinstance(st, (S.Derivation, S.Source, S.Use)):
            for node in S.walk(st):
                if isinstance(node, S.Name):
                    self.names.append(node)

    @staticmethod
    def resolve(ref_text: str) -> str:
        """The label a citation names: ``def p`` names the definition ``p``."""
        t = ref_text.strip()
        return t[4:].strip() if t.startswith("def ") else t

    def attach(self, report: FileReport) -> None:
        self.report = report
        by_key = {(s.name, lk.index): lk for s in report.steps for lk in s.links}
        for site in self.links:
            site.result = by_key.get((site.step, site.index))

    # ------------------------------------------------------------ positions

    def pos(self, line1: int, col1: int) -> tuple[int, int]:
        """A 1-based (line, col) of a Span to an LSP (line, character)."""
        ln = max(line1 - 1, 0)
        text = self.lines[ln] if ln < len(self.lines) else ""
        return ln, utf16_col(text, max(col1 - 1, 0))

    def rng(self, span: Span) -> tuple[tuple[int, int], tuple[int, int]]:
        return self.pos(span.line, span.col), self.pos(span.end_line, span.end_col)

    def offset_of(self, line0: int, u16: int) -> tuple[int, int]:
        """An LSP position to a 1-based (line, col) comparable with spans."""
        text = self.lines[line0] if 0 <= line0 < len(self.lines) else ""
        return line0 + 1, char_col(text, u16) + 1

    @staticmethod
    def contains(span: Span, line1: int, col1: int) -> bool:
        return (span.line, span.col) <= (line1, col1) < (span.end_line, span.end_col) or \
            (line1, col1) == (span.end_line, span.end_col)

    def word_at(self, line0: int, u16: int) -> str | None:
        text = self.lines[line0] if 0 <= line0 < len(self.lines) else ""
        c = char_col(text, u16)
        for m in _WORD.finditer(text):
            if m.start() <= c <= m.end():
                return m.group(0)
        return None

    # ------------------------------------------------------------ look-ups

    def ref_at(self, line1: int, col1: int) -> tuple[str, S.Ref] | None:
        for label, r in self.refs:
            if self.contains(r.span, line1, col1):
                return label, r
        return None

    def label_at(self, line1: int, col1: int) -> Label | None:
        for lab in self.labels.values():
            if self.contains(lab.span, line1, col1):
                return lab
        return None

    def link_at(self, line1: int, col1: int) -> LinkSite | None:
        for site in self.links:
            if self.contains(site.node.span, line1, col1):
                return site
        return None

    def name_at(self, line1: int, col1: int) -> S.Name | None:
        for n in self.names:
            if self.contains(n.span, line1, col1):
                return n
        return None

    def target_at(self, line1: int, col1: int) -> str | None:
        """The label under the cursor: a citation, a label being defined, or a defined name in maths."""
        hit = self.ref_at(line1, col1)
        if hit:
            return hit[0]
        lab = self.label_at(line1, col1)
        if lab:
            return lab.name
        n = self.name_at(line1, col1)
        if n is not None:
            base = re.split(r"[_\[{]", n.name, maxsplit=1)[0]
            for cand in (n.name, base):
                if cand in self.labels and self.labels[cand].kind == "define":
                    return cand
        return None

    def references(self, label: str) -> list[Span]:
        out = [r.span for lab, r in self.refs if lab == label]
        if label in self.labels and self.labels[label].kind == "define":
            for n in self.names:
                base = re.split(r"[_\[{]", n.name, maxsplit=1)[0]
                if (n.name == label or base == label) and n.span != self.labels[label].span:
                    out.append(n.span)
        return out

    def step_result(self, name: str) -> StepResult | None:
        if self.report is None:
            return None
        return next((s for s in self.report.steps if s.name == name), None)

    def assumption_facts(self, label: str) -> list[str]:
        if self.report is None:
            return []
        a = next((a for a in self.report.assumptions if a.label == label), None)
        return list(a.facts) if a else []

    # ------------------------------------------------------------ presentation

    def link_hover(self, site: LinkSite) -> str:
        lk = site.result
        head = f"**{site.step}**, link {site.index}"
        if lk is None:
            return head + ": not checked yet"
        out = [f"{MARK.get(lk.status, '?')} {head}: `{lk.lhs} {lk.rel} {lk.rhs}` **{lk.status}**"]
        if lk.decided_by:
            out.append(f"- decided by: {lk.decided_by}")
        if lk.rules:
            out.append("- rules: " + ", ".join(lk.rules))
        uses = [u for u in lk.uses if u.kind != "domain"]
        out.append("- uses: " + (", ".join(format_use(u) for u in uses) if uses else "nothing"))
        out.append("- cited: " + (", ".join(lk.cited) if lk.cited else "nothing"))
        if lk.unneeded:
            out.append("- cited but not needed: " + ", ".join(lk.unneeded))
        if lk.missing:
            out.append("- needed but not cited: " + ", ".join(lk.missing))
        weak = [f"{u.label}: {u.weakest}" for u in lk.uses if u.weakest]
        if weak:
            out.append("- weakest form: " + "; ".join(weak))
        if lk.message and (lk.status != HOLDS or lk.show_message):
            out.append("- " + lk.message)
        if lk.residual:
            out.append(f"- residual: `{lk.residual}`")
        if lk.counterexample:
            out.append("\n**counterexample**\n\n```\n" + lk.counterexample + "\n```")
        return "\n".join(out)

    def label_hover(self, label: str) -> str | None:
        lab = self.labels.get(label)
        if lab is None:
            return None
        if lab.kind == "assume":
            facts = self.assumption_facts(label) or [self.source(lab.whole)]
            used = [f"{s.step}.{s.index}" for s in self.links
                    if s.result and any(u.label == label for u in s.result.uses)]
            text = f"**assume {label}**\n\n```step\n" + "\n".join(facts) + "\n```"
            return text + ("\n\nused by: " + ", ".join(used) if used else "\n\nused by no link")
        if lab.kind in ("step", "refute"):
            s = self.step_result(label)
            if s is None:
                return f"**{lab.kind} {label}**: not checked yet"
            text = f"{MARK.get(s.status, '?')} **{lab.kind} {label}**: `{s.statement}` **{s.status}**"
            if s.rests_on:
                text += "\n\nrests on: " + ", ".join(s.rests_on)
            return text
        return f"**{lab.kind} {label}**\n\n```step\n{self.source(lab.whole)}\n```"

    def source(self, span: Span) -> str:
        lines = self.lines[span.line - 1:span.end_line]
        if not lines:
            return ""
        if len(lines) == 1:
            return lines[0][span.col - 1:span.end_col - 1]
        return "\n".join([lines[0][span.col - 1:], *lines[1:-1], lines[-1][:span.end_col - 1]])

    @staticmethod
    def inlay_label(lk: LinkResult) -> str:
        uses = [u.label for u in lk.uses if u.kind != "domain" and not u.implicit]
        if lk.status == HOLDS:
            return "⟵ " + (", ".join(uses) if uses else "∅")
        return f"{MARK.get(lk.status, '?')} {lk.status}"

    # ------------------------------------------------------------ code actions

    def remove_ref_edit(self, site: LinkSite, label: str):
        """((start, end), new_text) removing the citation ``label`` from ``site``, or None."""
        refs = site.node.refs
        keep = [r for r in refs if self.resolve(r.text) != label]
        if len(keep) == len(refs):
            return None
        first, last = refs[0].span, refs[-1].span
        if keep:
            return self.rng(Span(first.file, first.line, first.col, last.end_line, last.end_col)), \
                ", ".join(r.text for r in keep)
        line = self.lines[first.line - 1]
        head = line[:first.col - 1]
        k = head.rstrip().rfind("by")
        if k < 0:
            return None
        start = len(head[:k].rstrip())
        return self.rng(Span(first.file, first.line, start + 1, last.end_line, last.end_col)), ""

    def add_refs_edit(self, site: LinkSite, labels: list[str]):
        """((start, end), new_text) citing ``labels`` in ``site`` as well (an insertion)."""
        if not labels:
            return None
        node = site.node
        if node.refs:
            end = node.refs[-1].span
            p = self.pos(end.end_line, end.end_col)
            return (p, p), ", " + ", ".join(labels)
        sp = node.span
        line = self.lines[sp.end_line - 1]
        cut = sp.end_col - 1
        # a trailing comment stays after the new citation
        p = self.pos(sp.end_line, cut + 1)
        pad = "   " if cut >= len(line.rstrip()) else "   "
        return (p, p), f"{pad}by " + ", ".join(labels)
