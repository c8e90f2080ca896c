"""The ``verify`` command (also ``python -m stepcheck``).

Only argparse, os and sys are imported at module level: ``verify --help`` and
``verify --version`` must not load sympy or lark.  The checker and the
reporters are imported inside :func:`main` after the arguments are parsed.
"""
from __future__ import annotations

import argparse
import os
import sys

from . import __version__

EXIT_OK = 0
EXIT_NOT_VERIFIED = 1
EXIT_INPUT = 2
EXIT_INTERNAL = 3
EXIT_INTERRUPTED = 130

DESCRIPTION = """\
Check step-by-step maths derivations written in .step files: for every link
of every chain, whether it holds, the kernel rules it used and the
assumptions it actually needed; then a summary and the step-by-assumption
matrix."""

EPILOG = """\
paths:
  FILE   a .step file (any file named directly is checked), or a Markdown
         file (.md): its ```step blocks, with the article's own line numbers
  DIR    every *.step file under DIR, recursively, in sorted order, except
         files under a subdirectory named `bad/` (files meant to fail) and
         under hidden directories; name a bad/ directory explicitly
         (verify derivations/bad) or give its files directly to check them

exit codes:
  0    every step of every file holds
  1    a step fails or is unknown (unknown is not verified)
  2    an input could not be read or parsed, or bad usage
  3    internal error (a bug in stepcheck: please report it)
  130  interrupted

environment:
  NO_COLOR=1         no colour with --color auto
  STEPCHECK_DEBUG=1  show the Python traceback of an internal error
  STEPCHECK_NO_CACHE=1  the same as --no-cache
  XDG_CACHE_HOME     the result cache is $XDG_CACHE_HOME/stepcheck (see --cache-dir)"""


def _prog() -> str:
    argv0 = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else ""
    if argv0 in ("__main__.py", "-m", "-c", ""):
        return "python -m stepcheck"
    return "verify"


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog=_prog(),
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ap.add_argument("paths", nargs="*", metavar="FILE|DIR", help=".step files or directories (see below)")
    ap.add_argument("--json", action="store_true", help="print the report as JSON on stdout (schema: docs/json.md)")
    ap.add_argument(
        "--strict", action="store_true", help="cited-but-unneeded facts are errors instead of warnings"
    )
    ap.add_argument(
        "--why",
        action="store_true",
        help="explain more: details of each assumption used, and whether it is needed",
    )
    ap.add_argument("--quiet", "-q", action="store_true", help="show only failures, errors and the summary")
    ap.add_argument("--verbose", "-v", action="store_true",
                    help="with several files, show every file's whole report (by default: the files that are not "
                         "verified, then one line per file)")
    ap.add_argument(
        "--color",
        choices=("auto", "always", "never"),
        default="auto",
        help="colour the report: auto (default) = only when stdout is a terminal and NO_COLOR is unset",
    )
    ap.add_argument("--no-color", dest="color", action="store_const", const="never", help="same as --color never")
    ap.add_argument(
        "--timeout",
        type=float,
        metavar="SECONDS",
        default=None,
        help="time limit per link, in seconds (default 5): its proof, witness search and cross-check "
        "together; a link that hits it is unknown",
    )
    ap.add_argument(
        "--pdf",
        nargs="?",
        const="",
        default=None,
        metavar="PATH",
        help="also write an annotated proof PDF for each input file: by default <input name>.pdf in the "
        "current directory (verify --pdf derivations/var_dot.step writes ./var_dot.pdf); PATH names the PDF "
        "(one input) or a directory to write them in (needs the typst package: pip install 'stepcheck[pdf]')",
    )
    ap.add_argument(
        "--pdf-combined",
        metavar="PATH",
        default=None,
        help="write one annotated PDF holding all the input files",
    )
    ap.add_argument(
        "--typst",
        metavar="PATH",
        default=None,
        help="write the typst source of the PDF document (all the input files) to PATH, to edit by hand",
    )
    ap.add_argument(
        "--explain",
        nargs="?",
        const="list",
        default=None,
        metavar="CODE",
        help="explain a diagnostic code (such as E-cites-too-little) and exit; without CODE (or with `list`), "
        "list every code (docs/diagnostics.md)",
    )
    ap.add_argument("-j", "--jobs", type=int, default=None, metavar="N",
                    help="check N files at a time, on N processes (default: one per CPU, for the files that are "
                         "not read from the cache; -j 1 checks them one after the other)")
    ap.add_argument("--cache-dir", metavar="DIR", default=None,
                    help="where results of unchanged files are kept (default $XDG_CACHE_HOME/stepcheck, else "
                         "~/.cache/stepcheck); a file whose text, options or stepcheck changed is checked again")
    ap.add_argument("--no-cache", action="store_true", help="check every file afresh, and store nothing")
    ap.add_argument("--watch", action="store_true",
                    help="re-check the files that change, on one redrawn screen, until Ctrl-C (a terminal only)")
    ap.add_argument("--version", action="version", version=f"%(prog)s (stepcheck) {__version__}")
    return ap


