"""Highlighting: the Pygments lexer and the VS Code TextMate grammar, over every shipped file."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

pygments = pytest.importorskip("pygments")
from pygments.lexers import get_lexer_by_name, get_lexer_for_filename  # noqa: E402
from pygments.token import Comment, Error, Keyword, Name, String  # noqa: E402

from stepcheck.highlight import StepLexer  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
SHIPPED = sorted({*REPO.glob("derivations/**/*.step"), *REPO.glob("tests/corpus/**/*.step"),
                  *REPO.glob("tests/hostile/**/*.step"), *REPO.glob("docs/**/*.step")})
GRAMMAR = json.loads((REPO / "editors" / "vscode" / "syntaxes" / "step.tmLanguage.json").read_text(encoding="utf-8"))
VAR_DOT = (REPO / "derivations" / "var_dot.step").read_text(encoding="utf-8")


def tokens(text):
    return [(t, v) for t, v in StepLexer().get_tokens(text) if v.strip()]


def test_registered_by_entry_point():
    assert isinstance(get_lexer_by_name("step"), StepLexer)
    assert isinstance(get_lexer_by_name("stepcheck"), StepLexer)
    assert isinstance(get_lexer_for_filename("x/var_dot.step"), StepLexer)


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.relative_to(REPO).as_posix())
def test_no_error_tokens_in_shipped_files(path):
    text = path.read_text(encoding="utf-8")
    bad = [v for t, v in StepLexer().get_tokens(text) if t in Error]
    assert bad == []
    labels = set(_tm_labels(text))
    assert labels == set(_pygments_labels(text))  # the two highlighters agree on what is a label


def test_token_types_on_var_dot():
    toks = tokens(VAR_DOT)
    kinds = {}
    for t, v in toks:
        kinds.setdefault(v, set()).add(t)
    assert kinds["assume"] == {Keyword.Declaration} and kinds["step"] == {Keyword.Declaration}
    assert Name.Label in kinds["indep"] and Name.Label in kinds["var_term"]  # defined and cited
    assert kinds["by"] == {Keyword}
    assert Keyword.Type in kinds["positive"] and Keyword.Type in kinds["integer"]
    assert kinds["Var"] == {Name.Builtin} and kinds["E"] == {Name.Builtin}
    assert Name in kinds["q_i"] and Name.Label not in kinds["q_i"]
    assert all(t in Comment for t, v in toks if v.startswith("#"))
    assert any(t in String for t, v in toks if v.startswith('"点积'))


def test_keywords_inside_names_are_names():
    toks = dict((v, t) for t, v in tokens("let baby, stepper, by_x: real\n"))
    assert toks["baby"] is Name and toks["stepper"] is Name and toks["by_x"] is Name
    assert toks["real"] is Keyword.Type


def test_condition_after_citations_is_not_a_label():
    toks = tokens("step s: x\n    = y  by h, g   for i != j\n")
    assert [v for t, v in toks if t is Name.Label] == ["s", "h", "g"]
    assert (Keyword, "for") in toks


def test_unknown_character_is_an_error_token():
    assert any(t in Error for t, v in StepLexer().get_tokens("let x: real @\n"))


# ------------------------------------------------------------------ the TextMate grammar


def _resolve(pattern):
    if "include" in pattern:
        return _resolve(GRAMMAR["repository"][pattern["include"][1:]])
    if "patterns" in pattern and "match" not in pattern and "begin" not in pattern:
        return [p for sub in pattern["patterns"] for p in _resolve(sub)]
    return [pattern]


def _compile(pattern):
    for key in ("match", "begin", "end"):
        if key in pattern and not isinstance(pattern.get(f"_{key}"), re.Pattern):
            pattern[f"_{key}"] = re.compile(pattern[key])
    return pattern


ROOT = [_compile(p) for sub in GRAMMAR["patterns"] for p in _resolve(sub)]


def tm_tokenize(line: str):
    """(text, scope) pieces of one line, TextMate style: at each point the earliest match wins (ties: the first
    pattern); a begin/end rule's own patterns apply until its end matches.  Unmatched text gets scope None."""
    out, pos, stack = [], 0, []
    while pos <= len(line):
        pats = stack[-1]["_inner"] if stack else ROOT
        best = None
        if stack:
            m = stack[-1]["_end"].search(line, pos)
            if m:
                best = (m.start(), -1, m, stack[-1])
        for k, p in enumerate(pats):
            m = p["_match" if "match" in p else "_begin"].search(line, pos)
            if m and (best is None or m.start() < best[0]):
                best = (m.start(), k, m, p)
        if best is None:
            if pos < len(line):
                out.append((line[pos:], None))
            break
        start, k, m, p = best
        if start > pos:
            out.append((line[pos:start], None))
        if k == -1:  # the end of the begin/end rule
            stack.pop()
            pos = m.end() if m.end() > start else start
            if m.end() == start and start == len(line):
                break
            continue
        if "begin" in p:
            out.append((m.group(0), p["beginCaptures"]["1"]["name"]))
            p["_inner"] = [_compile(q) for q in p["patterns"]]
            stack.append(p)
        elif "captures" in p:
            last = m.start()
            for g in sorted(p["captures"], key=int):
                s, e = m.span(int(g))
                if s > last:
                    out.append((line[last:s], None))
                out.append((line[s:e], p["captures"][g]["name"]))
                last = e
            if m.end() > last:
                out.append((line[last:m.end()], None))
        else:
            out.append((m.group(0), p["name"]))
        if m.end() == pos == start:
            pos += 1  # an empty match: move on
        else:
            pos = m.end()
    return out


