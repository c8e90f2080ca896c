"""LaTeX display maths -> stepcheck's own expression tree -> ``.step`` text.

A small tokenizer and recursive-descent parser for the LaTeX found in
articles' display formulas.  It builds its own tree (tuples, see ``Node``),
never sympy objects, and never evaluates anything: the printer turns the tree
into ``.step`` expression syntax.  Anything it does not understand raises
:class:`LatexError` with the offset range of the offending piece, so that a
formula is imported completely or not at all.

Tree nodes are tuples ``(kind, ...)``:

    ("num", "2")  ("name", "d_k")  ("sub", base, [index, ...])  ("neg", x)
    ("add", a, b) ("subt", a, b)  ("mul", a, b, explicit)  ("div", a, b)
    ("pow", a, b)  ("T", a)  ("call", fname, [args])  ("E", x)
    ("sum", kind, var, lo, hi, body)  ("diff", f, x)  ("delta", i, j)
    ("abs", x)  ("vec", [items])
"""
from __future__ import annotations

from .importer_lex import (BAD_RELS, DOTS, FUNC_CMDS, FUNCS, GREEK, RELS, SEPS, SPACES, STEP_KEYWORDS,
                           TEXT_CMDS, LatexError, Tok, drop_boxed, expand, tokenize)
from .importer_print import free_names, to_step

__all__ = ["LatexError", "Parser", "free_names", "parse_formula", "to_step"]


def parse_formula(src: str, macros: dict | None = None) -> list[tuple]:
    """The parts of one display formula: a list of chains ``(first, [(rel, expr, offset), ...])``.

    ``first`` is None when the formula begins with a relation (it continues the chain before it).
    Parts are separated by ``,\\quad`` / ``\\qquad`` at the top level.
    """
    toks = expand(tokenize(src), macros or {})
    return Parser(toks, src).formula()