def explain(code: str) -> int:
    """``verify --explain CODE``: print the explanation of a diagnostic code (0), or say it is unknown (2)."""
    from . import codes
    from .errors import closest

    if code.lower() == "list":
        sys.stdout.write(codes.listing())
        return EXIT_OK
    entry = codes.lookup(code)
    if entry is not None:
        sys.stdout.write(codes.explain(entry.code))
        return EXIT_OK
    bare = [c for c in codes.CODES if c.split("-", 1)[1].lower() == code.lower()]
    guess = bare or [g for g in [closest(code, codes.CODES)] if g]
    hint = " or ".join(f"`{g}`" for g in guess)
    sys.stderr.write(f"error: no diagnostic code `{code}`" + (f"; did you mean {hint}?" if hint else "") + "\n"
                     "help: `verify --explain list` lists every code\n")
    return EXIT_INPUT


# ------------------------------------------------------------------ helpers


def _utf8_safe(stream) -> None:
    """Never crash on a character the terminal's encoding cannot show."""
    reconf = getattr(stream, "reconfigure", None)
    if reconf is None:
        return
    try:
        reconf(errors="replace")
    except (ValueError, OSError, TypeError):
        pass


def _use_color(mode: str, stream) -> bool:
    if mode == "always":
        return True
    if mode == "never":
        return False
    if os.environ.get("NO_COLOR"):
        return False
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def _is_bad_dir(parts) -> bool:
    return any(p == "bad" or (p.startswith(".") and p not in (".", "..")) for p in parts)


def expand_paths(paths: list[str]) -> tuple[list[str], list[tuple[str, str]]]:
    """Files to check, and (path, reason) for paths that cannot be read."""
    entries = _expand(paths)
    return [e[1] for e in entries if e[0] == "file"], [(e[1], e[2]) for e in entries if e[0] == "bad"]


def _expand(paths: list[str]) -> list[tuple]:
    """``("file", path)`` and ``("bad", path, reason)`` entries, in the order given.

    A directory means every ``*.step`` file under it, recursively, sorted,
    except those under a ``bad/`` (or hidden) subdirectory of it; the
    directory itself may be called ``bad``.
    """
    from pathlib import Path

    entries: list[tuple] = []
    seen: set[str] = set()

    def add(f: str) -> None:
        key = os.path.normpath(os.path.abspath(f))
        if key not in seen:
            seen.add(key)
            entries.append(("file", f))

    for arg in paths:
        p = Path(arg)
        if p.is_dir():
            found = []
            for f in p.rglob("*.step"):
                rel = f.relative_to(p)
                if _is_bad_dir(rel.parts[:-1]) or not f.is_file():
                    continue
                found.append((rel.as_posix(), str(f)))
            if not found:
                entries.append(("bad", arg, "no .step files in this directory"))
            for _, f in sorted(found):
                add(f)
        elif p.is_file():
            add(arg)
        elif p.exists():
            entries.append(("bad", arg, "not a regular file"))
        else:
            entries.append(("bad", arg, "no such file or directory"))
    return entries


def _unreadable_report(path: str, reason: str):
    from .errors import Diagnostic
    from .results import FileReport

    d = Diagnostic(
        "error",
        f"cannot read {path}: {reason}",
        code="E-cannot-read",
        help="give a .step file or a directory containing .step files",
    )
    return FileReport(path=path, text="", diagnostics=[d], fatal=True)


