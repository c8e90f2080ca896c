"""The performance benchmark suite of stepcheck (issue 9).

    python benchmarks/run.py [--quick] [--out docs/performance.md] [--runs N]
    python -m benchmarks [--quick] ...

Every case is run several times after a warm-up and the median is reported;
the comparisons are ratios measured in this one run on this one machine (the
tests never assert a timing).  The report is written as markdown (default
``docs/performance.md``) with a plot next to it (``performance.png``, when
matplotlib is installed).

Cases:

1. sympy.stats versus stepcheck: ``sympy.stats.variance`` of
   ``sum_{i=1}^{n} q_i k_i`` (independent standard normals, expanded sum) for
   n = 1, 2, 4, 8, each in a subprocess capped at 120 s, versus checking
   ``derivations/var_dot.step``, which proves ``Var = d_k`` for every n.
2. Cold start: ``verify derivations/var_dot.step`` over the import floor
   ``python -c "import sympy, lark"``; ``verify --help`` / ``--version`` time
   and whether they import sympy or lark.
3. Per-link cost (warm): median, p95 and the slowest links of ``derivations/``.
4. Scaling: generated derivations of 10, 100 and 1,000 steps, each in a fresh
   subprocess: time, peak-RSS growth, fitted exponent of time versus steps.
5. Attribution overhead: ``LinkProver.prove`` (drop-one minimisation) versus a
   single ``LinkProver.attempt`` with all candidates, replayed on every link.
6. Whole library: ``verify derivations/`` cold, and
   ``pytest derivations/ -n 2`` versus ``-n 0`` with the stepcheck plugin.
7. PDF: the time ``verify --pdf`` adds for var_dot.

``--quick`` (used by tests/test_benchmarks.py) keeps every case tiny: n = 1
for sympy.stats, two files for the per-link cost, 3/6/12 generated steps,
one run each, and no pytest-xdist or whole-library runs.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src"
DERIV = ROOT / "derivations"
VAR_DOT = DERIV / "var_dot.step"
PY = sys.executable
SYMPY_CAP = 120.0

if str(SRC) not in sys.path:
    sys.path.insert(0, str(SRC))


# ------------------------------------------------------------------ helpers


def _env() -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(SRC) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env.pop("PYTEST_DISABLE_PLUGIN_AUTOLOAD", None)
    env.setdefault("NO_COLOR", "1")
    env["STEPCHECK_NO_CACHE"] = "1"  # every case measures checking, not the result cache (benchmarks.scale does)
    return env


def wall(cmd: list[str], timeout: float | None = None, cwd: Path | None = None) -> tuple[float, subprocess.CompletedProcess]:
    t0 = time.perf_counter()
    cp = subprocess.run(cmd, capture_output=True, text=True, env=_env(), timeout=timeout, cwd=str(cwd or ROOT))
    return time.perf_counter() - t0, cp


def median_wall(cmd: list[str], runs: int, warmup: int = 1, ok_codes=(0, 1)) -> tuple[float, list[float]]:
    for _ in range(warmup):
        wall(cmd)
    times = []
    for _ in range(runs):
        t, cp = wall(cmd)
        if cp.returncode not in ok_codes:
            raise RuntimeError(f"{' '.join(cmd)} exited {cp.returncode}:\n{cp.stderr[-2000:]}")
        times.append(t)
    return statistics.median(times), times


def forget() -> None:
    """Empty every result cache (stepcheck's and sympy's): a warm run keeps only imports and tables."""
    from sympy.core.cache import clear_cache

    from stepcheck import models
    from stepcheck.kernel import clear_caches

    clear_caches()
    models._options_cached.cache_clear()
    clear_cache()


def median_call(fn, runs: int, warmup: int = 1) -> float:
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(runs):
        forget()
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def pct(xs: list[float], p: float) -> float:
    """The p-th percentile (linear interpolation between closest ranks)."""
    xs = sorted(xs)
    if not xs:
        return float("nan")
    k = (len(xs) - 1) * p / 100
    lo, hi = math.floor(k), math.ceil(k)
    return xs[lo] + (xs[hi] - xs[lo]) * (k - lo)


def verify_cmd(*args: str) -> list[str]:
    """``python -m stepcheck`` (the same entry point as the ``verify`` console script)."""
    return [PY, "-m", "stepcheck", *args]


def fmt_s(x) -> str:
    if x is None:
        return "—"
    if isinstance(x, str):
        return x
    if x < 0.001:
        return f"{x * 1e6:.0f} µs"
    if x < 1:
        return f"{x * 1000:.1f} ms"
    return f"{x:.2f} s"


def fmt_r(x) -> str:
    if x is None or isinstance(x, str):
        return x or "—"
    return f"{x:.1f}×" if x >= 10 else f"{x:.2f}×"


def goal(ok: bool | None) -> str:
    return "—" if ok is None else ("met" if ok else "**not met**")


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def step_files(include_bad: bool = False) -> list[Path]:
    files = sorted(p for p in DERIV.rglob("*.step") if "bad" not in p.relative_to(DERIV).parts[:-1])
    if include_bad:
        files += sorted((DERIV / "bad").glob("*.step"))
    return files


# ------------------------------------------------------------------ 1. sympy.stats

SYMPY_STATS = r"""
import json, sys, time
t_import = time.perf_counter()
import sympy
from sympy.stats import Normal, variance
t_import = time.perf_counter() - t_import
n = int(sys.argv[1])
q = [Normal(f"q{i}", 0, 1) for i in range(1, n + 1)]
k = [Normal(f"k{i}", 0, 1) for i in range(1, n + 1)]
expr = sympy.Add(*[a * b for a, b in zip(q, k)])
t0 = time.perf_counter()
v = variance(expr)
t = time.perf_counter() - t0
print(json.dumps({"seconds": t, "import": t_import, "value": str(v), "correct": sympy.simplify(v - n) == 0}))
"""


def case_sympy_stats(ns: list[int], runs: int, stepcheck_warm: float, stepcheck_cold: float) -> dict:
    rows = []
    timed_out = False
    for n in ns:
        row = {"n": n}
        if timed_out:  # a larger n will not finish either
            row.update(seconds="timeout", process="timeout")
            rows.append(row)
            continue
        reps = runs if n <= 4 else 1
        secs, procs, correct = [], [], True
        for _ in range(reps):
            try:
                t, cp = wall([PY, "-c", SYMPY_STATS, str(n)], timeout=SYMPY_CAP + 30)
            except subprocess.TimeoutExpired:
                secs = None
                break
            data = json.loads(cp.stdout.strip().splitlines()[-1])
            if data["seconds"] > SYMPY_CAP:
                secs = None
                break
            secs.append(data["seconds"])
            procs.append(t)
            correct = correct and data["correct"]
        if secs is None:
            timed_out = True
            row.update(seconds="timeout", process="timeout")
        else:
            row.update(seconds=statistics.median(secs), process=statistics.median(procs), correct=correct,
                       ratio_warm=statistics.median(secs) / stepcheck_warm,
                       ratio_cold=statistics.median(procs) / stepcheck_cold)
        log(f"  sympy.stats n={n}: {row['seconds']}")
        rows.append(row)
    return {"rows": rows, "stepcheck_warm": stepcheck_warm, "stepcheck_cold": stepcheck_cold}


# ------------------------------------------------------------------ 2. cold start


def imports_heavy(args: list[str]) -> list[str]:
    """Which of sympy / lark the command imports (read from -X importtime)."""
    cp = subprocess.run([PY, "-X", "importtime", "-m", "stepcheck", *args], capture_output=True, text=True,
                        env=_env(), cwd=str(ROOT))
    names = {line.rsplit("|", 1)[-1].strip() for line in cp.stderr.splitlines() if line.startswith("import time:")}
    return [m for m in ("sympy", "lark", "numpy") if m in names]


def compile_bytecode() -> None:
    """Compile stepcheck's bytecode, as ``pip install`` does: a source checkout run with
    PYTHONDONTWRITEBYTECODE=1 would otherwise compile every module in every cold run
    (sympy and lark, installed by pip, have theirs)."""
    import compileall

    compileall.compile_dir(str(SRC / "stepcheck"), quiet=1)


def case_cold_start(runs: int) -> dict:
    """Cold processes, the commands of one round run one after the other (so that a passing load on
    the machine hits the floor and verify alike), the median of each over the rounds."""
    full = dict(os.environ, STEPCHECK_FULL_EXIT="1")  # the ordinary interpreter teardown at exit
    cmds = {"floor": ([PY, "-c", "import sympy, lark"], None), "empty": ([PY, "-c", "pass"], None),
            "verify": (verify_cmd(str(VAR_DOT)), None), "full_exit": (verify_cmd(str(VAR_DOT)), full),
            "--help": (verify_cmd("--help"), None), "--version": (verify_cmd("--version"), None)}
    times: dict = {k: [] for k in cmds}
    rounds = max(runs, 5)
    for r in range(rounds + 1):  # round 0 warms the file cache
        for key, (cmd, env) in cmds.items():
            t0 = time.perf_counter()
            subprocess.run(cmd, capture_output=True, env=_env() if env is None else {**_env(), **env},
                           cwd=str(ROOT))
            if r:
                times[key].append(time.perf_counter() - t0)
    med = {k: statistics.median(v) for k, v in times.items()}
    out = {"floor": med["floor"], "empty": med["empty"], "verify": med["verify"],
           "ratio": med["verify"] / med["floor"], "full_exit": med["full_exit"],
           "ratio_full_exit": med["full_exit"] / med["floor"], "rounds": rounds,
           "ratios": [v / f for v, f in zip(times["verify"], times["floor"])]}
    for flag in ("--help", "--version"):
        out[flag] = {"seconds": med[flag], "imports": imports_heavy([flag])}
    out["verify_imports"] = imports_heavy([str(VAR_DOT)])
    return out


# ------------------------------------------------------------------ 3. per-link cost


def collect_links(files: list[Path], runs: int, cross_check: bool = True) -> list[dict]:
    from stepcheck.checker import check_file

    per: dict[tuple, list[float]] = {}
    info: dict[tuple, dict] = {}
    for f in files:
        check_file(str(f), cross_check=cross_check)  # warm-up
        for _ in range(runs):
            forget()
            rep = check_file(str(f), cross_check=cross_check)
            for st in rep.steps:
                for lr in getattr(st, "links", []) or []:
                    key = (f.relative_to(ROOT).as_posix(), st.name, lr.index)
                    per.setdefault(key, []).append(lr.seconds)
                    line = lr.span.line if lr.span is not None else 0
                    info[key] = {"status": lr.status, "line": line, "text": f"{lr.lhs} {lr.rel} {lr.rhs}"}
    return [{"file": k[0], "step": k[1], "link": k[2], "seconds": statistics.median(v), **info[k]}
            for k, v in per.items()]


def case_per_link(files: list[Path], bad_files: list[Path], runs: int) -> dict:
    links = collect_links(files, runs)
    kernel = collect_links(files, runs, cross_check=False)
    bad = collect_links(bad_files, max(1, runs - 1)) if bad_files else []
    secs = [x["seconds"] for x in links]
    ksecs = [x["seconds"] for x in kernel]
    bsecs = [x["seconds"] for x in bad]
    return {
        "n": len(links), "median": statistics.median(secs), "p95": pct(secs, 95), "max": max(secs),
        "total": sum(secs),
        "kernel_median": statistics.median(ksecs), "kernel_p95": pct(ksecs, 95), "kernel_total": sum(ksecs),
        "bad_n": len(bad), "bad_median": statistics.median(bsecs) if bsecs else None,
        "bad_p95": pct(bsecs, 95) if bsecs else None,
        "slowest": sorted(links + bad, key=lambda x: -x["seconds"])[:10],
        "all": secs,
    }


# ------------------------------------------------------------------ 4. scaling


def generate(n_steps: int, assumptions_first: bool = False) -> str:
    """A derivation of ``n_steps`` true steps on distinct variables (four kinds of identity).

    Every fourth step cites an assumption of its own (an uncorrelated pair or a
    mean).  By default each assumption comes just before its step, as people
    write them; with ``assumptions_first`` all declarations and assumptions
    come before the first step.
    """
    out = ['derivation generated "generated: %d steps"' % n_steps]
    if assumptions_first:
        head, body = [], []
        for line in generate(n_steps).splitlines()[1:]:
            (head if line.startswith(("random ", "assume ")) else body).append(line)
        return "\n".join(out + head + body) + "\n"
    for k in range(1, n_steps + 1):
        a, b, c = k % 7 + 2, k % 5 + 1, k % 11 + 1
        x, y = f"X{k}", f"Y{k}"
        kind = k % 4
        if kind == 0:
            out += [f"random {x}, {y}", f"assume u{k}: Cov({x}, {y}) = 0",
                    f"step s{k}: Var({a} {x} + {b} {y} - {c})",
                    f"    = {a * a} Var({x}) + {b * b} Var({y}) + {2 * a * b} Cov({x}, {y})",
                    f"    = {a * a} Var({x}) + {b * b} Var({y})    by u{k}"]
        elif kind == 1:
            out += [f"random {x}, {y}", f"step s{k}: E[{a} {x} - {b} {y} + {c}] = {a} E[{x}] - {b} E[{y}] + {c}"]
        elif kind == 2:
            out += [f"random {x}, {y}",
                    f"step s{k}: Cov({x} + {c}, {a} {y}) = {a} E[{x} {y}] - {a} E[{x}] E[{y}]"]
        else:
            out += [f"random {x}", f"assume m{k}: E[{x}] = {c}",
                    f"step s{k}: E[{a} {x} + {b}]", f"    = {a} E[{x}] + {b}",
                    f"    = {a * c + b}    by m{k}"]
    return "\n".join(out) + "\n"


SCALE_WORKER = r"""
import gc, json, resource, sys, time

