"""Find the display formulas of an article (Markdown or LaTeX) with their source positions.

Markdown (markdown-it-py with mdit-py-plugins' dollarmath and amsmath):

* ``$$ ... $$`` blocks and ``$$ ... $$`` inside a paragraph;
* ``\\begin{align} ... \\end{align}`` (and the other amsmath environments) as blocks;
* ``\\[ ... \\]`` inside a paragraph's source;
* a paragraph that consists of a single ``$ ... $`` and nothing else (an optional
  trailing ``.``, ``,`` ``:`` or ``；``): many articles write their display maths that way.

Inline maths inside a sentence is not a display formula.  Code blocks and code
spans are never searched.

LaTeX (pylatexenc): ``\\[ ... \\]``, ``$$ ... $$`` and the environments
``equation``, ``align``, ``aligned``, ``gather``, ``multline``, ``eqnarray`` (starred too)
at any depth outside other math.
"""
from __future__ import annotations

from dataclasses import dataclass

TEX_ENVS = {"equation", "align", "aligned", "gather", "multline", "eqnarray", "split", "flalign", "alignat"}


@dataclass
class Formula:
    tex: str      # the LaTeX between the delimiters
    start: int    # offset of ``tex`` in the article's text, or -1 when it is not a verbatim substring
    line: int     # 1-based line where the formula starts
    kind: str     # "$$", "\\[", "align", "$" ...


class Lines:
    """Offsets <-> (line, column), both 1-based, columns in characters."""

    def __init__(self, text: str):
        self.text = text
        self.starts = [0]
        for k, c in enumerate(text):
            if c == "\n":
                self.starts.append(k + 1)

    def pos(self, offset: int) -> tuple[int, int]:
        import bisect

        ln = bisect.bisect_right(self.starts, offset) - 1
        return ln + 1, offset - self.starts[ln] + 1

    def offset(self, line: int) -> int:
        return self.starts[min(max(line - 1, 0), len(self.starts) - 1)]


def _locate(lines: Lines, tex: str, from_line: int, cursor: int = 0) -> int:
    start = max(lines.offset(from_line), cursor)
    k = lines.text.find(tex, start)
    return k


def markdown_formulas(text: str) -> list[Formula]:
    from markdown_it import MarkdownIt
    from mdit_py_plugins.amsmath import amsmath_plugin
    from mdit_py_plugins.dollarmath import dollarmath_plugin

    md = MarkdownIt("commonmark").use(dollarmath_plugin, double_inline=True).use(amsmath_plugin)
    lines = Lines(text)
    out: list[Formula] = []
    for tok in md.parse(text):
        if tok.map is None:
            continue
        first = tok.map[0] + 1
        if tok.type in ("math_block", "math_block_label", "amsmath"):
            tex = tok.content.strip()
            at = _locate(lines, tex, first)
            out.append(Formula(tex, at, lines.pos(at)[0] if at >= 0 else first,
                               "align" if tok.type == "amsmath" else "$$"))
        elif tok.type == "inline":
            out.extend(_inline_formulas(tok, lines, first))
    out.sort(key=lambda f: (f.line, f.start))
    return out


def _inline_formulas(tok, lines: Lines, first: int) -> list[Formula]:
    found: list[Formula] = []
    cursor = lines.offset(first)
    children = tok.children or []
    maths = [c for c in children if c.type in ("math_inline", "math_inline_double")]
    others = [c for c in children if c.type not in ("math_inline", "math_inline_double", "softbreak")
              and not (c.type == "text" and c.content.strip() in ("", ".", ",", ":", "：", "。", "，", "；"))]
    for c in maths:
        delim = "$$" if c.type == "math_inline_double" else "$"
        if delim == "$" and (others or len(maths) != 1):
            k = lines.text.find("$" + c.content + "$", cursor)
            cursor = k + len(c.content) + 2 if k >= 0 else cursor
            continue  # inline maths in a sentence: not a display formula
        k = lines.text.find(delim + c.content + delim, cursor)
        at = k + len(delim) if k >= 0 else -1
        if k >= 0:
            cursor = at + len(c.content) + len(delim)
        found.append(Formula(c.content, at, lines.pos(at)[0] if at >= 0 else first, delim))
    # \[ ... \] survives in the paragraph's source (markdown reads `\[` as an escaped bracket)
    src = tok.content
    k = 0
    while (a := src.find("\\[", k)) >= 0:
        b = src.find("\\]", a + 2)
        if b < 0:
            break
        tex = src[a + 2:b]
        at = lines.text.find(tex, lines.offset(first))
        found.append(Formula(tex.strip(), at + (len(tex) - len(tex.lstrip())) if at >= 0 else -1,
                             lines.pos(at)[0] if at >= 0 else first, "\\["))
        k = b + 2
    return found


