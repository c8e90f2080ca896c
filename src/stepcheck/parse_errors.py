"""Diagnostics for text that does not parse.

Every problem becomes one rustc-style diagnostic (``E-syntax``, or a limit's
own code), from one of two places:

* :func:`prescan`, before lark runs (plain Python, linear time): a line longer
  than the statement limit or brackets nested deeper than the nesting limit
  are raised at once; the first unclosed, stray or mismatched bracket or
  unterminated string is returned, to be reported if lark fails at or after
  its line (so that a mistake earlier in the file is reported first);
* :func:`from_lark`, for lark's ``UnexpectedInput``.  An unexpected character
  gets a hint chosen by the character.  An unexpected token gets a title
  naming it (or the end of the line or of the input) and a help line listing,
  in words, the terminals lark expected; then

  - the mistakes in :data:`NAMED_EXAMPLES` (a missing ``:``, a step with no
    link) are recognised by example, with lark's
    ``UnexpectedInput.match_examples``: the parser stopped in the state it
    stops in on one of the examples;
  - the others by the token, the terminals lark expected and the layout of
    the line.  ``match_examples`` cannot name them: it also compares the depth
    of the parser's stack, which for a mistake inside an expression depends
    on how deep in the expression it is.
"""
from __future__ import annotations

import functools
import re
import unicodedata

from lark.exceptions import UnexpectedCharacters, UnexpectedInput, UnexpectedToken

from .errors import Span, StepError, error
from .parse_lexer import RELATIONS

# ============================================================ pre-scan

_SCAN = re.compile(r'"(?:[^"\\\n]|\\.)*(")?|#[^\n]*|[()\[\]{}]|\n')
_OPEN = {"(": ")", "[": "]", "{": "}"}
_CLOSE = {")": "(", "]": "[", "}": "{"}


def _code_length(line: str) -> int:
    """Length of ``line`` without its trailing comment (strings respected)."""
    for m in re.finditer(r'"(?:[^"\\]|\\.)*"?|#', line):
        if m.group() == "#":
            return m.start()
    return len(line)


def _unclosed(file: str, top: tuple, why: str):
    """The diagnostic for a bracket never closed, and its line."""
    b, bl, bc = top
    return error(
        f"unclosed `{b}`",
        Span.point(file, bl, bc),
        f"this `{b}` is never closed",
        code="E-syntax",
        help=f"add `{_OPEN[b]}` before the end of the line{why}",
    ), bl


def prescan(text: str, file: str, max_nesting: int, max_line: int):
    """Check limits and bracket/string structure.

    Raises at once for a limit (nesting, line length); returns the first
    structural problem as ``(StepError, line)``, not raised, or ``(None, None)``.
    """
    deferred = None
    deferred_line = None

    def hard(exc, line):
        if deferred is not None and deferred_line <= line:
            raise deferred
        raise exc

    # brackets and strings
    line = 1
    line_start = 0
    stack: list[tuple[str, int, int]] = []  # (bracket, line, col)
    for m in _SCAN.finditer(text):
        tok = m.group()
        col = m.start() - line_start + 1
        c = tok[0]
        if c == "\n":
            if stack and deferred is None:
                deferred, deferred_line = _unclosed(file, stack[-1],
                                                    " (an expression cannot continue on the next line)")
            stack.clear()
            line += 1
            line_start = m.end()
        elif c == '"':
            if m.group(1) is None and deferred is None:
                deferred = error(
                    "unterminated string",
                    Span.point(file, line, col),
                    "this string is never closed",
                    code="E-syntax",
                    help='close it with `"` on the same line (write `\\"` for a quote inside a string)',
                )
                deferred_line = line
        elif c == "#":
            continue
        elif c in _OPEN:
            stack.append((c, line, col))
            if len(stack) > max_nesting:
                hard(
                    error(
                        f"expression nested too deeply (more than {max_nesting} levels)",
                        Span.point(file, line, col),
                        f"bracket number {max_nesting + 1} opened here",
                        code="E-nesting",
                        help="split the expression with `define` or into several steps",
                    ),
                    line,
                )
        else:  # closing bracket
            if deferred is not None:
                continue
            if not stack:
                deferred = error(
                    f"unexpected `{c}`",
                    Span.point(file, line, col),
                    f"no `{_CLOSE[c]}` is open here",
                    code="E-syntax",
                    help=f"remove this `{c}` or add the missing `{_CLOSE[c]}` before it",
                )
                deferred_line = line
            elif stack[-1][0] != _CLOSE[c]:
                b, bl, bc = stack[-1]
                deferred = error(
                    f"mismatched `{c}`",
                    Span.point(file, line, col),
                    f"expected `{_OPEN[b]}` to close the `{b}` at column {bc}",
                    code="E-syntax",
                    help=f"the `{b}` at line {bl}, column {bc} is closed by `{_OPEN[b]}`",
                )
                deferred_line = line
            else:
                stack.pop()
    # line lengths
    for lineno, line in enumerate(text.split("\n"), 1):
        if len(line) > max_line and _code_length(line) > max_line:
            hard(error(
                f"statement too long (more than {max_line:,} characters)",
                Span.point(file, lineno, max_line + 1),
                "the limit is reached here",
                code="E-too-long",
                help="split the expression into several steps or definitions (`define`)",
            ), lineno)

    if stack and deferred is None:
        deferred, deferred_line = _unclosed(file, stack[-1], "")
    return deferred, deferred_line


