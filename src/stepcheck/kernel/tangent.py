"""Tangent-line bounds (``exp(u) >= 1 + u`` for every real u, ``log(v) <= v - 1`` for every v > 0) and
margins with logarithms compared through exp.

A margin ``g`` whose sign the interval evaluator cannot see (``exp(x) - 1 - x``)
is rewritten with each such value as its tangent line plus a gap:
``exp(u) = 1 + u + t`` and ``log(v) = v - 1 - t``, where ``t`` is a fresh
symbol that is only known to be ``>= 0``.  These are identities (``t`` names
the gap, which convexity makes nonnegative), so a sign proved for every
``t >= 0`` is proved for the gap itself.

Only values the margin holds as a term, a factor or a power of one (reached
through ``+``, ``*`` and ``^`` from the top) are rewritten, and only when the
argument is one real number: no moment atom, sum, random variable or index
bound by a sum, so ``t`` is one number, not a random variable or a family of
numbers (``Σ_i (-1)^i (exp(s_i) - 1 - s_i)`` is not ``Σ_i (-1)^i t``).  For
``log(v)`` the interval evaluator must prove ``v > 0`` first.
"""
from __future__ import annotations

import sympy
from sympy import Dummy

from ..terms.objects import DSum, E
from .calculus import bounds, sign_proof
from .exp_monomials import exp_monomial_proof
from .termwise import reached, split_members, termwise_proof

MAX_VALUES = 4  # distinct exp/log values rewritten in one margin (all of them, then each alone)


def _values(g) -> list:
    """The exp(u) and log(v) that ``g`` holds through +, * and ^ only, in a fixed order."""
    return reached(g, lambda x: isinstance(x, (sympy.exp, sympy.log)))


def _plain(arg, is_random) -> bool:
    """One real number: no moment atom, sum, binder or random variable inside."""
    if arg.has(E, DSum, sympy.Sum, sympy.Integral, sympy.Derivative, sympy.Limit, sympy.Lambda):
        return False
    return _real(arg) and not any(is_random(s) for s in arg.free_symbols | arg.atoms(sympy.Indexed))


def _real(x) -> bool:
    """Real wherever defined: sympy says so, or ``x`` is built by +, * and integer powers from reals
    (``a/w`` is None to sympy: undefined at w = 0, real elsewhere); ``sqrt(w)`` for a real w is not."""
    if x.is_extended_real is not None:
        return bool(x.is_extended_real)
    if isinstance(x, (sympy.Add, sympy.Mul)):
        return all(_real(a) for a in x.args)
    return isinstance(x, sympy.Pow) and x.exp.is_Integer and _real(x.base)


def tangent_proof(g, strict: bool, domain, is_random) -> tuple[bool, set]:
    """``g > 0`` (strict) or ``g >= 0`` by the tangent lines of its exp and log values; (proved, signs used).

    ``is_random(x)``: whether a symbol or family member is a random variable (its exp is no number)."""
    used: set = set()
    for form in dict.fromkeys((g, sympy.powsimp(g, combine="exp"))):  # exp(a) exp(b) as exp(a + b) too
        ok, signs = _tangent(form, strict, domain, is_random, used)
        if ok:
            return True, used | signs
    return False, set()


def _tangent(g, strict, domain, is_random, used) -> tuple[bool, set]:
    cands = []
    for x in _values(g):
        a = x.args[0]
        if a.is_number or not _plain(a, is_random):
            continue  # a number's exp or log is the interval evaluator's
        if isinstance(x, sympy.log) and not bounds(a, domain, used).positive():
            continue
        cands.append(x)
    if not cands or len(cands) > MAX_VALUES:
        return False, set()
    tries = [cands] + ([[c] for c in cands] if len(cands) > 1 else [])
    for chosen in tries:
        sub, gaps = {}, set()
        for k, x in enumerate(chosen):
            t = Dummy(f"gap{k}", nonnegative=True)
            gaps.add(t)
            a = x.args[0]
            sub[x] = 1 + a + t if isinstance(x, sympy.exp) else a - 1 - t
        h = sympy.expand(g.xreplace(sub))
        if h.has(*chosen):  # a value nested in another's argument: the rewrite did not take
            continue
        ok, signs = sign_proof(h, strict, domain)
        if ok:
            return True, set(signs) - gaps
    return False, set()


MAX_OPS = 200  # a margin larger than this is not exponentiated


