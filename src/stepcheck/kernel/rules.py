"""The kernel's rules: the one home of their names.

Every rule name the kernel can put in a proof's trace is registered here, with
whether a user may cite it in a `by` list and a one-line description.  The
checker resolves `by NAME` against this table, the docs' rule table is checked
against it (tests/test_architecture.py), and :class:`~.normal.Trace` refuses a
name that is not registered.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Rule:
    name: str
    doc: str
    citable: bool = True
    # applied by every proof (plain expansion and cancellation): citing it is
    # allowed and never reported as unneeded, and it is not listed as a rule
    implicit: bool = False


RULES: dict[str, Rule] = {r.name: r for r in (
    Rule("linearity", "E[aX + bY + c] = a E[X] + b E[Y] + c, also through sums"),
    Rule("def Var", "Var(X) = E[X^2] - E[X]^2"),
    Rule("def Cov", "Cov(X, Y) = E[XY] - E[X] E[Y]"),
    Rule("def SD", "SD(X) = sqrt(Var(X))"),
    Rule("factorization", "E[f(A) g(B)] = E[f(A)] E[g(B)] for independent A, B"),
    Rule("sums", "diagonal / off-diagonal split of sums, counting, Kronecker deltas"),
    Rule("facts", "equation facts instantiated at the indices in play"),
    Rule("calculus", "derivatives, limits and extrema (sympy diff / limit, checked side conditions)"),
    Rule("inequality", "a sign proved by interval enclosure of the factors of the margin"),
    Rule("tangent", "exp(u) >= 1 + u and log(v) <= v - 1 (v > 0): each value written as its tangent line plus a gap >= 0"),
    Rule("monotone", "a margin g with logarithms (of arguments proved positive) compared through exp: g >= 0 iff exp(g) >= 1"),
    Rule("termwise", "sums over one range merged into one (c Σ a + d Σ b = Σ (c a + d b)); |Σ a| <= Σ |a| (a gap >= 0)"),
    Rule("bounded", "E[g] <= R where g <= R on every outcome; Var(Y) <= E[Y^2] <= b^2 where |Y| <= b on every outcome"),
    Rule("jensen", "E[f(w)] >= f(E[w]) for a convex f (exp, |.|, an even power), <= for a concave one (log, sqrt)"),
    Rule("cauchy_schwarz", "E[u v]^2 <= E[u^2] E[v^2] and Cov(u, v)^2 <= Var(u) Var(v) for random u, v"),
    Rule("quotient", "a margin a / D^k + b with D > 0 and b of a proved sign has the sign of a / |b| - D^k (b < 0) or a / |b| + D^k (b > 0)"),
    Rule("squared", "A <= B for A, B >= 0 (proved by intervals) as A^2 <= B^2"),
    Rule("attained", "max(s) (min(s)) of a deterministic family is one of its members s_M: proved for every M"),
    Rule("cases", "max/min of two arguments: one proof where the first is larger, one where the second is"),
    Rule("algebra", "expansion and cancellation of polynomials and rational functions", implicit=True),
)}


def rule(name: str) -> str:
    """``name`` itself, after checking that it is a registered rule (a kernel bug otherwise)."""
    if name not in RULES:
        raise KeyError(f"unregistered kernel rule {name!r}")
    return name


def citable() -> list[str]:
    return sorted(n for n, r in RULES.items() if r.citable)
