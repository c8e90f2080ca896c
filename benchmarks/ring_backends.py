"""The kernel's polynomial work on ``derivations/``: sympy's ``PolyRing`` against python-flint (issue 20, item 4).

    python -m benchmarks.ring_backends [--json]

Issue 20 asks for the kernel's normal forms as polynomials over a ring, "sympy's ``PolyRing``/``ring()``,
or python-flint where it is faster; measure both".  This benchmark records the ideal-membership work
the kernel actually does while checking ``derivations/`` (every call of ``kernel.reduce._reduce_modulo``:
an expression and the set of fact polynomials it is reduced by), then replays it:

1. **as the kernel does it**: ``_reduce_modulo`` with every memo cleared (expression to ring element,
   one Gröbner basis per fact set in ``PolyRing`` with the kernel's block elimination order, the
   remainder, back to an expression); its share of the whole checking time is the most a faster
   polynomial engine could win (Amdahl);
2. **the arithmetic alone**, on the same polynomials already in the ring (no conversion), with one
   monomial order both engines have (degrevlex; python-flint has no block order):
   sympy's ``groebner`` on ``PolyRing`` elements and ``rem``, against python-flint's
   ``fmpz_mpoly_vec.buchberger_naive`` + ``autoreduction`` and ``reduction_primitive_part``
   (over ZZ, denominators cleared: the same ideal).  Whether each remainder is 0 is compared
   between the two engines.

python-flint is optional (``pip install python-flint``); without it only the sympy rows are measured.
"""
from __future__ import annotations

import argparse
import importlib
import glob
import json
import math
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def record(folder: Path = ROOT / "derivations") -> tuple[list, float]:
    """Check every file of ``folder`` (imports first, no result cache, ``simulate`` skipped from the
    time): (the distinct (expression, fact set) reductions asked, the checking time in seconds)."""
    os.environ["STEPCHECK_NO_CACHE"] = "1"
    import stepcheck.checker as ck
    importlib.import_module("stepcheck.numeric")  # imported before the clock starts, as kernel_time does
    import stepcheck.simulate as sim
    from stepcheck.kernel import reduce as R

    ck.check_text("random X\nstep s: E[2 X] = 2 E[X]\n")
    seen: dict = {}
    inner = R._reduce_modulo

    def recording(p, facts):
        seen.setdefault((p, facts), None)
        return inner(p, facts)

    spent = [0.0]
    sim_inner = sim.simulate_statement

    def timed(*a, **k):
        t = time.perf_counter()
        try:
            return sim_inner(*a, **k)
        finally:
            spent[0] += time.perf_counter() - t

    R._reduce_modulo, sim.simulate_statement = recording, timed
    try:
        t = time.perf_counter()
        for f in sorted(glob.glob(str(folder / "**" / "*.step"), recursive=True)):
            ck.check_file(f)
        total = time.perf_counter() - t - spent[0]
    finally:
        R._reduce_modulo, sim.simulate_statement = inner, sim_inner
    return list(seen), total


def as_the_kernel(work: list) -> dict:
    """Replay every reduction through the kernel's own code, memos cleared: (seconds, of which Gröbner)."""
    from stepcheck.kernel import reduce as R

    R.clear_caches()
    g_inner, g_spent = R._groebner, [0.0]

    def timed(*a, **k):
        t = time.perf_counter()
        try:
            return g_inner(*a, **k)
        finally:
            g_spent[0] += time.perf_counter() - t

    R._groebner = timed
    try:
        t = time.perf_counter()
        for p, facts in work:
            try:
                R._reduce_modulo(p, facts)
            except R.Inconsistent:
                pass
        total = time.perf_counter() - t
    finally:
        R._groebner = g_inner
    return {"seconds": total, "groebner": g_spent[0], "calls": len(work),
            "fact_sets": len({facts for _, facts in work})}


def polynomial_data(work: list) -> list:
    """Per fact set with a polynomial system: (generator names, the facts' exponent dicts over QQ, the dicts of
    the numerators reduced by it), every dict over the union of the generators in play."""
    import sympy
    from sympy import QQ
    from sympy.polys.polytools import parallel_poly_from_expr

    from stepcheck.kernel import reduce as R

    by_facts: dict = {}
    for p, facts in work:
        by_facts.setdefault(facts, []).append(p)
    out = []
    for facts, ps in by_facts.items():
        fn = sorted({R._num_den(f)[0] for f in facts}, key=sympy.default_sort_key)
        nums = [R._num_den(p)[0] for p in ps]
        nums = [n for n in nums if not n.is_number]
        try:
            R._size_guard(fn)
            polys, opt = parallel_poly_from_expr(fn + nums, domain=QQ)
        except Exception:  # noqa: BLE001 - not a polynomial system (the kernel leaves those unreduced too)
            continue
        if not opt.gens:
            continue
        dicts = [{m: c for m, c in P.rep.to_dict().items()} for P in polys]
        out.append((tuple(str(g) for g in opt.gens), dicts[:len(fn)], dicts[len(fn):]))
    return out


