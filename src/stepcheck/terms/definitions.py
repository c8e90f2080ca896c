"""Random variables an equation defines (``Y = 2 R + 1``, ``u_i = 2 q_i + 3 for i`` over u's whole range).

A finite model of the other variables extends to the defined one by that expression, on which the equation
holds exactly; so the model search looks for a model of the others, and the witness re-check evaluates a
side and the facts with the definition put in (every fact, the defining one included, is then checked on the
extended model).  A variable is defined only where nothing else fixes it: it is not in the model already,
it has no declared law, its expression does not mention it (no cycle) nor a moment.
"""
from __future__ import annotations

import dataclasses

import sympy
from sympy import Indexed, Symbol

from .facts import EqFact, IneqFact
from .objects import SD, Cov, E, Var, as_expr


def _whole_range(v: Indexed, decls) -> bool:
    """Is ``v = u_i`` with i free over the whole declared range of the family u?"""
    fam = decls.family_ranges.get(v.base.label.name)
    rng = decls.index_ranges.get(v.indices[0]) if len(v.indices) == 1 else None
    return fam is not None and rng is not None and all(sympy.expand(a - b) == 0 for a, b in zip(fam, rng))


def _definition(f, decls, taken):
    """(the variable or family name, its definition) that the equation ``f`` gives, or None."""
    if not isinstance(f, EqFact) or f.distinct:
        return None
    for v, g in ((as_expr(f.lhs), as_expr(f.rhs)), (as_expr(f.rhs), as_expr(f.lhs))):
        if g.has(E, Var, Cov, SD):
            continue
        if isinstance(v, Symbol) and not f.free and v in decls.random_symbols and v not in taken and not g.has(v):
            return v, g
        if isinstance(v, Indexed) and v.base.label.name in decls.random_families and v.base.label.name not in taken \
                and len(v.indices) == 1 and tuple(f.free) == (v.indices[0],) and _whole_range(v, decls) \
                and not g.has(v.base):
            return v.base.label.name, (v.indices[0], g)
    return None


def definitions(facts: dict, decls, taken=frozenset()) -> dict:
    """{symbol: expression, family name: (index, expression)} for the random variables the equations of
    ``facts`` define; ``taken``: variables (symbols, family names) the model fixes otherwise."""
    out: dict = {}
    for fs in facts.values():
        for f in fs:
            got = _definition(f, decls, set(taken) | set(out))
            if got is not None:
                out[got[0]] = got[1]
    return out


def put_in(x, defs: dict):
    """``x`` with each defined variable replaced by its definition (once)."""
    sub = {k: v for k, v in defs.items() if isinstance(k, Symbol)}
    fams = {k: v for k, v in defs.items() if isinstance(k, str)}
    x = as_expr(x)
    if fams:
        x = x.replace(lambda e: isinstance(e, Indexed) and e.base.label.name in fams,
                      lambda e: fams[e.base.label.name][1].xreplace({fams[e.base.label.name][0]: e.indices[0]}))
    return x.xreplace(sub) if sub else x


def with_definitions(lhs, rhs, facts: dict, decls, taken=frozenset(), rounds: int = 4):
    """(lhs, rhs, facts) with the definitions put in, repeatedly (a definition may use another one)."""
    for _ in range(rounds):
        defs = definitions(facts, decls, taken)
        if not defs:
            break
        lhs, rhs = put_in(lhs, defs), put_in(rhs, defs)
        facts = {lab: [dataclasses.replace(f, lhs=put_in(f.lhs, defs), rhs=put_in(f.rhs, defs))
                       if isinstance(f, (EqFact, IneqFact)) else f for f in fs] for lab, fs in facts.items()}
    return lhs, rhs, facts
