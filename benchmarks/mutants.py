"""Full mutation corpus: every mutant of every holding `step` link of derivations/*.step.

    python benchmarks/mutants.py [--jobs N] [--timeout S]      (or: python -m benchmarks.mutants)

Prints the counts per mutation kind, writes them to docs/soundness.json (which
docs/soundness.md references) and exits 1 if any false mutant is accepted or
the checker crashes.  See benchmarks/mutate.py for the mutation operators
and the independent oracle.
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
for _p in (ROOT, os.path.join(ROOT, "src")):  # `benchmarks.mutate`, and stepcheck when not installed
    if _p not in sys.path:
        sys.path.insert(0, _p)

from benchmarks import mutate  # noqa: E402


DOC = os.path.join(ROOT, "docs", "soundness.md")
BEGIN, END = "<!-- mutants:begin -->", "<!-- mutants:end -->"


def _write_doc(summary, data) -> None:
    """Put the table of counts between the markers of docs/soundness.md."""
    if not os.path.exists(DOC):
        return
    with open(DOC, encoding="utf-8") as fh:
        doc = fh.read()
    if BEGIN not in doc or END not in doc:
        return
    cols = list(mutate.COLUMNS)
    lines = ["| kind | " + " | ".join(c.replace("_", "-") for c in cols) + " |",
             "|---|" + "---:|" * len(cols)]
    for kind, c in data["counts"].items():
        lines.append(f"| `{kind}` | " + " | ".join(str(c[x]) for x in cols) + " |")
    lines.append("| **total** | " + " | ".join(f"**{data['totals'].get(x, 0)}**" for x in cols) + " |")
    files = len(mutate.derivation_paths())
    text = (f"{BEGIN}\nRun of {data['date']} ({files} derivations, timeout {data['timeout']:g} s per link, seed "
            f"{data['seed']}, {data['seconds']:.0f} s): **{data['totals'].get('accepted', 0)} accepted** of "
            f"{data['totals'].get('non_equivalent', 0)} non-equivalent mutants. Machine-readable: "
            f"[`soundness.json`](soundness.json).\n\n" + "\n".join(lines) + f"\n{END}")
    doc = doc[:doc.index(BEGIN)] + text + doc[doc.index(END) + len(END):]
    with open(DOC + ".tmp", "w", encoding="utf-8") as fh:
        fh.write(doc)
    os.replace(DOC + ".tmp", DOC)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--timeout", type=float, default=2.0)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default=os.path.join(ROOT, "docs", "soundness.json"))
    a = ap.parse_args(argv)
    mutants = mutate.generate()
    print(f"{len(mutants)} mutants from {len(mutate.derivation_paths())} derivations", flush=True)
    summary = mutate.run(mutants, timeout=a.timeout, seed=a.seed, jobs=a.jobs)
    print(summary.table())
    for o in summary.problems:
        print(f"\n{o.verdict.upper()} ({o.mutant.kind}) {o.mutant.file}, {o.mutant.where}: {o.mutant.description}\n"
              f"  {o.statuses} {o.truth} {o.note}")
    data = summary.to_json()
    data["date"] = datetime.date.today().isoformat()
    data["timeout"] = a.timeout
    data["seed"] = a.seed
    _write_doc(summary, data)
    with open(a.out + ".tmp", "w", encoding="utf-8") as fh:
        json.dump(data, fh, indent=2, ensure_ascii=False)
    os.replace(a.out + ".tmp", a.out)
    print(f"\n{len(summary.outcomes)} mutants in {summary.seconds:.0f} s; accepted: {len(summary.accepted)}; "
          f"written to {os.path.relpath(a.out, ROOT)}")
    return 1 if summary.accepted or any(o.verdict == "crash" for o in summary.outcomes) else 0


if __name__ == "__main__":
    sys.exit(main())