def sympy_ring(data: list) -> dict:
    """sympy's groebner and rem on ``PolyRing`` elements, degrevlex; (seconds, which remainders are 0)."""
    from sympy import QQ
    from sympy.polys.groebnertools import groebner
    from sympy.polys.orderings import grevlex
    from sympy.polys.rings import PolyRing

    zeros, t = [], time.perf_counter()
    for names, facts, nums in data:
        ring = PolyRing(names, QQ, grevlex)
        G = groebner([ring.from_dict(d) for d in facts], ring)
        for d in nums:
            zeros.append(ring.from_dict(d).rem(G) == 0)
    return {"seconds": time.perf_counter() - t, "zeros": zeros}


def flint_ring(data: list) -> dict | None:
    """python-flint's ``fmpz_mpoly`` (Buchberger, autoreduction, reduction), degrevlex, denominators cleared."""
    try:
        import flint
    except ImportError:
        return None

    def integral(d: dict) -> dict:
        den = math.lcm(*(int(c.denominator) for c in d.values())) if d else 1
        return {m: int(c.numerator) * (den // int(c.denominator)) for m, c in d.items()}

    zeros, t = [], time.perf_counter()
    for names, facts, nums in data:
        ctx = flint.fmpz_mpoly_ctx.get(tuple(f"x{k}" for k in range(len(names))), "degrevlex")
        G = flint.fmpz_mpoly_vec([ctx.from_dict(integral(d)) for d in facts], ctx).buchberger_naive().autoreduction()
        for d in nums:
            zeros.append(ctx.from_dict(integral(d)).reduction_primitive_part(G).is_zero())
    return {"seconds": time.perf_counter() - t, "zeros": zeros, "version": flint.__version__}


def measure(folder: Path = ROOT / "derivations") -> dict:
    work, checking = record(folder)
    kernel = as_the_kernel(work)
    data = polynomial_data(work)
    sy = sympy_ring(data)
    fl = flint_ring(data)
    res = {"checking_seconds": checking, "kernel_replay": kernel, "systems": len(data),
           "reductions": sum(len(n) for _, _, n in data), "sympy_ring_seconds": sy["seconds"],
           "max_generators": max((len(n) for n, _, _ in data), default=0)}
    if fl is not None:
        res.update(flint_seconds=fl["seconds"], flint_version=fl["version"],
                   zero_tests_agree=sum(a == b for a, b in zip(sy["zeros"], fl["zeros"])),
                   zero_tests=len(sy["zeros"]))
    return res


def render(r: dict) -> str:
    k = r["kernel_replay"]
    lines = [f"checking `derivations/` (no imports, no `simulate`): {r['checking_seconds']:.2f} s",
             f"the kernel's reductions replayed through its own code, memos cleared: {k['seconds']:.2f} s "
             f"({k['calls']} reductions, {k['fact_sets']} fact sets; Gröbner bases {k['groebner']:.2f} s): "
             f"{100 * k['seconds'] / r['checking_seconds']:.1f}% of checking; an engine taking no time at all "
             f"would make checking {r['checking_seconds'] / max(r['checking_seconds'] - k['seconds'], 1e-9):.2f}x "
             "faster",
             f"the arithmetic alone, degrevlex, {r['systems']} systems (up to {r['max_generators']} generators), "
             f"{r['reductions']} remainders: sympy PolyRing {r['sympy_ring_seconds'] * 1000:.1f} ms"]
    if "flint_seconds" in r:
        lines.append(f"python-flint {r['flint_version']} fmpz_mpoly: {r['flint_seconds'] * 1000:.1f} ms "
                     f"({r['sympy_ring_seconds'] / max(r['flint_seconds'], 1e-9):.1f}x sympy's); remainder 0 or "
                     f"not: {r['zero_tests_agree']} of {r['zero_tests']} agree")
    else:
        lines.append("python-flint is not installed: not measured (pip install python-flint)")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10000))
    r = measure()
    print(json.dumps(r, indent=1) if args.json else render(r))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