def peak_kb():
    # VmHWM: this process's own peak; ru_maxrss would include the parent's peak, inherited at fork
    try:
        for line in open("/proc/self/status"):
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss

sys.path.insert(0, sys.argv[2])
from benchmarks.run import generate
from stepcheck.checker import check_text
# imports, parser tables, first use of sympy: on other names, so that no result of a measured step is cached
check_text(generate(4).replace("X", "U").replace("Y", "V"), "warm.step")
n = int(sys.argv[1])
text = generate(n, assumptions_first=sys.argv[3] == "first")
gc.collect()
rss0 = peak_kb()
blocks0 = sys.getallocatedblocks()
from stepcheck.parser import parse
parse(text, "generated.step")  # the peak of parsing the whole file, apart from checking it
gc.collect()
rss_parsed = peak_kb()
t0 = time.perf_counter()
rep = check_text(text, "generated.step")
t = time.perf_counter() - t0
rss1 = peak_kb()
gc.collect()
blocks1 = sys.getallocatedblocks()
links = [lr for st in rep.steps for lr in st.links]
summary = (len(rep.steps), len(links), sum(lr.status == "holds" for lr in links), sum(lr.seconds for lr in links))
del rep, links
gc.collect()
blocks2 = sys.getallocatedblocks()
print(json.dumps({"steps": summary[0], "links": summary[1], "holds": summary[2],
                  "seconds": t, "rss0_kb": rss0, "rss_growth_kb": rss1 - rss0, "link_seconds": summary[3],
                  "rss_parse_kb": rss_parsed - rss0, "rss_check_kb": rss1 - rss_parsed,
                  "blocks_with_report": blocks1 - blocks0, "blocks_retained": blocks2 - blocks0}))
