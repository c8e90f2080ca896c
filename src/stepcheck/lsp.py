"""``stepcheck-lsp``: the language server (pygls), on stdio.

On open and on change the document is parsed at once, in the event loop (a
few milliseconds): a syntax error is published immediately.  A file that
parses is checked after a short debounce (:data:`DEBOUNCE` seconds without
further edits) by :func:`stepcheck.checker.check_text` in a worker thread,
so requests (hover, definition, ...) are answered while it runs.  It is
checked twice: first without the finite-model cross-check of proved links
(the verdicts arrive sooner), then with it, as ``verify`` checks; each result
is published as it arrives.  A result is published only when the document
still has the version it was computed for: results of older versions are
discarded.

Features: diagnostics (one per failing or unknown link, on the link's span,
with ``relatedInformation`` pointing at the assumptions involved), hover on a
link or a label, inlay hints (``⟵ indep, mean0``), go to definition, find
references, document symbols and two quick fixes (remove a cited-but-unneeded
fact, cite the facts a link needs).  The pure logic is in
:mod:`stepcheck.lsp_index`.

pygls is an optional extra: ``pip install 'stepcheck[lsp]'``.
"""
from __future__ import annotations

import sys

DEBOUNCE = 0.15  # seconds of quiet after an edit before the kernel runs
SOURCE = "stepcheck"


