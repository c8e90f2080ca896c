"""``stepcheck fmt``: align and normalise ``.step`` files.

What it changes, and only that (all of it whitespace between tokens):

* runs of spaces and tabs between tokens become one space; no space before
  a comma and one after it; no trailing whitespace; at most one blank line in
  a row, none at the end, and a final newline;
* the links of a chain (the lines that begin with a relation) are indented by
  four spaces, their relations padded to one width, and their ``by`` columns
  aligned;
* trailing comments of a block of consecutive lines start in one column.

Comments and strings are kept as written; a line keeps being indented or
not (indentation decides table rows and ``for`` lines), and no line is
joined or split.  The result is re-parsed: if its syntax tree (spans left
out) differed from the original's, the file would be left untouched and the
formatter would report its own bug.  A file that does not parse is left
untouched, with its diagnostic.

    stepcheck fmt [--check] [--diff] PATH...
"""
from __future__ import annotations

import re
import sys

from .errors import Span, _display_width
from .parse_lexer import RELATIONS

_RELS = sorted(RELATIONS, key=len, reverse=True)
_BY = re.compile(r"(?<![\w.'])by(?![\w'])")
LINK_INDENT = "    "
_GAP = 2  # spaces before an aligned `by` or comment


# ------------------------------------------------------------------ lines


def split_comment(line: str) -> tuple[str, str]:
    """``(code, comment)``: the comment starts at the first ``#`` outside a string."""
    in_str = False
    i = 0
    while i < len(line):
        ch = line[i]
        if in_str:
            if ch == "\\":
                i += 2
                continue
            if ch == '"':
                in_str = False
        elif ch == '"':
            in_str = True
        elif ch == "#":
            return line[:i], line[i:].rstrip()
        i += 1
    return line, ""


def _squeeze(code: str) -> str:
    """Whitespace runs to one space and ``a ,b`` to ``a, b``, outside strings; no leading or trailing space."""
    out, i, n = [], 0, len(code)
    while i < n:
        ch = code[i]
        if ch == '"':
            j = i + 1
            while j < n and code[j] != '"':
                j += 2 if code[j] == "\\" else 1
            out.append(code[i:j + 1])
            i = j + 1
        elif ch in " \t\f\r\u00a0":
            while i < n and code[i] in " \t\f\r\u00a0":
                i += 1
            if out and i < n and code[i] != ",":
                out.append(" ")
        elif ch == ",":
            out.append(",")
            i += 1
            while i < n and code[i] in " \t\f\r\u00a0":
                i += 1
            if i < n:
                out.append(" ")
        else:
            out.append(ch)
            i += 1
    return "".join(out).strip()


def _top_level_by(code: str) -> int:
    """The index of the last ``by`` keyword outside brackets and strings, or -1."""
    depth, in_str, found, i = 0, False, -1, 0
    while i < len(code):
        ch = code[i]
        if in_str:
            if ch == "\\":
                i += 1
            elif ch == '"':
                in_str = False
        elif ch == '"':
            in_str = True
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif depth == 0 and ch == "b" and _BY.match(code, i) and (
                i == 0 or not (code[i - 1].isalnum() or code[i - 1] in "_.'")):
            found = i
        i += 1
    return found


def _relation(code: str) -> str | None:
    return next((r for r in _RELS if code.startswith(r)), None)


class _Line:
    __slots__ = ("indent", "code", "comment", "rel", "rhs", "by")

    def __init__(self, raw: str):
        code, self.comment = split_comment(raw)
        stripped = code.lstrip(" \t\f\u00a0")
        self.indent = code[:len(code) - len(stripped)]
        self.code = _squeeze(stripped)
        self.rel = _relation(self.code) if self.code else None
        self.rhs = self.by = ""
        if self.rel:
            body = self.code[len(self.rel):].strip()
            k = _top_level_by(body)
            self.rhs, self.by = (body[:k].rstrip(), body[k:]) if k > 0 else (body, "")

    @property
    def blank(self) -> bool:
        return not self.code and not self.comment


def format_text(text: str) -> str:
    """``text`` formatted (see the module docstring); no check that it parses."""
    bom = "\ufeff" if text.startswith("\ufeff") else ""
    body = text[len(bom):]
    nl = "\r\n" if "\r\n" in body and body.count("\r\n") == body.count("\n") else "\n"
    lines = [_Line(raw) for raw in body.replace("\r\n", "\n").split("\n")]
    # collapse blank lines
    kept: list[_Line] = []
    for ln in lines:
        if ln.blank and (not kept or kept[-1].blank):
            continue
        kept.append(ln)
    while kept and kept[-1].blank:
        kept.pop()
    rendered = [""] * len(kept)
    # chains: consecutive link lines
    i = 0
    while i < len(kept):
        if not kept[i].rel:
            i += 1
            continue
        j = i
        while j < len(kept) and kept[j].rel:
            j += 1
        group = kept[i:j]
        relw = max(len(g.rel) for g in group)
        heads = [f"{LINK_INDENT}{g.rel.ljust(relw)} {g.rhs}".rstrip() for g in group]
        bycol = max((_display_width(h) for h, g in zip(heads, group) if g.by), default=0) + _GAP
        for k, (h, g) in enumerate(zip(heads, group)):
            rendered[i + k] = h + " " * (bycol - _display_width(h)) + g.by if g.by else h
        i = j
    for k, ln in enumerate(kept):
        if not ln.rel:
            # an indented line stays indented (table rows, `for` lines): by four spaces
            rendered[k] = (LINK_INDENT if ln.indent else "") + ln.code
    # comments: one column per block of consecutive non-blank lines
    k = 0
    while k < len(kept):
        if kept[k].blank:
            k += 1
            continue
        m = k
        while m < len(kept) and not kept[m].blank:
            m += 1
        with_code = [p for p in range(k, m) if kept[p].comment and kept[p].code]
        col = max((_display_width(rendered[p]) for p in with_code), default=0) + _GAP
        for p in range(k, m):
            c = kept[p].comment
            if not c:
                continue
            if kept[p].code:
                rendered[p] += " " * (col - _display_width(rendered[p])) + c
            else:  # a comment-only line keeps its indentation
                rendered[p] = kept[p].indent + c
        k = m
    return bom + nl.join(rendered) + nl if rendered else bom


