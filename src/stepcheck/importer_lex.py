"""The tokens of LaTeX display maths, macro expansion, and the tables of commands the importer knows.

Used by :mod:`stepcheck.importer_latex` (the parser).  Tokens keep their
offsets in the formula, so a refusal can point at its span; a macro's body
takes the span of the macro call.
"""
from __future__ import annotations

from dataclasses import dataclass

GREEK = {
    "alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ϵ", "varepsilon": "ε", "zeta": "ζ",
    "eta": "η", "theta": "θ", "vartheta": "ϑ", "iota": "ι", "kappa": "κ", "lambda": "λ", "mu": "μ",
    "nu": "ν", "xi": "ξ", "rho": "ρ", "sigma": "σ", "tau": "τ", "upsilon": "υ", "phi": "ϕ",
    "varphi": "φ", "chi": "χ", "psi": "ψ", "omega": "ω", "Gamma": "Γ", "Delta": "Δ", "Theta": "Θ",
    "Lambda": "Λ", "Phi": "Φ", "Psi": "Ψ", "Omega": "Ω",
}
# function words (as plain letters, \operatorname{..}, \mathrm{..}, \text{..}) -> .step function
FUNCS = {"E": "E", "Var": "Var", "Cov": "Cov", "SD": "SD", "Std": "SD", "std": "SD", "var": "Var",
         "cov": "Cov", "softmax": "softmax", "exp": "exp", "log": "log", "ln": "log", "sqrt": "sqrt",
         "tanh": "tanh", "max": "max", "min": "min", "abs": "abs", "P": "P", "Pr": "P"}
FUNC_CMDS = {"exp": "exp", "log": "log", "ln": "log", "tanh": "tanh", "max": "max", "min": "min",
             "Pr": "P", "sqrt": "sqrt"}
RELS = {"=": "=", "<": "<", ">": ">", "le": "<=", "leq": "<=", "leqslant": "<=", "ge": ">=", "geq": ">=",
        "geqslant": ">=", "approx": "≈", "neq": "!=", "ne": "!="}
BAD_RELS = {"sim": "`\\sim` (a distribution)", "in": "`\\in` (membership)", "to": "`\\to`",
            "propto": "`\\propto`", "equiv": "`\\equiv`", "mapsto": "`\\mapsto`", "subset": "`\\subset`",
            "rightarrow": "`\\rightarrow`", "Rightarrow": "`\\Rightarrow`", "iff": "`\\iff`",
            "ll": "`\\ll`", "gg": "`\\gg`"}
DOTS = {"ldots", "cdots", "dots", "vdots", "ddots", "dotsb", "dotsc"}
SPACES = {",", ";", ":", "!", " ", "enspace", "thinspace", "displaystyle", "textstyle", "nonumber",
          "notag", "limits", "left", "right", "bigl", "bigr", "Bigl", "Bigr", "big", "Big", "bigg", "Bigg",
          "biggl", "biggr", "Biggl", "Biggr", "middle"}
SEPS = {"quad", "qquad"}
TEXT_CMDS = {"text", "mathrm", "operatorname", "textrm", "mathit", "textit", "mathsf", "textsf", "mbox"}
ENVS_OK = {"aligned", "align", "align*", "split", "gathered", "equation", "equation*", "gather", "gather*"}
MAX_EXPANSIONS = 2000
# words of the .step language (grammar/step.lark): never names
STEP_KEYWORDS = {
    "Cov", "E", "P", "SD", "Var", "abs", "argmax", "argmin", "assume", "by", "check", "def", "define", "delta",
    "derivation", "diff", "exp", "for", "in", "independent", "index", "integer", "let", "limit", "ln", "log",
    "matrix", "max", "min", "nonnegative", "positive", "prod", "random", "real", "refute", "relative",
    "simulate", "softmax", "source", "sqrt", "step", "sum", "table", "tanh", "title", "uncorrelated", "under",
    "use", "where", "with", "within", "diag", "ones"}


class LatexError(Exception):
    """A formula that cannot be imported: ``message`` and the offset range ``start``..``end``."""

    def __init__(self, message: str, start: int, end: int):
        super().__init__(message)
        self.message, self.start, self.end = message, start, max(end, start + 1)


@dataclass
class Tok:
    kind: str  # "cmd", "num", "letter", "sym", "eof"
    text: str
    start: int
    end: int
    space: bool = False  # whitespace before it


