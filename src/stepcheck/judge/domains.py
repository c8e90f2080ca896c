"""Where a link's two sides are defined: the side conditions of a link that holds.

The elaborator records, from the parse tree, where each written expression
has a real value (``Elaborator.need``): a divisor is not 0, the argument of
``log`` is positive, that of ``sqrt`` (or of a fractional power) is not
negative.  sympy has already simplified ``y/y`` to 1, so a proof of
``(y^2 - 4)/(y - 2) = y + 2`` holds only where ``y - 2 ≠ 0``.  A condition
that the declared signs, index ranges or assumed inequalities give (a
proof of ``y^2 + 1 > 0``) is discharged; the others are reported with the
link as implicit uses, ``where y - 2 ≠ 0``, never dropped.
"""
from __future__ import annotations

import sympy

from ..conditions import DEFINED
from ..kernel.calculus import REALS, Iv, sign_proof, signed_real
from ..kernel.prove import refined_domain
from ..terms.facts import IneqFact, KernelLimit
from ..terms.objects import SD, E, Var
from ..terms.printer import KernelPrinter

_SHOW = KernelPrinter({"order": "lex"})  # `y - 2`, not `-2 + y`
_TEXT = {"!=": "≠", ">": ">", ">=": "≥"}
_DETAIL = {"!=": "a divisor (or a base raised to a negative power) must not be 0",
           ">": "the argument of log (or a base raised to a symbolic power) must be positive",
           ">=": "the argument of sqrt (or of a fractional power) must not be negative"}


def law_defined(state, conditions, node) -> None:
    """E-undefined, as in a ``check``, where a guard on random variables of declared laws fails with
    positive probability (``E[sqrt(W)]`` with ``W ~ Uniform(-1, 1)``); a step would otherwise hold only
    where the declared law itself is contradicted (``where: W ≥ 0 almost surely``)."""
    guards = [c for c in conditions if c[1] == DEFINED and c[0].has(E)]
    if guards:
        from ..numeric import check_defined

        check_defined(state, guards, node)


def discharged(x, rel: str, domain) -> bool:
    """Whether ``x REL 0`` follows from the signs ``domain`` gives (no proof: False)."""
    return _discharge(x, rel, domain) is not None


def _discharge(x, rel: str, domain, minimal: bool = False):
    """The symbols whose declared sign proves ``x REL 0`` (None: not proved).

    ``minimal``: the interval bounds read every sign they meet (``1 + exp(u) > 0`` reads u's); each
    sign is then dropped in turn (u taken as any real) and kept only when the proof needs it."""
    for g, strict in ((x, True), (-x, True)) if rel == "!=" else ((x, rel == ">"),):
        try:
            ok, used = sign_proof(g, strict, domain)
        except (KernelLimit, ArithmeticError, ValueError, TypeError, AttributeError, NotImplementedError):
            continue
        if not ok:
            continue
        if minimal:
            dropped: set = set()
            for s in sorted(used, key=str):
                def without(t, u, gone=dropped | {s}):
                    return REALS if t in gone else domain(t, u)
                if _discharge(x, rel, without) is not None:
                    dropped.add(s)
            used = used - dropped
        return used
    return None


def _on_names(conds):
    """The conditions ``(x, rel)`` on the link's own names, guards unwrapped (those on a random quantity or
    under a sum are not discharged by signs: :func:`condition_texts` shows them)."""
    for x, rel in conds:
        if rel == "defined":
            got = _unwrap(x)
            if got is None or got[3] or x.has(E, Var, SD) or _always(got[0], got[1]):
                continue
            x, rel = got[0], got[1]
        yield x, rel


def discharging_signs(conds, facts: dict) -> set:
    """The declared symbols whose sign discharges a condition of ``conds`` (``sqrt(c)`` with c declared
    positive): the link holds where the condition does, so it rests on that declaration.  Real symbols only."""
    domain = _domain(facts)
    out: set = set()
    for x, rel in _on_names(conds):
        out |= _discharge(x, rel, domain, minimal=True) or set()
    # declared names only (not a summation index), and not dimensions: a positive integer's sign is what
    # makes its ranges non-empty, reported with them
    return set(filter(signed_real, out))


def discharging_facts(conds, facts: dict) -> dict:
    """{label: the condition's text} of the assumed inequalities that discharge a condition of ``conds`` the
    declarations alone do not (``sqrt(c) sqrt(c) = c`` with ``assume pos: c > 0``): the link holds
    without a ``where`` because of them, so it rests on them.  Found as facts are found: each label is
    dropped in turn and kept only if the condition is no longer discharged without it."""
    labels = [lab for lab, fs in facts.items() if any(isinstance(f, IneqFact) for f in fs)]
    if not labels:
        return {}
    declared, assumed = _domain({}), _domain(facts)
    out: dict = {}
    for x, rel in _on_names(conds):
        if discharged(x, rel, declared) or not discharged(x, rel, assumed):
            continue
        keep = list(labels)
        for lab in labels:
            trial = [k for k in keep if k != lab]
            if discharged(x, rel, _domain({k: facts[k] for k in trial})):
                keep = trial
        for lab in keep:
            out.setdefault(lab, _text(x, rel))
    return out


def _domain(facts: dict):
    """The signs the declarations and the assumed inequalities give (computed once per call site)."""
    return refined_domain([f for fs in facts.values() for f in fs if isinstance(f, IneqFact)])


def open_conditions(conds, facts: dict, domain=None) -> list[tuple]:
    """The conditions ``(x, rel)`` that declared signs and assumed inequalities do not discharge."""
    domain = domain or _domain(facts)
    return [(x, rel) for x, rel in conds if not discharged(x, rel, domain)]


