"""The Python API: check maths claims and ``.step`` files from ordinary code and tests.

::

    from stepcheck import check, verify_file, verify_text, assert_holds

    r = check("Var(X / sqrt(d)) = Var(X) / d", given="random X; let d: positive real")
    assert r.holds
    assert r.uses == set()            # no assumption needed

Functions
---------
``check(claim, given="", *, strict=False, timeout=DEFAULT_TIMEOUT, why=False) -> ClaimResult``
    Checks one claim (a chain ``A = B`` or ``A = B = C``, optionally ending in
    ``by label, ...``) under the declarations and assumptions in ``given``
    (``.step`` statements separated by ``;`` or newlines).  Its positions are
    the caller's: ``test_x.py:13:24`` on the line of the ``check()`` call when
    the claim is written there, else ``test_x.py:13 (claim):1:8`` (line and
    column in the claim); ``given``'s are ``test_x.py:13 (given):2:8``; without
    a caller file (a REPL) ``<claim>`` and ``<given>`` (see :mod:`.place`).
``verify_text(text, file="<string>", *, strict=False, timeout=DEFAULT_TIMEOUT, why=False) -> Report``
``verify_file(path, *, strict=False, timeout=DEFAULT_TIMEOUT, why=False) -> Report``
    Check a whole ``.step`` text or file.
``check_many(paths, *, executor=None, strict=False, timeout=DEFAULT_TIMEOUT, why=False) -> list``
    Check many files, on any ``concurrent.futures`` executor (process pools, Ray, Dask);
    one :class:`Report` (or the error :func:`verify_file` would raise) per path, in order.
``assert_holds(claim_or_result, given="", *, strict=False, timeout=DEFAULT_TIMEOUT, why=False)``
    Raises :class:`AssertionError` whose message is the rendered diagnostic
    when the claim (a string, a :class:`ClaimResult` or a :class:`Report`) is
    not verified; returns the result otherwise.  Its frames (and those of the
    other functions) are hidden from pytest's traceback (``__tracebackhide__``).

``timeout`` is the time limit per link in seconds
(``stepcheck.options.DEFAULT_TIMEOUT``, 5 s): its proof, witness search and
cross-check together.  ``why=True`` checks as ``verify --why`` does (is each
assumption needed? a witness when it is); ``text`` then includes the
explanation.

Results
-------
:class:`ClaimResult` (one step), :class:`Link` (one link of a chain),
:class:`Report` (a file) and :class:`Assumption` (a label with its kind).

``uses`` is a ``frozenset`` of :class:`Assumption`; an ``Assumption`` *is* its
label (a ``str`` subclass) carrying ``kind``, ``implicit``, ``weakest``,
``detail`` and ``facts`` attributes, so ``r.uses == {"indep"}`` and
``"indep" in r.uses`` work, and ``r.uses_detail`` gives the same objects in
order of first use.

``holds`` is the mathematical verdict (``status == "holds"``); ``ok`` is
whether the step passes the check: it also requires that the step carries no
error diagnostic (under ``strict=True`` an unneeded citation is an error).
``bool(result)`` is ``result.ok``.

Exceptions
----------
:class:`StepcheckError` is the base of all of them.

* :class:`ParseError`: the input text is not valid ``.step`` (syntax error,
  unknown name, ...).  ``.diagnostic`` is the first error, ``.diagnostics``
  all of them, ``.text`` the rendered (rustc-style) text, ``.report`` the
  partial :class:`Report` when one exists.
* :class:`ClaimError` (a :class:`ParseError`): the claim of :func:`check` is
  empty, is not a relation, or does not parse.
* :class:`ReadError`: :func:`verify_file` could not read the file (missing,
  a directory, too large, not UTF-8).

The API never prints.  Importing this module is cheap: sympy is loaded when
something is checked or typeset.
"""
from __future__ import annotations

import os
import re

from ..errors import Diagnostic
from ..options import DEFAULT_TIMEOUT, Options
from .latex import _latex_printer, to_latex
from .results import (CLAIM_FILE, Assumption, ClaimResult, Link, Report, _in_step, _sources_for,
                      render_diagnostics, render_step, step_diagnostics, step_errors)

# the helpers the pytest plugin and the notebook extension use, next to the public names
_HELPERS = (_latex_printer, to_latex, render_step, step_diagnostics, step_errors)

__all__ = [
    "check",
    "verify_text",
    "verify_file",
    "check_many",
    "assert_holds",
    "ClaimResult",
    "Link",
    "Report",
    "Assumption",
    "StepcheckError",
    "ParseError",
    "ClaimError",
    "ReadError",
]


# ------------------------------------------------------------------ exceptions


