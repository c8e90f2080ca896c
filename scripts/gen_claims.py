#!/usr/bin/env python3
"""Re-generate docs/claims.md and docs/errata.md from the derivations.

The claims are the 107 checkable claims of the five source articles, listed in
docs/article_claims.md (a copy of ../shared/claims/ARTICLE_CLAIMS.md).  A
derivation says which claim a statement decides with a comment on the lines
just above it:

    # claim: 000 §推导 mean
    step mean: E[q_i k_i] = 0 ...

    # claim: 001 §15.3 softmax
    # errata: the article prints [0.295, 0.487, 0.218] -- softmax gives [0.307, 0.506, 0.186]
    refute printed: softmax([0, 0.5, -0.5]) ≈ [0.295, 0.487, 0.218]

and ``# claim: ID missing: WHAT`` anywhere when a capability is missing.
Every verdict comes from checking the files (``stepcheck.checker.check_file``):

* verified  -- every tagged statement of a file in derivations/ holds (a
  ``simulate`` statement counts as verified by simulation, and says so);
* refuted   -- a tagged ``refute`` with an ``# errata:`` line holds (the claim
  was shown false, with a re-checked witness), or a tagged statement of
  derivations/bad/ fails.  A tagged ``refute`` without ``# errata:`` shows a
  claim of the form "this does not follow" (independence is not needed ...):
  when it holds, the claim is verified.  A tagged statement of derivations/bad/
  with a ``# verifies: WHY`` line decides a claim of the form "this derivation
  fails": it is verified when the statement fails, or is rejected because a
  mean it needs does not exist (``E-undefined``: "Cauchy ⇒ infinite variance,
  the derivation fails").  A tagged ``simulate`` statement of derivations/bad/
  whose confidence interval misses the article's value refutes the claim by
  simulation: evidence, not a proof, and the verdict says "refuted
  (simulation)";
* unknown   -- a tagged statement is unknown (or a bad/ statement does not fail);
* missing   -- no statement is tagged (the reason, when a file gives one).

``tests/test_claims.py`` fails when either page is stale.

Usage: python scripts/gen_claims.py [--check]
"""
from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

CLAIMS = ROOT / "docs" / "article_claims.md"
TABLE = ROOT / "docs" / "claims.md"
ERRATA = ROOT / "docs" / "errata.md"
DERIVATIONS = ROOT / "derivations"

_TAG = re.compile(r"^\s*#\s*claim:\s*(?P<id>.+?)(?:\s+missing:\s*(?P<missing>.*))?\s*$")
_ERRATA = re.compile(r"^\s*#\s*errata:\s*(?P<text>.*?)\s*$")
_VERIFIES = re.compile(r"^\s*#\s*verifies:\s*(?P<text>.*?)\s*$")
#: the errors that decide a "this derivation fails" claim (`# verifies:`): a certain verdict on the
#: mathematics (a mean that does not exist), never an input slip such as a typo
DECIDING_ERRORS = {"E-undefined"}
#: a `simulate` statement of derivations/bad/ refutes its claim (by simulation, and says so) when its
#: confidence interval misses the article's value
SIMULATION_REFUTES = "E-simulation-inconsistent"
_ROW = re.compile(r"^\|\s*(?P<id>\d{3} §[^|]*?)\s*\|\s*(?P<text>.*)\|\s*$")


@dataclass
class Decision:
    file: str
    line: int
    names: list
    statuses: list
    kinds: list
    bad: bool
    errata: str = ""
    witness: str = ""
    verifies: str = ""  # `# verifies:` text: a bad/ statement that decides a "this derivation fails" claim
    codes: frozenset = frozenset()  # the error codes reported on the statement's lines


@dataclass
class Claim:
    id: str
    text: str
    decisions: list = field(default_factory=list)
    missing: list = field(default_factory=list)  # (file, reason)

    @property
    def verdict(self) -> str:
        if not self.decisions:
            return "missing"
        outs = [_outcome(d) for d in self.decisions]
        if "refuted" in outs:
            return "refuted"
        if "refuted-simulation" in outs:  # evidence, not a proof: said so in the verdict
            return "refuted (simulation)"
        if all(o in ("verified", "simulated") for o in outs):
            return "verified (simulation)" if "simulated" in outs else "verified"
        return "unknown"


