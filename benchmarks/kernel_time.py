"""Checking time of ``derivations/`` in one process, excluding imports and ``simulate``, for two source trees.

    python -m benchmarks.kernel_time [--base REV]

The baseline tree is ``git archive REV src grammar`` unpacked in a temporary
directory; each tree runs in its own child process (``sys.path`` points at its
``src``), imports everything first, then checks every file of
``derivations/`` (with ``bad/``) and reports the time without the time spent
in ``simulate`` statements, and every link's status, rules, uses and message.
The two runs alternate, so that load on a shared machine falls on both.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BASE = "82c6037"  # the last commit before the ring reduction and the drawn pointwise points (issue 20)

CHILD = r"""
import glob, json, sys, time
sys.path.insert(0, sys.argv[1])
import stepcheck.simulate as sim, stepcheck.checker as ck, stepcheck.numeric, stepcheck.judge.link  # imports first
spent = [0.0]
inner = sim.simulate_statement
def timed(*a, **k):
    t = time.perf_counter()
    try:
        return inner(*a, **k)
    finally:
        spent[0] += time.perf_counter() - t
sim.simulate_statement = timed
ck.check_text("random X\nstep s: E[2 X] = 2 E[X]\n")  # parser tables and lazy imports
verdicts = {}
t = time.perf_counter()
for f in sorted(glob.glob(sys.argv[2] + "/**/*.step", recursive=True)):
    r = ck.check_file(f)
    verdicts[f[len(sys.argv[2]):]] = [[l.status, sorted(l.rules or []), sorted(u.label for u in (l.uses or []))]
                                      for s in r.steps for l in s.links]
total = time.perf_counter() - t
print(json.dumps({"seconds": total - spent[0], "simulate": spent[0], "verdicts": verdicts}))
"""


def run_tree(src: Path) -> dict:
    env = {"PATH": "/usr/bin:/bin", "STEPCHECK_NO_CACHE": "1", "PYTHONHASHSEED": "0"}
    out = subprocess.run([sys.executable, "-c", CHILD, str(src), str(ROOT / "derivations")], cwd=ROOT,
                         capture_output=True, text=True, env=env, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def export(rev: str, into: Path) -> Path:
    tar = into / "base.tar"
    with open(tar, "wb") as fh:
        subprocess.run(["git", "archive", rev, "src", "grammar"], cwd=ROOT, stdout=fh, check=True)
    with tarfile.open(tar) as t:
        t.extractall(into, filter="data")
    return into / "src"


def measure(rev: str = BASE, runs: int = 1) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        base_src = export(rev, Path(tmp))
        base, new = [], []
        for _ in range(runs):
            base.append(run_tree(base_src))
            new.append(run_tree(ROOT / "src"))
    b = min(base, key=lambda r: r["seconds"])
    n = min(new, key=lambda r: r["seconds"])
    same = [k for k in b["verdicts"] if b["verdicts"][k] == n["verdicts"].get(k)]
    differ = sorted(k for k in b["verdicts"] if b["verdicts"][k] != n["verdicts"].get(k))
    return {"base": rev, "before": b["seconds"], "after": n["seconds"], "speedup": b["seconds"] / n["seconds"],
            "simulate": n["simulate"], "files": len(b["verdicts"]), "same": len(same), "differ": differ,
            "detail": {k: (b["verdicts"][k], n["verdicts"].get(k)) for k in differ}}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.kernel_time", description=__doc__.split("\n\n")[0])
    ap.add_argument("--base", default=BASE)
    ap.add_argument("--runs", type=int, default=1)
    args = ap.parse_args(argv)
    print(json.dumps(measure(args.base, args.runs), indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