def _server():  # noqa: C901 - one closure per LSP feature
    import asyncio
    import os
    from concurrent.futures import ThreadPoolExecutor
    from urllib.parse import unquote, urlparse

    from lsprotocol import types as T
    from pygls.lsp.server import LanguageServer

    from . import __version__
    from .checker import check_text
    from .errors import StepError
    from .link_cache import LinkStore, using
    from .lsp_index import DocIndex
    from .options import Options
    from .parser import parse
    from .results import FAILS, HOLDS, UNKNOWN

    server = LanguageServer("stepcheck", __version__)
    worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="stepcheck-check")
    links = LinkStore(memory=20_000)  # re-checking after a keystroke re-judges only the links it can affect

    def check(text, path, options):
        with using(links):
            return check_text(text, path, options)
    state: dict[str, dict] = {}  # uri -> {"index": DocIndex, "task": Task, "version": int}

    def P(p):
        return T.Position(line=p[0], character=p[1])

    def R(r):
        return T.Range(start=P(r[0]), end=P(r[1]))

    def path_of(uri: str) -> str:
        u = urlparse(uri)
        return unquote(u.path) if u.scheme == "file" else uri

    def sev(d):
        return {"error": T.DiagnosticSeverity.Error, "warning": T.DiagnosticSeverity.Warning}.get(
            d.severity, T.DiagnosticSeverity.Information)

    def file_diag(ix: DocIndex, d) -> T.Diagnostic:
        rng = ix.rng(d.span) if d.span is not None else ((0, 0), (0, 0))
        msg = d.title + (f": {d.label}" if d.label else "")
        msg += "".join(f"\nnote: {n}" for n in d.notes) + (f"\nhelp: {d.help}" if d.help else "")
        return T.Diagnostic(range=R(rng), message=msg, severity=sev(d), source=SOURCE, code=d.code)

    def publish(uri: str, version, diags: list) -> None:
        server.text_document_publish_diagnostics(
            T.PublishDiagnosticsParams(uri=uri, version=version, diagnostics=diags))

    def link_diags(uri: str, ix: DocIndex) -> list:
        out = []
        for site in ix.links:
            lk = site.result
            if lk is None:
                continue
            if lk.status in (FAILS, UNKNOWN):
                first = lk.diagnostics[0] if lk.diagnostics else None
                title = first.title if first else f"this link is {lk.status}"
                parts = [f"{site.step}, link {site.index}: {title}"]
                if lk.message and lk.message not in title:
                    parts.append(lk.message)
                if lk.counterexample:
                    parts.append("counterexample: " + lk.counterexample)
                related = []
                for label in dict.fromkeys([*lk.cited, *(u.label for u in lk.uses), *lk.missing]):
                    lab = ix.labels.get(label)
                    if lab is None or lab.kind not in ("assume", "step", "define"):
                        continue
                    role = ("needed, not cited" if label in lk.missing
                            else "cited" if label in lk.cited else "used")
                    related.append(T.DiagnosticRelatedInformation(
                        location=T.Location(uri=uri, range=R(ix.rng(lab.whole))),
                        message=f"{role}: {lab.kind} {label}"))
                out.append(T.Diagnostic(
                    range=R(ix.rng(first.span if first and first.span else lk.span)),
                    message="\n".join(parts), source=SOURCE,
                    severity=T.DiagnosticSeverity.Error if lk.status == FAILS else T.DiagnosticSeverity.Warning,
                    code=first.code if first else None, related_information=related or None))
            elif lk.status == HOLDS:
                for r in site.node.refs:
                    if ix.resolve(r.text) in lk.unneeded:
                        out.append(T.Diagnostic(
                            range=R(ix.rng(r.span)), message=f"`{r.text}` is cited but not needed",
                            severity=T.DiagnosticSeverity.Hint, source=SOURCE,
                            tags=[T.DiagnosticTag.Unnecessary]))
        return out

    async def run_check(uri: str, version, text: str) -> None:
        await asyncio.sleep(DEBOUNCE)
        loop = asyncio.get_running_loop()
        # first the kernel's verdicts without the finite-model cross-check (fast), then with it, as `verify` does
        for options in (Options(cross_check=False), Options()):
            if not current(uri, version, text):
                return
            try:
                rep = await loop.run_in_executor(worker, lambda o=options: check(text, path_of(uri), o))
            except Exception as e:  # noqa: BLE001 - a bug in the checker: say so, keep serving
                if current(uri, version, text):
                    publish(uri, version, [T.Diagnostic(
                        range=R(((0, 0), (0, 0))), severity=T.DiagnosticSeverity.Error, source=SOURCE,
                        message=f"internal error while checking: {type(e).__name__}: {e} (a bug in stepcheck; "
                                "please report it with the file)")])
                return
            if not current(uri, version, text) or rep.program is None:
                return  # a newer version arrived meanwhile: this result is stale
            ix = DocIndex.build(rep.program, rep)
            state[uri]["index"] = ix
            diags = [file_diag(ix, d) for d in rep.diagnostics if d.severity in ("error", "warning")]
            publish(uri, version, diags + link_diags(uri, ix))

    def current(uri: str, version, text: str) -> bool:
        try:
            doc = server.workspace.get_text_document(uri)
        except Exception:  # noqa: BLE001 - closed meanwhile
            return False
        return uri in state and doc.source == text and state[uri].get("version") == version

    def changed(uri: str) -> None:
        doc = server.workspace.get_text_document(uri)
        text, version = doc.source, doc.version
        st = state.setdefault(uri, {})
        if st.get("task") is not None:
            st["task"].cancel()
        st["version"] = version
        try:
            prog = parse(text, path_of(uri))
        except StepError as e:
            # publish at once; the last good index keeps serving hover and definition meanwhile
            publish(uri, version, [file_diag(DocIndex(text=text, lines=text.split("\n")), e.diagnostic)])
            st["task"] = None
            return
        except RecursionError:
            publish(uri, version, [T.Diagnostic(range=R(((0, 0), (0, 0))), message="input nested too deeply",
                                                severity=T.DiagnosticSeverity.Error, source=SOURCE)])
            return
        st["index"] = DocIndex.build(prog)  # labels at once; statuses when the check arrives
        st["task"] = asyncio.ensure_future(run_check(uri, version, text))

    def index(uri: str) -> DocIndex | None:
        return state.get(uri, {}).get("index")

    @server.feature(T.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls, params: T.DidOpenTextDocumentParams):
        changed(params.text_document.uri)

    @server.feature(T.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls, params: T.DidChangeTextDocumentParams):
        changed(params.text_document.uri)

    @server.feature(T.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls, params: T.DidSaveTextDocumentParams):
        pass

    @server.feature(T.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls, params: T.DidCloseTextDocumentParams):
        st = state.pop(params.text_document.uri, {})
        if st.get("task") is not None:
            st["task"].cancel()
        publish(params.text_document.uri, None, [])

    @server.feature(T.TEXT_DOCUMENT_HOVER)
    def hover(ls, params: T.HoverParams):
        ix = index(params.text_document.uri)
        if ix is None or ix.program is None:
            return None
        line1, col1 = ix.offset_of(params.position.line, params.position.character)
        hit = ix.ref_at(line1, col1)
        site = ix.link_at(line1, col1)
        text = None
        if hit is not None:
            text = ix.label_hover(hit[0])
            if site is not None:
                text = (text + "\n\n---\n\n" if text else "") + ix.link_hover(site)
        elif site is not None:
            text = ix.link_hover(site)
        else:
            lab = ix.label_at(line1, col1)
            target = ix.target_at(line1, col1)
            text = ix.label_hover(lab.name if lab else target) if (lab or target) else None
        if not text:
            return None
        return T.Hover(contents=T.MarkupContent(kind=T.MarkupKind.Markdown, value=text))

    def at_cursor(params):
        """(uri, index, the label or name under the cursor); index None when the document has no syntax."""
        uri = params.text_document.uri
        ix = index(uri)
        if ix is None or ix.program is None:
            return uri, None, None
        return uri, ix, ix.target_at(*ix.offset_of(params.position.line, params.position.character))

    @server.feature(T.TEXT_DOCUMENT_DEFINITION)
    def definition(ls, params: T.DefinitionParams):
        uri, ix, target = at_cursor(params)
        if ix is None:
            return None
        lab = ix.labels.get(target) if target else None
        if lab is None:
            return None
        if lab.kind == "use" and uri.startswith("file:"):
            other = os.path.join(os.path.dirname(path_of(uri)), lab.name)
            if os.path.isfile(other):
                return T.Location(uri="file://" + os.path.abspath(other), range=R(((0, 0), (0, 0))))
        return T.Location(uri=uri, range=R(ix.rng(lab.whole if lab.kind == "assume" else lab.span)))

    @server.feature(T.TEXT_DOCUMENT_REFERENCES)
    def references(ls, params: T.ReferenceParams):
        uri, ix, target = at_cursor(params)
        if ix is None:
            return None
        if target is None:
            return []
        spans = ix.references(target)
        if params.context.include_declaration and target in ix.labels:
            spans = [ix.labels[target].span, *spans]
        return [T.Location(uri=uri, range=R(ix.rng(s))) for s in spans]

    @server.feature(T.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    def symbols(ls, params: T.DocumentSymbolParams):
        ix = index(params.text_document.uri)
        if ix is None or ix.program is None:
            return []
        kinds = {"assume": T.SymbolKind.Constant, "step": T.SymbolKind.Function, "refute": T.SymbolKind.Function,
                 "define": T.SymbolKind.Variable, "use": T.SymbolKind.Module, "derivation": T.SymbolKind.Namespace,
                 "check": T.SymbolKind.Event, "simulate": T.SymbolKind.Event}
        out = []
        for lab in ix.labels.values():
            children = []
            if lab.kind in ("step", "refute"):
                for site in ix.links:
                    if site.step == lab.name:
                        status = site.result.status if site.result else "unchecked"
                        children.append(T.DocumentSymbol(
                            name=f"{site.node.rel} … ({status})", kind=T.SymbolKind.Field,
                            range=R(ix.rng(site.node.span)), selection_range=R(ix.rng(site.node.span))))
            s = ix.step_result(lab.name)
            out.append(T.DocumentSymbol(
                name=lab.name, detail=(s.status if s else lab.kind), kind=kinds.get(lab.kind, T.SymbolKind.Object),
                range=R(ix.rng(lab.whole)), selection_range=R(ix.rng(lab.span)), children=children or None))
        return out

    @server.feature(T.TEXT_DOCUMENT_INLAY_HINT, T.InlayHintOptions(resolve_provider=False))
    def inlay_hints(ls, params: T.InlayHintParams):
        ix = index(params.text_document.uri)
        if ix is None or ix.program is None:
            return []
        lo, hi = params.range.start.line, params.range.end.line
        out = []
        for site in ix.links:
            if site.result is None:
                continue
            end = ix.pos(site.node.span.end_line, site.node.span.end_col)
            if not lo <= end[0] <= hi:
                continue
            out.append(T.InlayHint(position=P(end), label=ix.inlay_label(site.result), padding_left=True,
                                   kind=T.InlayHintKind.Parameter))
        return out

    @server.feature(T.TEXT_DOCUMENT_CODE_ACTION,
                    T.CodeActionOptions(code_action_kinds=[T.CodeActionKind.QuickFix]))
    def code_actions(ls, params: T.CodeActionParams):
        uri = params.text_document.uri
        ix = index(uri)
        if ix is None or ix.program is None:
            return []
        a = ix.offset_of(params.range.start.line, params.range.start.character)
        b = ix.offset_of(params.range.end.line, params.range.end.character)
        out = []
        for site in ix.links:
            lk, sp = site.result, site.node.span
            if lk is None or (sp.end_line, sp.end_col) < a or (sp.line, sp.col) > b:
                continue

            def action(title, edit):
                (rng, new) = edit
                out.append(T.CodeAction(title=title, kind=T.CodeActionKind.QuickFix, edit=T.WorkspaceEdit(
                    changes={uri: [T.TextEdit(range=R(rng), new_text=new)]})))

            for label in lk.unneeded:
                edit = ix.remove_ref_edit(site, label)
                if edit:
                    action(f"remove `{label}`: cited but not needed", edit)
            if lk.missing:
                edit = ix.add_refs_edit(site, list(lk.missing))
                if edit:
                    action("cite " + ", ".join(f"`{m}`" for m in lk.missing) + ": the link needs it", edit)
        return out

    return server


def main(argv: list[str] | None = None) -> int:
    import argparse

    ap = argparse.ArgumentParser(prog="stepcheck-lsp", description="the stepcheck language server, on stdio")
    ap.add_argument("--stdio", action="store_true", help="talk LSP on stdin/stdout (the default, and the only mode)")
    ap.parse_args(sys.argv[1:] if argv is None else argv)
    try:
        server = _server()
    except ImportError as e:
        sys.stderr.write(f"error: the language server needs pygls ({e.name} is missing): "
                         "pip install 'stepcheck[lsp]'\n")
        return 2
    out = sys.stdout.buffer
    sys.stdout = sys.stderr  # nothing but LSP messages may reach the client's pipe
    server.start_io(sys.stdin.buffer, out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