def _outcome(d: Decision) -> str:
    out = []
    for st, kind in zip(d.statuses, d.kinds):
        if d.bad and kind == "simulate":  # a simulation whose interval misses the article's value
            out.append("refuted-simulation" if st == "simulated" and SIMULATION_REFUTES in d.codes else "unknown")
        elif d.bad and d.verifies:
            out.append("verified" if st == "fails" or d.codes & DECIDING_ERRORS else "unknown")
        elif d.bad:
            out.append("refuted" if st == "fails" else "unknown")
        elif kind == "refute":  # with `# errata:` the claim is what is refuted; else the claim is a non-implication
            out.append(("refuted" if d.errata else "verified") if st == "holds" else "unknown")
        elif st == "simulated" and SIMULATION_REFUTES in d.codes:  # inconsistent: never a verification
            out.append("unknown")
        elif st in ("holds", "simulated"):
            out.append("verified" if st == "holds" else "simulated")
        else:
            out.append("unknown")
    if "refuted" in out and all(o == "refuted" for o in out if o != "verified"):
        return "refuted"
    if "refuted-simulation" in out and all(o == "refuted-simulation" for o in out if o != "verified"):
        return "refuted-simulation"
    if all(o == "verified" for o in out):
        return "verified"
    if all(o in ("verified", "simulated") for o in out):
        return "simulated"
    return "unknown"


def read_claims() -> list[Claim]:
    out = []
    for line in CLAIMS.read_text(encoding="utf-8").splitlines():
        m = _ROW.match(line)
        if m:
            out.append(Claim(m.group("id").strip(), m.group("text").strip().rstrip("|").strip()))
    return out


def _statements(path: Path):
    """(first line, [result names], kind, last line) of every statement of the file, in order."""
    from stepcheck.parser import parse
    from stepcheck.syntax import Check, Simulate, Step, Table, check_name, table_cell_name

    prog = parse(path.read_text(encoding="utf-8"), str(path))
    out = []
    for st in prog.statements:
        if isinstance(st, Step):
            out.append((st.span.line, [st.name.name], st.kind, st.span.end_line))
        elif isinstance(st, Simulate):
            out.append((st.span.line, [st.name.name], "simulate", st.span.end_line))
        elif isinstance(st, Check):
            out.append((st.span.line, [check_name(st)], "check", st.span.end_line))
        elif isinstance(st, Table):
            out.append((st.span.line, [table_cell_name(st, r, c) for r, row in enumerate(st.rows, 1)
                                       for c, _ in enumerate(row.cells, 1)], "check", st.span.end_line))
    return out


