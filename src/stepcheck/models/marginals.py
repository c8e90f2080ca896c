"""Small exact laws and couplings: the building blocks of candidate models.

:func:`marginal_options` gives small rational distributions with a required
mean and variance; the couplings join marginals into dependent groups
(comonotone, perturbed, or ``Y = a (X - m)^2 + b``: uncorrelated yet
dependent).
"""
from __future__ import annotations

import functools
import itertools
import math
from fractions import Fraction

import sympy

from ..terms.facts import Decls
from .evaluate import Group
from .numbers import _isqrt_exact, _marg, n_add, n_mul, n_sqrt, num, sym
from .render import key_name, show


def _solve3(xs, m, s2):
    """Probabilities on support xs (3 points) with mean m, second moment s2.

    The linear system sum p = 1, sum p x = m, sum p x^2 = s2 solved exactly
    (Cramer's rule on Fractions; the Vandermonde matrix of distinct points is
    invertible)."""
    if not all(isinstance(v, Fraction) for v in (*xs, m, s2)) or len(set(xs)) != 3:
        return None
    rows = [[Fraction(1)] * 3, list(xs), [x * x for x in xs]]
    rhs = [Fraction(1), m, s2]

    def det(a):
        return (a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1]) - a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0])
                + a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0]))

    d = det(rows)
    ps = []
    for j in range(3):
        a = [[rhs[r] if c == j else rows[r][c] for c in range(3)] for r in range(3)]
        ps.append(det(a) / d)
    if any(p < 0 for p in ps):
        return None
    return _marg(zip(xs, ps))


def marginal_options(mean=None, var=None, fixed=None) -> list:
    """Small rational distributions with the required mean and variance (exact)."""
    try:
        return list(_options_cached(mean, var, fixed))
    except TypeError:  # unhashable
        return _options(mean, var, fixed)


@functools.lru_cache(maxsize=512)
def _options_cached(mean, var, fixed):
    return tuple(_options(mean, var, fixed))


def _options(mean=None, var=None, fixed=None) -> list:
    if fixed is not None:
        return [fixed]
    if var is not None and isinstance(var, Fraction) and var < 0:
        return []
    if mean is None and var is None:
        h, t = Fraction(1, 2), Fraction(1, 3)
        return [_marg([(Fraction(-1), h), (Fraction(1), h)]),
                _marg([(Fraction(0), h), (Fraction(1), h)]),
                _marg([(Fraction(-1), t), (Fraction(0), h), (Fraction(2), Fraction(1, 6))]),
                _marg([(Fraction(1), Fraction(1))]),
                _marg([(Fraction(-1), t), (Fraction(0), t), (Fraction(1), t)]),
                _marg([(Fraction(1), h), (Fraction(3), h)]),
                _marg([(Fraction(0), Fraction(1))]),
                _marg([(Fraction(-2), t), (Fraction(1), 2 * t)])]
    if var is None:
        out = []
        for v in (Fraction(1), Fraction(4), Fraction(2)):
            out.extend(_options(mean, v)[:2])
        out.append(_marg([(mean, Fraction(1))]))
        if isinstance(mean, Fraction) and mean > 0:  # 0 or 3m: a law ≥ 0 whose variance (2 m^2) exceeds m^2
            out.append(_marg([(Fraction(0), Fraction(2, 3)), (3 * mean, Fraction(1, 3))]))
        return out
    if mean is None:
        out = []
        for m in (Fraction(0), Fraction(1), Fraction(-1), Fraction(2)):
            out.extend(_options(m, var)[:2 if m == 0 else 1])
        return out
    m, v = mean, var
    if isinstance(v, Fraction) and v == 0:
        return [_marg([(m, Fraction(1))])]
    out = []
    s = None
    if isinstance(v, Fraction):
        p, q = _isqrt_exact(v.numerator), _isqrt_exact(v.denominator)
        if p is not None and q is not None:
            s = Fraction(p, q)
    if s is not None:  # m ± s, each with probability 1/2
        out.append(_marg([(n_add(m, -s), Fraction(1, 2)), (n_add(m, s), Fraction(1, 2))]))
    if isinstance(v, Fraction) and isinstance(m, Fraction):
        c = Fraction(max(1, math.ceil(math.sqrt(float(v)))))
        for shape in ((-1, 0, 2), (-2, 0, 1), (-1, 0, 1), (-2, 0, 2), (-1, 1, 3)):
            xs = [m + c * k for k in shape]
            mg = _solve3(xs, m, v + m * m)
            if mg is not None and mg not in out:
                out.append(mg)
        for a in (Fraction(1), Fraction(2)):  # two points m - a, m + v/a
            b = v / a
            mg = _marg([(m - a, b / (a + b)), (m + b, a / (a + b))])
            if mg not in out:
                out.append(mg)
    if s is None:  # irrational: m ± sqrt(v)
        r = n_sqrt(v)
        out.append(_marg([(n_add(m, num(-sym(r))), Fraction(1, 2)), (n_add(m, r), Fraction(1, 2))]))
    return out


