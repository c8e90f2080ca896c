"""max and min of two real arguments, and absolute values, by cases: which argument is larger.

``max(a, b)`` is a where a ≥ b and b where a < b.  Where ``a - b`` is linear
in one real, non-random name s with a number coefficient k (``max(x, 0)``,
``max(a, b)``, ``min(x - 1, 2)``), the two cases are written with a slack:
s is replaced by the value that makes a = b plus ``t/k`` for a nonnegative t
(a ≥ b), then plus ``-u/k`` for a positive u (a < b); sympy then reads every
such max and min itself (``Max(b + t, b) = b + t``).  In a link that takes a
limit, whose value may turn on whether a slack is 0 (``exp(-t/T)`` as T -> 0+),
a ≥ b is two cases, ``t > 0`` and a = b (three in all), so
``limit(T log(exp(a/T) + exp(b/T)), T -> 0+) = max(a, b)`` holds.  ``|w|`` is ``max(w, -w)``: its cases are w ≥ 0
and w < 0, with the same slack (``|x - 3| ≤ |x - 1| + 2``).  Every real value of s
lies in exactly one case, so a link that holds in both holds (``max(x, 0) -
max(-x, 0) = x``, ``max(a, b) + min(a, b) = a + b``, ``max(a, b) ≥ a``).  A
pure function of sympy expressions: the prover proves each case with the
facts rewritten the same way (``LinkProver._twin_prover``).
"""
from __future__ import annotations

import dataclasses

import sympy

MAX_SPLITS = 2  # max/min atoms split per link (each split doubles the cases)
MAX_ABS = 3  # absolute values in a link split by sign (every one is split in turn: at most 8 cases)


def extremum_cases(exprs, decls, absolute: bool = False) -> list:
    """[{s: value}, {s: value}]: the case substitutions for the first max/min of two arguments in ``exprs``
    (with ``absolute``: the first absolute value, of at most MAX_ABS) that a name resolves (see the module),
    or [] where none does.  A variable bound inside the link (a limit's, a derivative's) is never split on."""
    return next(case_options(exprs, decls, absolute), [])


def case_options(exprs, decls, absolute: bool = False):
    """Each way of splitting ``exprs`` in two cases, one per max/min (absolute value) that a name resolves,
    in order: ``|x - 1| <= |x| + 1`` holds split at x = 1 first (at x = 0 first, the case 0 <= x < 1 is
    lost when |x - 1| is split again on the slack)."""
    link = _bound_in(exprs)
    limits = any(x.has(sympy.Limit) for x in exprs)
    kinds = (sympy.Abs,) if absolute else (sympy.Max, sympy.Min)
    atoms = sorted({a for x in exprs for a in x.atoms(*kinds) if len(a.args) in (1, 2)}, key=sympy.default_sort_key)
    if absolute and len(atoms) > MAX_ABS:
        return
    for m in atoms[:MAX_SPLITS]:
        # |w| is max(w, -w): its cases are w >= 0 and w < 0
        d = sympy.expand(m.args[0] if len(m.args) == 1 else m.args[0] - m.args[1])
        if _moves(d, decls, link):
            continue  # a random variable, max(q), or the derivative's variable in it: no case is a fixed value
        labels = {ix.base.label for ix in d.atoms(sympy.Indexed)}
        names = (d.free_symbols - labels - {i for ix in d.atoms(sympy.Indexed) for i in ix.indices}) | d.atoms(sympy.Indexed)
        # the link's own names before the slacks of earlier cases (a case on a slack loses the slack's sign)
        for s in sorted(names, key=lambda v: (absolute and isinstance(v, sympy.Dummy), str(v))):
            if not _plain_real(s, decls, link) or not d.is_polynomial(s) or sympy.degree(d, s) != 1:
                continue
            k = d.coeff(s)
            if not (k.is_number and k.is_real and k != 0):
                continue
            at = sympy.expand(s - d / k)  # the value of s where the two arguments are equal
            t, u = sympy.Dummy("t", nonnegative=True), sympy.Dummy("u", positive=True)
            cases = [{s: at + t / k}, {s: at - u / k}]
            if limits:  # a limit may turn on whether a slack is 0 (exp(-t/T) as T -> 0+): a = b is a case of its own
                cases = [{s: at + sympy.Dummy("t", positive=True) / k}, {s: at}, {s: at - u / k}]
            other = at.free_symbols
            if absolute and s.is_nonnegative and len(other) == 1 and at == (o := other.pop()) and o.is_nonnegative:
                # two slacks s, o ≥ 0 and d = k (s - o): each case written in its larger one, which keeps both signs
                hi, lo = (s, o) if k > 0 else (o, s)
                cases = [{hi: lo + t / abs(k)}, {lo: hi + u / abs(k)}]
            if all(not any(x.xreplace(c).has(m.func) and _same(x, m, c) for x in exprs) for c in cases):
                yield cases
                break  # one split per atom


