"""The hostile corpus: false (and a few true) claims written the way an attacker would.

``python -m benchmarks.hostile [--json] [--doc] [PATH ...]``
(from the repository root; a development tool, not part of the installed package)

The mutation corpus edits the shipped files and the true-variant corpus
rewrites them; neither reaches claims nobody here wrote.  This corpus is
hand-written: ``tests/hostile/<class>/<case>.step``, one directory per
soundness class of issue 21, one attack per file.  Each file states what
the checker must say, in comments at its top:

    # hostile: what the attack is, in words
    # expect: not-holds           (every step, refute and check of the file)
    # expect NAME: holds          (overrides it for the statement NAME)

An expectation is one of

* ``holds`` / ``fails`` / ``unknown``: that status exactly;
* ``not-holds``: ``fails`` or ``unknown`` (an honest answer either way);
* ``not-fails``: ``holds`` or ``unknown``: a true claim beyond the kernel's
  reach today must never be refuted;
* ``holds-where``: ``holds`` with a side condition shown (an implicit
  ``domain`` use: ``holds, where y ≠ 2``), never a silent ``holds``;
* ``code E-...``: the file reports that diagnostic code (a file-level or a
  link diagnostic), and no statement holds; ``contradiction`` is short for
  ``code E-inconsistent``.

Files whose only expectation is ``holds`` are the other half of each class:
true claims the fix must not break.  Whatever the expectation, an internal
error (an exception out of ``check_file``) is always a wrong verdict, and so
is a ``holds`` where the file expects anything but ``holds``.
"""
from __future__ import annotations

import argparse
import glob
import os
import re
import sys
import time
import traceback
from dataclasses import dataclass, field

from benchmarks.variants import print_summary, replace_block

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROOT = os.path.join(REPO, "tests", "hostile")
DOC = os.path.join(REPO, "docs", "soundness.md")
EXPECTATIONS = ("holds", "fails", "unknown", "not-holds", "holds-where", "not-fails")
_EXPECT = re.compile(r"^#\s*expect(?:\s+(?P<name>[A-Za-z_][\w]*))?\s*:\s*(?P<what>.+?)\s*$")


@dataclass
class Case:
    path: str
    klass: str
    what: str
    default: str | None
    named: dict[str, str] = field(default_factory=dict)


@dataclass
class Result:
    case: Case
    right: bool
    false_holds: list[str]
    problems: list[str]
    seconds: float
    statuses: dict[str, str] = field(default_factory=dict)


def _normal(what: str) -> str:
    words = what.split("#", 1)[0].split()  # what follows the expectation is a comment
    what = " ".join(words[:2]) if words and words[0] == "code" else (words[0] if words else "")
    if what == "contradiction":
        return "code E-inconsistent"
    if what in EXPECTATIONS or re.fullmatch(r"code [EWN]-[\w-]+", what):
        return what
    raise ValueError(f"unknown expectation {what!r}")


def read_case(path: str) -> Case:
    with open(path, encoding="utf-8") as fh:
        lines = fh.read().splitlines()
    what, default, named = "", None, {}
    for ln in lines:
        if not ln.startswith("#"):
            break
        if ln.startswith("# hostile:"):
            what = ln.split(":", 1)[1].strip()
        m = _EXPECT.match(ln)
        if m:
            if m["name"]:
                named[m["name"]] = _normal(m["what"])
            else:
                default = _normal(m["what"])
    if default is None and not named:
        raise ValueError(f"{path}: no `# expect:` line")
    if not what:
        raise ValueError(f"{path}: no `# hostile:` line")
    return Case(path, os.path.basename(os.path.dirname(path)), what, default, named)


def cases(paths=None) -> list[Case]:
    if not paths:
        paths = sorted(glob.glob(os.path.join(ROOT, "*", "*.step")))
    return [read_case(p) for p in paths]


def _statements(rep) -> dict[str, str]:
    """name -> status, with ``holds-where`` for a holds that shows a side condition."""
    out = {}
    for s in rep.steps:
        where = s.status == "holds" and any(u.kind == "domain" for lk in s.links for u in lk.uses)
        out[s.name] = "holds-where" if where else s.status
    return out


def _codes(rep) -> set[str]:
    found = {d.code for d in rep.diagnostics}
    for s in rep.steps:
        for lk in s.links:
            found |= {d.code for d in lk.diagnostics}
    return found