# ============================================================ lark's errors


def from_lark(exc: UnexpectedInput, text: str, file: str, parser, deferred=(None, None)) -> StepError:
    """The diagnostic for lark's ``exc``, or the pre-scan's ``deferred`` one if it comes first.

    ``parser`` is the Lark object that raised ``exc``.
    """
    problem, problem_line = deferred
    if problem is not None and problem_line <= _error_line(exc):
        return problem
    if isinstance(exc, UnexpectedCharacters):
        return _char_error(exc, text, file)
    if isinstance(exc, UnexpectedToken):
        return _token_error(exc, text, file, parser)
    line = getattr(exc, "line", 1) or 1
    col = getattr(exc, "column", 1) or 1
    return error("syntax error", Span.point(file, line, col), code="E-syntax")


def _error_line(exc) -> int:
    tok = getattr(exc, "token", None)
    if tok is not None and getattr(tok, "line", None):
        return tok.line
    return getattr(exc, "line", None) or 10**9


# ------------------------------------------------------------ unexpected characters

_CHAR_HELP = {
    "'": 'strings are written in double quotes, like "text"',
    "_": "a name starts with a letter, and each `_` is followed by a letter or digit: write `q_i` or `q_{i}`",
    "\\": "`\\` is only used inside strings, as `\\\"` or `\\\\`",
    "!": "did you mean `!=` (not equal)?",
    "&": "several facts in one `assume` are separated by `,`",
}


def _char_help(ch: str) -> str:
    if ch in _CHAR_HELP:
        return _CHAR_HELP[ch]
    cat = unicodedata.category(ch)
    if cat.startswith("L"):
        return "names use ASCII and Greek letters only; other text belongs in a string in double quotes"
    if cat.startswith("C") or ch.isspace():
        return "remove this invisible character (the file may have been pasted from a word processor)"
    return "this character has no meaning in a `.step` file; operators are `+ - * / ^`, relations `= < <= > >= != ≈`"


def _char_error(exc, text: str, file: str) -> StepError:
    pos = exc.pos_in_stream
    ch = text[pos] if 0 <= pos < len(text) else ""
    if not ch:
        title = "unexpected character"
    elif ch.isprintable() and not ch.isspace():
        title = f"unexpected character '{ch}'"
    else:
        title = f"unexpected character U+{ord(ch):04X}"
    span = Span.point(file, exc.line, exc.column)
    return error(title, span, "not part of the `.step` language", help=_char_help(ch) if ch else None,
                 code="E-syntax")


# ------------------------------------------------------------ mistakes named by example

#: Mistakes recognised by lark's ``UnexpectedInput.match_examples``: each name,
#: with snippets that make the parser stop in the state the mistake leaves it in.
NAMED_EXAMPLES = {
    "step-colon": ["step s x"],  # `step NAME` not followed by `:`
    "refute-colon": ["refute r x"],
    "assume-colon": ["assume a x"],
    "let-colon": ["let x"],  # at the end of the line (`let x real` may also continue with `,`)
    "step-head-only": ["step s: A"],  # the first expression of a step, and no relation after it
}

_COLON_FORMS = {
    "step-colon": "step NAME: EXPR = EXPR",
    "refute-colon": "refute NAME: EXPR = EXPR",
    "assume-colon": "assume LABEL: FACT, FACT",
    "let-colon": "let NAME: TYPE",
}

# match_examples compares the depth of the parser's stack as well as its
# state, and a statement's states are one entry deeper after the first
# statement of a file: each example is also tried after a blank line.
_EXAMPLES = {name: [s for x in snippets for s in (x, "\n" + x)] for name, snippets in NAMED_EXAMPLES.items()}


def named_error(exc: UnexpectedToken, parser) -> str | None:
    """The name in :data:`NAMED_EXAMPLES` of the mistake ``exc`` is, or None (about 0.5 ms)."""
    return exc.match_examples(parser.parse, _EXAMPLES)


# ------------------------------------------------------------ unexpected tokens

_STATEMENT_KEYWORDS = frozenset(["derivation", "source", "use", "let", "random", "real", "define", "assume", "step",
                                 "refute", "check", "table", "simulate"])
