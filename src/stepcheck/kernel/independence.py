"""Factorising E[...] of a product by the independence facts: a mixin of :class:`.normal.Normalizer`.

``E[f g] = E[f] E[g]`` only when an independence fact makes every variable
of f independent of every variable of g.  A factor that depends on a whole
family (``Σ_b exp(x_b)``, ``max(x)``) is linked to every member of it, and
needs the family itself to be covered by the fact.
"""
from __future__ import annotations

import itertools

import sympy
from sympy import Dummy, Indexed, Mul, Symbol

from ..terms.facts import IndepFact
from ..terms.objects import E, FamilyExtremum
from ..terms.printer import show
from .groups import linked_groups


class Independence:
    """The factorisation rules; the host class supplies rvs, same_var, distinct, index_range, trace, indep."""

    def factorize(self, factors: list, bounds) -> sympy.Expr:
        """E[product of factors] as a product of independent blocks' atoms."""
        whole = Mul(*factors)
        # merge powers of the same variable written apart (q_i q_i -> q_i^2)
        fvars = [self.rvs(f) for f in factors]
        # a factor that depends on a whole family (Σ_b exp(x_b), max(x)) is linked to every member of it
        wholes = {v: w for vs in fvars for v in vs if (w := self._whole(v, bounds)) is not None}
        if wholes:
            bases = set(wholes.values())
            fvars = [frozenset(("family", wholes[v]) if v in wholes else v for v in vs)
                     | {("family", v.base) for v in vs if isinstance(v, Indexed) and v.base in bases}
                     for vs in fvars]
            for fact in self.indep:
                if all(b.label.name in fact.families for b in bases):
                    break
            else:
                return E(whole)
        allv = sorted((v for v in frozenset().union(*fvars) if not isinstance(v, tuple)), key=sympy.default_sort_key)
        if wholes and len(allv) < 2:
            allv = allv + [v for v in wholes][:2 - len(allv)]
        # every pair of variables must be known identical or known distinct
        for x, y in itertools.combinations(allv, 2):
            if self.same_var(x, y, bounds) is None:
                return E(whole)
        if len(allv) < 2:
            return E(whole)
        # blocks: factors sharing a variable stay together
        groups = [[factors[k] for k in g] for g in linked_groups(fvars)]
        if len(groups) < 2:
            return E(whole)
        for fact in self.indep:
            if fact.blocks:
                merged = self._by_blocks(fact, factors, fvars)
                if merged is not None:
                    self.trace.rules.add("factorization")
                    self.trace.indep.setdefault(fact.label, set()).add("")
                    # each block may factorise further by other facts (independent(q) inside q's block)
                    return Mul(*[self.factorize(g, bounds) if len(g) > 1 else E(g[0]) for g in merged])
                continue
            if self.covers(fact, [v for v in allv if v not in wholes], bounds) and \
                    all(w.label.name in fact.families for w in wholes.values()):
                self.trace.rules.add("factorization")
                weak = ""
                if len(allv) == 2 and all(f in allv for f in factors) and len(factors) == 2:
                    weak = self._weak_text(sorted(factors, key=self.decls.display_key))
                self.trace.indep.setdefault(fact.label, set()).add(weak)
                return Mul(*[E(Mul(*g)) for g in groups])
        return E(whole)

    def _by_blocks(self, fact, factors, fvars):
        """The factors grouped by the blocks of a block-independence fact (two or more groups), or None.

        Factors sharing a variable, or whose variables lie in one block, stay together: ``q ⟂ k``
        factorises E[q_1 k_1] but not E[q_1 q_2]."""
        def block(v):
            name = v[1].label.name if isinstance(v, tuple) else v.base.label.name if isinstance(v, Indexed) else v
            for k, blk in enumerate(fact.blocks):
                if name in blk or v in blk:
                    return k
            return None

        ids = [{block(v) for v in vs} for vs in fvars]
        if any(None in s for s in ids):
            return None
        groups = [[factors[k] for k in g] for g in linked_groups([frozenset(s) for s in ids])]
        return groups if len(groups) >= 2 else None

    def _whole(self, v, bounds):
        """The family (an IndexedBase) that ``v`` stands for as a whole, or None: ``max(x)``, or a member
        ``x_b`` whose index is bound inside a sum within the factor (not a free or enclosing index)."""
        if isinstance(v, FamilyExtremum):
            return v.args[0]
        if isinstance(v, Indexed):
            for a in v.indices:
                if a.is_Symbol and a not in self.free and self._bound_range(a, bounds) is None \
                        and a not in self.decls.index_ranges:
                    return v.base
        return None

    def _weak_text(self, pair) -> str:
        """`uncorrelated(q_i, k_i)`; bound indices keep the file's names where they are distinct and free
        (`uncorrelated(q_r, k_s) for r ≠ s`), else get readable letters."""
        dums = []
        for v in pair:
            if isinstance(v, Indexed):
                for a in v.indices:
                    if isinstance(a, Dummy) and a not in dums:
                        dums.append(a)
        taken = {str(f) for f in self.free}
        ren = {}
        for d in dums:  # the file's own name of the bound index where it is free to use (r in sum(r=1..n, ...))
            if d.name.isidentifier() and d.name not in taken:
                ren[d] = Symbol(d.name)
                taken.add(d.name)
        letters = [c for c in "ijklmnrst" if c not in taken]
        for k, d in enumerate(x for x in dums if x not in ren):
            ren[d] = Symbol(letters[k] if k < len(letters) else f"i{k}")
        shown = [_show(v.xreplace(ren)) for v in pair]
        text = f"uncorrelated({shown[0]}, {shown[1]})"
        if len(dums) == 2:
            a, b = (str(ren[d]) for d in dums)
            text += f" for {a} ≠ {b}"
        return text

    def covers(self, fact: IndepFact, allv, bounds) -> bool:
        """Does ``fact`` make all of ``allv`` (distinct variables) mutually independent?"""
        rest = []
        for v in allv:
            if isinstance(v, Indexed) and v.base.label.name in fact.families:
                continue
            rest.append(v)
        if not rest:
            return True
        members = list(fact.members)
        pattern_vars = set(fact.free)

        def match(v, m, binding):
            if isinstance(m, Symbol) or not isinstance(m, Indexed):
                return binding if v == m else None
            if not isinstance(v, Indexed) or v.base != m.base or len(v.indices) != len(m.indices):
                return None
            bnd = dict(binding)
            for a, p in zip(v.indices, m.indices):
                if p in pattern_vars:
                    if p in bnd:
                        if bnd[p] != a:
                            return None
                    else:
                        if not self.in_range(a, self.index_range(p), bounds):
                            return None
                        bnd[p] = a
                elif p != a:
                    return None
            return bnd

        def rec(k, used, binding):
            if k == len(rest):
                for (p, q) in fact.distinct:
                    if p in binding and q in binding and self.distinct(binding[p], binding[q], bounds) is not True:
                        return False
                return True
            for mi, m in enumerate(members):
                if mi in used:
                    continue
                bnd = match(rest[k], m, binding)
                if bnd is not None and rec(k + 1, used | {mi}, bnd):
                    return True
            return False

        return rec(0, frozenset(), {})

    def in_range(self, a, rng, bounds) -> bool:
        """Is the index value ``a`` known to lie in ``rng``?"""
        if rng is None:
            return False
        lo, hi = rng
        if a.is_Integer:
            if sympy.Ge(a, lo) != sympy.true:
                return False
            # q_2 in the link presumes 2 in the range of q (as for the instances of quantified facts)
            return sympy.Le(a, hi) == sympy.true or (a, rng) in self.present
        br = self._bound_range(a, bounds)
        if br is not None:
            return br == rng or _within(br, rng)
        ir = self.index_range(a)
        if ir is None and a.is_integer:  # a dimension or an expression in them (q_n: 1 <= n <= n)
            ir = (a, a)
        return ir == rng or (ir is not None and _within(ir, rng))

    # ------------------------------------------------------------ to expressions


def _within(inner, outer) -> bool:
    """Does the range ``inner`` lie inside ``outer`` by the declared signs (2..n inside 1..n)?"""
    return bool(sympy.expand(inner[0] - outer[0]).is_nonnegative and sympy.expand(outer[1] - inner[1]).is_nonnegative)


def _show(v) -> str:
    if isinstance(v, Indexed):
        return f"{v.base.label}_{','.join(str(i) for i in v.indices)}"
    return show(v)  # the language's text: max(g), not FamilyExtremum(g, 1, n, max)
