"""The language server, end to end: a real LSP client (pytest-lsp) drives
``python -m stepcheck.lsp`` over stdio.  One server serves the whole module;
every test opens its own document URI."""
from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path

import pytest

pytest_lsp = pytest.importorskip("pytest_lsp")
from lsprotocol import types as T  # noqa: E402
from pytest_lsp import ClientServerConfig, LanguageClient  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
VAR_DOT = (ROOT / "derivations" / "var_dot.step").read_text(encoding="utf-8")
LAST = "    = d_k                                 by var_term"
TIMEOUT = 20.0  # generous: the machine is shared; a healthy run takes well under a second per check

pytestmark = pytest.mark.asyncio(loop_scope="module")


def make_client() -> LanguageClient:
    """pytest-lsp's client, which also records every publication with its document version."""
    from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features
    from pygls.protocol import default_converter

    def publish(client: LanguageClient, params: T.PublishDiagnosticsParams):
        client.diagnostics[params.uri] = params.diagnostics
        client.published.append((params.uri, params.version, list(params.diagnostics)))

    client = LanguageClient(converter_factory=default_converter)
    client.published = []
    register_lsp_features(client, {**DEFAULT_CLIENT_FEATURES, T.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS: publish})
    return client


@pytest_lsp.fixture(scope="module", config=ClientServerConfig(
    server_command=[sys.executable, "-m", "stepcheck.lsp"], client_factory=make_client))
async def client(lsp_client: LanguageClient):
    await asyncio.wait_for(lsp_client.initialize_session(T.InitializeParams(capabilities=T.ClientCapabilities())),
                           TIMEOUT)
    yield
    await asyncio.wait_for(lsp_client.shutdown_session(), TIMEOUT)


def uri_for(name: str) -> str:
    return (ROOT / "derivations" / name).as_uri()


async def diagnostics(client: LanguageClient, uri: str, version: int = 1, nth: int = 1,
                      timeout: float = TIMEOUT) -> list[T.Diagnostic]:
    """The ``nth`` publication of diagnostics for ``version`` of ``uri`` (the server publishes a syntax error
    once, a kernel verdict twice: before and after the finite-model cross-check)."""
    t0 = time.monotonic()
    while True:
        got = [d for u, v, d in client.published if u == uri and v == version]
        if len(got) >= nth:
            return got[nth - 1]
        if time.monotonic() - t0 > timeout:
            raise AssertionError(f"no diagnostics for {uri} version {version} within {timeout} s")
        await asyncio.sleep(0.01)


def open_doc(client: LanguageClient, uri: str, text: str) -> None:
    client.text_document_did_open(T.DidOpenTextDocumentParams(
        text_document=T.TextDocumentItem(uri=uri, language_id="stepcheck", version=1, text=text)))


def change_doc(client: LanguageClient, uri: str, version: int, text: str) -> None:
    client.text_document_did_change(T.DidChangeTextDocumentParams(
        text_document=T.VersionedTextDocumentIdentifier(uri=uri, version=version),
        content_changes=[T.TextDocumentContentChangeWholeDocument(text=text)]))


def position_of(text: str, needle: str, offset: int = 0) -> T.Position:
    for n, line in enumerate(text.split("\n")):
        k = line.find(needle)
        if k >= 0 and not line.lstrip().startswith("#"):  # the file's comments repeat some of its maths
            return T.Position(line=n, character=k + offset)
    raise AssertionError(needle)


async def test_var_dot_session(client: LanguageClient):
    """The issue's session: open → no diagnostics; `= d_k` → `= sqrt(d_k)` → one diagnostic on that span;
    hover shows the counterexample; `by indep` jumps to `assume indep:`."""
    uri = uri_for("var_dot.step")
    open_doc(client, uri, VAR_DOT)
    assert list(await diagnostics(client, uri)) == []

    edited = VAR_DOT.replace(LAST, "    = sqrt(d_k)                           by var_term")
    assert edited != VAR_DOT
    change_doc(client, uri, 2, edited)
    diags = await diagnostics(client, uri, 2)
    assert len(diags) == 1, [d.message for d in diags]
    d = diags[0]
    line = position_of(edited, "= sqrt(d_k)").line
    col = edited.split("\n")[line].index("= sqrt(d_k)")
    assert (d.range.start.line, d.range.start.character) == (line, col)
    assert (d.range.end.line, d.range.end.character) == (line, col + len("= sqrt(d_k)"))
    assert d.severity == T.DiagnosticSeverity.Error
    assert d.related_information and any("var_term" in r.message for r in d.related_information)
    # the cross-checked verdict that follows says the same
    assert [x.range for x in await diagnostics(client, uri, 2, nth=2)] == [d.range]

    hover = await asyncio.wait_for(client.text_document_hover_async(T.HoverParams(
        text_document=T.TextDocumentIdentifier(uri=uri), position=position_of(edited, "= sqrt(d_k)", 4))), TIMEOUT)
    assert hover is not None
    assert "counterexample" in hover.contents.value and "sqrt(d_k) = sqrt(2)" in hover.contents.value
    assert "fails" in hover.contents.value

    pos = position_of(edited, "by indep, mean_term", 4)  # on `indep`
    loc = await asyncio.wait_for(client.text_document_definition_async(T.DefinitionParams(
        text_document=T.TextDocumentIdentifier(uri=uri), position=pos)), TIMEOUT)
    loc = loc[0] if isinstance(loc, list) else loc
    assert loc.uri == uri
    assert edited.split("\n")[loc.range.start.line].startswith("assume indep:")