def latex_formulas(text: str) -> list[Formula]:
    from pylatexenc.latexwalker import LatexEnvironmentNode, LatexMathNode, LatexWalker

    lines = Lines(text)
    out: list[Formula] = []
    walker = LatexWalker(text, tolerant_parsing=True)
    nodes, _, _ = walker.get_latex_nodes()

    def inner_span(node) -> tuple[int, int]:
        if node.nodelist:
            a = node.nodelist[0].pos
            last = node.nodelist[-1]
            return a, last.pos + last.len
        return node.pos, node.pos

    def walk(nodelist):
        for node in nodelist or []:
            if node is None:
                continue
            if isinstance(node, LatexMathNode):
                if node.displaytype == "display":
                    a, b = inner_span(node)
                    raw = text[a:b]
                    tex = raw.strip()
                    at = a + (len(raw) - len(raw.lstrip()))
                    out.append(Formula(tex, at, lines.pos(at)[0], node.delimiters[0]))
                continue
            if isinstance(node, LatexEnvironmentNode):
                if node.environmentname.rstrip("*") in TEX_ENVS:
                    a, b = inner_span(node)
                    raw = text[a:b]
                    tex = raw.strip()
                    at = a + (len(raw) - len(raw.lstrip()))
                    out.append(Formula(tex, at, lines.pos(at)[0], node.environmentname))
                    continue
            for attr in ("nodelist",):
                walk(getattr(node, attr, None))
            args = getattr(node, "nodeargd", None)
            if args is not None and getattr(args, "argnlist", None):
                walk([a for a in args.argnlist if a is not None])

    walk(nodes)
    return out


def find_macros(text: str) -> dict:
    """``\\newcommand{\\EE}{\\mathbb{E}}``, ``\\newcommand\\Var[1]{...}``, ``\\DeclareMathOperator{\\Var}{Var}``."""
    macros: dict = {}
    for kw in ("\\newcommand", "\\renewcommand", "\\DeclareMathOperator", "\\providecommand"):
        k = 0
        while (a := text.find(kw, k)) >= 0:
            k = a + len(kw)
            got = _read_newcommand(text, k, kw == "\\DeclareMathOperator")
            if got:
                name, nargs, body, k = got
                macros[name] = (nargs, body)
    return macros


def _group(text: str, k: int) -> tuple[str, int] | None:
    while k < len(text) and text[k] in " \t*":
        k += 1
    if k >= len(text):
        return None
    if text[k] != "{":
        if text[k] == "\\":
            j = k + 1
            while j < len(text) and text[j].isalpha():
                j += 1
            return text[k:j], j
        return None
    depth, j = 0, k
    while j < len(text):
        depth += (text[j] == "{") - (text[j] == "}")
        if depth == 0:
            return text[k + 1:j], j + 1
        j += 1
    return None


def _read_newcommand(text: str, k: int, operator: bool):
    g = _group(text, k)
    if not g or not g[0].strip().startswith("\\"):
        return None
    name, k = g[0].strip()[1:], g[1]
    nargs = 0
    while k < len(text) and text[k] == " ":
        k += 1
    if k < len(text) and text[k] == "[":
        close = text.find("]", k)
        if close < 0 or not text[k + 1:close].strip().isdigit():
            return None
        nargs, k = int(text[k + 1:close]), close + 1
    body = _group(text, k)
    if not body or not name.isalpha():
        return None
    value = f"\\operatorname{{{body[0]}}}" if operator else body[0]
    return name, nargs, value, body[1]


def read_macro_file(text: str) -> dict:
    """A ``--macros`` file: ``\\EE = \\mathbb{E}`` lines (``\\norm[1] = \\left|#1\\right|`` with arguments),
    or ``\\newcommand`` lines; ``%`` and ``#`` start comments.  Raises ValueError(line, message)."""
    macros: dict = {}
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith(("%", "#")):
            continue
        if line.startswith(("\\newcommand", "\\renewcommand", "\\DeclareMathOperator", "\\providecommand")):
            found = find_macros(line)
            if not found:
                raise ValueError(n, "cannot read this \\newcommand")
            macros.update(found)
            continue
        name, eq, body = line.partition("=")
        name = name.strip()
        nargs = 0
        if name.endswith("]") and "[" in name:
            name, _, count = name[:-1].partition("[")
            if not count.strip().isdigit():
                raise ValueError(n, "the argument count in [...] must be a number")
            nargs = int(count)
        if not eq or not name.startswith("\\") or not name[1:].isalpha() or not body.strip():
            raise ValueError(n, "expected `\\NAME = REPLACEMENT`")
        macros[name[1:]] = (nargs, body.strip())
    return macros