"""


SCALE_CAP = 240.0


def _fit(rows) -> float | None:
    pts = [(math.log(r["steps"]), math.log(r["seconds"])) for r in rows if isinstance(r.get("seconds"), float)]
    if len(pts) < 2:
        return None
    mx, my = statistics.fmean(p[0] for p in pts), statistics.fmean(p[1] for p in pts)
    return sum((a - mx) * (b - my) for a, b in pts) / sum((a - mx) ** 2 for a, _ in pts)


def scaling_series(sizes: list[int], runs: int, layout: str) -> dict:
    rows = []
    for n in sizes:
        done = [r for r in rows if isinstance(r.get("seconds"), float)]
        if len(done) >= 2:  # do not start a run that would take far longer than the cap
            e = _fit(done)
            predicted = done[-1]["seconds"] * (n / done[-1]["steps"]) ** e
            if predicted > 2 * SCALE_CAP:
                rows.append({"steps": n, "seconds": f"skipped (extrapolated {predicted:.0f} s)", "predicted": predicted})
                log(f"  scaling {layout} {n} steps: skipped, extrapolated {predicted:.0f} s")
                continue
        reps = runs if n <= 100 else 1
        results = []
        for _ in range(reps):
            try:
                _, cp = wall([PY, "-c", SCALE_WORKER, str(n), str(ROOT), layout], timeout=SCALE_CAP)
            except subprocess.TimeoutExpired:
                results = None
                break
            if cp.returncode != 0:
                raise RuntimeError(cp.stderr[-3000:])
            results.append(json.loads(cp.stdout.strip().splitlines()[-1]))
        if results is None:
            rows.append({"steps": n, "seconds": f"timeout (> {SCALE_CAP:.0f} s)"})
            log(f"  scaling {layout} {n} steps: timeout")
            continue
        med = sorted(results, key=lambda r: r["seconds"])[len(results) // 2]
        med["per_step"] = med["seconds"] / n
        rows.append(med)
        log(f"  scaling {layout} {n} steps: {med['seconds']:.2f} s, {med['holds']}/{med['links']} links hold")
    return {"rows": rows, "exponent": _fit(rows), "layout": layout}


def case_scaling(sizes: list[int], runs: int) -> dict:
    return {"interleaved": scaling_series(sizes, runs, "interleaved"),
            "first": scaling_series(sizes, runs, "first")}


# ------------------------------------------------------------------ 5. attribution


def case_attribution(files: list[Path], runs: int) -> dict:
    """Replay every attribution of the library: the judge's minimisation versus one kernel proof with all candidates."""
    from stepcheck.checker import check_file
    from stepcheck.judge import attribution as A
    from stepcheck.judge import link as L
    from stepcheck.kernel import prove as P
    from stepcheck.terms.facts import Deadline

    calls = []
    orig = A.attribute

    def recording(prover, lhs, rhs, candidates, rel, deadline):
        calls.append((prover.decls, dict(prover.facts), prover.limits, lhs, rhs, list(candidates), rel))
        return orig(prover, lhs, rhs, candidates, rel, deadline)

    L.attribute = recording
    try:
        for f in files:
            check_file(str(f), cross_check=False)
    finally:
        L.attribute = orig

    def with_attr(c):
        decls, facts, limits, lhs, rhs, cands, rel = c
        return orig(P.LinkProver(decls, facts, limits), lhs, rhs, cands, rel, Deadline(limits.seconds))

    def without(c):
        decls, facts, limits, lhs, rhs, cands, rel = c
        return P.LinkProver(decls, facts, limits).prove_link(lhs, rhs, cands, rel)

    t_with, t_without, n_cands = [], [], []
    for c in calls:
        t_with.append(median_call(lambda: with_attr(c), runs))
        t_without.append(median_call(lambda: without(c), runs))
        n_cands.append(len(c[5]))
    tw, to = sum(t_with), sum(t_without)
    per = [a / b for a, b in zip(t_with, t_without) if b > 0]
    return {"calls": len(calls), "with": tw, "without": to, "ratio": tw / to if to else None,
            "median_ratio": statistics.median(per) if per else None, "max_ratio": max(per) if per else None,
            "mean_candidates": statistics.fmean(n_cands) if n_cands else 0}