async def test_hover_on_holding_link_has_no_counterexample(client: LanguageClient):
    uri = uri_for("var_dot_hover.step")
    open_doc(client, uri, VAR_DOT)
    assert list(await diagnostics(client, uri)) == []
    hover = await asyncio.wait_for(client.text_document_hover_async(T.HoverParams(
        text_document=T.TextDocumentIdentifier(uri=uri), position=position_of(VAR_DOT, "= E[q_i] E[k_i]", 3))),
        TIMEOUT)
    text = hover.contents.value
    assert "holds" in text and "counterexample" not in text
    assert "factorization" in text and "weakest form: indep: uncorrelated(q_i, k_i)" in text


async def test_syntax_error_is_published_at_once(client: LanguageClient):
    uri = uri_for("var_dot_syntax.step")
    bad = VAR_DOT.replace("assume mean0: E[q_i] = 0", "assume mean0: E[q_i] = = 0")
    open_doc(client, uri, bad)
    t0 = time.monotonic()
    diags = await diagnostics(client, uri)
    assert time.monotonic() - t0 < 5
    assert len(diags) == 1 and diags[0].code == "E-syntax"
    assert diags[0].range.start.line == position_of(bad, "= = 0").line
    # fixing it brings the kernel's verdict: nothing to report
    change_doc(client, uri, 2, VAR_DOT)
    assert list(await diagnostics(client, uri, 2)) == []


async def test_stale_result_is_discarded(client: LanguageClient):
    """Two quick edits: only the newer version's verdicts are published, first fast, then cross-checked."""
    uri = uri_for("var_dot_stale.step")
    open_doc(client, uri, VAR_DOT)
    await diagnostics(client, uri)
    change_doc(client, uri, 2, VAR_DOT.replace(LAST, "    = sqrt(d_k)                           by var_term"))
    change_doc(client, uri, 3, VAR_DOT.replace(LAST, "    = 2 d_k                               by var_term"))
    for nth in (1, 2):
        diags = await diagnostics(client, uri, 3, nth)
        assert len(diags) == 1 and "2 d_k" in diags[0].message and "sqrt" not in diags[0].message
    assert [d for u, v, d in client.published if u == uri and v == 2] == []


async def test_inlay_hints_show_the_uses(client: LanguageClient):
    uri = uri_for("var_dot_inlay.step")
    open_doc(client, uri, VAR_DOT)
    await diagnostics(client, uri)
    n = len(VAR_DOT.split("\n"))
    hints = await asyncio.wait_for(client.text_document_inlay_hint_async(T.InlayHintParams(
        text_document=T.TextDocumentIdentifier(uri=uri),
        range=T.Range(start=T.Position(line=0, character=0), end=T.Position(line=n, character=0)))), TIMEOUT)
    by_line = {h.position.line: h.label for h in hints}
    assert by_line[position_of(VAR_DOT, "= 1       ").line] == "⟵ var1, mean0"
    assert by_line[position_of(VAR_DOT, "= E[q_i] E[k_i]").line] == "⟵ indep"
    assert len(hints) == 7  # one per link (2 + 3 + 2), and none on other lines
    assert position_of(VAR_DOT, "assume indep").line not in by_line


async def test_code_actions_remove_unneeded_and_cite_missing(client: LanguageClient):
    uri = uri_for("var_dot_actions.step")
    text = (VAR_DOT.replace("    = 0                                   by mean0",
                            "    = 0                                   by mean0, var1")
            .replace("    = 1                                   by var1, mean0",
                     "    = 1                                   by var1"))
    open_doc(client, uri, text)
    diags = await diagnostics(client, uri)
    # `var1` cited but not needed: a hint on the citation; `= 1 by var1` lacks mean0: a failing link
    assert any(d.severity == T.DiagnosticSeverity.Hint and "var1" in d.message for d in diags)

    async def actions(needle):
        p = position_of(text, needle)
        return await asyncio.wait_for(client.text_document_code_action_async(T.CodeActionParams(
            text_document=T.TextDocumentIdentifier(uri=uri), range=T.Range(start=p, end=p),
            context=T.CodeActionContext(diagnostics=[]))), TIMEOUT)

    acts = await actions("by mean0, var1")
    remove = [a for a in acts if a.title.startswith("remove `var1`")]
    assert len(remove) == 1
    (edit,) = remove[0].edit.changes[uri]
    assert apply(text, edit).split("\n")[position_of(text, "by mean0, var1").line].rstrip().endswith("by mean0")

    cite = [a for a in await actions("= 1     ") if a.title.startswith("cite")]
    assert len(cite) == 1 and "mean0" in cite[0].title
    (edit,) = cite[0].edit.changes[uri]
    fixed = apply(text, edit)
    assert "by var1, mean0" in fixed
    # the fixed text has no failing link left for that reason
    change_doc(client, uri, 2, apply(fixed, remove[0].edit.changes[uri][0]))
    diags = await diagnostics(client, uri, 2)
    assert list(diags) == []
    # a link that holds with exactly what it cites offers no quick fix
    assert [a for a in await actions("= E[q_i] E[k_i]") if a.kind == T.CodeActionKind.QuickFix] == []


