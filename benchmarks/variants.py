"""The true-variant corpus: rewrites of true links that must never come back ``fails``.

``python -m benchmarks.variants [--sample N] [--jobs J] [--json] [--doc]``
(from the repository root; a development tool, not part of the installed package)

The mutation corpus (``benchmarks/mutate.py``) checks one direction: a false
link is never accepted.  This corpus checks the other: every ``step`` link
of ``derivations/*.step`` that holds is rewritten, the way a user might
write the same claim, into a link that is still true:

| kind | rewrite of ``A REL B by R`` |
|---|---|
| ``swap`` | ``B REL' A by R`` (the relation mirrored) |
| ``scale`` | ``2 (A) REL 2 (B) by R`` |
| ``shift`` | ``(A) + 1 REL (B) + 1 by R`` |
| ``difference`` | ``(A) - (B) REL 0 by R`` |
| ``rename`` | every bound index of a ``sum``/``prod`` renamed apart (``sum(i=...)`` -> ``sum(t1=...)``) |
| ``abs_square`` | ``x^2`` written ``abs(x)^2`` for a name ``x`` |
| ``stronger`` | an extra, unrelated assumption in scope (``random Z9; assume extra9: E[Z9] = 0``) |
| ``negate`` | ``-(B) REL' -(A) by R`` |

Each variant is a whole ``.step`` text (the rewritten step replaces the
original one; later lines are dropped), checked with ``check_text(...,
timeout=2, cross_check=False)``.  The mutation corpus's independent oracle
(never the kernel) confirms that the variant is true.  Verdicts:

* ``ok``: true, and the checker says ``holds`` or ``unknown`` (``of which
  holds``: how many it proves -- the kernel's reach on rewrites);
* ``false-fails``: true, and the checker says ``fails`` -- **a soundness bug**
  (a false refutation);
* ``not-true``: the oracle finds the rewrite false (a bug in this generator);
* ``undecided``: the oracle cannot decide (counted neither way);
* ``invalid``: the rewrite does not parse (a bug in this generator).
"""
from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time

from stepcheck import syntax as S

from benchmarks.mutate import REPO, Mutant, _children, _prepare, _Text, parsed, run
from benchmarks.mutate import sample as _sample

