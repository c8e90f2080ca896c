"""Where a claim given to :func:`~stepcheck.api.check` is written: the caller's file and line.

``check()`` builds a small ``.step`` text (the ``given`` statements, then
``step claim: ...``) and checks it; the checker's positions are lines of that
hidden text.  :func:`relocate` moves every position of the report to where the
user wrote it:

* a claim position goes to the test file's own line (``test_x.py:13:24``, the
  source line being that file's line, carets under the claim inside it) when
  the claim text is found literally at the call; else to ``test_x.py:13
  (claim)``: line and column within the claim, whose text is the source line;
* a ``given`` position goes to ``test_x.py:13 (given)``: line and column
  within the ``given`` argument of that call;
* without a caller file (a REPL, ``exec``): ``<claim>`` and ``<given>``.
"""
from __future__ import annotations

import linecache
import os
import sys
from dataclasses import replace

_PKG = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # .../stepcheck


def _call_lines(f) -> tuple[int, int]:
    """The first and last line of the call expression the frame ``f`` is executing."""
    line = f.f_lineno
    try:  # Python 3.11+: the exact position of the current instruction
        pos = list(f.f_code.co_positions())[f.f_lasti // 2]
        if pos[0] is not None and pos[1] is not None and pos[0] <= line <= pos[1]:
            return pos[0], pos[1]
    except (AttributeError, IndexError):
        pass
    return line, line


def caller() -> tuple[str, int, int] | None:
    """``(filename, first line, last line)`` of the call into stepcheck: the first frame outside
    the stepcheck package, when linecache can read its file; None when there is none (REPL,
    ``exec`` of a string)."""
    f = sys._getframe(1)
    while f is not None and os.path.abspath(f.f_code.co_filename).startswith(_PKG + os.sep):
        f = f.f_back
    if f is None:
        return None
    name = f.f_code.co_filename
    if not linecache.getlines(name, f.f_globals):
        return None
    return (name, *_call_lines(f))


def display_path(name: str) -> str:
    """The file as diagnostics show it: relative to the working directory when below it."""
    try:
        rel = os.path.relpath(name)
    except ValueError:  # another drive (Windows)
        return name
    return name if rel.startswith("..") else rel


def _find_claim(lines: list[str], start: int, end: int, claim_lines: list[str]):
    """1-based ``(line, col)`` of each claim line, written literally in lines ``start..end``
    of the file (the call), or None."""
    out = []
    ln, col = start, 0
    for text in claim_lines:
        found = None
        while ln <= min(len(lines), end):
            k = lines[ln - 1].find(text, col)
            if k >= 0:
                found = (ln, k + 1)
                col = k + len(text)
                break
            ln, col = ln + 1, 0
        if found is None:
            return None
        out.append(found)
    return out


class Places:
    """The map from positions of the hidden text to the user's positions, and the sources to render them."""

    def __init__(self, where, claim_lines: list[str], claim_prefix: int, given_origin: list[tuple[int, int]],
                 given: str):
        self.first_claim_line = len(given_origin) + 1
        self.sources: dict[str, str] = {}
        self.given_origin = given_origin
        self.claim_prefix = claim_prefix  # columns before the claim on its first hidden line
        if where is None:
            self.claim_file, self.given_file = "<claim>", "<given>"
            self.claim_at = None
            self.line = None
        else:
            name, line, end = where
            disp = display_path(name)
            self.line = line
            file_lines = [ln.rstrip("\n") for ln in linecache.getlines(name)]
            self.claim_at = _find_claim(file_lines, line, end, claim_lines)
            self.claim_file = disp if self.claim_at else f"{disp}:{line} (claim)"
            self.given_file = f"{disp}:{line} (given)"
            if self.claim_at:
                self.sources[disp] = "\n".join(file_lines) + "\n"
        if not self.claim_at:
            self.claim_at = [(k + 1, 1) for k in range(len(claim_lines))]
            self.sources[self.claim_file] = "\n".join(claim_lines) + "\n"
        self.sources[self.given_file] = given

    def point(self, line: int, col: int) -> tuple[str, int, int]:
        """The user's ``(file, line, col)`` of a position of the hidden text."""
        if line >= self.first_claim_line:
            k = line - self.first_claim_line
            if k >= len(self.claim_at):
                k = len(self.claim_at) - 1
            fl, fc = self.claim_at[k]
            shift = self.claim_prefix if k == 0 else 4
            return self.claim_file, fl, fc + max(col - 1 - shift, 0)
        if 1 <= line <= len(self.given_origin):
            gl, off = self.given_origin[line - 1]
            return self.given_file, gl, col + off
        return self.given_file, 1, 1

    def span(self, sp):
        if sp is None:
            return None
        f, l, c = self.point(sp.line, sp.col)
        f2, l2, c2 = self.point(sp.end_line, sp.end_col)
        if f2 != f:
            l2, c2 = l, c + 1
        return replace(sp, file=f, line=l, col=c, end_line=l2, end_col=max(c2, c + 1) if l2 == l else c2)


def relocate(rep, places: Places) -> None:
    """Move every span of the (fresh, unshared) FileReport ``rep`` to the user's positions."""
    seen = set()
    diags = list(rep.diagnostics) + [d for s in rep.steps for lk in s.links for d in lk.diagnostics]
    for d in diags:
        if id(d) not in seen:
            seen.add(id(d))
            d.span = places.span(d.span)
    for s in rep.steps:
        s.span = places.span(s.span)
        for lk in s.links:
            lk.span = places.span(lk.span)
    rep.api_sources = dict(places.sources)