# ---------------------------------------------------------------------- pdf


def _fix_pdf_args(parser, args) -> None:
    """``--pdf`` takes an optional PATH, so in ``verify --pdf derivations/var_dot.step``
    argparse reads the input as the PDF's path: a ``.step`` file (or anything,
    when no input is left) after ``--pdf`` is an input, and the PDF gets its
    default name."""
    if args.pdf and (args.pdf.endswith(".step") or not args.paths):
        args.paths.insert(0, args.pdf)
        args.pdf = ""
    if not args.paths:
        parser.error("the following arguments are required: FILE|DIR")
    inputs = {os.path.realpath(p) for p in args.paths if os.path.isfile(p)}
    if args.pdf and os.path.realpath(args.pdf) in inputs:
        parser.error(f"--pdf {args.pdf}: refusing to write over an input file")
    for opt in ("pdf_combined", "typst"):
        v = getattr(args, opt)
        if v is not None and (v.endswith(".step") or os.path.realpath(v) in inputs):
            parser.error(f"--{opt.replace('_', '-')} {v}: refusing to write over an input file")


def _pdf_targets(args, files: list[str]) -> list[tuple[str, str]]:
    """(input, pdf path) for ``--pdf``."""
    out = []
    target = args.pdf
    if target and (os.path.isdir(target) or target.endswith(os.sep) or len(files) > 1):
        os.makedirs(target, exist_ok=True)
        for f in files:
            out.append((f, os.path.join(target, os.path.splitext(os.path.basename(f))[0] + ".pdf")))
    elif target:
        out.append((files[0], target))
    else:
        for f in files:
            out.append((f, os.path.splitext(os.path.basename(f))[0] + ".pdf"))
    return out


def _cache_dir(args):
    """The result cache's directory, or None: ``--no-cache``, ``STEPCHECK_NO_CACHE=1`` (unless ``--cache-dir``
    names one), and the documents (``--pdf``, ``--typst``), which typeset from the checker's expressions
    that the cache does not keep."""
    if args.no_cache or any(x is not None for x in (args.pdf, args.pdf_combined, args.typst)):
        return None
    if args.cache_dir:
        return args.cache_dir
    if os.environ.get("STEPCHECK_NO_CACHE"):
        return None
    from .cache import default_dir

    return default_dir()


def _write_documents(args, reports, files: list[str]) -> int:
    """The ``--pdf``, ``--pdf-combined`` and ``--typst`` outputs; 0, or 2 when one could not be written."""
    if args.pdf is None and args.pdf_combined is None and args.typst is None:
        return 0
    from . import pdf  # typst and sympy: only when asked for

    by_path = dict(zip(files, reports))
    warnings: list[str] = []
    rc = 0
    readable = [r for r in reports if r.text or r.steps or not r.fatal]

    def note(msg: str) -> None:
        sys.stderr.write(msg + "\n")

    jobs = []  # (reports, pdf path or None, typst path or None)
    if args.pdf is not None:
        targets = _pdf_targets(args, [f for f in files if by_path[f].text])
        seen: dict[str, str] = {}
        for f, out in targets:
            key = os.path.abspath(out)
            if key in seen:
                note(f"error: {f} and {seen[key]} would both be written to {out}; give --pdf DIR or --pdf-combined")
                return 2
            seen[key] = f
        jobs.extend(([by_path[f]], out, None) for f, out in targets)
    if args.pdf_combined is not None:
        jobs.append((readable, args.pdf_combined, args.typst))
    elif args.typst is not None:
        jobs.append((readable, None, args.typst))
    for reps, out, typ in jobs:
        try:
            if out is None:
                warnings += pdf.write_typst(reps, typ, why=args.why)
                note(f"wrote {typ}")
                continue
            warnings += pdf.write_pdf(reps, out, why=args.why, typst_path=typ)
            if typ:
                note(f"wrote {typ}")
            note(f"wrote {out}")
        except ImportError:
            note("error: --pdf needs the typst package: pip install 'stepcheck[pdf]' (or pip install typst)")
            return 2
        except (OSError, ValueError) as e:
            note(f"error: cannot write {out or typ}: {e}")
            rc = 2
    for w in dict.fromkeys(warnings):  # each warning once
        note("warning: " + w)
    return rc