class Parser:
    def __init__(self, toks: list[Tok], src: str):
        kept, prev = [], None
        for t in toks:
            # `\left.` / `\right.`: the dot is no delimiter
            dot = t.kind == "sym" and t.text == "." and prev is not None and prev.kind == "cmd" \
                and prev.text in ("left", "right", "middle")
            prev = t
            if dot or (t.kind == "cmd" and t.text in SPACES) or (t.kind == "sym" and t.text == "&") \
                    or (t.kind == "cmd" and t.text == "\\"):
                continue
            kept.append(t)
        self.toks = drop_boxed(kept)
        self.i = 0
        self.src = src

    # ------------------------------------------------------------ helpers
    @property
    def tok(self) -> Tok:
        return self.toks[self.i]

    def peek(self, k: int = 1) -> Tok:
        return self.toks[min(self.i + k, len(self.toks) - 1)]

    def next(self) -> Tok:
        t = self.toks[self.i]
        self.i = min(self.i + 1, len(self.toks) - 1)
        return t

    def is_sym(self, s: str, t: Tok | None = None) -> bool:
        t = t or self.tok
        return t.kind == "sym" and t.text == s

    def is_cmd(self, *names: str, t: Tok | None = None) -> bool:
        t = t or self.tok
        return t.kind == "cmd" and t.text in names

    def fail(self, msg: str, t: Tok | None = None, end: int | None = None):
        t = t or self.tok
        raise LatexError(msg, t.start, end if end is not None else t.end)

    def expect_sym(self, s: str, opened: Tok | None = None):
        if not self.is_sym(s) and opened is not None and opened.text in "([" and self.is_sym(","):
            self.fail("a list in brackets (a tuple or a vector) cannot be imported here", opened, self.tok.end)
        if not self.is_sym(s) and opened is not None and self.rel() is not None:
            self.fail("a relation inside brackets (a condition) cannot be imported", opened, self.tok.end)
        if not self.is_sym(s):
            what = f"`{self.tok.text}`" if self.tok.kind != "eof" else "the end of the formula"
            extra = f" to close the `{opened.text}`" if opened else ""
            self.fail(f"expected `{s}`{extra}, found {what}")
        return self.next()

    def rel(self) -> str | None:
        t = self.tok
        if t.kind == "sym" and t.text in "=<>":
            return RELS[t.text]
        if t.kind == "cmd" and t.text in RELS:
            return RELS[t.text]
        return None

    # ------------------------------------------------------------ structure
    def formula(self) -> list[tuple]:
        parts = []
        while True:
            parts.append(self.chain())
            seps = 0
            while self.is_sym(",") or self.is_sym(";") or self.is_cmd(*SEPS):
                self.next()
                seps += 1
            if self.is_sym(".") and self.peek().kind == "eof":
                self.next()
            if self.tok.kind == "eof":
                return parts
            if not seps:
                self.unexpected()

    def unexpected(self):
        t = self.tok
        if t.kind == "cmd" and t.text in BAD_RELS:
            self.fail(f"the relation {BAD_RELS[t.text]} cannot be imported")
        if t.kind == "cmd" and t.text in DOTS:
            self.fail(f"`\\{t.text}` (an elided list or sum) has no .step form: write the sum as "
                      "\\sum_{i=1}^{n}")
        if t.kind == "eof":
            self.fail("the formula ends too early")
        self.fail(f"unexpected `{t.text if t.kind != 'cmd' else chr(92) + t.text}`")

    def chain(self):
        first = None
        if self.rel() is None:
            first = self.expr()
        links = []
        while (r := self.rel()) is not None:
            at = self.next().start
            links.append((r, self.expr(), at))
        return first, links

    # ------------------------------------------------------------ expressions
    def expr(self):
        if self.is_sym("-"):
            self.next()
            left = ("neg", self.term())
        else:
            if self.is_sym("+"):
                self.next()
            left = self.term()
        while self.is_sym("+") or self.is_sym("-"):
            op = self.next().text
            right = self.term()
            left = ("add", left, right) if op == "+" else ("subt", left, right)
        return left

    def starts_factor(self) -> bool:
        t = self.tok
        if t.kind in ("num", "letter"):
            return True
        if t.kind == "sym":
            return t.text in "([{"
        if t.kind == "cmd":
            return not (t.text in RELS or t.text in BAD_RELS or t.text in SEPS or t.text in DOTS
                        or t.text in ("cdot", "times", "div", "}", "rvert", "vert", "|", "rVert"))
        return False

    def term(self):
        left = self.unary()
        while True:
            if self.is_cmd("cdot", "times") or self.is_sym("*"):
                self.next()
                left = ("mul", left, self.unary(), True)
            elif self.is_sym("/") or self.is_cmd("div"):
                self.next()
                left = ("div", left, self.unary())
            elif self.starts_factor():
                left = ("mul", left, self.postfix(), False)
            else:
                return left

    def unary(self):
        if self.is_sym("-"):
            self.next()
            return ("neg", self.unary())
        return self.postfix()

    def postfix(self):
        node = self.atom()
        while True:
            if self.is_sym("^"):
                self.next()
                if self.is_transpose():
                    node = ("T", node)
                    continue
                if self.is_sym("'") or self.is_cmd("prime"):
                    self.fail("a prime in an exponent cannot be imported")
                expo = self.script()
                if expo == ("name", "T"):  # ^{\mathsf{T}}, ^{\mathrm T}: the transpose too
                    node = ("T", node)
                    continue
                node = ("call", "exp", [expo]) if node == ("name", "e") else ("pow", node, expo)
            elif self.is_sym("_"):
                at = self.next()
                idx = self.subscript()
                if node[0] == "name":
                    if node[1] == "δ":
                        if len(idx) != 2:
                            self.fail("a Kronecker delta needs two indices, as in \\delta_{ij}", at)
                        node = ("delta", idx[0], idx[1])
                    else:
                        node = ("sub", node, idx)
                elif node[0] == "call" and node[1] == "softmax":
                    node = ("sub", node, idx)
                else:
                    self.fail("a subscript here cannot be imported", at)
            elif self.is_sym("'"):
                t = self.next()
                if node[0] != "name":
                    self.fail("a prime here cannot be imported", t)
                node = ("name", node[1] + "_prime")
            elif self.is_sym("!"):
                self.fail("a factorial cannot be imported")
            else:
                return node

    def is_transpose(self) -> bool:
        """``^T``, ``^\\top``, ``^{T}``, ``^{\\top}`` (consumed when true)."""
        def is_t(u):
            return (u.kind == "letter" and u.text == "T") or (u.kind == "cmd" and u.text in ("top", "intercal"))
        if is_t(self.tok):
            self.next()
            return True
        if self.is_sym("{") and is_t(self.peek()) and self.is_sym("}", self.peek(2)):
            self.i += 3
            return True
        return False

    def script(self):
        """The argument of `^`: a group or one token."""
        if self.tok.kind == "letter":
            return ("name", self.next().text)
        if self.is_sym("-"):
            self.next()
            return ("neg", self.script())
        return self.group_or_token()

    def subscript(self) -> list:
        """The indices of `_`: `_i`, `_1`, `_{i}`, `_{ij}` (two indices), `_{i,j}`, `_{\\text{model}}` (a name)."""
        if self.is_sym("{"):
            o = self.next()
            if self.is_cmd(*TEXT_CMDS):
                word = self.text_arg()
                self.expect_sym("}", o)
                return [("word", word)]
            letters = []
            k = self.i
            while self.toks[k].kind == "letter":
                letters.append(self.toks[k])
                k += 1
            if len(letters) >= 2 and self.is_sym("}", self.toks[k]) and \
                    not any(t.space for t in letters[1:]) and len(letters) <= 3:
                self.i = k + 1
                return [("name", t.text) for t in letters]
            items = [self.expr()]
            while self.is_sym(","):
                self.next()
                items.append(self.expr())
            self.expect_sym("}", o)
            return items
        if self.tok.kind == "num":
            t = self.next()
            if len(t.text) > 1:  # x_12 is x_1 followed by 2 in TeX
                self.fail("write a subscript of several digits in braces", t)
            return [("num", t.text)]
        if self.tok.kind == "letter":
            return [("name", self.next().text)]
        if self.tok.kind == "cmd" and self.tok.text in GREEK:
            return [("name", GREEK[self.next().text])]
        self.fail("a subscript must be a letter, a digit or a braced group")

    def group_or_token(self):
        if self.is_sym("{"):
            o = self.next()
            e = self.expr()
            self.expect_sym("}", o)
            return e
        if self.tok.kind == "num":
            return self.one_digit()
        return self.atom()

    def one_digit(self):
        """A TeX argument without braces is one token: ``x^23`` is x² times 3, ``\\frac12`` is 1/2."""
        t = self.tok
        if len(t.text) == 1:
            self.next()
            return ("num", t.text)
        self.toks[self.i] = Tok("num", t.text[1:], t.start + 1, t.end, False)
        return ("num", t.text[0])

    def text_arg(self) -> str:
        """The letters of ``\\text{...}`` / ``\\operatorname{...}`` (a word or an identifier)."""
        cmd = self.next()
        if not self.is_sym("{"):
            if self.tok.kind == "letter":
                return self.next().text
            self.fail(f"`\\{cmd.text}` needs a braced argument")
        o = self.next()
        word, start = "", self.tok.start
        while not self.is_sym("}"):
            t = self.tok
            if t.kind == "eof":
                self.fail(f"unclosed `\\{cmd.text}{{`", o)
            if t.kind in ("letter", "num") or (t.kind == "cmd" and t.text == "_") or self.is_sym("_"):
                word += "_" if t.text == "_" else t.text
            else:
                self.fail(f"the text `{self.src[start:self.tok.end]}...` is prose, not a name", cmd, t.end)
            self.next()
        end = self.tok.end
        self.next()
        if not word or not (word[0].isascii() and word[0].isalpha()) or not word.replace("_", "").isalnum() \
                or not word.isascii():
            raise LatexError(f"the text `{self.src[o.end:end - 1]}` is prose, not a name", cmd.start, end)
        return word

    # ------------------------------------------------------------ atoms
    def atom(self):
        t = self.tok
        if t.kind == "num":
            self.next()
            return ("num", t.text)
        if t.kind == "letter":
            return self.word()
        if t.kind == "sym":
            if t.text in "([":
                self.next()
                if t.text == "[" and self.is_vector_start():
                    return self.vector(t)
                e = self.expr()
                if t.text == "[" and self.is_sym(","):
                    self.fail("a vector cannot be imported here", t)
                self.expect_sym(")" if t.text == "(" else "]", t)
                return e
            if t.text == "{":
                self.next()
                e = self.expr()
                self.expect_sym("}", t)
                return e
            if t.text == "|":
                self.next()
                e = self.expr()
                self.expect_sym("|", t)
                return ("abs", e)
            self.unexpected()
        if t.kind == "cmd":
            return self.command()
        self.unexpected()

    def is_vector_start(self) -> bool:
        depth, k = 0, self.i
        while self.toks[k].kind != "eof":
            u = self.toks[k]
            if u.kind == "sym" and u.text in "([{":
                depth += 1
            elif u.kind == "sym" and u.text in ")]}":
                if depth == 0:
                    return False
                depth -= 1
            elif depth == 0 and u.kind == "sym" and u.text == ",":
                return True
            k += 1
        return False

    def vector(self, open_tok):
        items = [self.expr()]
        while self.is_sym(","):
            self.next()
            items.append(self.expr())
        self.expect_sym("]", open_tok)
        return ("vec", items)

    def word(self):
        """A run of letters: a function word (``Var``, ``E``, ``softmax``) or single-letter names."""
        k, run = self.i, ""
        while self.toks[k].kind == "letter" and (k == self.i or not self.toks[k].space):
            run += self.toks[k].text
            k += 1
        for length in range(len(run), 0, -1):
            w = run[:length]
            if w in FUNCS and (length > 1 or self.is_call_open(self.toks[self.i + 1])):
                if length == 1 or self.is_call_open(self.toks[self.i + length]) or w in ("exp", "log", "ln"):
                    first = self.tok
                    self.i += length
                    return self.apply(FUNCS[w], first)
            if length == 1:
                break
        t = self.next()
        if t.text in STEP_KEYWORDS:  # E, P: words of the language, never names
            self.fail(f"`{t.text}` without an argument in brackets cannot be imported", t)
        return ("name", t.text)

    def is_call_open(self, t: Tok) -> bool:
        return (t.kind == "sym" and t.text in "([") or (t.kind == "cmd" and t.text == "left")

    def apply(self, fname: str, at: Tok):
        """A function applied: ``Var(X)``, ``E[X]``, ``\\log x``, ``softmax(z)``."""
        if self.is_sym("(") or self.is_sym("["):
            o = self.next()
            if fname == "softmax" and o.text == "(" and self.is_sym("["):
                v = self.next()
                args = [self.vector(v)]
            else:
                args = [self.expr()]
                while self.is_sym(","):
                    self.next()
                    args.append(self.expr())
            self.expect_sym(")" if o.text == "(" else "]", o)
        elif fname in ("exp", "log", "tanh"):
            args = [self.postfix()]
        else:
            self.fail(f"`{fname}` without an argument in brackets cannot be imported", at)
        if fname == "E":
            if len(args) != 1:
                self.fail("E[...] takes one argument", at)
            return ("E", args[0])
        return ("call", fname, args)

    def command(self):
        t = self.next()
        name = t.text
        if name in ("mathbb", "mathbf", "boldsymbol", "bm", "mathcal", "mathscr"):
            if self.is_sym("{") and self.peek().kind == "letter" and self.is_sym("}", self.peek(2)):
                letter = self.peek().text
                self.i += 3
            elif self.tok.kind == "letter":
                letter = self.next().text
            else:
                self.fail(f"`\\{name}` needs one letter", t)
            if name == "mathbb" and letter == "E":
                return self.apply("E", t)
            if name in ("mathbf", "boldsymbol", "bm"):
                return ("name", letter)
            raise LatexError(f"`\\{name}{{{letter}}}` (a set or a law) cannot be imported", t.start, self.tok.start)
        if name in TEXT_CMDS:
            self.i -= 1
            word = self.text_arg()
            if word in FUNCS and self.is_call_open(self.tok):
                return self.apply(FUNCS[word], t)
            if word in ("softmax",):
                self.fail("softmax needs an argument in brackets", t)
            if self.is_sym("(") and not self.tok.space:
                raise LatexError(f"`{word}` is not a function stepcheck knows (E, Var, Cov, SD, P, softmax, "
                                 "exp, log, sqrt, tanh, max, min)", t.start, self.tok.start)
            if word in STEP_KEYWORDS or word in FUNCS:
                raise LatexError(f"`{word}` without an argument in brackets cannot be imported", t.start,
                                 self.tok.start)
            return ("name", word)
        if name in FUNC_CMDS:
            if name == "sqrt":
                if self.is_sym("["):
                    self.fail("a root other than the square root cannot be imported", t)
                return ("call", "sqrt", [self.group_or_token()])
            return self.apply(FUNC_CMDS[name], t)
        if name in ("frac", "dfrac", "tfrac"):
            if self.is_sym("{") and self.is_cmd("partial", t=self.peek()):
                return self.partial(t)
            num = self.group_or_token()
            den = self.group_or_token()
            return ("div", num, den)
        if name in ("sum", "prod"):
            return self.bigop(t)
        if name in GREEK:
            return ("name", GREEK[name])
        if name == "pi":
            return ("name", "pi")
        if name == "infty":
            return ("name", "oo")
        if name in ("lvert", "vert", "|", "lVert"):
            e = self.expr()
            if not self.is_cmd("rvert", "vert", "|", "rVert"):
                self.fail("expected the closing `|`", t)
            self.next()
            return ("abs", e)
        if name in ("{",):
            e = self.expr()
            if not self.is_cmd("}"):
                self.fail("expected `\\}`", t)
            self.next()
            return e
        if name == "partial":
            self.fail("`\\partial` is imported only as \\frac{\\partial f}{\\partial x}", t)
        self.i -= 1
        self.unexpected()

    def bigop(self, t: Tok):
        var = lo = hi = None
        if self.is_sym("_"):
            self.next()
            o = self.expect_sym("{")
            if self.tok.kind != "letter":
                self.fail("the index of a sum must be a letter: \\sum_{i=1}^{n}", t)
            var = self.next().text
            self.expect_sym("=")
            lo = self.expr()
            self.expect_sym("}", o)
        if self.is_sym("^"):
            self.next()
            hi = self.script()
        if var is None or hi is None:
            raise LatexError(f"a `\\{t.text}` needs both bounds, as in \\{t.text}_{{i=1}}^{{n}}", t.start,
                             self.tok.start)
        body = self.term()
        return ("sum", t.text, var, lo, hi, body)

    def partial(self, t: Tok):
        """``\\frac{\\partial f}{\\partial x}`` and ``\\frac{\\partial}{\\partial x} f``."""
        o = self.next()
        self.next()  # \partial
        f = None if self.is_sym("}") else self.expr()
        self.expect_sym("}", o)
        o2 = self.expect_sym("{")
        if not self.is_cmd("partial"):
            self.fail("expected `\\partial` in the denominator", t)
        self.next()
        x = self.postfix()
        self.expect_sym("}", o2)
        if f is None:
            f = self.postfix()
        return ("diff", f, x)
