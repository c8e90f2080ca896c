"""Markdown files with ```` ```step ```` blocks, checked like one ``.step`` file.

:func:`extract` keeps the content lines of every fenced block whose info
string is ``step`` (```` ```step ```` or ``~~~step``; markdown-it-py finds
them, so fences inside other code blocks, HTML comments and the like are
not mistaken for blocks) and blanks every other line.  The result has the
Markdown file's own lines, so every diagnostic points at the Markdown
file's own line AND column; the blocks form one ``.step`` text, so a
declaration in one block is in scope in the next (the way doctest reads a
file).

A block inside a list item or a block quote keeps its columns: the
container's prefix (the list indentation, the ``>`` marks) is replaced by
spaces.  The one consequence: a ``table`` in such an indented block must be
the last statement of its block (every line after it is indented, so it
would be read as one more row).

A Markdown file without any step block becomes an empty ``.step`` text: the
checker reports ``W-empty`` ("this file has no statements") and nothing is
counted as verified.  See docs/markdown.md.
"""
from __future__ import annotations

MARKDOWN_SUFFIXES = (".md", ".markdown")


def is_markdown(path) -> bool:
    return str(path).lower().endswith(MARKDOWN_SUFFIXES)


def _step_fences(text: str):
    from markdown_it import MarkdownIt

    for tok in MarkdownIt("commonmark").parse(text):
        if tok.type == "fence" and tok.map is not None and tok.info.strip().split()[:1] == ["step"]:
            yield tok


def has_step_blocks(text: str) -> bool:
    """Whether ``text`` (Markdown) has at least one ```` ```step ```` block."""
    if "step" not in text:
        return False
    return any(True for _ in _step_fences(text))


def extract(text: str) -> str:
    """The ``.step`` text of the step blocks of a Markdown ``text``: the same lines, others blanked."""
    lines = text.split("\n")
    out = [""] * len(lines)
    for tok in _step_fences(text):
        body = tok.content.split("\n")
        if body and body[-1] == "":
            body.pop()
        first = tok.map[0] + 1  # the line after the opening fence
        for k, content in enumerate(body):
            n = first + k
            if n >= len(lines):
                break
            raw = lines[n].rstrip("\r")
            if content and raw.endswith(content):
                prefix = len(raw) - len(content)
            else:  # a tab expanded by the container: keep the content, at the raw line's indentation
                prefix = max(len(raw) - len(raw.lstrip(" \t>")), 0) if content else 0
            out[n] = " " * prefix + content
    return "\n".join(out)


def read_any(path: str) -> str:
    """The ``.step`` source of ``path``: the file itself, or the step blocks of a Markdown file.

    Errors (missing, unreadable, binary, too large) are those of :func:`stepcheck.parser.read_source`.
    """
    from .parser import read_source

    text = read_source(path)
    return extract(text) if is_markdown(path) else text


# ---------------------------------------------------------------- the pytest plugin's Markdown files


def wants_markdown(file_path, patterns, matches) -> bool:
    """Whether the plugin collects ``file_path``: it matches a pattern (``matches(path, patterns)``, the
    plugin's glob test) and has a step block."""
    if not patterns or not is_markdown(file_path) or not matches(file_path, patterns):
        return False
    try:
        text = file_path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return True  # opted in: let its collection report why it cannot be read
    return has_step_blocks(text)