def tokenize(src: str) -> list[Tok]:
    out: list[Tok] = []
    i, n, space = 0, len(src), False
    while i < n:
        c = src[i]
        if c.isspace() or c == "~":
            i, space = i + 1, True
            continue
        if c == "%":  # a comment to the end of the line
            while i < n and src[i] != "\n":
                i += 1
            continue
        if c == "\\":
            j = i + 1
            if j < n and src[j].isalpha():
                while j < n and src[j].isalpha():
                    j += 1
                name = src[i + 1:j]
                if name in ("begin", "end"):
                    k = j
                    while k < n and src[k].isspace():
                        k += 1
                    if k < n and src[k] == "{" and "}" in src[k:]:
                        close = src.index("}", k)
                        env = src[k + 1:close].strip()
                        if env not in ENVS_OK:
                            raise LatexError(f"environment `{env}` cannot be imported", i, close + 1)
                        i, space = close + 1, True
                        continue
            else:
                j = min(j + 1, n)
                name = src[i + 1:j]
            out.append(Tok("cmd", name, i, j, space))
            i, space = j, False
            continue
        if c.isdigit() or (c == "." and i + 1 < n and src[i + 1].isdigit()):
            j = i
            while j < n and src[j].isdigit():
                j += 1
            if j + 1 < n and src[j] == "." and src[j + 1].isdigit():
                j += 1
                while j < n and src[j].isdigit():
                    j += 1
            out.append(Tok("num", src[i:j], i, j, space))
            i, space = j, False
            continue
        if c.isalpha():
            out.append(Tok("letter", c, i, i + 1, space))
        else:
            out.append(Tok("sym", c, i, i + 1, space))
        i, space = i + 1, False
    out.append(Tok("eof", "", n, n, space))
    return out


def expand(toks: list[Tok], macros: dict) -> list[Tok]:
    """Replace macro calls (``\\EE``, ``\\Var{X}``) by their bodies; each body token takes the call's span."""
    out: list[Tok] = []
    pending = list(reversed(toks))
    count = 0
    while pending:
        t = pending.pop()
        if t.kind == "cmd" and t.text in macros:
            count += 1
            if count > MAX_EXPANSIONS:
                raise LatexError(f"macro `\\{t.text}` expands without end", t.start, t.end)
            nargs, body = macros[t.text]
            args, end = [], t.end
            for _ in range(nargs):
                if not pending or pending[-1].kind == "eof":
                    raise LatexError(f"macro `\\{t.text}` needs {nargs} argument(s)", t.start, end)
                a = pending.pop()
                if a.kind == "sym" and a.text == "{":
                    group, depth = [], 1
                    while pending and pending[-1].kind != "eof":
                        b = pending.pop()
                        depth += (b.text == "{") - (b.text == "}") if b.kind == "sym" else 0
                        if depth == 0:
                            end = b.end
                            break
                        group.append(b)
                    args.append(group)
                else:
                    args.append([a])
                    end = a.end
            body_toks = [Tok(b.kind, b.text, t.start, end, t.space) for b in tokenize(body)[:-1]]
            filled: list[Tok] = []
            k = 0
            while k < len(body_toks):
                b = body_toks[k]
                if b.text == "#" and k + 1 < len(body_toks) and body_toks[k + 1].kind == "num":
                    idx = int(body_toks[k + 1].text[0]) - 1
                    if 0 <= idx < len(args):
                        filled.append(Tok("sym", "{", t.start, end))
                        filled.extend(args[idx])
                        filled.append(Tok("sym", "}", t.start, end))
                    k += 2
                    continue
                filled.append(b)
                k += 1
            pending.extend(reversed(filled))
            continue
        out.append(t)
    return out


def drop_boxed(toks: list[Tok]) -> list[Tok]:
    """``\\boxed{...}`` only frames its content: drop the command and its braces."""
    out, closing, depth = [], [], 0
    k = 0
    while k < len(toks):
        t = toks[k]
        if t.kind == "cmd" and t.text == "boxed" and k + 1 < len(toks) and toks[k + 1].text == "{":
            depth += 1
            closing.append(depth)
            k += 2
            continue
        if t.kind == "sym" and t.text == "{":
            depth += 1
        elif t.kind == "sym" and t.text == "}":
            if closing and closing[-1] == depth:
                closing.pop()
                depth -= 1
                k += 1
                continue
            depth -= 1
        out.append(t)
        k += 1
    return out
