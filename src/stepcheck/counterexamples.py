"""Counterexamples in the checker: failed links, `refute`, `--why`, cross-checks.

The finite-model side lives in ``models.py`` and never calls the kernel.
(Placeholder hooks: the model finder is being built; until then these do
nothing and `refute` is reported as unknown.)
"""
from __future__ import annotations

from .results import UNKNOWN, LinkResult, StepResult


def attach_counterexample(checker, lr: LinkResult, lhs, rhs, candidates, outcome) -> None:
    """Search a finite model refuting a link that did not hold; fill lr.counterexample."""
    return None


def cross_check(checker, lr: LinkResult, lhs, rhs, outcome) -> None:
    """Evaluate a link the kernel accepted on random finite models of its assumptions."""
    return None


def refute_step(checker, st) -> StepResult:
    lk = st.links[0]
    res = StepResult(st.name.name, st.span, "refute", checker.src(st.first.span), lk.rel, [], UNKNOWN)
    res.links.append(LinkResult(1, lk.rel, checker.src(st.first.span), checker.src(lk.rhs.span), lk.span, UNKNOWN,
                                message="`refute` needs the counterexample search, not in this version"))
    return res


def why_pass(checker) -> None:
    """For every assumption a result rests on: is it needed? (needs the model finder)"""
    return None
