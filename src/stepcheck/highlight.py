"""A Pygments lexer for ``.step`` files.

Registered by the ``pygments.lexers`` entry point (``step``), so Sphinx,
mkdocs and any Pygments user highlight fenced blocks marked ``step`` or
``stepcheck`` once stepcheck is installed::

    pygmentize -l step derivations/var_dot.step

Token types: statement keywords are ``Keyword.Declaration``; the label a
statement defines (``assume indep:``, ``step var_sum:``) and the labels cited
after ``by`` / ``under`` are ``Name.Label``; types are ``Keyword.Type``;
operators such as ``E``, ``Var``, ``sqrt`` are ``Name.Builtin``; comments
``Comment.Single``.  The keyword lists follow ``grammar/step.lark``.
"""
from __future__ import annotations

from pygments.lexer import RegexLexer, bygroups, default, words
from pygments.token import Comment, Keyword, Name, Number, Operator, Punctuation, String, Whitespace

__all__ = ["StepLexer"]

STATEMENTS = ("derivation", "source", "use", "let", "random", "real", "define", "assume", "step", "refute", "check",
              "table", "simulate")
KEYWORDS = ("by", "under", "for", "in", "within", "relative", "where", "with", "independent", "uncorrelated", "def")
TYPES = ("positive", "nonnegative", "integer", "real", "index", "matrix")
BUILTINS = ("E", "Var", "Cov", "SD", "P", "sqrt", "exp", "log", "ln", "tanh", "abs", "max", "min", "softmax", "diff",
            "limit", "argmax", "argmin", "sum", "prod", "delta", "Normal", "Rademacher", "Bernoulli", "Uniform",
            "DiscreteUniform", "Binomial", "Cauchy", "StudentT",
            "oo", "float16", "float32", "float64")
_ID = r"[^\W\d][\w']*"


class StepLexer(RegexLexer):
    """The stepcheck derivation language (``.step``)."""

    name = "stepcheck"
    aliases = ["step", "stepcheck"]
    filenames = ["*.step"]
    mimetypes = ["text/x-stepcheck"]
    url = "https://github.com/stepcheck/stepcheck"

    tokens = {
        "root": [
            (r"\n", Whitespace),
            (r"[ \t\f\r\u00a0]+", Whitespace),
            (r"#[^\n]*", Comment.Single),
            (r'"([^"\\\n]|\\.)*"', String.Double),
            # statements that define a label
            (r"(?<![\w.'])(derivation)([ \t]+)(" + _ID + ")",
             bygroups(Keyword.Declaration, Whitespace, Name.Namespace)),
            (r"(?<![\w.'])(assume|step|refute|simulate)([ \t]+)(" + _ID + r")(\s*)(:)",
             bygroups(Keyword.Declaration, Whitespace, Name.Label, Whitespace, Punctuation)),
            (r"(?<![\w.'])(check)([ \t]+)(" + _ID + r")(\s*)(:)",
             bygroups(Keyword.Declaration, Whitespace, Name.Label, Whitespace, Punctuation)),
            (r"(?<![\w.'])(define)([ \t]+)(" + _ID + ")", bygroups(Keyword.Declaration, Whitespace, Name.Function)),
            (r"^real(?![\w'])", Keyword.Declaration),  # the `real x, y` statement; elsewhere a type
            (r"(?<![\w.'])(by|under)(?![\w'])", Keyword, "refs"),
            (words(TYPES, prefix=r"(?<![\w.'])", suffix=r"(?![\w'])"), Keyword.Type),
            (words(STATEMENTS, prefix=r"(?<![\w.'])", suffix=r"(?![\w'])"), Keyword.Declaration),
            (words(KEYWORDS, prefix=r"(?<![\w.'])", suffix=r"(?![\w'])"), Keyword),
            (words(BUILTINS, prefix=r"(?<![\w.'])", suffix=r"(?![\w'])"), Name.Builtin),
            (r"d/d" + _ID, Name.Builtin),
            (r"[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?", Number),
            (r"[⁻]?[⁰¹²³⁴⁵⁶⁷⁸⁹]+", Number),
            (r"∞", Number),
            (_ID, Name),
            (r"<=|>=|!=|~=|->|\*\*|\.\.|[=<>≤≥≠≈~⟂→+\-−*/^·×√Σ∂|!]", Operator),
            (r"[()\[\]{},:;_.]", Punctuation),
        ],
        "refs": [
            (r"[ \t\f\r\u00a0]+", Whitespace),
            (r"def(?![\w'])", Keyword),
            (r"(?=for(?![\w']))", Whitespace, "#pop"),  # `... by r  for i != j`: the chain's condition
            (r"[^\W\d][\w.']*", Name.Label),
            (r",", Punctuation),
            default("#pop"),
        ],
    }
