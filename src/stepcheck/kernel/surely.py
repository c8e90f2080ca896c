"""Equations between random variables hold almost surely, so they may be applied inside E.

``assume a: Y = 2 X`` says Y and 2 X agree on every outcome (up to probability
0), so ``E[Y A] = 2 E[X A]``; a Rademacher R has ``R^2 = 1`` and a Bernoulli
B has ``B^2 = B`` on every outcome of its law (the declaration states them), so
``E[R^2 A] = E[A]`` and ``E[B^3 X] = E[B X]``.  The moment-level reduction
(``reduce.py``) cannot see this: E[R^2 A] is one atom for it.

An equation is a rule when one side is a random variable or a power of one,
``v^k`` (a family member at the fact's own free indices: every member), and the
other side has lower degree in v (``v`` not in it at all for k = 1), one rule
per variable and power, taken in the order of the facts, and no rule whose
replacement leads back to its variable through the rules already taken
(``Y = X`` then ``X = Y``: the second is read as Y = X too), so the rules form
no cycle, rewriting ends, and both sides of a link meet.  Inside
E, ``v^n`` with n >= k becomes ``v^(n - k)`` times the other side, until the
degree falls below k.  Every rewrite replaces an expression by one equal to it
on almost every outcome, so the expectation is unchanged: sound for any
set of rules; past :data:`MAX_PASSES` passes rewriting stops, which can only
leave an identity unproved.
"""
from __future__ import annotations

import sympy
from sympy import Indexed, Pow

from ..terms.facts import EqFact
from ..terms.objects import SD, Cov, E, Var, as_expr
from .expansion import _expand

MAX_PASSES = 4
_MOMENTS = (E, Var, SD, Cov)


def surely_rules(eqs, decls) -> tuple:
    """The rules ((head variable, k, replacement, free indices, label)) of the equations in ``eqs`` between
    random variables (outside any moment), in a fixed order."""
    out = []
    edges: dict = {}  # a rule's variable -> the variables of its replacement: kept acyclic, so rewriting ends
    for f in eqs:
        if not isinstance(f, EqFact) or f.distinct:
            continue
        lhs, rhs = as_expr(f.lhs), as_expr(f.rhs)
        for head, other in ((lhs, rhs), (rhs, lhs)):
            got = _head(head, decls)
            if got is None:
                continue
            v, k = got
            if isinstance(v, Indexed) and (sorted(v.indices, key=str) != sorted(f.free, key=str)
                                           or len(set(v.indices)) != len(v.indices) or not _whole(v, decls)):
                continue  # a quantified rule names every member by its free indices, over the family's range
            if not isinstance(v, Indexed) and f.free:
                continue
            if isinstance(v, Indexed) and any(a.base == v.base and a != v for a in other.atoms(Indexed)):
                continue  # q_i = q_1: q_1 is a member q_i names too, rewritten to itself forever
            deg = sympy.degree(other, v) if other.is_polynomial(v) else None
            uses = {_node(u) for u in _random_atoms(other, decls)} - {_node(v)}
            if deg is None or deg >= k or (_node(v), k) in edges or _reaches(edges, uses, _node(v)):
                continue
            edges[_node(v), k] = uses
            out.append((v, k, other, tuple(f.free), f.label))
            break
    return tuple(sorted(out, key=lambda r: (sympy.default_sort_key(r[0]), r[1], sympy.default_sort_key(r[2]))))


def _head(x, decls):
    """(v, k) for a random variable v or a power v^k (k >= 2 an integer), else None."""
    if decls.is_rv(x) and isinstance(x, (sympy.Symbol, Indexed)):
        return x, 1
    if isinstance(x, Pow) and x.exp.is_Integer and x.exp >= 2 and decls.is_rv(x.base) \
            and isinstance(x.base, (sympy.Symbol, Indexed)):
        return x.base, int(x.exp)
    return None


def _whole(v, decls) -> bool:
    """Is the fact about ``v = q_i`` quantified over the whole range of the family q (i's range is q's)?"""
    fam = decls.family_ranges.get(v.base.label.name)
    rng = decls.index_ranges.get(v.indices[0]) if len(v.indices) == 1 else None
    return fam is not None and rng is not None and all(sympy.expand(a - b) == 0 for a, b in zip(fam, rng))


def _node(v):
    """A variable as a node of the rules' graph: a family member by its family (q_i and q_j alike)."""
    return v.base.label.name if isinstance(v, Indexed) else v


def _reaches(edges: dict, start: set, target) -> bool:
    """Does a path of rules lead from a variable of ``start`` to ``target`` (a rule v = g with it would loop)?"""
    seen, todo = set(), list(start)
    while todo:
        n = todo.pop()
        if n == target:
            return True
        if n in seen:
            continue
        seen.add(n)
        todo += [m for (head, _), uses in edges.items() if head == n for m in uses]
    return False


def _random_atoms(x, decls) -> set:
    """The random variables of ``x`` outside any moment."""
    if isinstance(x, _MOMENTS):
        return set()
    if decls.is_rv(x):
        return {x}
    return set().union(*(_random_atoms(a, decls) for a in x.args)) if x.args else set()


def apply_surely(x, rules, decls) -> tuple:
    """(``x`` with the rules applied to every random variable outside nested moments, the labels used)."""
    used: list = []
    for _ in range(MAX_PASSES):
        n = len(used)
        y = _rewrite(x, rules, decls, used)
        if len(used) == n:
            break
        x = _expand(y)
    return x, tuple(dict.fromkeys(used))


def _match(v, rules):
    for head, k, repl, free, label in rules:
        if head == v:
            return k, repl, label
        if isinstance(head, Indexed) and isinstance(v, Indexed) and head.base == v.base \
                and len(head.indices) == len(v.indices):
            sub = dict(zip(head.indices, v.indices))
            return k, repl.xreplace(sub), label
    return None


def _rewrite(x, rules, decls, used):
    if isinstance(x, _MOMENTS) or not x.args and not decls.is_rv(x):
        return x
    if decls.is_rv(x) and isinstance(x, (sympy.Symbol, Indexed)):
        got = _match(x, rules)
        if got is not None and got[0] == 1:
            used.append(got[2])
            return got[1]
        return x
    if isinstance(x, Pow) and x.exp.is_Integer and x.exp > 0 and decls.is_rv(x.base) \
            and isinstance(x.base, (sympy.Symbol, Indexed)):
        got = _match(x.base, rules)
        if got is not None and x.exp >= got[0]:
            k, repl, label = got
            used.append(label)
            return _rewrite(_expand(x.base ** (int(x.exp) - k) * repl), rules, decls, used)
        return x
    if isinstance(x, Indexed):
        return x
    args = [_rewrite(a, rules, decls, used) for a in x.args]
    return x.func(*args) if any(a is not b for a, b in zip(args, x.args)) else x
