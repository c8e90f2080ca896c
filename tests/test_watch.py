"""``verify --watch``: only changed files are checked again; one screen; a terminal only."""
from __future__ import annotations

import io
import os
from pathlib import Path

from stepcheck.checker import check_file
from stepcheck.cli import main
from stepcheck.watch import CLEAR, Watcher, run

REPO = Path(__file__).resolve().parent.parent
VAR_DOT = (REPO / "derivations" / "var_dot.step").read_text(encoding="utf-8")
LAST = "    = d_k                                 by var_term"


class Recorder:
    def __init__(self):
        self.calls = []

    def __call__(self, path, options):
        self.calls.append(os.path.basename(path))
        return check_file(path, options)


def _touch(path: Path, text: str, bump: int) -> None:
    path.write_text(text, encoding="utf-8")
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + bump * 1_000_000_000))  # a distinct mtime, whatever the clock


def test_only_changed_files_are_checked_again(tmp_path):
    a, b = tmp_path / "a.step", tmp_path / "b.step"
    _touch(a, VAR_DOT, 0)
    _touch(b, "derivation b\nlet x: real\nstep s: x\n    = x + 0\n", 0)
    rec = Recorder()
    w = Watcher([str(tmp_path)], check=rec)
    assert sorted(w.poll()) == sorted([str(a), str(b)])
    assert sorted(rec.calls) == ["a.step", "b.step"]
    assert w.poll() == [] and len(rec.calls) == 2  # nothing changed: nothing checked
    _touch(a, VAR_DOT.replace(LAST, "    = sqrt(d_k)                           by var_term"), 5)
    assert w.poll() == [str(a)] and rec.calls[2:] == ["a.step"]
    screen = w.render(width=100, height=30)
    assert "1 verified, 1 not" in screen and "checked a.step" in screen
    assert "var_sum: = sqrt(d_k)" in screen and "counterexample:" in screen
    # a new file is picked up, a deleted one dropped
    c = tmp_path / "c.step"
    _touch(c, "derivation c\nlet y: real\n", 9)
    b.unlink()
    assert w.poll() == [str(c)]
    assert sorted(os.path.basename(f) for f in w.reports) == ["a.step", "c.step"]


def test_screen_fits_the_terminal(tmp_path):
    for k in range(6):
        _touch(tmp_path / f"f{k:02}.step", VAR_DOT.replace(LAST, "    = 2 d_k    by var_term"), 0)
    w = Watcher([str(tmp_path)])
    w.poll()
    screen = w.render(width=60, height=15)
    lines = screen.rstrip("\n").split("\n")
    assert len(lines) <= 15 and all(len(line) <= 60 for line in lines)
    assert "more lines" in screen and lines[-1].startswith("watching")


def test_all_verified_lists_nothing_failing(tmp_path):
    _touch(tmp_path / "v.step", VAR_DOT, 0)
    w = Watcher([str(tmp_path)])
    w.poll()
    screen = w.render()
    assert "1 verified" in screen and "not holding" not in screen


class FakeTTY(io.StringIO):
    def isatty(self):
        return True


def test_run_draws_one_screen_per_change(tmp_path):
    f = tmp_path / "a.step"
    _touch(f, VAR_DOT, 0)
    out = FakeTTY()
    assert run([str(f)], stream=out, interval=0.01, rounds=3) == 0
    assert out.getvalue().count(CLEAR) == 1  # drawn once: nothing changed afterwards
    assert "verified: every step holds" in out.getvalue()


def test_refuses_without_a_terminal(capsys, tmp_path):
    f = tmp_path / "a.step"
    _touch(f, VAR_DOT, 0)
    assert main(["--watch", str(f)]) == 2  # pytest's captured stdout is not a TTY
    cap = capsys.readouterr()
    assert "needs a terminal" in cap.err and cap.out == ""
    assert run([str(f)], stream=io.StringIO(), rounds=1) == 2
