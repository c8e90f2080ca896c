"""What a link that holds rests on, as the report shows it: assumptions, steps and implicit conditions.

:func:`fill_uses` turns a kernel proof's labels, index ranges and declared
signs into :class:`~stepcheck.results.Use` entries; :func:`domain_uses`
adds the side conditions of where the two sides are defined
(``stepcheck.judge.domains``), shown as ``where: y ≠ 2``.
"""
from __future__ import annotations

import dataclasses

from .results import LinkResult, Use

_SIGN_TEXT = {"positive": "> 0", "nonnegative": ">= 0", "negative": "< 0", "nonpositive": "<= 0"}


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
        sign_use(lr, sym)


def sign_use(lr: LinkResult, sym) -> None:
    """``c > 0`` (from its declaration) among the link's uses, once."""
    sign = next((t for k, t in _SIGN_TEXT.items() if getattr(sym, "is_" + k, None)), "> 0")
    label = f"{getattr(sym, 'name', str(sym))} {sign}"
    if label not in {u.label for u in lr.uses}:
        lr.uses.append(Use(label, "sign", implicit=True, detail="from its declaration"))


def domain_uses(state, lr: LinkResult, conds, built=(), reasons=None) -> None:
    """A link that holds, holds where both sides are defined: the conditions its declarations do not
    already give (``y - 2 ≠ 0`` for ``(y^2 - 4)/(y - 2) = y + 2``) are shown as implicit uses.
    ``built``: (written expression, its sympy form) of the two sides: a declared sign sympy used while it
    built them (``sqrt(c^2)`` is ``c`` for a positive c) is a use too (:func:`construction_signs`), and so
    is one that discharges a condition (``sqrt(c) sqrt(c) = c`` holds where c ≥ 0: c's declaration), and
    so is an assumed inequality that does (``assume pos: c > 0``), by its label."""
    from .judge.domains import condition_texts, discharging_facts, discharging_signs

    for node, expr in built:
        for sym in built_signs(state.scope, node, expr):
            sign_use(lr, sym)
    for sym in sorted(discharging_signs(conds, state.facts), key=str):
        sign_use(lr, sym)
    for lab, text in discharging_facts(conds, state.facts).items():  # `assume pos: c > 0` for sqrt(c)
        if lab not in {u.label for u in lr.uses}:
            lr.uses.append(Use(lab, state.fact_kinds.get(lab, "sign"), detail=f"gives {text}, where the sides "
                               "are defined"))
    for text, detail in condition_texts(conds, state.facts, reasons):
        lr.uses.append(Use(text, "domain", implicit=True, detail=detail))


def built_signs(scope, node, expr) -> list:
    """The declared signs sympy used to build ``expr`` from ``node``: its own reading
    (:func:`construction_signs`) and the bodies of the definitions it names (recorded when declared)."""
    from . import syntax as S

    out = list(construction_signs(scope, node, expr))
    for n in S.walk(node):
        if isinstance(n, S.Name):
            d = scope.defines.get(n.name) or (scope.defines.get(n.name.rsplit("_", 1)[0]) if "_" in n.name else None)
            out += [s for s in getattr(d, "signs", ()) if s not in out]
    return sorted(out, key=str)


def construction_signs(scope, node, expr) -> list:
    """The declared symbols whose sign sympy read while it built ``expr`` from the written ``node``.

    sympy evaluates as it builds: ``sqrt(c^2)`` is ``c`` and ``|c|`` is ``c`` for a positive c, and
    ``limit(f, T -> 0)`` is taken from the right for a positive T.  The kernel never sees what was written,
    so the sign is found here: ``node`` is read again with one declared symbol made a real of no sign;
    where the two readings differ (bound variables aside), the sign was used.  Integer symbols
    (dimensions) are not tried: their sign is what makes their ranges non-empty.
    """
    import sympy

    from . import syntax as S
    from .elaborate import Elaborator
    from .errors import StepError
    from .kernel.calculus import signed_real

    if not isinstance(expr, sympy.Basic):
        return []  # a vector or a matrix: its entries are read where the link is checked entrywise
    names = sorted({n.name for n in S.walk(node) if isinstance(n, S.Name)})
    out = []
    for name in names:
        sym = scope.symbols.get(name)
        if not signed_real(sym):
            continue
        twin = sympy.Symbol(name, real=True)
        try:
            again = Elaborator(dataclasses.replace(scope, symbols={**scope.symbols, name: twin})).mexpr(node)
        except (StepError, ArithmeticError, ValueError, TypeError, AttributeError, NotImplementedError, RecursionError):
            out.append(sym)  # it cannot even be read without the sign
            continue
        # a definition's body was built once, with the sign: it is compared with the twin in it as well
        if not isinstance(again, sympy.Basic) or \
                _canonical(again.xreplace({sym: twin})) != _canonical(expr.xreplace({sym: twin})):
            out.append(sym)
    return out


def _canonical(x):
    """``x`` with its bound variables (fresh Dummies, one per reading) renamed in the order they were made."""
    import sympy

    ds = sorted(x.atoms(sympy.Dummy), key=lambda d: d.dummy_index)
    return x.xreplace({d: sympy.Symbol(f"_bound{k}", **d.assumptions0) for k, d in enumerate(ds)})
