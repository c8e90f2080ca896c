"""What a link that holds rests on, as the report shows it: assumptions, steps and implicit conditions.

:func:`fill_uses` turns a kernel proof's labels, index ranges and declared
signs into :class:`~stepcheck.results.Use` entries; :func:`domain_uses`
adds the side conditions of where the two sides are defined
(``stepcheck.judge.domains``), shown as ``where: y ≠ 2``.
"""
from __future__ import annotations

from .results import LinkResult, Use


def fill_uses(state, lr: LinkResult, out) -> None:
    for lab in out.used:
        if lab in state.steps:
            lr.uses.append(Use(lab, "step", detail=state.steps[lab].statement))
        else:
            lr.uses.append(Use(lab, state.fact_kinds.get(lab, "equation"), weakest=out.weakest.get(lab)))
    entry = set(state.entry_indices.values())
    for r in out.ranges:
        if r in entry:  # the row or column a matrix link is checked at: its range is the shape, not a fact
            continue
        lo, hi = state.scope.index_ranges[r]
        lr.uses.append(Use(f"range of {r}", "range", implicit=True, detail=f"{r} in {lo}..{hi}"))
    for sym in out.signs:
        name = getattr(sym, "name", str(sym))
        sign = "> 0" if sym.is_positive else (">= 0" if sym.is_nonnegative else "< 0")
        lr.uses.append(Use(f"{name} {sign}", "sign", implicit=True, detail="from its declaration"))


def domain_uses(state, lr: LinkResult, conds) -> None:
    """A link that holds, holds where both sides are defined: the conditions its declarations do not
    already give (``y - 2 ≠ 0`` for ``(y^2 - 4)/(y - 2) = y + 2``) are shown as implicit uses."""
    from .judge.domains import condition_texts

    for text, detail in condition_texts(conds, state.facts):
        lr.uses.append(Use(text, "domain", implicit=True, detail=detail))
