"""IPython / Jupyter support: the ``%%stepcheck`` cell magic.

Load it with ``%load_ext stepcheck`` (or ``%load_ext stepcheck.ipython``),
then::

    %%stepcheck [--strict] [--why] [NAME]
    random X
    step lin: E[2 X + 1] = 2 E[X] + 1

checks the cell as a ``.step`` file and displays the report (LaTeX maths,
status marks, assumption badges).  ``--why`` checks it as ``verify --why``
does and shows, under each step, the same text the command prints: the
details of each assumption used and, for each, a witness that it is needed
(or why it was not shown to be).  The :class:`~stepcheck.api.Report` is
stored in the user namespace as ``NAME`` when given, and always as
``_stepcheck``.  A cell that does not parse displays its diagnostic; nothing
is raised.  IPython is imported only when the magic runs.
"""
from __future__ import annotations

import shlex

__all__ = ["load_ipython_extension", "run_cell"]

USAGE = "usage: %%stepcheck [--strict] [--why] [NAME]"


def _usage_error(msg: str) -> Exception:
    try:
        from IPython.core.error import UsageError
    except ImportError:
        return ValueError(msg)
    return UsageError(msg)


def _parse_line(line: str) -> tuple[dict, str | None]:
    opts = {"strict": False, "why": False}
    name = None
    for tok in shlex.split(line or ""):
        if tok == "--strict":
            opts["strict"] = True
        elif tok == "--why":
            opts["why"] = True
        elif tok.isidentifier() and name is None:
            name = tok
        else:
            raise _usage_error(f"%%stepcheck: unexpected argument {tok!r}\n{USAGE}")
    return opts, name


def run_cell(line: str, cell: str):
    """Check ``cell`` as a ``.step`` text; returns ``(report, name)`` (never raises for bad input)."""
    from .api import Report
    from .checker import check_text

    opts, name = _parse_line(line)
    rep = check_text(cell, "<cell>", strict=opts["strict"], why=opts["why"])
    return Report._from(rep, why=opts["why"]), name


def _display(obj) -> None:
    try:
        from IPython.display import display
    except ImportError:  # pragma: no cover - the magic only runs inside IPython
        print(obj.render())
        return
    display(obj)


def load_ipython_extension(ip) -> None:
    """Register the ``%%stepcheck`` cell magic on the IPython shell ``ip``."""

    def stepcheck_magic(line, cell):
        report, name = run_cell(line, cell)
        ns = getattr(ip, "user_ns", None)
        if ns is not None:
            ns["_stepcheck"] = report
            if name:
                ns[name] = report
        _display(report)

    stepcheck_magic.__doc__ = __doc__
    ip.register_magic_function(stepcheck_magic, magic_kind="cell", magic_name="stepcheck")


def unload_ipython_extension(ip) -> None:  # nothing to undo beyond the magic itself
    pass
