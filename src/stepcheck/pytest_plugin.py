"""The pytest plugin: every step of a ``.step`` file is a test item.

Registered through the ``pytest11`` entry point (``stepcheck =
"stepcheck.pytest_plugin"``), so installing stepcheck is enough; without the
installed package use ``pytest -p stepcheck.pytest_plugin``.

* Files whose name matches the ini option ``stepcheck_files`` (default
  ``*.step``; several patterns separated by spaces) are collected under the
  given paths; each file is checked once, when it is collected.
* One item per step (``refute`` and ``check`` steps included), node id
  ``path/to/file.step::step_name``; ``-k step_name`` selects it.
* An item fails when its step does not hold (``fails`` or ``unknown``: unknown
  is not verified) or carries an error; the failure shows the same text as the
  ``verify`` command (file:line:col, the source line, carets, the residual or
  counterexample).
* A file that cannot be read or parsed fails its collection with the
  diagnostic; so does a file with input errors outside every step.
* ``--stepcheck-strict``: cited-but-unneeded facts are errors.
  ``--stepcheck-why``: the failure text explains each assumption used.

Only the standard library and pytest are imported here; the checker (and
sympy) are loaded when the first ``.step`` file is collected.
"""
from __future__ import annotations

import fnmatch
import inspect
import os
import sys
from pathlib import Path

import pytest

INI_FILES = "stepcheck_files"


def pytest_addoption(parser):
    group = parser.getgroup("stepcheck", "stepcheck: check .step derivations")
    group.addoption("--stepcheck-strict", action="store_true", default=False,
                    help="stepcheck: cited-but-unneeded facts are errors instead of warnings")
    group.addoption("--stepcheck-why", action="store_true", default=False,
                    help="stepcheck: explain more in failures (details of each assumption used)")
    group.addoption("--stepcheck-timeout", type=float, default=5.0, metavar="SECONDS",
                    help="stepcheck: time limit for checking one link (default 5)")
    parser.addini(INI_FILES, type="args", default=["*.step"],
                  help="stepcheck: glob patterns of the derivation files to collect (default: *.step)")


def _matches(file_path: Path, patterns) -> bool:
    for pat in patterns:
        if "/" in pat or os.sep in pat:
            if file_path.match(pat) or fnmatch.fnmatch(str(file_path), pat):
                return True
        elif fnmatch.fnmatch(file_path.name, pat):
            return True
    return False


def pytest_collect_file(parent, file_path):
    if _matches(file_path, parent.config.getini(INI_FILES)):
        return StepFile.from_parent(parent, path=file_path)
    return None


def _display_path(path: Path) -> str:
    """The path as diagnostics show it: relative to the working directory when below it."""
    try:
        rel = os.path.relpath(path)
    except ValueError:  # another drive (Windows)
        return str(path)
    return str(path) if rel.startswith("..") else rel


def _checker_kwargs(fn, config) -> dict:
    params = inspect.signature(fn).parameters
    kw = {"strict": config.getoption("stepcheck_strict")}
    if "timeout" in params:
        kw["timeout"] = config.getoption("stepcheck_timeout")
    if "why" in params:
        kw["why"] = config.getoption("stepcheck_why")
    return kw


class StepFileError(Exception):
    """The file could not be read or parsed (its repr is the diagnostic)."""


class StepFailure(Exception):
    """A step does not hold; ``args[0]`` is the rendered text."""


class StepFile(pytest.File):
    """A ``.step`` file: checked once; one :class:`StepItem` per step."""

    report = None  # the FileReport, cached on the node

    def get_report(self):
        if self.report is None:
            from .checker import check_file

            self.report = check_file(_display_path(self.path), **_checker_kwargs(check_file, self.config))
        return self.report

    def collect(self):
        from .api import _in_step, _sources_for

        rep = self.get_report()
        if rep.fatal:
            loose = [d for d in rep.errors if not any(_in_step(d.span, s) for s in rep.steps)]
            if not rep.steps or loose:
                sources = _sources_for(rep)
                text = "\n\n".join(d.render(sources) for d in (loose or rep.errors or rep.diagnostics))
                raise self.CollectError(text)
        for step in rep.steps:
            yield StepItem.from_parent(self, name=step.name, step=step)


class StepItem(pytest.Item):
    """One step of a ``.step`` file."""

    def __init__(self, *, step, **kwargs):
        super().__init__(**kwargs)
        self.step = step
        self.add_marker(pytest.mark.stepcheck)

    @property
    def file_report(self):
        return self.parent.get_report()

    def runtest(self):
        from .api import _in_step, _sources_for, render_step, step_errors
        from .report import supports_unicode
        from .results import HOLDS, SIMULATED

        rep = self.file_report
        # a consistent simulation passes (an inconsistent one carries an error diagnostic)
        if self.step.status not in (HOLDS, SIMULATED) or step_errors(rep, self.step):
            why = self.config.getoption("stepcheck_why")
            text = render_step(rep, self.step, why=why, ascii_only=not supports_unicode(sys.__stdout__))
            # file-level errors outside every step (e.g. contradictory assumptions) explain it too
            sources = _sources_for(rep)
            loose = [d.render(sources) for d in rep.errors if not any(_in_step(d.span, s) for s in rep.steps)]
            raise StepFailure("\n\n".join(loose + [text]))

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, StepFailure):
            return str(excinfo.value.args[0])
        return super().repr_failure(excinfo)

    def reportinfo(self):
        line = self.step.span.line - 1 if self.step.span is not None else 0
        word = "refute" if self.step.kind == "refute" else "step"
        return self.path, line, f"{word} {self.name}"


def pytest_configure(config):
    config.addinivalue_line("markers", "stepcheck: a step of a .step derivation (added by the stepcheck plugin)")