def exp_margin_proof(g, strict: bool, domain, member_sign=None, by_facts=None) -> tuple[bool, set]:
    """``g > 0`` (``>= 0``) for a margin holding logarithms, as ``exp(g) > 1`` (``>= 1``): exp is strictly
    increasing on the reals, so the two are the same claim wherever ``g`` is real, which ``_real_here``
    checks (every log's argument proved positive).  ``log(Σ_r exp(z_r)) - z_a`` becomes
    ``exp(-z_a) Σ_r exp(z_r) - 1 = exp(-z_a) Σ_{r ≠ a} exp(z_r)``, of proved sign.  ``by_facts(h, strict)``: the
    prover's sign proof with the assumed inequalities, tried on ``exp(g) - 1`` last (``a <= log(b)`` from
    ``exp(a) <= b``: ``b exp(-a) - 1 = exp(-a) (b - exp(a))``).  (proved, signs used)."""
    used: set = set()
    if not g.has(sympy.log) and g.has(sympy.exp):  # exp(a) + exp(b) >= 2 exp((a + b)/2): kernel/exp_monomials.py
        return exp_monomial_proof(g, strict, domain)
    if not g.has(sympy.log) or sympy.count_ops(g) > MAX_OPS or not _real_here(g, domain, used, by_facts):
        return False, set()
    ok, signs = _exp_margin(g, strict, domain, member_sign, by_facts)
    if ok:
        return True, used | set(signs)
    # a positive factor divided out first: log(Σ_c exp(β z_c))/β - z_a by its numerator (the denominator
    # proved positive), β log(Σ_c exp(z_c/β)) - z_a as log(Σ_c exp(z_c/β)) - z_a/β (a log's coefficient)
    num, den = sympy.fraction(sympy.together(g))
    factors = [den] if den != 1 and not den.has(sympy.log) else []
    factors += [sympy.expand(g).coeff(lg) for lg in sorted(g.atoms(sympy.log), key=sympy.default_sort_key)]
    for k in dict.fromkeys(factors):
        mine: set = set()
        if k.is_number or k.has(sympy.log) or not bounds(k, domain, mine).positive():
            continue
        ok, signs = _exp_margin(num if k == den else sympy.expand(g / k), strict, domain, member_sign, by_facts)
        if ok:
            return True, used | mine | set(signs)
    return False, set()


def _exp_margin(g, strict: bool, domain, member_sign=None, by_facts=None) -> tuple[bool, set]:
    h = sympy.expand(sympy.exp(g), power_exp=True, mul=False, multinomial=False, log=False) - 1
    if h.has(sympy.log):  # exp did not take the logarithms away: nothing gained, but against an assumed exp
        return by_facts(h, strict) if by_facts is not None and h.has(sympy.exp) else (False, set())
    ok, signs = sign_proof(h, strict, domain)
    if not ok:  # log(exp(a) + exp(b)) >= (a + b)/2 + log 2: exp(g) - 1 as a polynomial in exp(a/2), exp(b/2)
        ok, signs = exp_monomial_proof(h, strict, domain)
    if ok:
        return ok, signs
    split, more = split_members(h, domain)  # log(Σ_j exp(x_j)) - x_1: exp(x_1) written out of the sum
    ok, signs = sign_proof(sympy.expand(split), strict, domain) if split != h else (False, set())
    if ok:
        return ok, set(signs) | more
    # the sums compared term by term (log(Σ_j exp(x_j)) <= max(x) + log(n): n exp(max(x)) - Σ_j exp(x_j) >= 0)
    # (with the facts read at each member: x_j <= M gives n exp(M) - Σ_j exp(x_j) >= 0)
    ok, signs = termwise_proof(h, strict, domain, member_sign=member_sign) if h.has(DSum) else (False, set())
    return (ok, signs) if ok or by_facts is None else by_facts(h, strict)


def _real_here(x, domain, used, by_facts=None) -> bool:
    """``x`` is a real number wherever it is defined: built from reals by +, *, integer powers, exp, and
    logarithms of arguments the interval evaluator proves positive, or ``by_facts`` does from the assumed
    inequalities (``b > 0`` from ``exp(a) <= b``) (moments and sums of reals are real)."""
    if isinstance(x, sympy.log):
        arg = x.args[0]
        if not _real_here(arg, domain, used, by_facts):
            return False
        if bounds(arg, domain, used).positive():
            return True
        ok, signs = by_facts(arg, True) if by_facts is not None else (False, set())
        used |= set(signs) if ok else set()
        return ok
    if isinstance(x, (sympy.Add, sympy.Mul, sympy.exp)):
        return all(_real_here(a, domain, used, by_facts) for a in x.args)
    if isinstance(x, sympy.Pow):
        return _real_here(x.base, domain, used, by_facts) and (
            x.exp.is_Integer or x.exp.is_Rational and bounds(x.base, domain, used).nonnegative())
    return bool(x.is_extended_real) or isinstance(x, (E, DSum)) and not x.has(sympy.log)