KINDS = ("swap", "scale", "shift", "difference", "rename", "abs_square", "stronger", "negate")
MIRROR = {"=": "=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}
REL_TEXT = {"=": "=", "<": "<", "<=": "<=", ">": ">", ">=": ">="}
DOC = os.path.join(REPO, "docs", "soundness.md")


def _link_text(tx: _Text, lk, prev) -> tuple[str, str, str]:
    a, b = tx.get(prev.span), tx.get(lk.rhs.span)
    refs = ", ".join(r.text for r in lk.refs)
    return a, b, (f"   by {refs}" if lk.refs else "")


def _families(prog) -> set:
    out = set()
    for st in prog.statements:
        if isinstance(st, (S.Random, S.RealDecl)) and st.family is not None:
            v = st.family.var.name
            out |= {n.name[: -len(v) - 1] for n in st.names if n.name.endswith("_" + v)}
        if isinstance(st, S.Define) and "_" in st.name.name:  # `define p_i = ...`: indexed like a family
            out.add(st.name.name.rsplit("_", 1)[0])
    return out


def _rename_bound(tx: _Text, nodes, families) -> tuple[str, str] | None:
    """The two sides with every sum/prod bound index renamed (``i`` -> ``t9``, ``q_i`` -> ``q_t9``), or None.

    Works on the parse tree: the binder and, in the body, the names that are the
    bound index itself or a member of a declared family at that index.
    """
    out = []
    renamed = False
    for node in nodes:
        base, _ = tx.span(node.span)
        edits = {}
        fresh = iter(f"t{k}" for k in range(1, 100))

        def visit(n, bound):
            if isinstance(n, S.BigOp):
                new = next(fresh)  # every binder its own fresh name: nested sums stay apart
                edits[tx.span(n.var.span)] = new
                for part in (n.lo, n.hi):
                    visit(part, bound)
                visit(n.body, {**bound, n.var.name: new})
                return
            if isinstance(n, S.Name):
                nm = n.name
                if nm in bound:
                    edits[tx.span(n.span)] = bound[nm]
                elif "_" in nm and nm.rsplit("_", 1)[1] in bound and nm.rsplit("_", 1)[0] in families:
                    edits[tx.span(n.span)] = nm.rsplit("_", 1)[0] + "_" + bound[nm.rsplit("_", 1)[1]]
                return
            for c in _children(n):
                visit(c, bound)

        visit(node, {})
        text = tx.get(node.span)
        for (a, b), new in sorted(edits.items(), reverse=True):
            text = text[:a - base] + new + text[b - base:]
            renamed = True
        out.append(text)
    return (out[0], out[1]) if renamed else None


def _abs_square(s: str) -> str:
    return re.sub(r"(?<![\w\]\)])([A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)?)\^2\b", r"abs(\1)^2", s)


def generate(paths=None) -> list[Mutant]:
    out: list[Mutant] = []
    for path, text, prog, tx in parsed(paths):
        fams = _families(prog)
        for st in prog.statements:
            if not (isinstance(st, S.Step) and st.kind == "step"):
                continue
            start, _ = tx.span(st.span)
            name = st.name.name
            prev = st.first
            for k, lk in enumerate(st.links, start=1):
                if lk.rel not in MIRROR:
                    prev = lk.rhs
                    continue
                a, b, by = _link_text(tx, lk, prev)
                rel, mir = REL_TEXT[lk.rel], REL_TEXT[MIRROR[lk.rel]]
                claims = {
                    "swap": f"{b} {mir} {a}",
                    "scale": f"2 ({a}) {rel} 2 ({b})",
                    "shift": f"({a}) + 1 {rel} ({b}) + 1",
                    "difference": f"({a}) - ({b}) {rel} 0",
                    "negate": f"-({b}) {rel} -({a})",
                }
                ren = _rename_bound(tx, [prev, lk.rhs], fams)
                if ren:
                    claims["rename"] = f"{ren[0]} {rel} {ren[1]}"
                sa, sb = _abs_square(a), _abs_square(b)
                if (sa, sb) != (a, b):
                    claims["abs_square"] = f"{sa} {rel} {sb}"
                claims["stronger"] = f"{a} {rel} {b}"
                line = text.count("\n", 0, start) + 1
                # the step's condition stays with every variant (without `for i != j`, ∂p_i/∂s_j = -p_i p_j is false)
                cond = f"\n    for {st.cond.left.name} != {st.cond.right.name}" if st.cond is not None else ""
                for kind, claim in claims.items():
                    pre = text[:start]
                    if kind == "stronger":
                        pre += "random Z9\nassume extra9: E[Z9] = 0\n"
                    vtext = pre + f"step {name}: {claim}{by}{cond}\n"
                    out.append(Mutant(kind, path, f"step {name}, link {k}", f"line {line}: {kind}",
                                      _prepare(vtext, None), [(name, 1)], line))
                prev = lk.rhs
    return out


def sample(variants, n: int, seed: int = 0) -> list[Mutant]:
    """A deterministic sample of ``n`` variants spread over the kinds."""
    return _sample(variants, n, seed, kinds=KINDS)


def classify(outcome) -> str:
    if outcome.verdict in ("invalid", "crash"):
        return "invalid"
    key = next(iter(outcome.truth), None) or next(iter(outcome.statuses), None)
    truth, status = outcome.truth.get(key), outcome.statuses.get(key)
    if truth is False:
        return "not-true"
    if truth is None:
        return "undecided"
    return "false-fails" if status == "fails" else "ok"


COLUMNS = ("generated", "ok", "of which holds", "false-fails", "not-true", "undecided", "invalid")


def outcome_statuses(o) -> set:
    return set(o.statuses.values())


def summarise(outcomes) -> dict:
    table = {k: dict.fromkeys(COLUMNS, 0) for k in KINDS}
    bad = []
    for o in outcomes:
        c = classify(o)
        row = table.setdefault(o.mutant.kind, dict.fromkeys(COLUMNS, 0))
        row["generated"] += 1
        row[c] += 1
        if c == "ok" and "holds" in outcome_statuses(o):
            row["of which holds"] += 1
        if c in ("false-fails", "not-true", "invalid"):
            bad.append({"verdict": c, "file": os.path.relpath(o.mutant.file, REPO), "where": o.mutant.where,
                        "kind": o.mutant.kind, "note": o.note[:300]})
    total = {col: sum(r[col] for r in table.values()) for col in COLUMNS}
    return {"kinds": table, "total": total, "problems": bad}


def table_md(summary: dict) -> str:
    head = "| kind | " + " | ".join(COLUMNS) + " |\n|---|" + "---|" * len(COLUMNS) + "\n"
    rows = [f"| {k} | " + " | ".join(str(summary['kinds'][k][c]) for c in COLUMNS) + " |" for k in summary["kinds"]]
    rows.append("| **total** | " + " | ".join(f"**{summary['total'][c]}**" for c in COLUMNS) + " |")
    return head + "\n".join(rows) + "\n"


def replace_block(path: str, tag: str, body: str) -> None:
    """Replace the text between ``<!-- TAG:begin -->`` and ``<!-- TAG:end -->`` in ``path`` (or append it)."""
    with open(path, encoding="utf-8") as fh:
        doc = fh.read()
    begin, end = f"<!-- {tag}:begin -->", f"<!-- {tag}:end -->"
    block = f"{begin}\n{body}\n{end}"
    if begin in doc:
        doc = doc[:doc.index(begin)] + block + doc[doc.index(end) + len(end):]
    else:
        doc = doc.rstrip() + "\n\n" + block + "\n"
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(doc)


def print_summary(summary: dict, as_json: bool, table, problem_line) -> None:
    """The summary as JSON, or as its table followed by one line per problem."""
    if as_json:
        json.dump(summary, sys.stdout, indent=1)
        print()
        return
    print(table(summary))
    for p in summary["problems"]:
        print(problem_line(p))


def write_doc(summary: dict, seconds: float) -> None:
    replace_block(DOC, "variants", f"Latest full run (`python -m benchmarks.variants --jobs 2 --doc`, {seconds:.0f} s):\n\n"
                  + table_md(summary))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.variants", description=__doc__.split("\n")[0])
    ap.add_argument("--sample", type=int, default=None)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=2.0)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--doc", action="store_true", help="write the table into docs/soundness.md")
    a = ap.parse_args(argv)
    variants = generate()
    if a.sample:
        variants = sample(variants, a.sample)
    t0 = time.perf_counter()
    s = run(variants, timeout=a.timeout, jobs=a.jobs)
    summary = summarise(s.outcomes)
    seconds = time.perf_counter() - t0
    print_summary(summary, a.json, table_md,
                  lambda p: f"{p['verdict']}: {p['file']} {p['where']} ({p['kind']}): {p['note']}")
    if a.doc and not a.sample:
        write_doc(summary, seconds)
    return 1 if summary["total"]["false-fails"] else 0


if __name__ == "__main__":
    sys.exit(main())