async def test_references_and_symbols(client: LanguageClient):
    uri = uri_for("var_dot_refs.step")
    open_doc(client, uri, VAR_DOT)
    await diagnostics(client, uri)
    refs = await asyncio.wait_for(client.text_document_references_async(T.ReferenceParams(
        text_document=T.TextDocumentIdentifier(uri=uri), position=position_of(VAR_DOT, "assume indep", 8),
        context=T.ReferenceContext(include_declaration=False))), TIMEOUT)
    lines = VAR_DOT.split("\n")
    assert len(refs) == 3 and all("by indep" in lines[r.range.start.line] for r in refs)
    syms = await asyncio.wait_for(client.text_document_document_symbol_async(T.DocumentSymbolParams(
        text_document=T.TextDocumentIdentifier(uri=uri))), TIMEOUT)
    names = [s.name for s in syms]
    assert names == ["var_dot", "indep", "mean0", "var1", "mean_term", "var_term", "var_sum"]
    assert [len(s.children or []) for s in syms][-3:] == [2, 3, 2]


def apply(text: str, edit: T.TextEdit) -> str:
    lines = text.split("\n")
    s, e = edit.range.start, edit.range.end
    before = "\n".join(lines[:s.line] + [lines[s.line][:s.character]])
    after = "\n".join([lines[e.line][e.character:]] + lines[e.line + 1:])
    return before + edit.new_text + after


DEFINE = """\
derivation d "t"
use "var_dot.step"
let d_k: positive integer
random q_i, k_i for i in 1..d_k
define X_i = q_i k_i
assume mean0: E[q_i] = 0, E[k_i] = 0
assume ind: q_i ⟂ k_i
step m: E[X_i]
    = E[q_i k_i]      by def X
    = E[q_i] E[k_i]   by ind
    = 0               by mean0
"""


async def test_define_use_and_label_hover(client: LanguageClient):
    uri = uri_for("define_use.step")
    open_doc(client, uri, DEFINE)
    await diagnostics(client, uri)
    lines = DEFINE.split("\n")

    async def definition(needle, offset):
        loc = await asyncio.wait_for(client.text_document_definition_async(T.DefinitionParams(
            text_document=T.TextDocumentIdentifier(uri=uri), position=position_of(DEFINE, needle, offset))), TIMEOUT)
        return loc[0] if isinstance(loc, list) else loc

    loc = await definition("by def X", 7)  # `def X` names the definition of X_i
    assert lines[loc.range.start.line].startswith("define X_i")
    loc = await definition("step m: E[X_i]", 10)  # X_i in the maths
    assert lines[loc.range.start.line].startswith("define X_i")
    loc = await definition('use "var_dot.step"', 6)
    assert loc.uri == uri_for("var_dot.step")
    assert await definition("= E[q_i] E[k_i]", 5) is None  # q_i is declared by `random`, not a label
    refs = await asyncio.wait_for(client.text_document_references_async(T.ReferenceParams(
        text_document=T.TextDocumentIdentifier(uri=uri), position=position_of(DEFINE, "define X_i", 7),
        context=T.ReferenceContext(include_declaration=True))), TIMEOUT)
    assert sorted(r.range.start.line for r in refs) == [4, 7, 8]  # the define, X_i in `step m`, `by def X`
    hover = await asyncio.wait_for(client.text_document_hover_async(T.HoverParams(
        text_document=T.TextDocumentIdentifier(uri=uri), position=position_of(DEFINE, "by ind", 4))), TIMEOUT)
    assert "assume ind" in hover.contents.value and "q_i ⟂ k_i" in hover.contents.value


async def test_without_pygls_a_clear_error():  # async: the module-wide asyncio mark
    import subprocess

    code = "import sys; sys.modules['pygls'] = None; from stepcheck.lsp import main; sys.exit(main([]))"
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                       stdin=subprocess.DEVNULL)
    assert p.returncode == 2 and "pip install 'stepcheck[lsp]'" in p.stderr and "Traceback" not in p.stderr
