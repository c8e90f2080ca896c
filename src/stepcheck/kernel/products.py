"""Products of sums put back together (part of ``sums``).

The normaliser writes a product of two sums over one range as its diagonal and its off-diagonal part,
``(Σ_m f_m)(Σ_t g_t) = Σ_m f_m g_m + Σ_{m ≠ t} f_m g_t`` (the form means of random sums need).  A sum that
also stands as a factor of its own elsewhere, the denominator ``S = Σ_l exp(z_l)`` of a softmax, then no
longer meets its copy inside the product: ``(Σ_l w_l)(Σ_m w_m v_m)`` is not seen to be ``Σ_m w_m v_m``.

:func:`products_cancel` reads a difference the other way: each off-diagonal sum of two bound indices over one
range, whose summand is a product of a factor in the first index alone and one in the second alone, is the
product of the two sums less their diagonal,
``Σ_{m ≠ t} c f_m g_t = c (Σ_m f_m)(Σ_t g_t) - c Σ_m f_m g_m``,
an identity of finite sums (any range, no member left out); with three or four indices pairwise distinct, by
inclusion and exclusion over the partitions of the indices (Möbius inversion on the partition lattice).  The sums are normalised again by the
normaliser, so that each meets its copy; the difference holds at 0 when the rewritten one, over a common
denominator, has a numerator that expands to 0.  Only differences without means are read (a mean of a
product of random sums is not the product of means), and only when every such sum has that form.
"""
from __future__ import annotations

import sympy
from sympy import Dummy, Mul

from ..terms.objects import DSum, E
from .expansion import _expand
from .groups import set_partitions

MAX_PRODUCTS = 6  # off-diagonal sums rewritten in one difference
MAX_INDICES = 4  # bound indices of one (15 partitions)


def products_cancel(nz, d) -> bool:
    """``d`` (a nonzero normal form) is 0 once its off-diagonal sums are written as products of sums."""
    if d.has(E):
        return False
    several = [a for a in d.atoms(DSum) if 2 <= len(a.args[1])]
    if not several or len(several) > MAX_PRODUCTS or any(len(a.args[1]) > MAX_INDICES for a in several):
        return False
    sub = {}
    for a in several:
        got = _as_products(nz, a)
        if got is None:
            return False
        sub[a] = got
    new = d.xreplace(sub)
    num = sympy.fraction(sympy.together(new))[0]
    if _expand(num) != 0:
        return False
    nz.trace.rules.add("sums")
    return True


def _as_products(nz, a):
    """``Σ_{x_1..x_k distinct} c f_1(x_1) ... f_k(x_k)`` as sums of products of sums, each normalised (Möbius
    inversion on the partitions of the k indices: a block B of indices made equal counts
    ``(-1)^(|B| - 1) (|B| - 1)!`` times ``Σ_x Π_{i in B} f_i(x)``; for two, ``Σ f Σ g - Σ f g``); None where the
    sum has not that form (ranges that differ, a factor in two indices, members left out other than this index
    world's known ones)."""
    summand, bounds, excl = a.args
    if len({(lo, hi) for (_, lo, hi) in bounds}) != 1:
        return None
    _, lo, hi = bounds[0]
    # members left out (a free index i): every sum below leaves out the same ones, as the normaliser's own sums in
    # this index world do (Normalizer.sum_atom); read only where they are exactly those
    if excl.args and set(excl.args) != set(nz.known(lo, hi)):
        return None
    idx = [b for (b, _, _) in bounds]
    parts = {b: [] for b in idx}
    c = []
    for x in Mul.make_args(summand):
        on = [b for b in idx if x.has(b)]
        if len(on) > 1:
            return None
        (parts[on[0]] if on else c).append(x)
    i = Dummy("i", integer=True)
    f = {b: Mul(*parts[b]).xreplace({b: i}) for b in idx}
    total = sympy.Integer(0)
    for part in set_partitions(idx):
        term = sympy.Integer(1)
        for block in part:
            k = len(block)
            body = Mul(*[f[b] for b in block])
            whole = nz.sum_atom(body, ((i, lo, hi),)) if excl.args else nz.expr(sympy.Sum(body, (i, lo, hi)))
            term *= (-1) ** (k - 1) * sympy.factorial(k - 1) * whole
        total += term
    return Mul(*c) * total
