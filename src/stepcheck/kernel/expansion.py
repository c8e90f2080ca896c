"""The kernel's one expansion: ``sympy.expand`` behind a bound on the number of terms it would produce."""
from __future__ import annotations

import sympy
from sympy import Add, Mul, Pow

from ..terms.facts import MAX_EXPANSION, KernelLimit


def expansion_size(x) -> int:
    """An upper bound on the number of monomials ``expand(x)`` produces."""
    if isinstance(x, Add):
        return sum(expansion_size(a) for a in x.args)
    if isinstance(x, Mul):
        n = 1
        for a in x.args:
            n *= expansion_size(a)
            if n > 10**9:
                return n
        return n
    if isinstance(x, Pow) and x.exp.is_Integer and x.exp > 0 and isinstance(x.base, (Add, Mul)):
        k, e = expansion_size(x.base), int(x.exp)
        if e > 64:
            return 10**9
        from math import comb

        return comb(k + e - 1, e)
    if x.args and not isinstance(x, (Pow,)) and not x.is_Atom:
        # functions: their arguments are expanded too (deep)
        return max([1] + [expansion_size(a) for a in x.args])
    return 1


def _expand(x):
    if expansion_size(x) > MAX_EXPANSION:
        raise KernelLimit(f"expanding this expression would give more than {MAX_EXPANSION} terms")
    return sympy.expand(x, power_base=False, log=False)
