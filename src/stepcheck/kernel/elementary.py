"""Identities of elementary functions that hold for every real value, applied by the normaliser to each
term: max(a, b) = (a + b + |a - b|)/2 and min(a, b) = (a + b - |a - b|)/2; |a b| = |a| |b|; exp(c log(b) + r) = b^c exp(r) for a positive b; a positive rational base to a
power that is not a number as a product of prime powers (4^n = 2^(2 n)); the log rules where sympy knows
the factors positive.  Pure functions of sympy expressions (no facts, no state)."""
from __future__ import annotations

import sympy
from sympy import Add, Mul, Pow


def elementary(x):
    """Identities of elementary functions that hold for every value: |a b| = |a| |b|, and the log rules
    where sympy knows the factors positive."""
    if x.has(sympy.Max, sympy.Min):  # max(a, b) = (a + b + |a - b|)/2: one form for both (relu(X) - relu(-X) = X)
        x = x.replace(lambda e: isinstance(e, (sympy.Max, sympy.Min)) and len(e.args) == 2,
                      lambda e: (e.args[0] + e.args[1] + (1 if isinstance(e, sympy.Max) else -1)
                                 * sympy.Abs(e.args[0] - e.args[1])) / 2)
    if x.has(sympy.Abs):
        x = x.replace(lambda e: isinstance(e, sympy.Abs) and isinstance(e.args[0], Mul),
                      lambda e: Mul(*[sympy.Abs(f) for f in Mul.make_args(e.args[0])]))
    if x.has(sympy.exp):
        x = x.replace(lambda e: isinstance(e, sympy.exp) and e.args[0].has(sympy.log), _exp_of_logs)
    if any(composite_power(p) for p in x.atoms(Pow)):
        x = x.replace(composite_power, _prime_powers)
    if x.has(sympy.log):
        x = x.replace(_log_of_even_power, lambda e: e.args[0].exp * sympy.log(sympy.Abs(e.args[0].base)))
    return _expand_logs(x) if x.has(sympy.log) else x


def _log_of_even_power(e) -> bool:
    """log(a^(2k)) for a real a: 2k log|a| wherever it is defined (a ≠ 0), whatever a's sign."""
    return (isinstance(e, sympy.log) and isinstance(e.args[0], Pow) and e.args[0].exp.is_Integer
            and e.args[0].exp.is_even and e.args[0].base.is_real is True)


MAX_FACTOR = 10**12  # a base factored into primes (4^n = 2^(2 n)) is at most this: trial division stays quick


def composite_power(p) -> bool:
    """A positive rational base other than a prime, to a power that is not a number (4^n, 6^n, (1/2)^n)."""
    return (isinstance(p, Pow) and p.base.is_Rational and p.base > 0 and p.base != 1 and not p.exp.is_number
            and not (p.base.is_Integer and sympy.isprime(p.base)) and p.base.p < MAX_FACTOR and p.base.q < MAX_FACTOR)


def _prime_powers(p):
    """b^e as a product of prime powers (4^n = 2^(2 n), 6^n = 2^n 3^n, (2/3)^n = 2^n 3^(-n)): true for every
    real e, and one form for one value, so (2^n)^2 = 4^n is seen."""
    b, e = p.args
    ups = [Pow(q, k * e) for q, k in sympy.factorint(b.p).items()]
    downs = [Pow(q, -k * e) for q, k in sympy.factorint(b.q).items()]
    return Mul(*ups, *downs)


def _exp_of_logs(x):
    """exp(c log(b) + r) = b^c exp(r) for each term c log(b) of the exponent whose b sympy knows positive
    (exp(n log(2)) = 2^n); true for every real c.  A log of anything else stays inside."""
    out, rest = [], []
    for t in Add.make_args(x.args[0]):
        c, logs = t.as_independent(sympy.log, as_Add=False)
        if isinstance(logs, sympy.log) and logs.args[0].is_positive and not c.has(sympy.log):
            out.append(Pow(logs.args[0], c))
        else:
            rest.append(t)
    return Mul(*out, sympy.exp(Add(*rest))) if out else x


def _expand_logs(x):
    """log(a b) = log a + log b and log(a^k) = k log a, only where sympy knows the factors positive
    (``force=False``): for a real y, log(y^2) stays as it is (it is 2 log|y|)."""
    return sympy.expand_log(x, force=False)
