"""Links about heavy-tailed laws (Cauchy, Student's t) whose means are not shown to exist.

Every rule about E, Var, SD and Cov presupposes finite means.  For a mean of one
variable the elaborator decides it (:func:`~stepcheck.integrability.infinite_moment`:
``E[X]`` of a Cauchy X is an error).  Two ways remain for a mean that does not
exist to reach the kernel, and both are closed here:

* a mean of several random variables, one of a heavy-tailed law, not shown finite
  (:func:`~stepcheck.integrability.unproved_heavy_mean`): ``E[C T]`` for
  independent C ~ Cauchy and T ~ StudentT(5) would factor into ``E[C] E[T] = 0``;
  the link is not checked (:func:`unproved_means`);
* a fact that relates a heavy-tailed variable to others outside every mean
  (``Y = C T``): the kernel would put it into ``E[Y]``; such facts are no
  candidates (:func:`raw_heavy_facts`).
"""
from __future__ import annotations

import sympy

from ..distributions import lookup
from ..integrability import moment_needs, unproved_heavy_mean
from ..terms.objects import SD, Cov, E, Var
from ..terms.printer import show

_MOMENTS = (E, Var, Cov, SD)


def _heavy(state, a) -> bool:
    law = lookup(state, a)
    return law is not None and law.dist.tail_index is not None


def _randoms(state, body) -> set:
    out = set()
    for a in body.atoms(sympy.Symbol, sympy.Indexed):
        if isinstance(a, sympy.Indexed):
            fam = state.scope.families.get(str(a.base.label))
            if fam is not None and fam.random or lookup(state, a) is not None:
                out.add(a)
        elif a in state.scope.random_symbols:  # (not the label of a family: `q` of q_l)
            out.add(a)
    return out


def unproved_means(state, *exprs) -> list[str]:
    """Why each mean in ``exprs`` that rests on a heavy-tailed law is not shown to exist (texts)."""
    if not any(d.dist.tail_index is not None for d in state.laws.values()):
        return []
    out = []
    for x in exprs:
        for m in sorted(x.atoms(*_MOMENTS), key=sympy.default_sort_key):
            for body, p in moment_needs(type(m).__name__, m.args):
                why = unproved_heavy_mean(body, p, _randoms(state, body), lambda a: getattr(lookup(state, a), "dist",
                                                                                            None))
                if why is not None:
                    text = f"{show(m)} may not exist ({why})"
                    if text not in out:
                        out.append(text)
    return out


def heavy_outside(state, x) -> list[str]:
    """The heavy-tailed variables ``x`` mentions outside every mean, as ``C ~ Cauchy(0, 1)`` (with repeats)."""
    if isinstance(x, _MOMENTS) or type(x).__name__ == "Prob":
        return []
    if isinstance(x, (sympy.Symbol, sympy.Indexed)):
        return [f"{show(x)} ~ {lookup(state, x).dist.text}"] if _heavy(state, x) else []
    return [t for a in x.args if isinstance(a, sympy.Basic) for t in heavy_outside(state, a)]


def raw_heavy_facts(state, labels) -> list:
    """The labels among ``labels`` with a fact that mentions a heavy-tailed variable outside every mean."""
    if not any(d.dist.tail_index is not None for d in state.laws.values()):
        return []
    out = []
    for lab in labels:  # assumptions and verified steps
        facts = state.step_facts.get(lab) or state.facts.get(lab, ())
        sides = [side for f in facts for side in (getattr(f, "lhs", None), getattr(f, "rhs", None))
                 if isinstance(side, sympy.Basic)]
        if any(heavy_outside(state, side) for side in sides):
            out.append(lab)
    return out