# ------------------------------------------------------------------ 6. whole library


def plugin_autoregistered() -> bool:
    from importlib.metadata import entry_points

    return any(ep.value.startswith("stepcheck") for ep in entry_points(group="pytest11"))


def case_library(runs: int) -> dict:
    verify, _ = median_wall(verify_cmd(str(DERIV)), runs, warmup=0)
    auto = plugin_autoregistered()
    # bad/ holds files meant to fail (one does not even parse), as `verify derivations/` skips them
    base = [PY, "-m", "pytest", str(DERIV), f"--ignore={DERIV / 'bad'}", "-q", "-p", "no:cacheprovider"]
    base += [] if auto else ["-p", "stepcheck.pytest_plugin"]
    out = {"verify": verify, "autoregistered": auto,
           "pytest_cmd": " ".join(["pytest", "derivations/", "--ignore=derivations/bad"] + base[5:])}
    for n in (0, 2):
        t, times = median_wall(base + ["-n", str(n)], runs, warmup=0)
        out[f"n{n}"] = t
    out["n2_loadfile"], _ = median_wall(base + ["-n", "2", "--dist", "loadfile"], runs, warmup=0)
    _, cp = wall(base + ["-n", "0"])
    out["pytest_summary"] = (cp.stdout.strip().splitlines() or [""])[-1]
    out["speedup"] = out["n0"] / out["n2"]
    out["speedup_loadfile"] = out["n0"] / out["n2_loadfile"]
    return out


# ------------------------------------------------------------------ 7. pdf


def case_pdf(runs: int) -> dict:
    try:
        import typst  # noqa: F401
    except ImportError:
        return {"skipped": "the typst package is not installed"}
    with tempfile.TemporaryDirectory() as d:
        plain_cmd = verify_cmd(str(VAR_DOT))
        pdf_cmd = verify_cmd("--pdf", os.path.join(d, "var_dot.pdf"), str(VAR_DOT))
        wall(plain_cmd), wall(pdf_cmd)  # warm-up
        plains, pdfs = [], []
        # alternate the two commands so that load on the machine affects both alike
        for _ in range(max(runs, 5)):
            plains.append(wall(plain_cmd)[0])
            pdfs.append(wall(pdf_cmd)[0])
        ok = os.path.exists(os.path.join(d, "var_dot.pdf"))
    added = statistics.median(b - a for a, b in zip(plains, pdfs))
    return {"plain": statistics.median(plains), "pdf": statistics.median(pdfs), "added": added, "written": ok}