def collect(report_of=None) -> list[Claim]:
    """The claims with their decisions; ``report_of(path)`` checks a file (default: check_file)."""
    if report_of is None:
        from stepcheck.checker import check_file

        def report_of(p):
            return check_file(str(p))

    claims = read_claims()
    by_id = {c.id: c for c in claims}
    files = sorted(DERIVATIONS.glob("*.step")) + sorted((DERIVATIONS / "bad").glob("*.step"))
    for path in files:
        lines = path.read_text(encoding="utf-8").splitlines()
        tags = []  # (line, id, errata, verifies)
        for k, line in enumerate(lines, 1):
            m = _TAG.match(line)
            if not m:
                continue
            cid = m.group("id").strip()
            if cid not in by_id:
                raise SystemExit(f"{path.relative_to(ROOT)}:{k}: unknown claim id `{cid}`")
            rel = path.relative_to(ROOT).as_posix()
            if m.group("missing") is not None:
                by_id[cid].missing.append((f"{rel}:{k}", m.group("missing")))
                continue
            errata = verifies = ""
            for nxt in lines[k:k + 4]:
                if not nxt.lstrip().startswith("#"):
                    break
                e, v = _ERRATA.match(nxt), _VERIFIES.match(nxt)
                errata, verifies = (e.group("text") if e else errata), (v.group("text") if v else verifies)
            tags.append((k, cid, errata, verifies))
        if not tags:
            continue
        stmts = _statements(path)
        rep = report_of(path)
        results = {s.name: s for s in rep.steps}
        for k, cid, errata, verifies in tags:
            st = next((s for s in stmts if s[0] > k), None)
            if st is None:
                raise SystemExit(f"{path.relative_to(ROOT)}:{k}: `# claim:` with no statement after it")
            line, names, kind, last = st
            got = [results.get(n) for n in names]
            found = list(rep.diagnostics) + [dg for g in got if g is not None for lk in g.links for dg in lk.diagnostics]
            codes = frozenset(dg.code for dg in found
                              if dg.severity == "error" and dg.span is not None and line <= dg.span.line <= last)
            statuses = [g.status if g is not None else "unknown" for g in got]
            witness = next((lk.counterexample for g in got if g is not None for lk in g.links
                            if lk.counterexample), "")
            if kind == "simulate" and not witness:  # the simulation's estimate and interval
                witness = next((lk.message.splitlines()[0] for g in got if g is not None for lk in g.links
                                if lk.message), "")
            by_id[cid].decisions.append(Decision(path.relative_to(ROOT).as_posix(), line, names, statuses,
                                                 [kind] * len(names), "bad" in path.parts, errata, witness,
                                                 verifies, codes))
    return claims


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def table(claims) -> str:
    counts: dict = {}
    for c in claims:
        v = c.verdict.split(" ")[0]
        counts[v] = counts.get(v, 0) + 1
    decided = counts.get("verified", 0) + counts.get("refuted", 0)
    out = ["# The articles' claims, decided by the derivations",
           "",
           "Generated by `python scripts/gen_claims.py` from the `# claim:` tags of `derivations/` (every",
           "verdict comes from checking the files; `tests/test_claims.py` fails when this page is stale).",
           "The claims are those of [article_claims.md](article_claims.md); the refuted ones are explained",
           "in [errata.md](errata.md).",
           "",
           f"**{len(claims)} claims: {decided} decided** ({counts.get('verified', 0)} verified, "
           f"{counts.get('refuted', 0)} refuted), {counts.get('unknown', 0)} unknown, "
           f"{counts.get('missing', 0)} missing.",
           "",
           "| id | claim | decided by | verdict |",
           "|---|---|---|---|"]
    for c in claims:
        where = "; ".join(f"[{d.file}:{d.line}](../{d.file}) `{', '.join(d.names[:3])}"
                          f"{', ...' if len(d.names) > 3 else ''}`" for d in c.decisions)
        verdict = c.verdict
        if verdict == "missing":
            reasons = "; ".join(r for _, r in c.missing)
            verdict = f"missing: {reasons}" if reasons else "missing"
        out.append(f"| {_cell(c.id)} | {_cell(c.text)} | {_cell(where) or '—'} | {_cell(verdict)} |")
    return "\n".join(out) + "\n"


def errata(claims) -> str:
    out = ["# Errata: what the articles get wrong or state too strongly",
           "",
           "Generated by `python scripts/gen_claims.py` from the derivations: each claim below was",
           "refuted by the tool (a `refute` statement that holds, or a statement of `derivations/bad/` that",
           "fails), with the witness it printed. Run the file to see the whole argument.",
           ""]
    bad = [c for c in claims if c.verdict.startswith("refuted")]
    if not bad:
        out.append("No claim is refuted.")
    for c in bad:
        out += [f"## {c.id}", "", f"**The article:** {c.text}", ""]
        if c.verdict != "refuted":
            out += ["**Refuted by simulation:** evidence at the simulation's confidence, not a proof.", ""]
        for d in c.decisions:
            if not _outcome(d).startswith("refuted"):
                continue
            if d.errata:
                said, _, true = d.errata.partition(" -- ")
                out += [f"**As checked:** {said}", "", f"**What is true:** {true}", ""] if true else \
                    [f"**What is true:** {said}", ""]
            out.append(f"**Shown by:** [`{d.file}`](../{d.file}), line {d.line} (`{', '.join(d.names[:3])}`)")
            if d.witness:
                out += ["", f"**Witness:** {d.witness}"]
            out.append("")
    return "\n".join(out).rstrip() + "\n"


def main(argv: list[str]) -> int:
    claims = collect()
    pages = {TABLE: table(claims), ERRATA: errata(claims)}
    stale = [p for p, text in pages.items() if not p.exists() or p.read_text(encoding="utf-8") != text]
    if "--check" in argv:
        for p in stale:
            print(f"{p.relative_to(ROOT)} is out of date: run python scripts/gen_claims.py", file=sys.stderr)
        return 1 if stale else 0
    for p in stale:
        p.write_text(pages[p], encoding="utf-8", newline="\n")
        print(f"wrote {p.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
