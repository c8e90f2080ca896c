"""Where the checking time of ``derivations/`` goes, in one process (issue 20, item 4).

    python -m benchmarks.phases [--json]

The same run as ``benchmarks/kernel_time.py`` (imports first, every file of
``derivations/`` with ``bad/``, no result cache, ``simulate`` statements timed
apart), with wall-clock timers around the stages of a link:

* kernel proofs: ``LinkProver.prove_link`` (the outermost call; the twin
  provers' and the case splits' calls are inside it), split by who asked: the
  proof without facts, the proof from every candidate, attribution's
  drop-one trials (facts and ranges), the weaker independence forms and the
  declared signs, and the rest (the judge's other proofs);
* the soundness cross-check of proved links (``judge.refuters.cross_check``):
  random models drawn, models evaluated, exact pointwise checks;
* the consistency check of the assumptions (``kernel.check_consistency``);
* everything else (parsing, elaboration, the witness search of links not
  proved, reports).

It ends with the bound Amdahl's law puts on a faster kernel: the whole run's
time over its time without the kernel's share, the speedup if the kernel
took no time at all.
"""
from __future__ import annotations

import argparse
import collections
import glob
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# attribution's callers of prove_link, by function name, and the stage each is reported as
STAGES = {"attribute": "proof without facts, then from every candidate", "_minimise": "attribution: drop-one trials",
          "_weaker_uncorrelated": "attribution: weaker independence forms", "_declared_signs": "attribution: declared signs"}


def measure(folder: Path = ROOT / "derivations") -> dict:
    os.environ["STEPCHECK_NO_CACHE"] = "1"
    import importlib

    import stepcheck.assumptions as assumptions
    import stepcheck.checker as ck
    import stepcheck.judge.pointwise as pointwise
    import stepcheck.judge.refuters as refuters
    import stepcheck.models as models
    import stepcheck.simulate as simulate
    for name in ("stepcheck.judge.link", "stepcheck.numeric"):  # imported before timing, like everything else
        importlib.import_module(name)
    from stepcheck.kernel.prove import LinkProver

    spent: collections.Counter = collections.Counter()
    calls: collections.Counter = collections.Counter()
    depth = [0]

    def timed(label_of, inner):
        def wrapper(*a, **k):
            label = label_of()
            if label is None:
                return inner(*a, **k)
            t = time.perf_counter()
            try:
                return inner(*a, **k)
            finally:
                spent[label] += time.perf_counter() - t
                calls[label] += 1
        return wrapper

    def prover_label():
        caller = sys._getframe(3).f_code.co_name  # prover_label <- wrapper <- nested <- the caller
        return "kernel: " + STAGES.get(caller, "other proofs of the judge")

    inner_prove = LinkProver.prove_link
    wrapped = timed(prover_label, inner_prove)

    def nested(self, *a, **k):  # the outermost call is timed; the twin provers' and the cases' are inside it
        if depth[0]:
            return inner_prove(self, *a, **k)
        depth[0] = 1
        try:
            return wrapped(self, *a, **k)
        finally:
            depth[0] = 0

    patches = [(LinkProver, "prove_link", nested, None),
               (refuters, "cross_check", None, "cross-check (whole)"),
               (models, "random_models", None, "cross-check: random models drawn"),
               (pointwise, "pointwise_check", None, "cross-check: exact pointwise checks"),
               (assumptions, "check_consistency", None, "consistency of the assumptions"),
               (simulate, "simulate_statement", None, "simulate (excluded)")]
    saved = [(owner, name, getattr(owner, name)) for owner, name, _, _ in patches]
    for owner, name, new, label in patches:
        setattr(owner, name, new or timed(lambda label=label: label, getattr(owner, name)))
    try:
        ck.check_text("random X\nstep s: E[2 X] = 2 E[X]\n")  # parser tables and lazy imports
        spent.clear()
        calls.clear()
        t = time.perf_counter()
        for f in sorted(glob.glob(str(folder / "**" / "*.step"), recursive=True)):
            ck.check_file(f)
        total = time.perf_counter() - t - spent["simulate (excluded)"]
    finally:
        for owner, name, old in saved:
            setattr(owner, name, old)
    kernel = sum(v for k, v in spent.items() if k.startswith("kernel: "))
    cross = spent["cross-check (whole)"]
    rows = {k: (round(v, 2), calls[k]) for k, v in sorted(spent.items(), key=lambda kv: -kv[1])}
    rows["cross-check: models evaluated and the rest"] = (
        round(cross - spent["cross-check: random models drawn"] - spent["cross-check: exact pointwise checks"], 2), 0)
    rest = total - kernel - cross - spent["consistency of the assumptions"]
    rows["everything else"] = (round(rest, 2), 0)
    # (to the 0.1 ms: a small folder's kernel time rounds to 0.00 s on a fast machine)
    return {"seconds": round(total, 4), "kernel": round(kernel, 4), "rows": rows,
            "kernel_share": round(kernel / total, 3), "bound_if_kernel_free": round(total / (total - kernel), 2)}


def table_md(r: dict) -> str:
    lines = ["| stage | seconds | calls |", "|---|---|---|"]
    for k, (s, n) in r["rows"].items():
        if k in ("cross-check (whole)", "simulate (excluded)"):
            continue
        lines.append(f"| {k} | {s} | {n or ''} |")
    lines.append(f"| **checking, without simulate** | **{r['seconds']:.2f}** | |")
    return "\n".join(lines) + (f"\n\nKernel share: {r['kernel_share']:.0%}; a kernel taking no time at all would make the "
                               f"whole {r['bound_if_kernel_free']}x faster (Amdahl).")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.phases", description=__doc__.split("\n\n")[0])
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    r = measure()
    print(json.dumps(r, indent=1) if args.json else table_md(r))
    return 0


if __name__ == "__main__":
    sys.exit(main())
