"""The table of diagnostic codes (``stepcheck.codes``) is complete and true.

* every code literal in the package is in the table, and every entry of the
  table is emitted somewhere (or marked reserved, with a reason);
* every ``.step`` example in the table produces its code, and the codes that
  no ``.step`` text can produce are produced by the trigger they document;
* ``verify --explain`` prints the table's explanations;
* docs/diagnostics.md is the table, regenerated.
"""
from __future__ import annotations

import ast
import json
import os
import re
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from stepcheck import cli, codes
from stepcheck.errors import StepError, check_code, error

ROOT = Path(__file__).resolve().parents[1]
PKG = ROOT / "src" / "stepcheck"
SRC = str(ROOT / "src")
# tooling, not the product (on its way out of the package to benchmarks/): its codes are not shipped
NOT_PRODUCT = {"mutate.py"}
CODE_RE = re.compile(r"^[EWN]-[a-z0-9]+(?:-[a-z0-9]+)*$")
ENTRIES = list(codes.CODES.values())

# ------------------------------------------------------------------ the source scan


def _strings(node):
    """The string constants an expression can evaluate to (``"E-a" if strict else "W-a"``, tuples, ...)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        yield node.value
    elif isinstance(node, ast.IfExp):
        yield from _strings(node.body)
        yield from _strings(node.orelse)
    elif isinstance(node, ast.BoolOp):
        for v in node.values:
            yield from _strings(v)
    elif isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        for v in node.elts:
            yield from _strings(v)


def _mentions_code(node) -> bool:
    """Whether an expression reads a ``.code`` attribute (``d.code``, ``(d.code or "")``)."""
    return any(isinstance(n, ast.Attribute) and n.attr == "code" for n in ast.walk(node))


def _func_name(call: ast.Call) -> str | None:
    f = call.func
    return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None


def scan():
    """What the package's source says about codes.

    Returns ``emitted`` (code -> places: ``code=`` arguments, the 7th argument
    of ``Diagnostic(...)``, ``{"code": ...}`` entries), ``mentioned`` (every
    other string that is a code: comparisons with ``.code``, constants of the
    form ``E-word``), ``prefixes`` (``.code.startswith(...)`` and
    ``... in d.code`` tests) and ``severities`` ((code, severity, place) when
    both are written as literals at one call), and ``dynamic``: places where
    a code is built at run time (an f-string, ``+``, ``.format``), which the
    table cannot be checked against.
    """
    emitted, mentioned, prefixes, severities, dynamic = {}, {}, {}, [], []
    for path in sorted(PKG.rglob("*.py")):
        if path.name in NOT_PRODUCT:
            continue
        rel = path.relative_to(ROOT).as_posix()
        tree = ast.parse(path.read_text(encoding="utf-8"), rel)
        partial: set[int] = set()  # constants that are prefixes or substrings, not whole codes
        for node in ast.walk(tree):
            where = f"{rel}:{getattr(node, 'lineno', 0)}"
            if isinstance(node, ast.Call):
                found = []
                for kw in node.keywords:
                    if kw.arg == "code":
                        found += list(_strings(kw.value))
                        if any(isinstance(n, (ast.JoinedStr, ast.BinOp)) or
                               (isinstance(n, ast.Attribute) and n.attr == "format") for n in ast.walk(kw.value)):
                            dynamic.append(where)
                name = _func_name(node)
                if name == "Diagnostic" and len(node.args) >= 7:
                    found += list(_strings(node.args[6]))
                for c in found:
                    emitted.setdefault(c, []).append(where)
                if len(found) == 1:
                    if name == "error":
                        severities.append((found[0], "error", where))
                    elif name == "Diagnostic" and node.args and isinstance(node.args[0], ast.Constant):
                        severities.append((found[0], node.args[0].value, where))
                if (isinstance(node.func, ast.Attribute) and node.func.attr in ("startswith", "endswith")
                        and _mentions_code(node.func.value)):
                    for a in node.args:
                        for s in _strings(a):
                            prefixes.setdefault(s, []).append(where)
                        partial.update(id(n) for n in ast.walk(a))
            elif isinstance(node, ast.Dict):
                for k, v in zip(node.keys, node.values):
                    if isinstance(k, ast.Constant) and k.value == "code":
                        for c in _strings(v):
                            emitted.setdefault(c, []).append(where)
            elif isinstance(node, ast.Compare) and _mentions_code(node):
                sides = [node.left, *node.comparators]
                for op, left, right in zip(node.ops, sides, sides[1:]):
                    if isinstance(op, (ast.In, ast.NotIn)) and _mentions_code(right):
                        for s in _strings(left):  # "unneeded" in (d.code or "")
                            prefixes.setdefault(s, []).append(where)
                        partial.update(id(n) for n in ast.walk(left))
                    else:
                        for side in (left, right):
                            for s in _strings(side):
                                mentioned.setdefault(s, []).append(where)
        for node in ast.walk(tree):
            if (isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in partial
                    and CODE_RE.match(node.value)):
                mentioned.setdefault(node.value, []).append(f"{rel}:{node.lineno}")
    return emitted, mentioned, prefixes, severities, dynamic


EMITTED, MENTIONED, PREFIXES, SEVERITIES, DYNAMIC = scan()


def test_the_scan_finds_the_codes():
    # the scan itself works: the well-known codes are found where they are emitted
    assert {"E-syntax", "E-fails", "W-unneeded", "E-unneeded", "E-input-not-found"} <= set(EMITTED)
    assert len(EMITTED) >= 45


def test_codes_are_literals():
    assert not DYNAMIC, f"write diagnostic codes as string literals, so that they can be checked: {DYNAMIC}"


def test_every_emitted_code_is_documented():
    missing = {c: w for c, w in EMITTED.items() if c not in codes.CODES}
    assert not missing, f"codes emitted but not in src/stepcheck/codes.py: {missing}"


def test_every_code_mentioned_is_documented():
    missing = {c: w for c, w in MENTIONED.items() if c not in codes.CODES}
    assert not missing, f"code strings in the source that are not in src/stepcheck/codes.py: {missing}"


def test_code_prefixes_match_codes():
    for p, where in PREFIXES.items():
        assert any(p in c for c in codes.CODES), f"{where}: {p!r} matches no documented code"


def test_every_documented_code_is_emitted_or_reserved():
    stale = [c.code for c in ENTRIES if c.code not in EMITTED and not c.reserved]
    assert not stale, f"documented but emitted nowhere (remove them, or give `reserved=` a reason): {stale}"
    revived = [c.code for c in ENTRIES if c.code in EMITTED and c.reserved]
    assert not revived, f"marked reserved but emitted (drop `reserved=`): {revived}"


def test_severities_agree_with_the_table():
    wrong = [(c, sev, codes.CODES[c].severity, w) for c, sev, w in SEVERITIES
             if c in codes.CODES and codes.CODES[c].severity != sev]
    assert not wrong


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda c: c.code)
def test_entry_is_well_formed(entry):
    assert CODE_RE.match(entry.code)
    assert codes.SEVERITIES[entry.code[0]] == entry.severity
    assert entry.group in {g[0] for g in codes.GROUPS}
    assert entry.title and "\n" not in entry.title
    assert len(entry.explanation) > 60 and entry.fix
    assert entry.example is not None or entry.trigger, "give a .step example, or say how it is produced"
    if entry.reserved is not None:
        assert len(entry.reserved) > 10, "say why the code is reserved"


def test_undocumented_code_is_refused():
    with pytest.raises(ValueError, match="E-not-a-code"):
        error("something", None, code="E-not-a-code")
    with pytest.raises(ValueError):
        check_code("E-Fails")
    assert isinstance(error("fine", None, code="E-fails"), StepError)
    assert error("no code", None).diagnostic.code is None


# ------------------------------------------------------------------ the examples


def _codes(rep):
    """(code, severity) of every diagnostic of a report: file-level and per link."""
    out = [(d.code, d.severity) for d in rep.diagnostics]
    for s in rep.steps:
        for lr in s.links:
            out += [(d.code, d.severity) for d in lr.diagnostics]
    return out


@pytest.mark.parametrize("entry", [c for c in ENTRIES if c.example is not None], ids=lambda c: c.code)
def test_example_produces_its_code(entry):
    from stepcheck.checker import check_text

    rep = check_text(entry.example, f"{entry.code}.step", strict=entry.strict)
    got = _codes(rep)
    assert (entry.code, entry.severity) in got, f"the example of {entry.code} gives {got}"


def _cli_json_codes(capsys, *args):
    cli.main(["--json", *map(str, args)])
    data = json.loads(capsys.readouterr().out)
    return [d["code"] for f in data["files"] for d in f["diagnostics"]]


def _file_codes(path):
    from stepcheck.checker import check_file

    return [c for c, _ in _codes(check_file(str(path)))]


def _text_codes(text):
    from stepcheck.checker import check_text

    return [c for c, _ in _codes(check_text(text))]


def _socket_codes(tmp_path):
    if not hasattr(socket, "AF_UNIX"):
        pytest.skip("no unix sockets here")
    path = tmp_path / "s.step"
    with socket.socket(socket.AF_UNIX) as s:
        try:
            s.bind(str(path))
        except OSError:
            pytest.skip("cannot bind a unix socket here")
        return _file_codes(path)


def _claim_codes():
    from stepcheck.api import ClaimError, check

    with pytest.raises(ClaimError) as e:
        check("")
    return [d.code for d in e.value.diagnostics]


# the codes no .step text produces, produced as their `trigger` says
TRIGGERS = {
    "E-cannot-read": lambda tmp, capsys: _cli_json_codes(capsys, tmp / "no" / "such" / "file.step"),
    "E-input-not-found": lambda tmp, capsys: _file_codes(tmp / "no" / "such" / "file.step"),
    "E-input-directory": lambda tmp, capsys: _file_codes(tmp),
    "E-input-unreadable": lambda tmp, capsys: _socket_codes(tmp),
    "E-input-binary": lambda tmp, capsys: (
        (tmp / "latin1.step").write_bytes("# caf\u00e9\nlet x: real\n".encode("latin-1")),
        _file_codes(tmp / "latin1.step"))[1],
    "E-input-too-large": lambda tmp, capsys: _text_codes("#" * 1_000_001),
    "E-nesting": lambda tmp, capsys: _text_codes("let x: real\nstep s: " + "(" * 201 + "x" + ")" * 201 + " = x\n"),
    "E-too-long": lambda tmp, capsys: _text_codes("let x: real\nstep s: " + "x + " * 5001 + "x = 5002 x\n"),
    "E-claim-empty": lambda tmp, capsys: _claim_codes(),
}
# the codes that only a bug in stepcheck (or a syntax tree not made by the parser) produces
UNREACHABLE = {c.code for c in ENTRIES if c.example is None and c.trigger
               and c.trigger.startswith(("none known", "not reachable"))}


def test_every_code_has_a_checked_example_or_trigger():
    without = {c.code for c in ENTRIES if c.example is None}
    assert without == set(TRIGGERS) | UNREACHABLE
    assert not set(TRIGGERS) & UNREACHABLE
    assert UNREACHABLE <= {"E-type", "E-number", "E-internal-parser", "E-internal-soundness", "W-cross-check",
                           "E-claim"}, "a new code no test produces: give it an example or a trigger here"


@pytest.mark.parametrize("code", sorted(TRIGGERS))
def test_trigger_produces_its_code(code, tmp_path, capsys):
    assert code in TRIGGERS[code](tmp_path, capsys)


def test_binary_input_is_e_input_binary(tmp_path):
    (tmp_path / "nul.step").write_bytes(b"let x: real\x00\n")
    assert _file_codes(tmp_path / "nul.step") == ["E-input-binary"]


# ------------------------------------------------------------------ verify --explain


def test_explain_prints_the_explanation(capsys):
    assert cli.main(["--explain", "E-cites-too-little"]) == 0
    out = capsys.readouterr().out
    entry = codes.CODES["E-cites-too-little"]
    assert out == codes.explain("E-cites-too-little")
    assert out.startswith("E-cites-too-little (error): this step cites too little\n")
    for line in entry.example.splitlines():
        assert "    " + line in out
    assert "How to fix it" in out and "docs/diagnostics.md#e-cites-too-little" in out


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda c: c.code)
def test_explain_every_code(entry, capsys):
    assert cli.main(["--explain", entry.code]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"{entry.code} ({entry.severity}): {entry.title}\n")
    assert entry.explanation.split()[0] in out and "How to fix it" in out


def test_explain_is_forgiving_about_spelling(capsys):
    assert cli.main(["--explain", "e-fails"]) == 0
    assert capsys.readouterr().out == codes.explain("E-fails")
    assert cli.main(["--explain", "cites-too-little"]) == 0  # without its prefix, when that is unique
    assert capsys.readouterr().out == codes.explain("E-cites-too-little")


def test_explain_unknown_code_suggests_the_closest(capsys):
    assert cli.main(["--explain", "E-fials"]) == 2
    cap = capsys.readouterr()
    assert cap.out == ""
    assert "no diagnostic code `E-fials`" in cap.err and "did you mean `E-fails`?" in cap.err
    assert "--explain list" in cap.err
    assert cli.main(["--explain", "unneeded"]) == 2  # ambiguous: both are offered
    err = capsys.readouterr().err
    assert "`E-unneeded`" in err and "`W-unneeded`" in err
    assert cli.main(["--explain", "qqqq"]) == 2
    assert "did you mean" not in capsys.readouterr().err


@pytest.mark.parametrize("args", [["--explain"], ["--explain", "list"]])
def test_explain_lists_every_code(args, capsys):
    assert cli.main(args) == 0
    out = capsys.readouterr().out
    for c in ENTRIES:
        assert re.search(rf"^  {re.escape(c.code)} +{c.severity} +{re.escape(c.title)}$", out, re.M), c.code


def test_explain_needs_no_input_and_ignores_it(capsys, tmp_path):
    # no FILE needed; a FILE given anyway is not checked
    assert cli.main([str(tmp_path / "missing.step"), "--explain", "W-empty"]) == 0
    assert capsys.readouterr().out == codes.explain("W-empty")


def test_explain_loads_neither_sympy_nor_lark():
    code = ("import sys\nfrom stepcheck import cli\nrc = cli.main(['--explain', 'E-fails'])\n"
            "heavy = sorted(m for m in ('sympy', 'lark', 'numpy') if m in sys.modules)\n"
            "assert rc == 0 and not heavy, heavy\n")
    env = dict(os.environ, PYTHONPATH=SRC + os.pathsep + os.environ.get("PYTHONPATH", ""))
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("E-fails (error)")


def test_codes_module_imports_only_the_standard_library():
    tree = ast.parse((PKG / "codes.py").read_text(encoding="utf-8"))
    imported = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    imported |= {n.module.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.level == 0}
    assert not any(isinstance(n, ast.ImportFrom) and n.level for n in ast.walk(tree)), "no package imports"
    assert imported <= set(sys.stdlib_module_names) | {"__future__"}, imported


# ------------------------------------------------------------------ docs/diagnostics.md


def test_diagnostics_doc_is_up_to_date():
    doc = (ROOT / codes.DOC_PATH).read_text(encoding="utf-8")
    assert doc == codes.markdown(), "docs/diagnostics.md is out of date: run python scripts/gen_diagnostics.py"


def test_gen_diagnostics_check_mode():
    r = subprocess.run([sys.executable, str(ROOT / "scripts" / "gen_diagnostics.py"), "--check"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr


def test_diagnostics_doc_documents_every_code():
    doc = (ROOT / codes.DOC_PATH).read_text(encoding="utf-8")
    for c in ENTRIES:
        assert f'<a id="{codes.anchor(c.code)}"></a>' in doc
        assert f"### `{c.code}`: {c.title}" in doc


def test_readme_links_the_diagnostics_doc():
    assert "(docs/diagnostics.md)" in (ROOT / "README.md").read_text(encoding="utf-8")