def undischarged(conds, facts: dict, domain=None, reasons=None) -> list[tuple[str, str]]:
    """(text, why) of each condition ``(x, rel)`` not discharged by declared signs and assumed inequalities;
    ``reasons``: why, for a condition that is not a function's domain (a family member written: s_2, n ≥ 2)."""
    domain = domain or _domain(facts)
    left = open_conditions(conds, facts, domain)
    left = [(x, rel) for x, rel in left if not (rel in (">=", "!=") and (x, ">") in left)]  # y > 0 says it
    # a condition the atomic ones imply (a b > 0 from a > 0 and b > 0) is not shown again
    atomic = {x: Iv(sympy.Integer(0), sympy.oo, rel == ">", True) for x, rel in left
              if rel in (">", ">=") and x.is_Symbol}

    def within(s, used):
        return atomic[s] if s in atomic else domain(s, used)

    out = [(_text(*_plain(x, rel)), (reasons or {}).get((x, rel), _DETAIL[rel])) for x, rel in left
           if (x.is_Symbol and x in atomic) or not discharged(x, rel, within)]
    return [o for k, o in enumerate(out) if o[0] not in [t for t, _ in out[:k]]]


def _plain(x, rel: str) -> tuple:
    """``x^(2k) > 0``, ``|x| > 0``, ``x^k ≠ 0`` and ``|x| ≠ 0`` as a person writes them: ``x ≠ 0``."""
    if rel in (">", "!=") and isinstance(x, sympy.Abs):
        return x.args[0], "!="
    if isinstance(x, sympy.Pow) and x.exp.is_Integer and x.exp > 0 and (rel == "!=" or rel == ">" and x.exp.is_even):
        return x.base, "!="
    return x, rel


_FLIP = {"!=": "≠", ">": "<", ">=": "≤"}


def _text(x, rel: str) -> str:
    """The condition ``x REL 0`` the way a person writes it: the terms with a minus sign on the right
    (``y - 2 ≠ 0`` as ``y ≠ 2``, ``b - a > 0`` as ``b > a``), a number side on the right
    (``1 - p ≥ 0`` as ``p ≤ 1``, ``-x ≥ 0`` as ``x ≤ 0``)."""
    terms = sympy.Add.make_args(x)
    plus = sympy.Add(*[t for t in terms if not t.could_extract_minus_sign()])
    minus = sympy.Add(*[-t for t in terms if t.could_extract_minus_sign()])
    if minus == 0:
        return f"{_SHOW.doprint(x)} {_TEXT[rel]} 0"
    if plus.is_number:
        return f"{_SHOW.doprint(minus)} {_FLIP[rel]} {_SHOW.doprint(plus)}"
    return f"{_SHOW.doprint(plus)} {_TEXT[rel]} {_SHOW.doprint(minus)}"


def condition_texts(conds, facts: dict, reasons=None) -> list[tuple[str, str]]:
    """(text, why) of every condition of a link not discharged: those on its own names (:func:`undischarged`),
    then the guards (relation ``defined``: on a random quantity or a summation index, see
    ``DomainConditions._guard``), ``R - 1 ≥ 0 almost surely``, ``s_i ≥ 0 for i in 1..n``."""
    domain = _domain(facts)
    out = undischarged([c for c in conds if c[1] != "defined"], facts, domain, reasons)
    for g in (x for x, rel in conds if rel == "defined"):
        got = _unwrap(g)
        if got is None:
            continue
        x, rel, ranges, random = got
        if _always(x, rel) or (not random and not x.has(E, Var, SD) and discharged(x, rel, domain)):
            continue
        text = _text(x, rel) + (" almost surely" if random else "")
        text += "".join(f" for {_SHOW.doprint(d)} in {_SHOW.doprint(lo)}..{_SHOW.doprint(hi)}" for d, lo, hi in ranges)
        if text not in [t for t, _ in out]:
            out.append((text, _DETAIL[rel]))
    return out


def _unwrap(g):
    """(x, rel, the sums' (index, lo, hi) outermost first, whether under E) of a guard, or None."""
    ranges = []
    while isinstance(g, sympy.Sum):
        ranges.append(tuple(g.limits[0]))
        g = g.function
    random = isinstance(g, E)
    g = g.args[0] if random else g
    if isinstance(g, sympy.Pow) and g.exp == sympy.Rational(1, 2):
        return g.base, ">=", ranges, random
    if isinstance(g, sympy.log):
        return g.args[0], ">", ranges, random
    if isinstance(g, sympy.Pow) and g.exp == -1:
        return g.base, "!=", ranges, random
    return None


def _always(x, rel: str) -> bool:
    """Conditions every value meets: a variance, an SD, a second moment or a square is never negative."""
    if rel == ">=":
        return _never_negative(x)
    if rel == ">":
        return bool(x.is_positive)
    return bool(x.is_nonzero)


def _never_negative(x) -> bool:
    if isinstance(x, (Var, SD)) or x.is_nonnegative:
        return True
    if isinstance(x, E):
        return _never_negative(x.args[0])
    if isinstance(x, sympy.Pow) and x.exp.is_integer and x.exp.is_even:
        return True
    if isinstance(x, (sympy.Add, sympy.Mul)):
        return all(_never_negative(a) for a in x.args)
    if isinstance(x, sympy.Sum):
        return _never_negative(x.function)
    return False


def always_defined(g) -> bool:
    """A guard every value meets (sqrt of a variance or of a second moment): no condition at all."""
    got = _unwrap(g)
    return got is not None and _always(got[0], got[1])