# ------------------------------------------------------------------ report


def plot(res: dict, png: Path) -> str | None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return "matplotlib is not installed: no plot (pip install matplotlib)"
    fig, ax = plt.subplots(2, 2, figsize=(11, 8))
    s = res["sympy"]
    ok = [r for r in s["rows"] if not isinstance(r["seconds"], str)]
    a = ax[0][0]
    a.plot([r["n"] for r in ok], [r["seconds"] for r in ok], "o-", label="sympy.stats.variance (one n)")
    a.axhline(s["stepcheck_warm"], color="C1", ls="--", label="stepcheck var_dot.step (every n), warm")
    a.axhline(s["stepcheck_cold"], color="C2", ls=":", label="verify var_dot.step, cold process")
    for r in s["rows"]:
        if isinstance(r["seconds"], str):
            a.annotate(f"n={r['n']}: timeout", (r["n"], SYMPY_CAP), fontsize=8)
    a.set_xscale("log", base=2)
    a.set_yscale("log")
    a.set_xlabel("n")
    a.set_ylabel("seconds")
    a.set_title("Var(Σ q_i k_i): sympy.stats vs stepcheck")
    a.legend(fontsize=7)

    a = ax[0][1]
    c = res["cold"]
    labels = ["python -c pass", "import sympy, lark", "verify var_dot", "verify --help", "verify --version"]
    vals = [c["empty"], c["floor"], c["verify"], c["--help"]["seconds"], c["--version"]["seconds"]]
    a.barh(labels, vals, color=["C7", "C0", "C1", "C2", "C2"])
    a.set_xlabel("seconds (median, cold process)")
    a.set_title(f"cold start: verify / floor = {c['ratio']:.2f}")

    a = ax[1][0]
    pl = res["links"]
    a.hist([x * 1000 for x in pl["all"]], bins=30)
    a.axvline(pl["median"] * 1000, color="C1", ls="--", label=f"median {pl['median'] * 1000:.1f} ms")
    a.axvline(pl["p95"] * 1000, color="C3", ls=":", label=f"p95 {pl['p95'] * 1000:.1f} ms")
    a.set_xlabel("ms per link (warm)")
    a.set_ylabel("links")
    a.set_title(f"per-link cost over {pl['n']} links of derivations/")
    a.legend(fontsize=8)

    a = ax[1][1]
    for key, lab, col in (("interleaved", "assumptions next to their steps", "C0"),
                          ("first", "assumptions before the first step", "C1")):
        sc = res["scaling"][key]
        pts = [r for r in sc["rows"] if isinstance(r.get("seconds"), float)]
        if not pts:
            continue
        e = sc["exponent"]
        a.plot([r["steps"] for r in pts], [r["seconds"] for r in pts], "o-", color=col,
               label=f"{lab} (exponent {e:.2f})" if e is not None else lab)
        for r in sc["rows"]:
            if "predicted" in r:
                a.plot([pts[-1]["steps"], r["steps"]], [pts[-1]["seconds"], r["predicted"]], ":", color=col)
                a.annotate("extrapolated", (r["steps"], r["predicted"]), fontsize=7)
        xs = [r["steps"] for r in sc["rows"]]
        t0 = pts[0]["seconds"] / pts[0]["steps"]
        a.plot(xs, [t0 * x for x in xs], "--", color="gray", lw=0.8)
    a.set_xscale("log")
    a.set_yscale("log")
    a.set_xlabel("steps")
    a.set_ylabel("seconds")
    a.set_title("scaling: generated derivations (dashed: linear)")
    a.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(png, dpi=100)
    plt.close(fig)
    return None