# ------------------------------------------------------------------ meaning


def shape(node):
    """A syntax tree as nested tuples, spans (and the file name and text) left out: equal shapes, same meaning."""
    from . import syntax as S

    if isinstance(node, S.Program):
        return ("Program", tuple(shape(s) for s in node.statements))
    if isinstance(node, list):
        return tuple(shape(x) for x in node)
    if hasattr(node, "__dataclass_fields__") and not isinstance(node, Span):
        return (type(node).__name__,) + tuple(
            (f, shape(getattr(node, f))) for f in node.__dataclass_fields__ if not isinstance(getattr(node, f), Span))
    return node


def format_checked(text: str, file: str = "<string>"):
    """``(formatted, diagnostic)``: the diagnostic (and the text unchanged) when ``text`` does not parse
    or formatting would change its syntax tree."""
    from .errors import Diagnostic, StepError
    from .parser import parse

    try:
        before = parse(text, file)
    except StepError as e:
        return text, e.diagnostic
    except RecursionError:
        return text, Diagnostic("error", "input nested too deeply", None, code="E-limit")
    out = format_text(text)
    if out == text:
        return out, None
    try:
        same = shape(parse(out, file)) == shape(before)
    except (StepError, RecursionError):
        same = False
    if not same:
        return text, Diagnostic("error", "the formatter would change this file's meaning: left untouched", None,
                                help="please report this with the file", code="E-internal-parser")
    return out, None


# ------------------------------------------------------------------ paths


def step_files(paths: list[str]) -> tuple[list[str], list[tuple[str, str]]]:
    """``(files, problems)``: the ``.step`` files ``paths`` name, as ``verify`` finds them (a directory means every
    ``*.step`` under it, sorted, except under ``bad/`` or hidden subdirectories), and ``(path, reason)`` for the
    paths that name nothing.  (The front end ``stepcheck.cli`` is not imported: nothing below it may.)"""
    import os
    from pathlib import Path

    files: list[str] = []
    problems: list[tuple[str, str]] = []
    seen: set[str] = set()

    def add(f: str) -> None:
        key = os.path.normpath(os.path.abspath(f))
        if key not in seen:
            seen.add(key)
            files.append(f)

    for arg in paths:
        p = Path(arg)
        if p.is_dir():
            def skipped(f: Path) -> bool:
                return any(part == "bad" or (part.startswith(".") and part not in (".", ".."))
                           for part in f.relative_to(p).parts[:-1])

            found = sorted((f.relative_to(p).as_posix(), str(f)) for f in p.rglob("*.step")
                           if f.is_file() and not skipped(f))
            if not found:
                problems.append((arg, "no .step files in this directory"))
            for _, f in found:
                add(f)
        elif p.is_file():
            add(arg)
        else:
            problems.append((arg, "not a regular file" if p.exists() else "no such file or directory"))
    return files, problems


# ------------------------------------------------------------------ command


def main(argv: list[str] | None = None) -> int:
    import argparse
    import difflib

    from .parser import read_source
    from .errors import StepError

    ap = argparse.ArgumentParser(prog="stepcheck fmt", description=(
        "Align the `=` and `by` columns of each chain and normalise spacing, in place. "
        "Only whitespace changes; comments are kept; files that do not parse are left untouched."))
    ap.add_argument("paths", nargs="+", metavar="PATH", help=".step files or directories (searched recursively)")
    ap.add_argument("--check", action="store_true", help="change nothing; exit 1 and list the files that would change")
    ap.add_argument("--diff", action="store_true", help="change nothing; print a unified diff of the changes")
    args = ap.parse_args(sys.argv[1:] if argv is None else argv)
    files, bad = step_files(args.paths)
    status = 0
    for path, reason in bad:
        sys.stderr.write(f"error: {path}: {reason}\n")
        status = 2
    would = []
    for path in files:
        try:
            text = read_source(path)
        except StepError as e:
            sys.stderr.write(e.diagnostic.render({}) + "\n")
            status = 2
            continue
        out, diag = format_checked(text, path)
        if diag is not None:
            sys.stderr.write(diag.render({path: text}) + "\n" + f"note: {path} left untouched\n")
            status = 2
            continue
        if out == text:
            continue
        would.append(path)
        if args.diff:
            sys.stdout.writelines(difflib.unified_diff(
                text.splitlines(keepends=True), out.splitlines(keepends=True), path, path + " (formatted)"))
        if not (args.check or args.diff):
            with open(path, "w", encoding="utf-8", newline="") as f:
                f.write(out)
    if args.check:
        for path in would:
            sys.stdout.write(f"would reformat {path}\n")
        if would and status == 0:
            status = 1
    elif not args.diff:
        sys.stderr.write(f"{len(would)} file{'s' if len(would) != 1 else ''} reformatted, "
                         f"{len(files) - len(would)} unchanged\n")
    return status