def _symmetric3(mean, var):
    """A symmetric 3-point law around ``mean`` with a mass at the mean (for Y = f(X))."""
    m = mean if mean is not None else Fraction(0)
    if var is None:
        t = Fraction(1, 3)
        return _marg([(m - 1, t), (m, t), (m + 1, t)])
    if not isinstance(var, Fraction) or var <= 0 or not isinstance(m, Fraction):
        return None
    for a in (Fraction(1), Fraction(2), Fraction(3), Fraction(4)):
        p = var / (a * a)
        if 0 < p < 1:
            return _marg([(m - a, p / 2), (m, 1 - p), (m + a, p / 2)])
    return None


def _moments(mg):
    m = Fraction(0)
    for v, p in mg:
        m = n_add(m, n_mul(p, v))
    s = Fraction(0)
    for v, p in mg:
        d = n_add(v, num(-sym(m)))
        s = n_add(s, n_mul(p, n_mul(d, d)))
    return m, s


# ====================================================================== couplings


def _quantile_coupling(keys, margs, flips):
    """Comonotone coupling (a variable with flip=True runs in reverse order)."""
    seqs = [list(reversed(mg)) if fl else list(mg) for mg, fl in zip(margs, flips)]
    pos = [0] * len(seqs)
    left = [seq[0][1] for seq in seqs]
    rows = []
    while True:
        step = min(left)
        rows.append((tuple(seq[k][0] for seq, k in zip(seqs, pos)), step))
        done = False
        for j in range(len(seqs)):
            left[j] -= step
            if left[j] == 0:
                pos[j] += 1
                if pos[j] == len(seqs[j]):
                    done = True
                else:
                    left[j] = seqs[j][pos[j]][1]
        if done:
            break
    return Group(tuple(keys), rows)


def _product_group(keys, margs):
    rows = []
    for combo in itertools.product(*margs):
        pr = Fraction(1)
        for _, p in combo:
            pr *= p
        rows.append((tuple(v for v, _ in combo), pr))
    return Group(tuple(keys), rows)


def _perturbed_pair(x, y, mx, my, rng, keep_cov: bool):
    """A dependent joint law of (x, y) with the given marginals (and Cov = 0 if asked)."""
    if len(mx) < 2 or len(my) < 2:
        return None
    table = {(a, b): pa * pb for a, pa in mx for b, pb in my}
    xs, ys = [v for v, _ in mx], [v for v, _ in my]

    def rect():
        i1, i2 = rng.sample(range(len(xs)), 2)
        j1, j2 = rng.sample(range(len(ys)), 2)
        return (xs[i1], xs[i2], ys[j1], ys[j2])

    def apply(t, r, eps):
        a1, a2, b1, b2 = r
        for (a, b, s) in ((a1, b1, 1), (a2, b2, 1), (a1, b2, -1), (a2, b1, -1)):
            t[(a, b)] = t[(a, b)] + s * eps

    def cov_of(r):
        a1, a2, b1, b2 = r
        return n_mul(n_add(a1, num(-sym(a2))), n_add(b1, num(-sym(b2))))

    r1 = rect()
    if keep_cov:
        if len(xs) < 3 and len(ys) < 3:
            return None
        r2 = rect()
        c1, c2 = cov_of(r1), cov_of(r2)
        if not (isinstance(c1, Fraction) and isinstance(c2, Fraction)) or c1 == 0 or c2 == 0 or r1 == r2:
            return None
        weights = [(r1, Fraction(1)), (r2, -c1 / c2)]
    else:
        weights = [(r1, Fraction(1))]
    eps = min(table.values()) / 4
    for _ in range(6):
        t = dict(table)
        for r, w in weights:
            apply(t, r, eps * w)
        if all(v >= 0 for v in t.values()) and t != table:
            return Group((x, y), [((a, b), p) for (a, b), p in t.items() if p != 0])
        eps /= 2
    return None


def _functional_pair(x, y, tx, ty, decls: Decls):
    """x symmetric around its mean, y = a (x - m)^2 + b: uncorrelated yet dependent."""
    mx_t, vx_t = tx
    mg = _symmetric3(mx_t, vx_t)
    if mg is None:
        return None
    m, v = _moments(mg)
    sq = [(n_mul(n_add(a, num(-sym(m))), n_add(a, num(-sym(m)))), p) for a, p in mg]
    m2, v2 = _moments(sq)
    if v2 == 0:
        return None
    my_t, vy_t = ty
    alpha = Fraction(1) if vy_t is None else n_sqrt(n_mul(vy_t, Fraction(1) / v2 if isinstance(v2, Fraction) else num(1 / sym(v2))))
    shift = n_add(my_t if my_t is not None else Fraction(0), num(-sym(n_mul(alpha, m2))))
    rows = []
    for (a, p), (s, _) in zip(mg, sq):
        rows.append(((a, n_add(n_mul(alpha, s), shift)), p))
    X = sympy.Symbol(key_name(x))
    expr = sym(alpha) * (X - sym(m)) ** 2 + sym(shift)
    desc = f"{key_name(y)} = {show(sympy.expand(expr))}"
    return Group((x, y), rows, desc=desc)