# --------------------------------------------------------------------- main


def _run(args) -> int:
    import json

    from . import report as rep

    if args.watch:
        from .options import Options
        from .watch import run as watch

        return watch(args.paths, Options().but(strict=args.strict, timeout=args.timeout, why=args.why),
                     color=_use_color(args.color, sys.stdout))
    entries = _expand(args.paths)
    files = [e[1] for e in entries if e[0] == "file"]
    reports_by_path = {}
    for e in entries:
        if e[0] == "bad":
            reports_by_path[e[:2]] = _unreadable_report(e[1], e[2])

    if files:
        from .cache import check_files  # heavy: sympy, lark
        from .options import Options

        options = Options().but(strict=args.strict, timeout=args.timeout, why=args.why)
        with rep.Progress(len(files)) as prog:
            done = check_files(files, options, directory=_cache_dir(args), jobs=args.jobs, progress=prog.update)
            prog.update(len(files))
        reports_by_path.update({("file", f): r for f, r in done.items()})
    reports = [reports_by_path[e[:2]] for e in entries]  # in the order given

    out = sys.stdout
    if args.json:
        data = rep.to_json(reports, why=args.why)
        out.write(json.dumps(data, indent=2, ensure_ascii=not rep.supports_unicode(out)) + "\n")
    else:
        color = _use_color(args.color, out)
        out.write(rep.render_text(reports, color=color, why=args.why, quiet=args.quiet,
                                  summary=not args.verbose))
    out.flush()
    code = rep.exit_code(reports)
    doc_files = [e[1] for e in entries if e[0] == "file"]
    wrote = _write_documents(args, [reports_by_path[("file", f)] for f in doc_files], doc_files)
    return max(code, wrote)


def console() -> None:
    """The ``verify`` program (console script and ``python -m stepcheck``).

    Runs :func:`main`, flushes the output and leaves with ``os._exit``,
    skipping the interpreter's teardown: freeing sympy's modules and caches
    at exit takes about 0.1 s, a fifth of a cold run, and nothing needs it
    (every file stepcheck writes is written and closed before ``main``
    returns; it registers no exit handlers and starts no threads).
    ``STEPCHECK_FULL_EXIT=1`` exits the ordinary way.
    """
    code = main()
    if os.environ.get("STEPCHECK_FULL_EXIT"):
        sys.exit(code)
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:  # noqa: BLE001 - a closed pipe: nothing left to show
            pass
    os._exit(code)


def main(argv: list[str] | None = None) -> int:
    """Run ``verify``; returns the exit code (never raises, except SystemExit from -h)."""
    _utf8_safe(sys.stdout)
    _utf8_safe(sys.stderr)
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        if args.explain is None:
            _fix_pdf_args(parser, args)
        if args.jobs is not None and args.jobs < 1:
            parser.error(f"--jobs: the number of processes must be at least 1, not {args.jobs}")
        if args.timeout is not None and not args.timeout > 0:
            parser.error(f"--timeout: the time limit must be a positive number of seconds, not {args.timeout:g}")
    except SystemExit as e:  # --help, --version (0) and usage errors (2)
        code = e.code
        return code if isinstance(code, int) else (0 if code is None else EXIT_INPUT)
    try:
        if args.explain is not None:
            return explain(args.explain)
        return _run(args)
    except KeyboardInterrupt:
        try:
            sys.stderr.write("\ninterrupted\n")
        except Exception:
            pass
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # e.g. `verify ... | head`: stop quietly
        try:
            sys.stdout = open(os.devnull, "w")
        except OSError:
            pass
        return EXIT_NOT_VERIFIED
    except Exception as e:  # noqa: BLE001 - last line of defence
        msg = f"internal error: {type(e).__name__}: {e}\n"
        msg += (
            "this is a bug in stepcheck, not in your file; please report it with the .step file "
            "and the command line"
        )
        if os.environ.get("STEPCHECK_DEBUG"):
            import traceback

            msg += "\n" + traceback.format_exc()
        else:
            msg += " (set STEPCHECK_DEBUG=1 to see the traceback)"
        sys.stderr.write(msg.rstrip("\n") + "\n")
        return EXIT_INTERNAL


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
