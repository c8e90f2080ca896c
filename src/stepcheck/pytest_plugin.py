"""The pytest plugin: every step of a ``.step`` file is a test item.

Registered through the ``pytest11`` entry point (``stepcheck =
"stepcheck.pytest_plugin"``), so installing stepcheck is enough; without the
installed package use ``pytest -p stepcheck.pytest_plugin``.

* Files whose name matches the ini option ``stepcheck_files`` (default
  ``*.step``; several patterns separated by spaces) are collected under the
  given paths; each file is parsed when it is collected and checked once,
  when the first of its items runs (under xdist, each worker checks only
  the files whose items it runs).
* One item per step (``refute`` and ``check`` steps included), node id
  ``path/to/file.step::step_name``; ``-k step_name`` selects it.
* An item fails when its step does not hold (``fails`` or ``unknown``: unknown
  is not verified) or carries an error; the failure shows the same text as the
  ``verify`` command (file:line:col, the source line, carets, the residual or
  counterexample).
* A file that cannot be read or parsed fails its collection with the
  diagnostic; so does a file with no steps and errors.  Errors outside every
  step (a bad declaration, contradictory assumptions) fail every item of the
  file, with the diagnostic.
* ``--stepcheck-strict``: cited-but-unneeded facts are errors.
  ``--stepcheck-why``: the failure text explains each assumption used.
* Ordinary tests that use the Python API: when an ``assert`` on a result
  fails (``assert r.ok``, ``assert report.ok``, ``assert check(...).holds``),
  a ``stepcheck`` section under the traceback shows the full diagnostic of the
  results it names that do not pass; ``assert r.uses == {...}`` says which
  assumptions differ (``pytest_assertrepr_compare``).

Only the standard library and pytest are imported here; the checker (and
sympy) are loaded when the first ``.step`` file is collected.
"""
from __future__ import annotations

import fnmatch
import os
import sys
from pathlib import Path

import pytest

from .options import DEFAULT_TIMEOUT

INI_FILES = "stepcheck_files"
INI_GROUP = "stepcheck_xdist_group"


def pytest_addoption(parser):
    group = parser.getgroup("stepcheck", "stepcheck: check .step derivations")
    group.addoption("--stepcheck-strict", action="store_true", default=False,
                    help="stepcheck: cited-but-unneeded facts are errors instead of warnings")
    group.addoption("--stepcheck-why", action="store_true", default=False,
                    help="stepcheck: explain more in failures (details of each assumption used)")
    group.addoption("--stepcheck-timeout", type=float, default=DEFAULT_TIMEOUT, metavar="SECONDS",
                    help="stepcheck: time limit for checking one link (default 5)")
    group.addoption("--stepcheck-bad", action="store_true", default=False,
                    help="stepcheck: also collect files under a bad/ subdirectory (files meant to fail; "
                         "skipped by default, as `verify DIR` skips them)")
    parser.addini(INI_FILES, type="args", default=["*.step"],
                  help="stepcheck: glob patterns of the derivation files to collect (default: *.step)")
    parser.addini(INI_GROUP, type="bool", default=True,
                  help="stepcheck: under pytest-xdist's default `--dist load`, run the steps of one file (and "
                       "check the file) on one worker (default: true)")
    group.addoption("--stepcheck-markdown-glob", action="append", default=[], metavar="PAT",
                    help="stepcheck: also collect Markdown files matching PAT that have ```step blocks")
    parser.addini("stepcheck_markdown", type="args", default=[],
                  help="stepcheck: glob patterns of Markdown files whose ```step blocks are collected")


def _matches(file_path: Path, patterns) -> bool:
    for pat in patterns:
        if "/" in pat or os.sep in pat:
            if file_path.match(pat) or fnmatch.fnmatch(str(file_path), pat):
                return True
        elif fnmatch.fnmatch(file_path.name, pat):
            return True
    return False