class StepcheckError(Exception):
    """Base class of the exceptions raised by the stepcheck API."""


class ParseError(StepcheckError, ValueError):
    """The input is not valid ``.step`` text.

    Attributes: ``diagnostic`` (the first error :class:`~stepcheck.errors.Diagnostic`),
    ``diagnostics`` (every error), ``text`` (the rendered diagnostics, with the
    source line and carets) and ``report`` (the partial :class:`Report`, or None).
    """

    def __init__(self, diagnostics: list[Diagnostic], text: str, report: "Report | None" = None):
        super().__init__(text)
        self.diagnostics = list(diagnostics)
        self.diagnostic = self.diagnostics[0] if self.diagnostics else None
        self.text = text
        self.report = report

    def __str__(self) -> str:
        return self.text


class ClaimError(ParseError):
    """The claim given to :func:`check` is empty, not a relation, or does not parse."""


class ReadError(StepcheckError, OSError):
    """A file given to :func:`verify_file` could not be read."""

    def __init__(self, diagnostic: Diagnostic, text: str):
        super().__init__(text)
        self.diagnostic = diagnostic
        self.diagnostics = [diagnostic]
        self.text = text

    def __str__(self) -> str:
        return self.text


# ------------------------------------------------------------------ entry points


def _raise_fatal(rep, cls=ParseError):
    __tracebackhide__ = True
    errs = [d for d in rep.diagnostics if d.severity == "error"] or list(rep.diagnostics)
    text = render_diagnostics(errs, _sources_for(rep))
    raise cls(errs, text, Report._from(rep))


def verify_text(text: str, file: str = "<string>", *, strict: bool = False, timeout: float = DEFAULT_TIMEOUT,
                why: bool = False) -> Report:
    """Check ``.step`` source text; raises :class:`ParseError` when it has input errors.
    ``why=True``: as ``verify --why`` (is each assumption needed? the text explains it)."""
    __tracebackhide__ = True
    if not isinstance(text, str):
        raise TypeError(f"verify_text() needs a str, not {type(text).__name__}")
    from ..checker import check_text

    rep = check_text(text, file, Options(strict=strict, timeout=timeout, why=why))
    if rep.fatal:
        _raise_fatal(rep)
    return Report._from(rep, why=why)


def verify_file(path, *, strict: bool = False, timeout: float = DEFAULT_TIMEOUT, why: bool = False) -> Report:
    """Check a ``.step`` file; raises :class:`ReadError` when it cannot be read and
    :class:`ParseError` when it has input errors."""
    __tracebackhide__ = True
    from ..checker import check_file

    rep = check_file(os.fspath(path), Options(strict=strict, timeout=timeout, why=why))
    if rep.fatal:
        first = next((d for d in rep.diagnostics if d.severity == "error"), None)
        if first is not None and (first.code or "").startswith("E-input"):
            raise ReadError(first, first.render({}))
        _raise_fatal(rep)
    return Report._from(rep, why=why)


def _verify_or_error(path, strict, timeout, why):
    """verify_file for check_many: an unreadable or unparsable file gives its exception, not a raise."""
    try:
        return verify_file(path, strict=strict, timeout=timeout, why=why)
    except StepcheckError as e:
        return e


def check_many(paths, *, executor=None, strict: bool = False, timeout: float = DEFAULT_TIMEOUT,
               why: bool = False) -> list:
    """Check several ``.step`` files, on ``executor`` when given (any ``concurrent.futures.Executor``:
    ``ProcessPoolExecutor``, or a Ray or Dask executor with that interface); in order, one entry per
    path: its :class:`Report`, or the :class:`StepcheckError` (:class:`ReadError`, :class:`ParseError`)
    that :func:`verify_file` would raise for it."""
    paths = [os.fspath(p) for p in paths]
    if executor is None:
        return [_verify_or_error(p, strict, timeout, why) for p in paths]
    futures = [executor.submit(_verify_or_error, p, strict, timeout, why) for p in paths]
    return [f.result() for f in futures]


def _split_given(given: str) -> list[tuple[str, int, int]]:
    """Statements of ``given`` with where each starts (1-based line, 0-based column):
    split on newlines and on ``;`` outside quotes and comments."""
    out = []
    for ln, line in enumerate(given.splitlines(), 1):
        start, quote = 0, False
        for k, ch in enumerate(line + ";"):
            if ch == '"':
                quote = not quote
            if ch == "#" and not quote:
                out.append((line[start:k], ln, start))
                break
            if (ch == ";" and not quote) or k == len(line):
                out.append((line[start:k], ln, start))
                start = k + 1
    res = []
    for piece, ln, col in out:
        if piece.strip():
            res.append((piece.strip(), ln, col + len(piece) - len(piece.lstrip())))
    return res


