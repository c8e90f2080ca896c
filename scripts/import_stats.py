"""Recompute the figures of docs/import.md: `stepcheck import` over the source articles.

    python scripts/import_stats.py [ARTICLES_DIR] [--decls DIR]

For every article (``*.md``, ``*.tex``, or ``*.txt`` read as Markdown) in
ARTICLES_DIR (default ``/work/shared/articles``): the display formulas found,
imported completely, refused, and the links of the skeleton.  For every
article with a declarations file ``decls_NNN.step`` in DIR (default
``tests/data/import``; NNN is the article's number, the start of its file
name), the declarations are put above the skeleton and the result is checked:
how many imported links hold, fail, stay unknown.  Prints Markdown tables.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("articles", nargs="?", default="/work/shared/articles")
    ap.add_argument("--decls", default=str(ROOT / "tests" / "data" / "import"))
    ap.add_argument("--refused", action="store_true", help="also list every refused formula's reason")
    args = ap.parse_args(argv)
    from stepcheck.checker import check_text
    from stepcheck.importer import import_text, render

    files = sorted(p for p in Path(args.articles).iterdir() if p.suffix in (".md", ".tex", ".txt"))
    if not files:
        print(f"no articles in {args.articles}", file=sys.stderr)
        return 2
    print("| article | display formulas | imported completely | refused | links |")
    print("|---|---:|---:|---:|---:|")
    totals = [0, 0]
    goal = [0, 0]
    checked = []
    reasons = []
    for p in files:
        text = p.read_text(encoding="utf-8")
        name = p.name.split("_")[0]
        res = import_text(text, p.name)
        pct = f" ({100 * res.imported / res.found:.0f} %)" if res.found else ""
        print(f"| {name} | {res.found} | {res.imported}{pct} | {len(res.refused)} | {res.links} |")
        totals[0] += res.found
        totals[1] += res.imported
        if name in ("000", "002", "003", "004"):
            goal[0] += res.found
            goal[1] += res.imported
        reasons += [f"{d.span}: {d.title.removeprefix('cannot import this formula: ')}" for d in res.refused]
        decls = Path(args.decls) / f"decls_{name}.step"
        if decls.exists():
            rep = check_text(decls.read_text(encoding="utf-8") + "\n" + render(res, text), f"{name}.step")
            links = [lk.status for s in rep.steps for lk in s.links]
            checked.append((name, res.links, links, rep.fatal))
    print(f"| all | {totals[0]} | {totals[1]} | {totals[0] - totals[1]} | |")
    if goal[0]:
        print(f"\n000, 002, 003, 004 together: {goal[1]} of {goal[0]} display formulas imported completely "
              f"({100 * goal[1] / goal[0]:.1f} %).")
    if checked:
        print("\n| article | imported links | hold | fail | unknown |")
        print("|---|---:|---:|---:|---:|")
        for name, n, links, fatal in checked:
            if fatal:
                print(f"| {name} | {n} | (input error: see `verify`) | | |")
                continue
            print(f"| {name} | {n} | {links.count('holds')} | {links.count('fails')} | {links.count('unknown')} |")
    if args.refused:
        print("\nrefused:")
        for r in reasons:
            print(f"- {r}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