def judge(case: Case, rep) -> Result:
    statuses = _statements(rep)
    problems, false_holds = [], []
    for name, status in statuses.items():
        want = case.named.get(name, case.default)
        if want is None:
            continue
        if status == "holds" and want not in ("holds", "not-fails") or \
                status == "holds-where" and want not in ("holds", "holds-where", "not-fails"):
            false_holds.append(name)
        ok = (status in ("holds", "holds-where") if want == "holds"
              else status == want if want in ("fails", "unknown", "holds-where")
              else status in ("fails", "unknown") if want == "not-holds"
              else status != "fails" if want == "not-fails"
              else status != "holds")
        if not ok:
            problems.append(f"{name}: {status}, expected {want}")
    for name, want in case.named.items():
        if name not in statuses:
            problems.append(f"{name}: no such statement (expected {want})")
    for want in {case.default, *case.named.values()}:
        if want and want.startswith("code ") and want[5:] not in _codes(rep):
            problems.append(f"no {want[5:]} diagnostic (got {sorted(_codes(rep))})")
    if not statuses and not any(w and w.startswith("code ") for w in (case.default, *case.named.values())):
        problems.append("no statement was checked: " + "; ".join(d.title for d in rep.diagnostics)[:200])
    return Result(case, not problems, false_holds, problems, rep.seconds, statuses)


def check(case: Case, timeout: float | None = None) -> Result:
    from stepcheck.checker import check_file

    t0 = time.perf_counter()
    try:
        rep = check_file(case.path, timeout=timeout)
    except Exception as e:  # an internal error is a wrong verdict, whatever was expected
        tb = traceback.format_exception_only(type(e), e)[-1].strip()
        return Result(case, False, [], [f"internal error: {tb}"], time.perf_counter() - t0)
    return judge(case, rep)


def summarise(results: list[Result]) -> dict:
    classes: dict[str, dict] = {}
    for r in results:
        c = classes.setdefault(r.case.klass, {"cases": 0, "right": 0, "must hold": 0, "false holds": 0,
                                              "internal errors": 0})
        c["cases"] += 1
        c["right"] += r.right
        c["must hold"] += r.case.default == "holds" and not r.case.named
        c["false holds"] += bool(r.false_holds)
        c["internal errors"] += any(p.startswith("internal error") for p in r.problems)
    total = {k: sum(c[k] for c in classes.values()) for k in
             ("cases", "right", "must hold", "false holds", "internal errors")}
    return {"classes": classes, "total": total,
            "problems": [{"file": os.path.relpath(r.case.path, REPO), "problems": r.problems}
                         for r in results if not r.right]}


COLUMNS = ("cases", "right", "must hold", "false holds", "internal errors")


def table_md(summary: dict) -> str:
    head = "| class | " + " | ".join(COLUMNS) + " |\n|---|" + "---|" * len(COLUMNS) + "\n"
    rows = [f"| {k} | " + " | ".join(str(v[c]) for c in COLUMNS) + " |" for k, v in sorted(summary["classes"].items())]
    rows.append("| **total** | " + " | ".join(f"**{summary['total'][c]}**" for c in COLUMNS) + " |")
    return head + "\n".join(rows) + "\n"


def write_doc(summary: dict, seconds: float) -> None:

    replace_block(DOC, "hostile", f"Latest run (`python -m benchmarks.hostile --doc`, {seconds:.0f} s):\n\n"
                  + table_md(summary))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.hostile", description=__doc__.split("\n")[0])
    ap.add_argument("paths", nargs="*")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--doc", action="store_true", help="write the table into docs/soundness.md")
    ap.add_argument("--verbose", "-v", action="store_true", help="print every case's statuses")
    a = ap.parse_args(argv)
    t0 = time.perf_counter()
    results = []
    for c in cases(a.paths):
        r = check(c)
        results.append(r)
        if a.verbose:
            mark = "ok " if r.right else "BAD"
            print(f"{mark} {os.path.relpath(c.path, ROOT)} {r.statuses} {r.seconds:.1f}s {r.problems or ''}",
                  flush=True)
    summary = summarise(results)
    seconds = time.perf_counter() - t0
    print_summary(summary, a.json, table_md, lambda p: f"{p['file']}: " + "; ".join(p["problems"]))
    if a.doc and not a.paths:
        write_doc(summary, seconds)
    return 0 if summary["total"]["right"] == summary["total"]["cases"] else 1


if __name__ == "__main__":
    sys.exit(main())
