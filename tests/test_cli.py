"""The ``verify`` command: argument handling, exit codes, lazy imports.

Most tests replace the checker with a fake, so that they test the command
alone.  The real checker behind ``verify`` is run on every shipped derivation
by tests/test_derivations.py (once per file), and through a subprocess here.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import types
from pathlib import Path

import pytest

from stepcheck import __version__, cli
from stepcheck.errors import Diagnostic, Span
from stepcheck.results import FileReport, LinkResult, StepResult, Use

SRC = str(Path(__file__).resolve().parents[1] / "src")
ROOT = Path(__file__).resolve().parents[1]


def _env():
    env = dict(os.environ)
    env["PYTHONPATH"] = SRC + os.pathsep + env.get("PYTHONPATH", "")
    return env


def fake_report(path: str, status: str = "holds") -> FileReport:
    text = Path(path).read_text(encoding="utf-8")
    span = Span(path, 1, 1, 1, 5)
    link = LinkResult(1, "=", "E[X + Y]", "E[X] + E[Y]", span, status, ["linearity"], [])
    if status != "holds":
        link.diagnostics = [Diagnostic("error", "this link does not hold", span, "here")]
    step = StepResult("s", span, "step", "E[X + Y] = E[X] + E[Y]", "=", [link], status)
    return FileReport(path, text, "d", "标题", None, [], [step])


@pytest.fixture
def fake_checker(monkeypatch):
    """A stand-in ``stepcheck.checker``: a file containing FAIL fails,
    UNKNOWN is unknown, PARSEERROR is fatal; everything else holds."""
    calls = []
    mod = types.ModuleType("stepcheck.checker")

    def check_file(path, options):
        calls.append({"path": path, "strict": options.strict, "timeout": options.timeout})
        text = Path(path).read_text(encoding="utf-8")
        if "PARSEERROR" in text:
            d = Diagnostic("error", "unexpected token", Span(path, 1, 1, 1, 11), "here")
            return FileReport(path, text, diagnostics=[d], fatal=True)
        if "FAIL" in text:
            return fake_report(path, "fails")
        if "UNKNOWN" in text:
            return fake_report(path, "unknown")
        return fake_report(path)

    mod.check_file = check_file
    mod.check_text = lambda text, file="<string>", *, strict=False: None
    monkeypatch.setitem(sys.modules, "stepcheck.checker", mod)
    # the stand-in lives in this process: verify's default pool (one process per CPU) would not see it
    monkeypatch.setattr("stepcheck.cache.os.cpu_count", lambda: 1)
    mod.calls = calls
    return mod


@pytest.fixture
def tree(tmp_path):
    (tmp_path / "a.step").write_text("ok\n", encoding="utf-8")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "b.step").write_text("ok\n", encoding="utf-8")
    (tmp_path / "sub" / "notes.txt").write_text("not a step file\n")
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "broken.step").write_text("FAIL\n", encoding="utf-8")
    (tmp_path / "sub" / "bad").mkdir()
    (tmp_path / "sub" / "bad" / "broken2.step").write_text("FAIL\n", encoding="utf-8")
    return tmp_path


# ------------------------------------------------------------------ basics


def test_version(capsys):
    assert cli.main(["--version"]) == 0
    assert __version__ in capsys.readouterr().out


def test_help_documents_bad_dirs_and_exit_codes(capsys):
    assert cli.main(["--help"]) == 0
    out = capsys.readouterr().out
    assert "bad/" in out and "exit codes" in out and "--json" in out and "--strict" in out


def test_no_arguments_is_usage_error(capsys):
    assert cli.main([]) == 2


def test_missing_file_exit_2(capsys, tmp_path):
    missing = str(tmp_path / "nope.step")
    assert cli.main([missing, "--no-color"]) == 2
    out = capsys.readouterr().out
    assert f"error: cannot read {missing}" in out


def test_missing_file_json(capsys, tmp_path):
    missing = str(tmp_path / "nope.step")
    assert cli.main(["--json", missing]) == 2
    data = json.loads(capsys.readouterr().out)
    assert data["files"][0]["status"] == "error"
    assert data["summary"]["exit_code"] == 2


# ------------------------------------------------------ directory expansion


def test_directory_skips_bad_and_is_sorted(tree):
    files, problems = cli.expand_paths([str(tree)])
    assert problems == []
    assert [Path(f).relative_to(tree).as_posix() for f in files] == ["a.step", "sub/b.step"]


def test_bad_dir_named_explicitly(tree):
    files, _ = cli.expand_paths([str(tree / "bad")])
    assert [Path(f).name for f in files] == ["broken.step"]
    files, _ = cli.expand_paths([str(tree / "sub" / "bad" / "broken2.step")])
    assert len(files) == 1


def test_duplicates_removed(tree):
    files, _ = cli.expand_paths([str(tree / "a.step"), str(tree)])
    assert len(files) == 2


def test_empty_dir_is_an_input_error(tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    assert cli.main([str(tmp_path / "empty"), "--no-color"]) == 2
    assert "no .step files" in capsys.readouterr().out


# ------------------------------------------------------ with a fake checker


def test_all_hold_exit_0(fake_checker, tree, capsys):
    assert cli.main([str(tree), "--no-color", "-v"]) == 0
    out = capsys.readouterr().out
    assert "verified: every step holds" in out
    assert "uses: nothing" in out
    assert "\x1b[" not in out
    assert [Path(c["path"]).name for c in fake_checker.calls] == ["a.step", "b.step"]


def test_fail_exit_1(fake_checker, tree, capsys):
    assert cli.main([str(tree / "bad"), "--color", "never"]) == 1
    assert "NOT verified" in capsys.readouterr().out


def test_unknown_exit_1(fake_checker, tmp_path, capsys):
    f = tmp_path / "u.step"
    f.write_text("UNKNOWN\n")
    assert cli.main([str(f)]) == 1
    assert "unknown is not verified" in capsys.readouterr().out


def test_parse_error_exit_2_beats_1(fake_checker, tree, capsys):
    p = tree / "p.step"
    p.write_text("PARSEERROR\n")
    assert cli.main([str(p), str(tree / "bad"), "--no-color"]) == 2
    out = capsys.readouterr().out
    assert "error: unexpected token" in out


def test_json_output(fake_checker, tree, capsys):
    assert cli.main(["--json", str(tree)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["schema"] == "stepcheck-report" and data["version"] == 1
    assert len(data["files"]) == 2 and data["files"][0]["title"] == "标题"
    assert data["summary"]["exit_code"] == 0


def test_strict_and_timeout_passed_through(fake_checker, tree, capsys):
    cli.main([str(tree / "a.step"), "--strict", "--timeout", "2.5"])
    assert fake_checker.calls[-1] == {"path": str(tree / "a.step"), "strict": True, "timeout": 2.5}


def test_default_options_reach_the_checker(fake_checker, tree, capsys):
    from stepcheck.options import DEFAULT_TIMEOUT

    cli.main([str(tree / "a.step")])
    assert fake_checker.calls[-1] == {"path": str(tree / "a.step"), "strict": False, "timeout": DEFAULT_TIMEOUT}


@pytest.mark.parametrize("bad", ["0", "-1", "nan"])
def test_timeout_must_be_positive(fake_checker, tree, capsys, bad):
    assert cli.main([str(tree / "a.step"), "--timeout", bad]) == 2
    assert "--timeout" in capsys.readouterr().err and not fake_checker.calls


def test_color_modes(fake_checker, tree, capsys, monkeypatch):
    cli.main([str(tree / "a.step"), "--color", "always"])
    assert "\x1b[" in capsys.readouterr().out
    cli.main([str(tree / "a.step")])  # auto: captured stdout is not a TTY
    assert "\x1b[" not in capsys.readouterr().out
    monkeypatch.setenv("NO_COLOR", "1")
    assert cli._use_color("auto", type("T", (), {"isatty": lambda self: True})()) is False
    monkeypatch.delenv("NO_COLOR")
    assert cli._use_color("auto", type("T", (), {"isatty": lambda self: True})()) is True


def test_quiet(fake_checker, tree, capsys):
    cli.main([str(tree / "a.step"), str(tree / "bad"), "--quiet", "--no-color"])
    out = capsys.readouterr().out
    assert "✓" not in out and "[ok]" not in out
    assert "this link does not hold" in out
    assert "matrix" not in out


def test_internal_error_exit_3(monkeypatch, tree, capsys):
    mod = types.ModuleType("stepcheck.checker")

    def boom(path, options):
        raise RuntimeError("kaboom")

    mod.check_file = boom
    monkeypatch.setitem(sys.modules, "stepcheck.checker", mod)
    monkeypatch.delenv("STEPCHECK_DEBUG", raising=False)
    assert cli.main([str(tree / "a.step")]) == 3
    err = capsys.readouterr().err
    assert "internal error: RuntimeError: kaboom" in err and "report" in err
    assert "Traceback" not in err
    monkeypatch.setenv("STEPCHECK_DEBUG", "1")
    assert cli.main([str(tree / "a.step")]) == 3
    assert "Traceback" in capsys.readouterr().err


def test_keyboard_interrupt_exit_130(monkeypatch, tree, capsys):
    mod = types.ModuleType("stepcheck.checker")

    def interrupted(path, options):
        raise KeyboardInterrupt

    mod.check_file = interrupted
    monkeypatch.setitem(sys.modules, "stepcheck.checker", mod)
    assert cli.main([str(tree / "a.step")]) == 130


# -------------------------------------------------------------- subprocess


def test_python_m_stepcheck_help():
    r = subprocess.run([sys.executable, "-m", "stepcheck", "--help"], capture_output=True, text=True, env=_env(),
                       timeout=60)
    assert r.returncode == 0, r.stderr
    assert "usage:" in r.stdout


@pytest.mark.parametrize("arg", ["--version", "--help"])
def test_help_and_version_do_not_import_sympy_or_lark(arg):
    code = (
        "import sys\n"
        "from stepcheck import cli\n"
        f"rc = cli.main([{arg!r}])\n"
        "assert rc == 0, rc\n"
        "heavy = [m for m in ('sympy', 'lark') if m in sys.modules]\n"
        "assert not heavy, heavy\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=_env(), timeout=60)
    assert r.returncode == 0, r.stderr


def test_bad_path_subprocess_exit_2(tmp_path):
    r = subprocess.run([sys.executable, "-m", "stepcheck", str(tmp_path / "nope.step")], capture_output=True,
                       text=True, env=_env(), timeout=60)
    assert r.returncode == 2
    assert "cannot read" in r.stdout


def test_ascii_stdout_does_not_crash(tmp_path):
    r = subprocess.run([sys.executable, "-m", "stepcheck", str(tmp_path / "无.step")], capture_output=True,
                       env={**_env(), "PYTHONIOENCODING": "ascii"}, timeout=60)
    assert r.returncode == 2
    assert b"cannot read" in r.stdout


EXIT_FILES = [str(ROOT / "derivations" / "var_dot.step"), str(ROOT / "derivations" / "bad" / "wrong_step.step")]


@pytest.fixture(scope="module")
def in_process_json():
    """``verify --json`` of EXIT_FILES run in this process, once for the module: (exit code, report)."""
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = cli.main(["--json", *EXIT_FILES])
    return code, _untimed(json.loads(out.getvalue()))


@pytest.mark.parametrize("full_exit", ["", "1"])
def test_program_exit_keeps_all_output_and_the_code(full_exit, in_process_json):
    """`verify` leaves with os._exit after flushing (no interpreter teardown): the whole report
    and the exit code must still arrive, the same as with an ordinary exit and as in process."""
    r = subprocess.run([sys.executable, "-m", "stepcheck", "--json", *EXIT_FILES], capture_output=True, text=True,
                       env={**_env(), "STEPCHECK_FULL_EXIT": full_exit}, timeout=120)
    assert r.returncode == 1, r.stderr
    assert in_process_json[0] == 1
    assert _untimed(json.loads(r.stdout)) == in_process_json[1]
    assert r.stderr == ""


def _untimed(x):
    """A JSON report without its timings (they differ between two runs)."""
    if isinstance(x, dict):
        return {k: _untimed(v) for k, v in x.items() if k not in ("seconds", "total_seconds")}
    if isinstance(x, list):
        return [_untimed(v) for v in x]
    return x


def test_several_files_give_a_summary_by_default(fake_checker, tree, capsys):
    assert cli.main([str(tree), "--no-color"]) == 0
    out = capsys.readouterr().out
    assert "uses: nothing" not in out  # no per-step report for the verified files
    lines = [ln for ln in out.splitlines() if ln.strip().startswith("✓")]
    assert [ln.split()[1].rsplit("/", 1)[-1] for ln in lines] == ["a.step", "b.step"]
    assert "verified: every step of every file holds" in out
    assert cli.main([str(tree), "--no-color", "--verbose"]) == 0
    assert "uses: nothing" in capsys.readouterr().out


def test_the_summary_shows_failing_files_in_full_and_unparsed_ones_last(tmp_path, capsys):
    (tmp_path / "a_bad.step").write_text("let x: real\nstep s: x = x + 1\n", encoding="utf-8")
    (tmp_path / "b_syntax.step").write_text("step s: (\n", encoding="utf-8")
    (tmp_path / "c_good.step").write_text("let x: real\nstep s: x = x\n", encoding="utf-8")
    assert cli.main([str(tmp_path), "--no-color"]) == 2
    out = capsys.readouterr().out
    assert "this step does not hold" in out  # the failing file's diagnostics
    table = out[out.index("files (verify -v"):]
    names = [ln.split()[1].rsplit("/", 1)[-1] for ln in table.splitlines()[1:4]]
    assert names == ["a_bad.step", "c_good.step", "b_syntax.step"]
    assert "1 fails" in out.splitlines()[-2]  # the totals count the failure next to the input error