def _tm_labels(text):
    for line in text.split("\n"):
        for piece, scope in tm_tokenize(line):
            if scope and (scope.startswith("entity.name.label") or scope.startswith("variable.other.label")):
                yield piece


def _pygments_labels(text):
    return [v for t, v in StepLexer().get_tokens(text) if t is Name.Label]


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.relative_to(REPO).as_posix())
def test_textmate_grammar_scopes_every_character(path):
    for n, line in enumerate(path.read_text(encoding="utf-8").split("\n"), 1):
        unscoped = [piece for piece, scope in tm_tokenize(line) if scope is None and piece.strip()]
        assert unscoped == [], f"line {n}: {line!r}"


def test_textmate_scopes_on_var_dot():
    scopes = {}
    for line in VAR_DOT.split("\n"):
        for piece, scope in tm_tokenize(line):
            if piece.strip():
                scopes.setdefault(piece.strip(), set()).add(scope)
    assert scopes["assume"] == {"keyword.other.statement.stepcheck"}
    assert scopes["indep"] == {"entity.name.label.stepcheck", "variable.other.label.stepcheck"}
    assert scopes["by"] == {"keyword.control.citation.stepcheck"}
    assert scopes["Var"] == {"support.function.stepcheck"}
    assert scopes["q_i"] == {"variable.other.stepcheck"}
    assert all(s == {"comment.line.number-sign.stepcheck"} for p, s in scopes.items() if p.startswith("#"))


def test_textmate_leaves_unknown_characters_unscoped():
    assert any("@" in piece for piece, scope in tm_tokenize("let x: real @") if scope is None)
    assert [s for p, s in tm_tokenize("by a, b  for i ≠ j") if p == "for"] == ["keyword.control.stepcheck"]
    assert tm_tokenize("# by indep") == [("# by indep", "comment.line.number-sign.stepcheck")]


def test_vscode_extension_files():
    ext = REPO / "editors" / "vscode"
    pkg = json.loads((ext / "package.json").read_text(encoding="utf-8"))
    assert pkg["contributes"]["grammars"][0]["path"] == "./syntaxes/step.tmLanguage.json"
    assert pkg["contributes"]["languages"][0]["extensions"] == [".step"]
    assert "vscode-languageclient" in pkg["dependencies"]
    json.loads((ext / "language-configuration.json").read_text(encoding="utf-8"))
    assert "stepcheck-lsp" in (ext / "extension.js").read_text(encoding="utf-8")