_EXPR_START = {
    "NAME", "NUMBER", "(", "[", "|", "√", "-", "−", "Σ", "∑", "∏",
    "sqrt", "exp", "log", "ln", "tanh", "abs", "max", "min", "E", "Var", "Cov", "SD",
    "P", "softmax", "delta", "diff", "limit", "argmax", "sum", "prod", "∂", "DDX",
}
_OPERATORS = {"+", "*", "/", "^", "**", "·", "×", "⋅"}
_TOKEN_WORDS = {
    "NAME": "a name",
    "NUMBER": "a number",
    "STRING": "a string in double quotes",
    "_NL": "end of line",
    ";": "end of line",
    "$END": "end of input",
    "SUBNAME": None,  # only after softmax(...): not worth suggesting
}


@functools.lru_cache(maxsize=None)
def _terminal_values(parser) -> dict[str, str]:
    """Terminal name → its text (``EQUAL`` → ``=``); ``NAME`` for pattern terminals."""
    out = {t.name: (t.pattern.value if t.pattern.type == "str" else t.name) for t in parser.terminals}
    out["$END"] = "$END"
    return out


def _expected_words(ex: set[str]) -> list[str]:
    """At most five phrases for the expected terminals ``ex`` (given as text, ``NAME`` ...)."""
    words: list[str] = []
    exprish = "NAME" in ex and ("NUMBER" in ex or "(" in ex)
    stmt = len(ex & _STATEMENT_KEYWORDS) >= 3
    rest = []
    for v in sorted(ex, key=str):
        if v in RELATIONS or v in _OPERATORS or v in ("!=", "≠", "-", "−"):
            continue
        if exprish and v in _EXPR_START:
            continue
        if v in _EXPR_START and v != "NAME" and "NAME" in ex:
            continue  # keywords that may stand for a name in refs
        if stmt and v in _STATEMENT_KEYWORDS:
            continue
        if v in _TOKEN_WORDS:
            if _TOKEN_WORDS[v]:
                rest.append(_TOKEN_WORDS[v])
        elif v in ("}", ")", "]", ":", ",", "=", "..", "~", ".", "_{", "^", "{"):
            rest.insert(0, f"`{v}`")
        else:
            rest.append(f"`{v}`")
    if stmt:
        words.append("a statement such as `let`, `assume` or `step`")
    if exprish:
        words.append("an expression")
    if ex & RELATIONS.keys():
        words.append("a relation such as `=` or `<=`")
    words.extend(rest)
    if ex & _OPERATORS and len(words) < 4:
        words.append("an operator such as `+` or `*`")
    return list(dict.fromkeys(words))[:5]


def _join_or(words: list[str]) -> str:
    if len(words) == 1:
        return words[0]
    return ", ".join(words[:-1]) + " or " + words[-1]


def _line_text(text: str, line: int) -> str:
    lines = text.split("\n")
    return lines[line - 1] if 1 <= line <= len(lines) else ""


def _first_token_on_line(tok, text: str) -> bool:
    return _line_text(text, tok.line)[: max(tok.column - 1, 0)].strip() == ""


def _prev_word(text: str, line: int, col: int) -> str:
    m = re.search(r"([A-Za-z]+)\s*$", _line_text(text, line)[: max(col - 1, 0)])
    return m.group(1) if m else "f"


def _statement_keyword(text: str, line: int) -> str | None:
    """The keyword of the statement that line ``line`` belongs to (lines beginning with a relation continue one)."""
    lines = text.split("\n")
    i = line - 1
    while 0 <= i < len(lines):
        code = lines[i].split("#", 1)[0].strip()
        if code:
            if code[0] in "=<>≈~≤≥≠!":
                i -= 1
                continue
            word = re.match(r"[A-Za-z]+", code)
            return word.group() if word else None
        i -= 1
    return None


