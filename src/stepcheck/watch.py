"""``verify --watch FILE|DIR``: re-check on save, on one screen.

The watched paths are polled (their files' modification times and sizes,
every :data:`INTERVAL` seconds; no dependency).  Only the files that changed
since the last round are checked again; the others keep their last report.
The screen is redrawn after each round: one line per file (its verdict and
counts), then the failing and unknown links of the files that are not
verified, cut to the terminal's height.  Ctrl-C stops.

It refuses to run when stdout is not a terminal (a redrawn screen in a log
or a pipe is noise; run ``verify`` there).
"""
from __future__ import annotations

import os
import sys
import time

INTERVAL = 0.5  # seconds between two polls
CLEAR = "\x1b[H\x1b[2J"


class Watcher:
    """The state of a watch: files, their stamps and their last reports."""

    def __init__(self, paths: list[str], options=None, check=None):
        self.paths = list(paths)
        self.options = options
        self._check = check  # check(path, options) -> FileReport; default stepcheck.checker.check_file
        self.stamps: dict[str, tuple[int, int]] = {}
        self.reports: dict[str, object] = {}
        self.problems: list[tuple[str, str]] = []  # (path, reason) for paths that cannot be read
        self.last_checked: list[str] = []
        self.rounds = 0

    def shown(self, path: str) -> str:
        """``path`` as the screen shows it: relative to the watched directory that holds it, and a long one
        shortened to its last two parts (``…/dir/a.step``), so that a line keeps its verdict."""
        for root in self.paths:
            if os.path.isdir(root):
                rel = os.path.relpath(path, root)
                if not rel.startswith(".."):
                    path = rel
                    break
        parts = path.replace(os.sep, "/").split("/")
        return path if len(path) <= 40 or len(parts) <= 2 else "…/" + "/".join(parts[-2:])

    def _stamp(self, path: str):
        try:
            st = os.stat(path)
        except OSError:
            return None
        return st.st_mtime_ns, st.st_size

    def poll(self) -> list[str]:
        """Check the files that are new or changed since the last poll; the list of them."""
        from .fmt import step_files

        files, self.problems = step_files(self.paths)
        for gone in set(self.stamps) - set(files):
            self.stamps.pop(gone, None)
            self.reports.pop(gone, None)
        changed = []
        for f in files:
            stamp = self._stamp(f)
            if stamp is not None and self.stamps.get(f) != stamp:
                changed.append(f)
                self.stamps[f] = stamp
        if changed:
            check = self._check
            if check is None:
                from .checker import check_file as check
            for f in changed:
                self.reports[f] = check(f, self.options)
        self.last_checked = changed
        self.rounds += 1
        return changed

    def render(self, width: int = 100, height: int = 40, color: bool = False, now: float | None = None) -> str:
        """The screen: a header, one line per file, then the links that do not hold, in ``height`` lines."""
        from . import report as R
        from .results import FAILS, HOLDS, UNKNOWN

        p = R._Painter(color, ascii_only=not R.supports_unicode())
        stamp = time.strftime("%H:%M:%S", time.localtime(now))
        files = list(self.reports)
        bad_files = [f for f in files if not self.reports[f].ok]
        head = (f"stepcheck --watch  {stamp}  {len(files)} file{'s' if len(files) != 1 else ''}, "
                f"{len(files) - len(bad_files)} verified" + (f", {len(bad_files)} not" if bad_files else "")
                + (f"  (checked {', '.join(os.path.basename(f) for f in self.last_checked)})"
                   if self.last_checked else ""))
        lines = [p("head", head[:width]), ""]
        for f in files:
            r = self.reports[f]
            status = R.file_status(r)
            mark = p.mark(status if status in (HOLDS, FAILS, UNKNOWN) else FAILS)
            style, sentence = R.verdict(r)
            lines.append(f"{mark} {self.shown(f)}  {p(style, sentence)}")
            if r.steps and not r.fatal:
                lines.append("    " + p("dim", R.summary_line(r)))
        for path, reason in self.problems:
            lines.append(f"{p.mark(FAILS)} {path}  {reason}")
        detail = []
        for f in bad_files:
            r = self.reports[f]
            for d in r.diagnostics:
                if d.severity == "error":
                    where = f"{d.span.line}:{d.span.col}" if d.span else ""
                    detail.append(f"  {self.shown(f)}:{where} {d.title}")
            for s in r.steps:
                for lk in s.links:
                    if lk.status in (FAILS, UNKNOWN):
                        why = (lk.diagnostics[0].title if lk.diagnostics else lk.message) or lk.status
                        # the step first: a narrow screen cuts the place, not what is wrong
                        detail.append(f"  {p.mark(lk.status)} {s.name}: {lk.rel} {lk.rhs}  — {why}  "
                                      f"({self.shown(f)}:{lk.span.line}:{lk.span.col})")
                        if lk.counterexample:
                            detail.append("      counterexample: " + lk.counterexample.splitlines()[0])
        if detail:
            lines += ["", p("bold", "not holding:")] + detail
        footer = p("dim", "watching; Ctrl-C stops")
        room = max(height - 2, 3)
        if len(lines) > room:
            cut = len(lines) - room + 1
            lines = lines[:room - 1] + [p("dim", f"… {cut} more line{'s' if cut != 1 else ''}")]
        cut_line = (lambda line: line[:width] + ("\x1b[0m" if color else ""))
        return "\n".join(line if _visible(line) <= width else cut_line(line) for line in lines) + "\n" + footer + "\n"


def _visible(line: str) -> int:
    import re

    from .errors import _display_width

    return _display_width(re.sub(r"\x1b\[[0-9;]*m", "", line))


def run(paths: list[str], options=None, *, color: bool = False, stream=None, interval: float = INTERVAL,
        rounds: int | None = None) -> int:
    """Watch ``paths`` until Ctrl-C (or ``rounds`` polls); 0, or 2 when stdout is not a terminal."""
    import shutil

    stream = sys.stdout if stream is None else stream
    if not (hasattr(stream, "isatty") and stream.isatty()):
        sys.stderr.write("error: --watch redraws the screen and needs a terminal: stdout is not a TTY\n"
                         "  = help: run `verify FILE|DIR` without --watch in scripts, pipes and CI\n")
        return 2
    if not paths:
        sys.stderr.write("error: --watch needs FILE|DIR to watch\n")
        return 2
    w = Watcher(paths, options)
    n = 0
    try:
        while rounds is None or n < rounds:
            if w.poll() or n == 0:
                size = shutil.get_terminal_size((100, 40))
                stream.write(CLEAR + w.render(width=size.columns, height=size.lines, color=color))
                stream.flush()
            n += 1
            if rounds is None or n < rounds:
                time.sleep(interval)
    except KeyboardInterrupt:
        stream.write("\n")
    return 0