def pytest_collect_file(parent, file_path):
    if _matches(file_path, parent.config.getini(INI_FILES)) and not _meant_to_fail(parent.config, file_path):
        return StepFile.from_parent(parent, path=file_path)
    md_patterns = parent.config.getoption("stepcheck_markdown_glob") + parent.config.getini("stepcheck_markdown")
    if md_patterns and not _meant_to_fail(parent.config, file_path):
        from .markdown import wants_markdown

        if wants_markdown(file_path, md_patterns, _matches):
            return StepFile.from_parent(parent, path=file_path)
    return None


def _meant_to_fail(config, file_path: Path) -> bool:
    """A file under a ``bad/`` directory below the path pytest was asked to collect: skipped unless
    ``--stepcheck-bad`` is given, or the bad/ directory (or the file) itself is named."""
    if config.getoption("stepcheck_bad"):
        return False
    path = Path(file_path).resolve()
    for arg in config.args:
        root = Path(str(arg).split("::")[0]).resolve()
        try:
            rel = path.relative_to(root)
        except ValueError:
            continue
        return "bad" in rel.parts[:-1]
    return False


def _display_path(path: Path) -> str:
    """The path as diagnostics show it: relative to the working directory when below it."""
    try:
        rel = os.path.relpath(path)
    except ValueError:  # another drive (Windows)
        return str(path)
    return str(path) if rel.startswith("..") else rel


def _options(config):
    from .options import Options

    return Options(strict=config.getoption("stepcheck_strict"), timeout=config.getoption("stepcheck_timeout"),
                   why=config.getoption("stepcheck_why"))


class StepFileError(Exception):
    """The file could not be read or parsed (its repr is the diagnostic)."""


class StepFailure(Exception):
    """A step does not hold; ``args[0]`` is the rendered text."""


class StepFile(pytest.File):
    """A ``.step`` file: parsed at collection, checked once when its first item runs."""

    report = None  # the FileReport, cached on the node

    def get_report(self):
        if self.report is None:
            from .checker import check_file

            self.report = check_file(_display_path(self.path), _options(self.config))
        return self.report

    def collect(self):
        """One item per result the file will produce, read off the syntax (no checking here:
        under xdist each worker then checks only the files whose items it runs)."""
        from .errors import StepError
        from .parser import MAX_FILE_BYTES, parse
        from .syntax import planned_results

        try:
            text = self.path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            text = None
        from .markdown import extract, is_markdown  # cheap: markdown-it is imported only for a .md file

        if text is not None and is_markdown(self.path):
            text = extract(text)  # the ```step blocks, at the Markdown file's own lines
        planned = []
        if text is not None and len(text.encode("utf-8", errors="replace")) <= MAX_FILE_BYTES:
            try:
                planned = planned_results(parse(text, _display_path(self.path)))
            except (StepError, RecursionError):
                planned = []
        if not planned:
            # unreadable, unparsable or without steps: check now, so its errors fail the collection
            self._raise_file_errors(self.get_report(), always=True)
        self.planned_lines = [(sp.line, sp.end_line) for _, sp, _ in planned if sp is not None]
        seen: dict = {}
        for name, span, kind in planned:
            nth = seen[name] = seen.get(name, -1) + 1
            yield StepItem.from_parent(self, name=name, nth=nth, kind=kind,
                                       lines=(span.line, span.end_line) if span is not None else (1, 1))

    def in_planned(self, span) -> bool:
        return span is not None and any(a <= span.line <= b for a, b in getattr(self, "planned_lines", ()))

    def _raise_file_errors(self, rep, always=False):
        from .api import _in_step, _sources_for

        if rep.fatal:
            loose = [d for d in rep.errors if not any(_in_step(d.span, s) for s in rep.steps)]
            if always or not rep.steps or loose:
                sources = _sources_for(rep)
                text = "\n\n".join(d.render(sources) for d in (loose or rep.errors or rep.diagnostics))
                if text:
                    raise self.CollectError(text)