def render(res: dict, png_name: str, plot_note: str | None) -> str:
    import lark
    import sympy

    m = res["meta"]
    L = ["# Performance", "",
         "Generated by `python benchmarks/run.py" + (" --quick" if m["quick"] else "") + "` (issue 9); do not edit by hand.",
         "Every figure is a median over several runs after a warm-up, measured in one run on one machine; the "
         "comparisons are ratios, and the tests never assert a timing. In-process (warm) runs start with empty "
         "result caches (stepcheck's memoised bases and remainders, and sympy's cache): warm means imports and "
         "parser tables only.", "",
         f"Machine: {m['platform']}, {m['cpus']} CPUs; Python {m['python']}, sympy {sympy.__version__}, "
         f"lark {lark.__version__}. Runs per case: {m['runs']}. Total benchmark time: {m['total']:.0f} s. "
         f"`verify` is run as `python -m stepcheck` (the same `main` as the console script).", ""]
    if m["quick"]:
        L += ["**Quick mode**: tiny sizes, one run each; not representative.", ""]
    if m.get("reused"):
        L += ["Cases taken from a saved run (`--reuse`): " + ", ".join(m["reused"]) + ".", ""]
    if plot_note:
        L += [f"_{plot_note}_", ""]
    else:
        L += [f"![benchmark plots]({png_name})", ""]

    # summary
    c, pl, sc, at = res["cold"], res["links"], res["scaling"], res["attribution"]
    lib, pdf = res.get("library"), res.get("pdf")
    L += ["## Summary", "", "| case | measured | goal | status |", "|---|---|---|---|"]
    best = [r for r in res["sympy"]["rows"] if not isinstance(r["seconds"], str)]
    if best:
        r = best[-1]
        L.append(f"| 1. sympy.stats n={r['n']} / stepcheck var_dot (warm) | {fmt_r(r['ratio_warm'])} | "
                 f"(comparison) | — |")
    L.append(f"| 2. cold `verify var_dot.step` / `import sympy, lark` | {c['ratio']:.2f} | ≤ 1.5 | {goal(c['ratio'] <= 1.5)} |")
    for flag in ("--help", "--version"):
        v = c[flag]
        L.append(f"| 2. `verify {flag}` | {fmt_s(v['seconds'])}, imports: {', '.join(v['imports']) or 'no sympy/lark'} "
                 f"| < 0.15 s, no sympy | {goal(v['seconds'] < 0.15 and 'sympy' not in v['imports'])} |")
    L.append(f"| 3. per-link median (warm, {pl['n']} links) | {fmt_s(pl['median'])} | < 20 ms | {goal(pl['median'] < 0.02)} |")
    L.append(f"| 3. per-link p95 | {fmt_s(pl['p95'])} | < 200 ms | {goal(pl['p95'] < 0.2)} |")
    for key, lab in (("interleaved", "assumptions next to their steps"), ("first", "assumptions first")):
        e = sc[key]["exponent"]
        L.append(f"| 4. scaling exponent, {lab} | {'—' if e is None else f'{e:.2f}'} | < 1.1 | "
                 f"{goal(None if e is None else e < 1.1)} |")
    rows = [r for r in sc["interleaved"]["rows"] if isinstance(r.get("seconds"), float) and "blocks_retained" in r]
    if len(rows) >= 2:
        small, big = rows[-2], rows[-1]
        check_kb = big.get("rss_check_kb", big["rss_growth_kb"])
        per_step = check_kb / big["steps"]
        kept = (big["blocks_retained"] - small["blocks_retained"]) / (big["steps"] - small["steps"])
        parse_txt = (f"; parsing the file: +{big['rss_parse_kb'] / 1024:.0f} MiB, in proportion to its size"
                     if "rss_parse_kb" in big else "")
        L.append(f"| 4. memory while checking {big['steps']} steps | peak RSS +{check_kb / 1024:.1f} MiB "
                 f"({per_step:.1f} KiB per step){parse_txt}; live blocks kept without the report: {kept:.0f} per "
                 f"step from {small['steps']} to {big['steps']} steps (bounded caches) | flat apart from the "
                 f"report it returns (< 8 KiB per step) | {goal(per_step < 8)} |")
    if at["ratio"] is not None:
        L.append(f"| 5. attribution overhead (prove / one attempt) | {fmt_r(at['ratio'])} | < 3× | {goal(at['ratio'] < 3)} |")
    if lib:
        L.append(f"| 6. `verify derivations/` cold | {fmt_s(lib['verify'])} | — | — |")
        L.append(f"| 6. pytest -n 0 / -n 2 | {lib['speedup']:.2f}× faster with 2 workers"
                 + (f" ({lib['speedup_loadfile']:.2f}× with `--dist loadfile`)" if "speedup_loadfile" in lib else "")
                 + " | — | — |")
    if pdf and "added" in pdf:
        L.append(f"| 7. time `--pdf` adds (var_dot) | {fmt_s(pdf['added'])} | < 0.5 s | {goal(pdf['added'] < 0.5)} |")
    L.append("")

    # 1
    s = res["sympy"]
    L += ["## 1. Symbolic dimension versus sympy.stats", "",
          "`sympy.stats.variance(q_1 k_1 + … + q_n k_n)` for independent standard normals, in a subprocess capped "
          f"at {SYMPY_CAP:.0f} s (the time of `variance` alone; the process column adds interpreter start and imports), "
          "versus checking `derivations/var_dot.step`, which proves `Var(sum(i=1..d_k, q_i k_i)) = d_k` for every "
          f"`d_k` at once: {fmt_s(s['stepcheck_warm'])} warm in-process (`check_file`), "
          f"{fmt_s(s['stepcheck_cold'])} as a cold `verify` process.", "",
          "| n | sympy.stats `variance` | result = n | ratio to stepcheck (warm) | whole process | ratio (cold vs cold) |",
          "|---|---|---|---|---|---|"]
    for r in s["rows"]:
        if isinstance(r["seconds"], str):
            L.append(f"| {r['n']} | timeout (> {SYMPY_CAP:.0f} s) | — | > {SYMPY_CAP / s['stepcheck_warm']:.0f}× | timeout | — |")
        else:
            L.append(f"| {r['n']} | {fmt_s(r['seconds'])} | {'yes' if r['correct'] else 'NO'} | {fmt_r(r['ratio_warm'])} | "
                     f"{fmt_s(r['process'])} | {fmt_r(r['ratio_cold'])} |")
    L.append("")

    # 2
    L += ["## 2. Cold start", "", "| command | median wall time | imports sympy/lark/numpy |", "|---|---|---|",
          f"| `python -c pass` | {fmt_s(c['empty'])} | — |",
          f"| `python -c \"import sympy, lark\"` (the floor) | {fmt_s(c['floor'])} | sympy, lark |",
          f"| `verify derivations/var_dot.step` | {fmt_s(c['verify'])} | {', '.join(c['verify_imports'])} |"]
    if "full_exit" in c:
        L.append(f"| `STEPCHECK_FULL_EXIT=1 verify derivations/var_dot.step` (ordinary exit) | {fmt_s(c['full_exit'])} "
                 f"| {', '.join(c['verify_imports'])} |")
    L += [
          f"| `verify --help` | {fmt_s(c['--help']['seconds'])} | {', '.join(c['--help']['imports']) or 'none'} |",
          f"| `verify --version` | {fmt_s(c['--version']['seconds'])} | {', '.join(c['--version']['imports']) or 'none'} |",
          "", f"Ratio verify / floor: **{c['ratio']:.2f}** (goal ≤ 1.5)"
          + (f"; {c['rounds']} rounds, each running every command of this table once, the ratio of each round "
             f"between {min(c['ratios']):.2f} and {max(c['ratios']):.2f}" if "ratios" in c else "") + ". stepcheck's bytecode is compiled first, as "
          "`pip install` does (this machine sets PYTHONDONTWRITEBYTECODE, so a source checkout would otherwise "
          "recompile every module in every run). The check itself includes the soundness cross-check of every "
          "link on random finite models. `verify` flushes its output and leaves with `os._exit`, skipping the "
          "interpreter's teardown of sympy (the floor process does its ordinary teardown, which costs it about as "
          "much)" + (f"; with the ordinary exit the ratio is {c['ratio_full_exit']:.2f}" if "full_exit" in c else "")
          + ".", ""]

    # 3
    L += ["## 3. Per-link cost (warm)", "",
          f"Every link of the shipped derivations (`derivations/*.step`, {pl['n']} links), `LinkResult.seconds` "
          "(the whole link: kernel proof, attribution, cross-check by random models), median over runs after a "
          "warm-up of the same file.", "",
          "| | median | p95 | max | sum |", "|---|---|---|---|---|",
          f"| link as `verify` checks it | {fmt_s(pl['median'])} | {fmt_s(pl['p95'])} | {fmt_s(pl['max'])} | {fmt_s(pl['total'])} |",
          f"| kernel only (`cross_check=False`) | {fmt_s(pl['kernel_median'])} | {fmt_s(pl['kernel_p95'])} | — | {fmt_s(pl['kernel_total'])} |"]
    if pl["bad_n"]:
        L.append(f"| `derivations/bad/` ({pl['bad_n']} links, failures and counterexamples) | {fmt_s(pl['bad_median'])} | "
                 f"{fmt_s(pl['bad_p95'])} | — | — |")
    L += ["", "The 10 slowest links (shipped and bad/):", "", "| time | link | status |", "|---|---|---|"]
    for x in pl["slowest"]:
        text = x["text"].replace("|", "\\|")
        if len(text) > 70:
            text = text[:67] + "…"
        L.append(f"| {fmt_s(x['seconds'])} | `{x['file']}:{x['line']}` {x['step']} #{x['link']}: `{text}` | {x['status']} |")
    L.append("")

    # 4
    L += ["## 4. Scaling", "",
          "Generated derivations of true steps on distinct variables (linearity of E, Var of a sum with an "
          "uncorrelated assumption, Cov expanded, E with a cited mean), each size checked in a fresh process after "
          "a warm-up. Memory: the growth of the peak resident set (VmHWM) from parsing the whole file, then "
          "the further growth while checking it; and the live Python allocations (`sys.getallocatedblocks()`) "
          "after checking, with the report and after the report is dropped (what the checker's caches keep).", "",
          "| layout | steps | links (hold) | time | per step | peak RSS: parse + check | live blocks: with report / "
          "retained |", "|---|---|---|---|---|---|---|"]
    for key, lab in (("interleaved", "assumptions next to their steps"), ("first", "assumptions before the first step")):
        for r in sc[key]["rows"]:
            if not isinstance(r.get("seconds"), float):
                L.append(f"| {lab} | {r['steps']} | — | {r['seconds']} | — | — | — |")
                continue
            blocks = (f"{r['blocks_with_report']:,} / {r['blocks_retained']:,}" if "blocks_retained" in r else "—")
            mem = (f"{r['rss_parse_kb'] / 1024:.1f} + {r['rss_check_kb'] / 1024:.1f} MiB" if "rss_check_kb" in r
                   else f"{r['rss_growth_kb'] / 1024:.1f} MiB")
            L.append(f"| {lab} | {r['steps']} | {r['links']} ({r['holds']}) | {fmt_s(r['seconds'])} | "
                     f"{fmt_s(r['per_step'])} | {mem} | {blocks} |")
    L.append("")
    for key, lab in (("interleaved", "assumptions next to their steps"), ("first", "assumptions before the first step")):
        e = sc[key]["exponent"]
        L.append(f"Fitted exponent of time versus steps (least squares on log-log over the measured sizes), {lab}: "
                 f"**{'—' if e is None else f'{e:.2f}'}** (goal < 1.1).  ")
    L += ["Runs that would take far longer than the cap of "
          f"{SCALE_CAP:.0f} s are extrapolated from the fitted exponent instead of run.", ""]

    # 5
    L += ["## 5. Attribution overhead", "",
          f"Every `LinkProver.prove` call made while checking the shipped derivations ({at['calls']} calls, "
          f"{at['mean_candidates']:.1f} candidates on average) replayed on a fresh prover: `prove` (a bare attempt, "
          "the full attempt, drop-one minimisation over candidates and index ranges (the last attempt that "
          "held gives the proof's trace) and the weaker-uncorrelated probe) versus one `attempt` with every candidate.", "",
          "| with attribution (`prove`) | without (one `attempt`) | ratio of sums | median per-link ratio | max |",
          "|---|---|---|---|---|",
          f"| {fmt_s(at['with'])} | {fmt_s(at['without'])} | {fmt_r(at['ratio'])} | {fmt_r(at['median_ratio'])} | {fmt_r(at['max_ratio'])} |",
          ""]

    # 6
    if lib:
        L += ["## 6. Whole library", "", "| command | median wall time |", "|---|---|",
              f"| `verify derivations/` (cold process) | {fmt_s(lib['verify'])} |",
              f"| `{lib['pytest_cmd']} -n 0` | {fmt_s(lib['n0'])} |",
              f"| `{lib['pytest_cmd']} -n 2` | {fmt_s(lib['n2'])} |"]
        if "n2_loadfile" in lib:
            L.append(f"| `{lib['pytest_cmd']} -n 2 --dist loadfile` | {fmt_s(lib['n2_loadfile'])} |")
        L += ["", "Collection only parses the files; each file is checked when its first item runs, so each "
              "worker checks only the files whose items it runs (with `--dist loadfile`, each file exactly once).",
              "", f"pytest-xdist with 2 workers: {lib['speedup']:.2f}× the speed of `-n 0` "
              f"(plugin {'auto-registered by its entry point' if lib['autoregistered'] else 'not installed: loaded with -p stepcheck.pytest_plugin'}); "
              f"pytest said: `{lib['pytest_summary']}`.", ""]
    else:
        L += ["## 6. Whole library", "", "_Skipped in quick mode._", ""]

    # 7
    L += ["## 7. PDF", ""]
    if pdf and "added" in pdf:
        L += ["| `verify var_dot.step` | `verify --pdf OUT var_dot.step` | added by `--pdf` |", "|---|---|---|",
              f"| {fmt_s(pdf['plain'])} | {fmt_s(pdf['pdf'])} | {fmt_s(pdf['added'])} |", ""]
    else:
        L += [f"_Skipped: {(pdf or {}).get('skipped', 'quick mode')}._", ""]
    return "\n".join(L)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python benchmarks/run.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="tiny sizes, one run: a smoke test, not a measurement")
    ap.add_argument("--out", default=str(ROOT / "docs" / "performance.md"), help="markdown report (the plot goes next to it)")
    ap.add_argument("--runs", type=int, default=None, help="runs per case after the warm-up (default 5; 1 with --quick)")
    ap.add_argument("--json", default=None, help="also dump the raw results as JSON to this path (after every case)")
    ap.add_argument("--reuse", default=None, metavar="JSON",
                    help="take the cases present in this JSON dump instead of measuring them again")
    args = ap.parse_args(argv)
    quick = args.quick
    runs = args.runs or (1 if quick else 5)
    t_start = time.perf_counter()
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    png = out.with_suffix(".png")
    res: dict = {"meta": {"quick": quick, "runs": runs, "python": platform.python_version(),
                          "platform": f"{platform.system()} {platform.machine()}", "cpus": os.cpu_count()}}

    from stepcheck.checker import check_file

    reuse = json.loads(Path(args.reuse).read_text(encoding="utf-8")) if args.reuse else {}
    checkpoint = Path(args.json) if args.json else None

    def run_case(key: str, title: str, fn):
        if key in reuse:
            log(f"{title}: reused from {args.reuse}")
            res[key] = reuse[key]
        else:
            log(title)
            res[key] = fn()
        if checkpoint is not None:  # results so far survive a failure in a later case
            checkpoint.write_text(json.dumps(res, indent=1, default=str), encoding="utf-8")

    compile_bytecode()  # every cold process below reads it

    def var_dot_times():
        warm = median_call(lambda: check_file(str(VAR_DOT)), runs)
        cold, _ = median_wall(verify_cmd(str(VAR_DOT)), runs)
        return {"warm": warm, "cold": cold}

    files = [VAR_DOT, DERIV / "var_rules.step"] if quick else step_files()
    bad = [] if quick else step_files(include_bad=True)[len(files):]
    run_case("var_dot", "stepcheck on var_dot.step (warm and cold)", var_dot_times)
    vd = res["var_dot"]
    run_case("sympy", "1. sympy.stats",
             lambda: case_sympy_stats([1] if quick else [1, 2, 4, 8], min(runs, 3), vd["warm"], vd["cold"]))
    run_case("cold", "2. cold start", lambda: case_cold_start(runs))
    run_case("links", "3. per-link cost", lambda: case_per_link(files, bad, min(runs, 3)))
    run_case("scaling", "4. scaling", lambda: case_scaling([3, 6, 12] if quick else [10, 100, 1000], min(runs, 3)))
    run_case("attribution", "5. attribution overhead", lambda: case_attribution(files, min(runs, 3)))
    if not quick:
        run_case("library", "6. whole library", lambda: case_library(min(runs, 3)))
    run_case("pdf", "7. pdf", lambda: {"skipped": "quick mode"} if quick else case_pdf(runs))
    # reused cases keep the time they took when they were measured
    res["meta"]["total"] = time.perf_counter() - t_start + (reuse.get("meta", {}).get("total", 0) if reuse else 0)
    if reuse:
        res["meta"]["reused"] = sorted(k for k in reuse if k != "meta")

    note = plot(res, png)
    out.write_text(render(res, png.name, note) + "\n", encoding="utf-8")
    if args.json:
        Path(args.json).write_text(json.dumps(res, indent=1, default=str), encoding="utf-8")
    log(f"wrote {out}" + ("" if note else f" and {png}"))
    return 0


if __name__ == "__main__":
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    sys.exit(main())
