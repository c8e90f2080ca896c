"""The ``stepcheck`` command: subcommands beside ``verify``.

::

    stepcheck fmt [--check] FILE|DIR ...     align and normalise .step files
    stepcheck import ARTICLE.md|.tex         a .step skeleton from an article's display maths
    stepcheck lsp                            the language server, on stdio
    stepcheck verify ...                     the same as ``verify ...``

Each subcommand lives in its own module and is imported only when it runs,
so ``stepcheck --help`` stays instant.
"""
from __future__ import annotations

import os
import sys

# name -> (module, function, one-line help)
SUBCOMMANDS = {
    "verify": ("stepcheck.cli", "main", "check .step files (the same as `verify`)"),
    "fmt": ("stepcheck.fmt", "main", "align `=` and `by` columns, normalise spacing (--check for CI)"),
    "import": ("stepcheck.importer", "main", "turn an article's display maths into a .step skeleton"),
    "lsp": ("stepcheck.lsp", "main", "run the language server on stdio (pip install 'stepcheck[lsp]')"),
}


def usage() -> str:
    lines = ["usage: stepcheck COMMAND [ARGS ...]", "", "commands:"]
    width = max(map(len, SUBCOMMANDS))
    for name, (_m, _f, text) in SUBCOMMANDS.items():
        lines.append(f"  {name.ljust(width)}  {text}")
    lines += ["", "`stepcheck COMMAND --help` explains one command."]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    import importlib

    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv or argv[0] in ("-h", "--help", "help"):
        sys.stdout.write(usage())
        return 0 if argv else 2
    name, rest = argv[0], argv[1:]
    if name not in SUBCOMMANDS:
        from .errors import closest

        guess = closest(name, list(SUBCOMMANDS))
        sys.stderr.write(f"error: no command `{name}`" + (f"; did you mean `{guess}`?" if guess else "") + "\n"
                         + usage())
        return 2
    module, func, _text = SUBCOMMANDS[name]
    return int(getattr(importlib.import_module(module), func)(rest) or 0)


def console() -> None:
    code = main()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:  # noqa: BLE001 - a closed pipe
            pass
    os._exit(code)