class StepItem(pytest.Item):
    """One step (or check, refute, simulate, table cell) of a ``.step`` file."""

    # no fixtures; but plugins that wrap every test (pytest-lsp 1.0's `pytest_runtest_call`) fail on an
    # item without `funcargs`, so it has an empty one, as a test function without arguments does
    funcargs: dict = {}

    def __init__(self, *, nth: int = 0, lines: tuple = (1, 1), kind: str = "step", **kwargs):
        super().__init__(**kwargs)
        self.nth = nth  # the same name twice: the second item reports the checker's error
        self.line, self.end_line = lines
        self.kind = kind
        self.add_marker(pytest.mark.stepcheck)

    @property
    def file_report(self):
        return self.parent.get_report()

    @property
    def step(self):
        """This item's result in the file report (None when the checker produced none)."""
        same = [s for s in self.file_report.steps if s.name == self.name]
        return same[self.nth] if self.nth < len(same) else None

    def runtest(self):
        from .api import _in_step, _sources_for, render_step, step_errors
        from .report import supports_unicode
        from .results import HOLDS, SIMULATED

        rep = self.file_report
        step = self.step
        sources = _sources_for(rep)
        # errors outside every step (a bad declaration, contradictory assumptions) fail every item
        loose = [d.render(sources) for d in rep.errors
                 if not any(_in_step(d.span, s) for s in rep.steps) and not self.parent.in_planned(d.span)]
        if step is None:  # the checker produced no result for it: its own errors say why
            mine = [d.render(sources) for d in rep.errors
                    if d.span is not None and self.line <= d.span.line <= self.end_line]
            raise StepFailure("\n\n".join(loose + mine) or f"`{self.name}` was not checked")
        # a consistent simulation passes (an inconsistent one carries an error diagnostic)
        if step.status not in (HOLDS, SIMULATED) or step_errors(rep, step) or loose:
            why = self.config.getoption("stepcheck_why")
            text = render_step(rep, step, why=why, ascii_only=not supports_unicode(sys.__stdout__))
            raise StepFailure("\n\n".join(loose + [text]))

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, StepFailure):
            return str(excinfo.value.args[0])
        return super().repr_failure(excinfo)

    def reportinfo(self):
        return self.path, self.line - 1, f"{'refute' if self.kind == 'refute' else 'step'} {self.name}"


def pytest_configure(config):
    config.addinivalue_line("markers", "stepcheck: a step of a .step derivation (added by the stepcheck plugin)")