def _moves(d, decls, link) -> bool:
    """Does ``d`` hold anything that is not one fixed number per case: a random variable (a member of a random
    family, max(q) of one), or a variable bound in the link?"""
    if any(decls.is_rv(a) for a in d.atoms(sympy.Symbol, sympy.Indexed)) or \
            any(decls.is_rv(a) for a in d.atoms(sympy.Function) if type(a).__name__ == "FamilyExtremum"):
        return True
    return any(d.has(v) for v in link)


def _same(x, m, case) -> bool:
    """Is the max/min ``m`` still unresolved in ``x`` with ``case`` put in?"""
    return m.xreplace(case) in x.xreplace(case).atoms(m.func)


def _plain_real(s, decls, link) -> bool:
    """A real name of no integer kind, not random, not an index, not bound in the link; or a member s_i of a
    deterministic family of reals (its own atom: the case is about that member)."""
    if isinstance(s, sympy.Indexed):
        return (s.base.label.name not in decls.random_families and s.is_real is not False
                and not any(s.has(v) for v in link))
    return (isinstance(s, sympy.Symbol) and s.is_real is True and s not in decls.random_symbols
            and s not in decls.index_ranges and not s.is_integer and not any(s in v.free_symbols for v in link))


def _bound_in(exprs) -> tuple:
    """The variables bound inside ``exprs``: a limit's, a derivative's, a sum's or product's index, an
    extremum's variable (a member s_i under sum(i=...) is a different member in each term)."""
    out = []
    for x in exprs:
        for a in sympy.preorder_traversal(x):
            if isinstance(a, sympy.Limit):
                out.append(a.args[1])
            elif isinstance(a, sympy.Derivative):
                out += [v for v in a.variables]
            elif isinstance(a, (sympy.Sum, sympy.Product)):
                out += [lim[0] for lim in a.limits]
            elif type(a).__name__ == "Extremum":
                out.append(a.args[1])
    return tuple(out)


def cases_slack(case: dict) -> set:
    """The slack variables of a case (their signs are the case's, not a declaration the proof rests on)."""
    return {v for c in case.values() for v in c.free_symbols if isinstance(v, sympy.Dummy)}


def all_cases(proofs: list):
    """The proof of a link split into cases (each a proof of one twin set): the first that fails, else one
    proof resting on what every case used."""
    if len(proofs) == 1 or not proofs[-1].holds:
        return proofs[-1]
    first = proofs[0]
    union = lambda attr: list(dict.fromkeys(x for p in proofs for x in getattr(p, attr)))
    forms = {lab: frozenset().union(*(p.indep_forms.get(lab, ()) for p in proofs))
             for p in proofs for lab in p.indep_forms}
    return dataclasses.replace(first, used=union("used"), ranges=union("ranges"), rules=union("rules"),
                               signs=union("signs"), indep_forms=forms, limited=any(p.limited for p in proofs))