def _token_error(exc: UnexpectedToken, text: str, file: str, parser) -> StepError:
    tok = exc.token
    vals = _terminal_values(parser)
    ex = {vals.get(e, e) for e in exc.expected or ()}
    words = _expected_words(ex)
    help_text = f"expected {_join_or(words)}" if words else None
    value = str(tok)
    is_end = tok.type == "$END" or (tok.type == "_NL" and value == "")
    is_nl = tok.type == "_NL" and value != ""
    line = getattr(tok, "line", None) or 1
    col = getattr(tok, "column", None) or 1
    if is_end:
        title = "unexpected end of input"
        span = Span.point(file, line, col)
    elif is_nl:
        title = "unexpected end of line"
        span = Span.point(file, line, col)
    else:
        title = f"unexpected token '{value}'"
        span = Span(file, line, col, tok.end_line or line, tok.end_column or col + max(len(value), 1))
    label = ""
    named = named_error(exc, parser)

    # ---- mistakes named by example
    if named in _COLON_FORMS:
        label = "expected `:`"
        help_text = f"write `{_COLON_FORMS[named]}`, with a `:` after the name"
    elif named == "step-head-only" and (is_nl or is_end):
        # `step s: A` with no link; maybe the next line forgot its relation
        nxt_line = _line_text(text, line + 1)
        m = re.match(r"(\s+)(\S)", nxt_line)
        if m and not nxt_line.strip().startswith("#"):
            title = "expected a relation at the start of this line"
            span = Span.point(file, line + 1, len(m.group(1)) + 1)
            label = "a link begins with a relation"
            help_text = "each link of a chain begins with a relation such as `=`, `<=` or `≈`, e.g. `= E[X] E[Y]  by indep`"
        else:
            label = "this step has no link"
            help_text = "a step states a relation: write `step NAME: A = B`, or put links on the following lines, each beginning with a relation such as `=`"
    # ---- by the layout of the line, the token and the terminals lark expected
    elif (is_nl or is_end) and "NAME" in ex and "NUMBER" in ex:
        prev = _line_text(text, line)[: max(col - 1, 0)].rstrip()
        label = "an expression is missing here"
        if prev and prev.split()[-1] in RELATIONS:
            help_text = f"the relation `{prev.split()[-1]}` needs an expression after it"
        elif prev.endswith(","):
            help_text = "remove the trailing `,` or add what follows it"
        else:
            help_text = "expected an expression"
    elif value in RELATIONS and _first_token_on_line(tok, text):
        kw = _statement_keyword(text, line)
        label = "a line beginning with a relation continues a chain"
        if kw == "step":
            help_text = "this relation follows a `by` list or an expression that is not finished; check the line above"
        else:
            help_text = (
                "a line that begins with a relation continues the `step` above it, "
                f"but the statement above is {('a `' + kw + '`') if kw else 'not a step'}"
                + (" (a refutation has exactly one link)" if kw == "refute" else "")
            )
    elif value == "by" and _first_token_on_line(tok, text):
        label = "`by` cannot start a line"
        help_text = "write `by ...` on the same line as the link it justifies, e.g. `= B  by r`"
    elif _first_token_on_line(tok, text) and len(ex & _STATEMENT_KEYWORDS) >= 3:
        label = "a statement cannot start here"
        if _line_text(text, line)[:1].isspace() and _statement_keyword(text, line - 1) == "step":
            help_text = "a link line must begin with a relation such as `=` or `<=`; a new statement begins with a keyword such as `let`, `assume` or `step`"
        else:
            help_text = "a statement begins with a keyword: `derivation`, `source`, `use`, `let`, `random`, `real`, `define`, `assume`, `step`, `refute`, `check`, `table` or `simulate`"
    elif "NAME" in ex and tok.type != "NAME" and re.fullmatch(r"[A-Za-z]+", value):
        label = "this is a keyword"
        if value in _EXPR_START:
            help_text = f"`{value}` is a function keyword: write it with arguments, `{value}(...)`" + (
                "; it cannot be used as a name" if "NUMBER" not in ex else ""
            )
        else:
            help_text = f"`{value}` is a keyword of the language and cannot be used as a name; " + (help_text or "")
    elif value == "|":
        label = "`|x|` cannot follow another factor directly"
        help_text = "write `2 * |x|` or `2 abs(x)`"
    elif value == "∂" and "∂" not in ex:
        label = "a `∂` derivative cannot follow another factor directly"
        help_text = ("write `*` before it, `g_i * ∂w_i/∂a_j` (after `∂²f/∂x∂y` a next `∂` would continue the "
                     "variables below the bar); `y d/dx (x^2)` needs none")
    elif ex == {"_{"} or (
        tok.type == "SUBNAME" and re.search(r"(Σ|∑|∏|\bsum|\bprod)\s*$", _line_text(text, line)[: col - 1])
    ):
        help_text = "write a sum's range in braces: `Σ_{i=1}^{n} ...`, or `sum(i=1..n, ...)`"
    elif tok.type == "SUBNAME":
        help_text = f"a name cannot start with `_`; write the subscript right after its name, without a space: `q{value}`"
    elif ex == {"(", "["}:  # after a function keyword
        help_text = f"a function's arguments are written in brackets, e.g. `{_prev_word(text, line, col)}(x)`"
    elif value == "[":
        label = "a vector cannot follow another factor directly"
        help_text = "write `*` before the vector, or use `q[i]` right after a name for a subscript"
    elif value == "(" and not ({"NAME", "NUMBER"} & ex):
        help_text = (help_text or "") + "; only the fixed functions (`sqrt`, `exp`, `E`, `Var`, ...) take arguments"
    elif value == "by" and _statement_keyword(text, line) == "refute":
        help_text = "a refutation names what it assumes with `under`, not `by`"
    return error(title, span, label, help=help_text, code="E-syntax")