@pytest.hookimpl(optionalhook=True, tryfirst=True)
def pytest_xdist_make_scheduler(config, log):
    """pytest-xdist: under its default ``--dist load`` (what ``-n N`` alone means), keep the steps of one
    derivation file on one worker, so that the file is checked once, not once by every worker that runs
    one of its steps; every other test is scheduled one by one, as ``load`` does.  (xdist's own
    ``loadgroup`` cannot do this under pytest 9.2, whose node ids it can no longer mark: xdist #1386.)"""
    if config.getvalue("dist") != "load" or not config.getini(INI_GROUP):
        return None
    from xdist.scheduler import LoadScopeScheduling

    patterns = list(config.getini(INI_FILES)) + list(config.getoption("stepcheck_markdown_glob")) \
        + list(config.getini("stepcheck_markdown"))

    class StepFileScheduling(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            path, sep, _ = nodeid.partition("::")
            return path if sep and _matches(Path(path), patterns) else nodeid

    return StepFileScheduling(config, log)


# ------------------------------------------------------------------ failing asserts on API results
# `assert r.ok` shows only pytest's one-line repr of `r`; these hooks add the rendered diagnostic
# (file:line:col, carets, counterexample) of the stepcheck results the failing assert names, and
# explain `r.uses == {...}` by assumption.  They import nothing until a stepcheck result exists.


def _api_results():
    return sys.modules.get("stepcheck.api.results")


def _failing_results(excinfo) -> list:
    """The stepcheck results that do not pass, named by the failing ``assert`` statement (its frame's
    variables), else the result whose verdict was last read as False during the test."""
    import ast
    import textwrap

    mod = _api_results()
    if mod is None or not len(excinfo.traceback):
        return []
    entry = excinfo.traceback[-1]
    if str(entry.path).startswith(os.path.dirname(os.path.abspath(__file__)) + os.sep):
        return []  # raised by stepcheck itself (assert_holds): its message is the diagnostic
    kinds = (mod.ClaimResult, mod.Report)
    try:
        tree = ast.parse(textwrap.dedent(str(entry.statement)))
    except (SyntaxError, ValueError):
        tree = None
    found, seen = [], set()
    frame = entry.frame
    for node in ast.walk(tree) if tree is not None else ():
        if isinstance(node, ast.Name) and node.id not in seen:
            seen.add(node.id)
            val = frame.f_locals.get(node.id, frame.f_globals.get(node.id))
            if isinstance(val, kinds) and not (val.status == "holds" and not _has_errors(val)):
                found.append(val)
    names_a_result = any(isinstance(frame.f_locals.get(n, frame.f_globals.get(n)), kinds) for n in seen)
    last = mod._last_false[0]
    if not found and not names_a_result and last is not None:
        found.append(last)
    return found


def _has_errors(res) -> bool:
    diags = res.diagnostics if not hasattr(res, "steps") else (
        list(res.diagnostics) + [d for s in res.steps for d in s.diagnostics])
    return res.fatal if getattr(res, "fatal", False) else any(d.severity == "error" for d in diags)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    rep = yield
    mod = _api_results()
    if mod is None:
        return rep
    if call.when == "setup":
        mod._last_false[0] = None  # only what the test itself reads counts
    elif call.when == "call" and rep.failed and call.excinfo is not None \
            and call.excinfo.errisinstance(AssertionError) and hasattr(rep.longrepr, "addsection") \
            and getattr(item.config.option, "tbstyle", "auto") not in ("line", "no"):  # terse: as asked
        from .api import failure_message

        try:
            texts = [failure_message(r) for r in _failing_results(call.excinfo)]
        except Exception:  # noqa: BLE001 - an explanation must never break pytest's report
            texts = []
        if texts:
            rep.longrepr.addsection("stepcheck", "\n\n".join(texts))
    return rep


def _labels(s) -> str:
    return "{" + ", ".join(repr(str(x)) for x in sorted(s, key=str)) + "}" if s else "set()"


def _described(mod, items) -> str:
    return ", ".join(x.describe() if isinstance(x, mod.Assumption) else str(x) for x in sorted(items, key=str))


@pytest.hookimpl(tryfirst=True)
def pytest_assertrepr_compare(config, op, left, right):
    """``r.uses == {"indep"}`` (and ``!=``, ``<=``, ``>=``, ``in``, ``not in``): which assumptions differ."""
    mod = _api_results()
    if mod is None:
        return None

    def uses(x):
        return isinstance(x, (set, frozenset)) and any(isinstance(a, mod.Assumption) for a in x)

    if op in ("in", "not in") and isinstance(left, str) and uses(right):
        word = "is not" if op == "in" else "is"
        return [f"{str(left)!r} {op} {_labels(right)}",
                f"stepcheck: `{left}` {word} among the assumptions used: {_described(mod, right)}"]
    if op not in ("==", "!=", "<=", ">=") or not (uses(left) or uses(right)) \
            or not all(isinstance(x, (set, frozenset)) for x in (left, right)):
        return None
    used, expected = (left, right) if uses(left) else (right, left)
    out = [f"{_labels(left)} {op} {_labels(right)}"]
    extra = [a for a in used if a not in expected]
    missing = [e for e in expected if e not in used]
    if extra:
        out.append(f"stepcheck: used but not expected: {_described(mod, extra)}")
    if missing:
        out.append(f"stepcheck: expected but not used: {_described(mod, missing)}")
    if not extra and not missing:
        out.append("stepcheck: the same assumptions")
    out.append(f"stepcheck: every assumption used: {_described(mod, used) or 'nothing'}")
    return out