def _claim_name(given: str) -> str:
    name, k = "claim", 1
    while re.search(rf"(?<![\w]){re.escape(name)}(?![\w])", given):
        k += 1
        name = f"claim_{k}"
    return name


def check(claim: str, given: str = "", *, strict: bool = False, timeout: float = DEFAULT_TIMEOUT,
          why: bool = False) -> ClaimResult:
    """Check one claim under ``given`` (declarations and assumptions, separated by ``;`` or newlines).

    ``claim`` is a chain as written after ``step NAME:`` in a ``.step`` file,
    e.g. ``"E[X + Y] = E[X] + E[Y]"``; further links may follow on new lines
    (``"E[2 X]\\n= 2 E[X]"``).  Raises :class:`ClaimError` when the claim is
    empty, not a relation or does not parse, and :class:`ParseError` when
    ``given`` does not.  Positions point at the caller's line (see
    :mod:`stepcheck.api.place`).  ``why=True``: as ``verify --why``.
    """
    __tracebackhide__ = True
    if not isinstance(claim, str):
        raise TypeError(f"check() needs the claim as a str, not {type(claim).__name__}")
    if not isinstance(given, str):
        raise TypeError(f"check() needs `given` as a str, not {type(given).__name__}")
    lines = [l.strip() for l in claim.strip().splitlines() if l.strip()]
    if not lines:
        d = Diagnostic("error", "the claim is empty", None, help='write a relation, e.g. check("E[X + 1] = E[X] + 1", given="random X")',
                       code="E-claim-empty")
        raise ClaimError([d], d.render({}))
    from .place import Places, caller, relocate

    split = _split_given(given)
    stmts = [st for st, _, _ in split]
    name = _claim_name(given)
    first_claim_line = len(stmts) + 1
    text = "\n".join(stmts + [f"step {name}: {lines[0]}"] + ["    " + l for l in lines[1:]]) + "\n"
    from ..checker import check_text

    rep = check_text(text, CLAIM_FILE, Options(strict=strict, timeout=timeout, why=why))
    in_claim = any(d.span is not None and d.span.line >= first_claim_line for d in rep.errors)
    places = Places(caller(), lines, len(f"step {name}: "), [(ln, col) for _, ln, col in split], given)
    relocate(rep, places)
    if rep.fatal:
        _raise_fatal(rep, ClaimError if in_claim else ParseError)
    step = next((s for s in rep.steps if s.name == name), None)
    if step is None:  # pragma: no cover - the parser always yields the step or an error
        d = Diagnostic("error", "the claim was not checked", None, code="E-claim")
        raise ClaimError([d], d.render({}), Report._from(rep))
    res = ClaimResult._from(rep, step, why=why)
    # file-level diagnostics (e.g. contradictory assumptions in `given`) concern the claim too
    extra = tuple(d for d in rep.diagnostics if d not in res.diagnostics)
    if extra:
        object.__setattr__(res, "diagnostics", extra + res.diagnostics)
    object.__setattr__(res, "file", places.claim_file)
    return res


def failure_message(res) -> str:
    """The text of a result that is not ok: the diagnostics, as ``verify`` shows them."""
    if isinstance(res, Report):
        return f"{res.path}: {res._verdict()[1]}\n\n{res.failure_text()}"
    extra = [d for d in res.diagnostics if not _in_step(d.span, res.raw) and d not in
             [x for lk in res.links for x in lk.diagnostics]]
    pre = render_diagnostics(extra, _sources_for(res.report)) + "\n\n" if extra else ""
    return pre + res.text


def assert_holds(claim_or_result, given: str = "", *, strict: bool = False, timeout: float = DEFAULT_TIMEOUT,
                 why: bool = False):
    """Assert that a claim holds; the :class:`AssertionError`'s message is the diagnostic.

    ``claim_or_result`` is a claim string (checked with :func:`check` under
    ``given``), a :class:`ClaimResult` or a :class:`Report`.  Returns the result.
    """
    __tracebackhide__ = True
    if isinstance(claim_or_result, str):
        res = check(claim_or_result, given, strict=strict, timeout=timeout, why=why)
    elif isinstance(claim_or_result, (ClaimResult, Report)):
        if given:
            raise TypeError("assert_holds(): `given` only applies to a claim string")
        res = claim_or_result
    else:
        raise TypeError(f"assert_holds() needs a claim string, a ClaimResult or a Report, not "
                        f"{type(claim_or_result).__name__}")
    if res.ok:
        return res
    raise AssertionError(failure_message(res))
