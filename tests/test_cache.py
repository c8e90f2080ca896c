"""The result cache (stepcheck.cache) and the ways to check many files: `verify -j`, `check_many`."""
from __future__ import annotations

import json
import os
import threading

import pytest

from stepcheck import cache as C
from stepcheck import cli, report
from stepcheck.options import Options

GOOD = """random X
let a: real
assume v: Var(X) = 1
step s: Var(a X) = a^2 by v
"""


def put(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return str(p)


def shown(rep) -> str:
    return report.render_text([rep], color=False, why=True) + json.dumps(report.to_json([rep], why=True))


def test_a_hit_gives_the_same_report(tmp_path):
    f = put(tmp_path, "a.step", GOOD)
    c = C.Cache(tmp_path / "cache")
    first = C.check_file(f, Options(), c)
    again = C.check_file(f, Options(), c)
    assert (c.misses, c.hits) == (1, 1)
    assert shown(first) == shown(again) and again.steps[0].links[0].status == "holds"
    assert again.program is None and first.program is not None  # the syntax tree is not kept


def test_a_changed_assumption_is_checked_again(tmp_path):
    """Mutation: one assumption changed, the file's links are checked again (a stale holds is never served)."""
    f = put(tmp_path, "a.step", GOOD)
    c = C.Cache(tmp_path / "cache")
    assert C.check_file(f, Options(), c).steps[0].links[0].status == "holds"
    put(tmp_path, "a.step", GOOD.replace("Var(X) = 1", "Var(X) = 2"))
    rep = C.check_file(f, Options(), c)
    assert rep.steps[0].links[0].status == "fails" and c.hits == 0


def test_options_and_the_reported_name_are_part_of_the_key(tmp_path):
    text = GOOD
    k = C.key(text, "a.step", Options())
    assert C.key(text, "a.step", Options()) == k
    assert C.key(text, "a.step", Options(strict=True)) != k
    assert C.key(text, "a.step", Options(timeout=1.0)) != k
    assert C.key(text, "b.step", Options()) != k
    assert C.key(text + " ", "a.step", Options()) != k


@pytest.mark.parametrize("entry", [
    b"\x00\xff garbage",
    b"{}",
    b'{"format": 1, "key": "another key", "report": {}}',
    b'{"format": 999, "key": "KEY", "report": {}}',
    b'{"format": 1, "key": "KEY", "report": {"__t": "Popen", "args": ["rm"]}}',
    b'{"format": 1, "key": "KEY", "report": {"__t": "FileReport", "path": "x", "text": "", "evil": 1}}',
    b'{"format": 1, "key": "KEY", "report": {"__t": "Span", "file": "x", "line": 1, "col": 1, '
    b'"end_line": 1, "end_col": 2}}',
])
def test_corrupt_or_foreign_entries_are_ignored(tmp_path, entry):
    f = put(tmp_path, "a.step", GOOD.replace("a^2", "a^3"))  # false: a stale or forged `holds` must not appear
    c = C.Cache(tmp_path / "cache")
    k = C.key(GOOD.replace("a^2", "a^3"), f, Options())
    p = c._path(k)
    p.parent.mkdir(parents=True)
    p.write_bytes(entry.replace(b"KEY", k.encode()))
    rep = C.check_file(f, Options(), c)
    assert c.ignored == 1 and c.hits == 0
    assert rep.steps[0].links[0].status == "fails"
    assert C.Cache(tmp_path / "cache").get(k) is not None  # the checked report replaced the bad entry


def test_concurrent_writers_leave_whole_entries(tmp_path):
    f = put(tmp_path, "a.step", GOOD)
    rep = C.check_file(f, Options(), None)
    c = C.Cache(tmp_path / "cache")
    k = C.key(GOOD, f, Options())
    errors = []

    def write():
        for _ in range(20):
            c.put(k, rep)
            got = C.Cache(tmp_path / "cache").get(k)
            if got is None or shown(got) != shown(rep):
                errors.append(got)

    threads = [threading.Thread(target=write) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert not [p for p in (tmp_path / "cache").rglob(".tmp-*")]  # no temporary file left behind


def test_prune_keeps_the_directory_under_its_bound(tmp_path):
    f = put(tmp_path, "a.step", GOOD)
    rep = C.check_file(f, Options(), None)
    c = C.Cache(tmp_path / "cache", max_bytes=10_000)
    for n in range(30):
        c.put(C.key(GOOD + f"# {n}\n", f, Options()), rep)
    assert c.prune() > 0
    assert sum(p.stat().st_size for p in (tmp_path / "cache").rglob("*.json")) <= 10_000
    assert C.Cache(tmp_path / "cache", max_bytes=10**9).prune() == 0


def test_verify_uses_the_cache_and_no_cache_stores_nothing(tmp_path, capsys, monkeypatch):
    f = put(tmp_path, "a.step", GOOD)
    d = tmp_path / "cache"
    assert cli.main(["--no-color", "--cache-dir", str(d), f]) == 0
    first = capsys.readouterr().out
    assert list(d.rglob("*.json"))
    import stepcheck.checker as checker

    monkeypatch.setattr(checker, "check_file", lambda *a, **k: pytest.fail("checked although cached"))
    assert cli.main(["--no-color", "--cache-dir", str(d), f]) == 0
    assert capsys.readouterr().out.split("\n")[:-2] == first.split("\n")[:-2]
    monkeypatch.undo()
    e = tmp_path / "none"
    assert cli.main(["--no-color", "--no-cache", "--cache-dir", str(e), f]) == 0
    assert not e.exists()


def test_jobs_give_the_same_report(tmp_path, capsys):
    files = [put(tmp_path, f"f{k}.step", GOOD.replace("step s", f"step s{k}")) for k in range(3)]
    files.append(put(tmp_path, "bad.step", GOOD.replace("a^2", "a^3")))
    outs = []
    for jobs in ("1", "2"):
        code = cli.main(["--no-color", "--no-cache", "-v", "-j", jobs, *files])
        outs.append((code, capsys.readouterr().out))
    strip = [(c, "\n".join(ln for ln in o.splitlines() if "cross-checked" not in ln)) for c, o in outs]
    assert strip[0] == strip[1] and strip[0][0] == 1
    assert cli.main(["-j", "0", files[0]]) == 2


def test_check_many_on_any_executor(tmp_path):
    from concurrent.futures import ThreadPoolExecutor

    from stepcheck import check_many
    from stepcheck.api import ParseError, Report

    good = put(tmp_path, "g.step", GOOD)
    bad = put(tmp_path, "b.step", "step s: E[ = 1\n")
    plain = check_many([good, bad])
    with ThreadPoolExecutor(2) as ex:
        pooled = check_many([good, bad], executor=ex)
    for got in (plain, pooled):
        assert isinstance(got[0], Report) and got[0].ok
        assert isinstance(got[1], ParseError)


def test_a_hit_imports_neither_sympy_nor_lark(tmp_path):
    import subprocess
    import sys

    f = put(tmp_path, "a.step", GOOD)
    d = tmp_path / "cache"
    env = {k: v for k, v in os.environ.items() if k != "STEPCHECK_NO_CACHE"}
    code = ("import sys; from stepcheck import cli; rc = cli.main(['--cache-dir', sys.argv[1], sys.argv[2]]); "
            "print('HEAVY' if {'sympy', 'lark'} & set(sys.modules) else 'LIGHT', rc)")
    first = subprocess.run([sys.executable, "-c", code, str(d), f], capture_output=True, text=True, env=env)
    again = subprocess.run([sys.executable, "-c", code, str(d), f], capture_output=True, text=True, env=env)
    assert first.stdout.split()[-2:] == ["HEAVY", "0"]  # checked: the kernel ran
    assert again.stdout.split()[-2:] == ["LIGHT", "0"]  # served from the cache


def test_default_jobs_read_hits_here_and_check_the_rest_on_a_pool(tmp_path):
    """jobs=None: cached files are read in this process, the others checked on a pool; same reports as -j 1."""
    a, b, c = (tmp_path / f"{n}.step" for n in "abc")
    a.write_text("random X\nstep s: E[2 X] = 2 E[X]\n", encoding="utf-8")
    b.write_text("random Y\nstep t: E[Y + 1] = E[Y] + 2\n", encoding="utf-8")
    c.write_text("random Z\nstep u: Var(3 Z) = 9 Var(Z)\n", encoding="utf-8")
    files = [str(a), str(b), str(c)]
    serial = C.check_files(files, Options(), directory=None, jobs=1)
    cache_dir = tmp_path / "cache"
    C.check_files(files[:1], Options(), directory=cache_dir, jobs=1)  # a.step is a hit from now on
    assert C.stored(str(a), Options(), C.Cache(cache_dir)) is not None
    assert C.stored(str(b), Options(), C.Cache(cache_dir)) is None
    pooled = C.check_files(files, Options(), directory=cache_dir, jobs=None)
    assert list(pooled) != [] and set(pooled) == set(files)
    for f in files:
        assert [lk.status for st in pooled[f].steps for lk in st.links] == \
               [lk.status for st in serial[f].steps for lk in st.links]
    assert [lk.status for st in pooled[str(b)].steps for lk in st.links] == ["fails"]
