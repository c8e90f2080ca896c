"""Shared by the tests: the repository's paths and one check per shipped derivation.

Paths are anchored to the repository (never the working directory), so the
suite collects the same cases whether pytest starts at the root or in tests/.

:func:`shipped_report` checks a file of the repository once per test process
(default options, as ``verify`` does) and hands every later caller the same
report: tests that only read the report of a shipped derivation share it
instead of checking the file again.  The front ends that check (``verify``
in test_derivations, the plugin, the API, the ``verify`` subprocess) still
run their own check; the PDF tests render the shared reports.  With
pytest-xdist each worker process has its own cache.
"""
from __future__ import annotations

import functools
import os
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

# `verify` keeps results in a cache directory by default: the tests check afresh (the cache's own tests
# name a directory with --cache-dir), and never write into the user's ~/.cache
os.environ["STEPCHECK_NO_CACHE"] = "1"

# the hostile and kernel-reach corpora are read by test_hostile.py with their expected verdicts (many must not hold)
collect_ignore = ["hostile", "corpus"]

REPO = Path(__file__).resolve().parent.parent
DERIVATIONS = REPO / "derivations"

GOOD = sorted(DERIVATIONS.glob("*.step"))  # derivations/*.step: every step holds
BAD = sorted((DERIVATIONS / "bad").glob("*.step"))  # derivations/bad/*.step: each fails in its own way
SHIPPED = GOOD + BAD
TUTORIAL = sorted((REPO / "docs" / "tutorial").glob("*.step"))  # the tutorial's stages


def rel(path) -> str:
    """``path`` relative to the repository, with forward slashes (a stable test id)."""
    return Path(path).resolve().relative_to(REPO).as_posix()


@functools.lru_cache(maxsize=None)
def _checked(path: str):
    return _REAL_CHECK_FILE(path)


def _real_check_file():
    """``stepcheck.checker.check_file`` as the package defines it, taken before any test patches it (the
    ``shared_checks`` fixture replaces it with :func:`shipped_report`, which must not call itself back: a file
    first checked under that fixture recursed until Python's limit)."""
    from stepcheck import checker

    return checker.check_file


_REAL_CHECK_FILE = _real_check_file()


def shipped_report(path):
    """The FileReport of ``stepcheck.checker.check_file(path)`` with the default options, cached.

    Shared between tests: read it, never change it.  Relative paths are taken
    from the repository root.
    """
    p = Path(path)
    return _checked(str(p if p.is_absolute() else REPO / p))


@pytest.fixture
def shared_checks(monkeypatch):
    """``stepcheck.checker.check_file`` answers with :func:`shipped_report` for files of the repository.

    For tests of what a front end does with reports (writing PDFs and Typst
    sources): the check of each shipped file through ``verify`` is tested in
    test_derivations.  Other files, and other options, are checked as usual.
    """
    from stepcheck import checker
    from stepcheck.options import Options

    real = checker.check_file

    def check_file(path, options=None, **overrides):
        p = Path(path)  # absolute only: a report names its file as it was given
        if (options is None or options == Options()) and all(v is None for v in overrides.values()) \
                and p.is_absolute() and REPO in p.parents and p.suffix == ".step":
            return shipped_report(p)
        return real(path, options, **overrides)

    monkeypatch.setattr(checker, "check_file", check_file)
    return check_file


def diagnostic_codes(rep) -> set:
    """Every diagnostic code of a report: the file's and its links'."""
    out = {d.code for d in rep.diagnostics}
    for s in rep.steps:
        for lk in s.links:
            out |= {d.code for d in lk.diagnostics}
    return out


def assert_verdict(link, status: str, rule: str | None = None, claim: str = "") -> None:
    """``link`` has ``status`` (``"not holds"``: anything but holds, for a false claim the witness search may
    miss); a link that holds names ``rule`` among its rules."""
    if status == "not holds":
        assert link.status != "holds", claim
        return
    assert link.status == status, (claim, link.status, link.residual, link.message)
    if status == "holds" and rule is not None:
        assert rule in link.rules, (claim, link.rules)


def claim_link(decls: str, claim: str):
    """The one link of ``step t: CLAIM`` checked after the declarations ``decls``."""
    from stepcheck.checker import check_text

    (link,) = check_text(decls + f"step t: {claim}\n", "t.step").steps[-1].links
    return link

